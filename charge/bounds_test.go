package charge_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// TestTheBudgetAtAndPastOnEveryTokenPath drives the charge budget to exactly
// a document's reference charge (admitted) and one below it (refused at the
// last token) through every path that spends: the short-integer inline path,
// the number scanner (long integers, fractions, exponents, negatives), each
// literal, a string and a member name. The budget comes from the reference
// renderer, not from the gate.
func TestTheBudgetAtAndPastOnEveryTokenPath(t *testing.T) {
	cases := []struct {
		name, doc string
		last      string // the token the budget runs out on; "" for a string's
	}{
		{"inline integer", `["a",123]`, "123"},
		{"inline single digit", `[7,0]`, "0"},
		{"scanned integer", `["a",1234]`, "1234"},
		{"long integer", `[1,12345678901234567]`, "12345678901234567"},
		{"negative", `[1,-5]`, "-5"},
		{"fraction", `[1,2.5]`, "2.5"},
		{"exponent", `[1,1e5]`, "1e5"},
		{"true", `[1,true]`, "true"},
		{"false", `[1,false]`, "false"},
		{"null", `[1,null]`, "null"},
		{"string", `[1,"abcd"]`, ""},
		{"member name", `{"a":1,"bcd":[]}`, ""},
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		for _, c := range cases {
			t.Run(caseName(c.name), func(t *testing.T) {
				v, err := reference.Decode([]byte(c.doc))
				if err != nil {
					t.Fatal(err)
				}
				want := reference.Charge(d, v)
				l := charge.DefaultLimits()
				l.MaxParamsRenderedChars = want
				rep, ref := check(t, gate(t, d, l), []byte(c.doc))
				if ref != nil || rep.Charge != want {
					t.Errorf("%s/%s: at a budget of its charge %d: %v (charge %d)", d, c.name, want, ref, rep.Charge)
				}
				l.MaxParamsRenderedChars = want - 1
				_, ref = check(t, gate(t, d, l), []byte(c.doc))
				if ref == nil || ref.Bound != charge.BoundCharge || ref.Limit != want-1 {
					t.Errorf("%s/%s: one past a budget of %d: %v", d, c.name, want-1, ref)
					return
				}
				if c.last != "" {
					if at := strings.LastIndex(c.doc, c.last); ref.Offset != at {
						t.Errorf("%s/%s: refused at byte %d, want %d (the token's start)", d, c.name, ref.Offset, at)
					}
				}
			})
		}
	})
}

// TestNodesAndNestingAtAndPastOnEveryValueKind: the node and nesting bounds
// trip on whatever value kind completes them (number fast and slow path,
// literal, string, name, container).
func TestNodesAndNestingAtAndPastOnEveryValueKind(t *testing.T) {
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		for _, c := range []struct{ name, last string }{
			{"short_integer", "1"}, {"integer", "1234"}, {"fraction", "1.5"}, {"true", "true"}, {"null", "null"},
			{"string", `"s"`}, {"array", "[]"}, {"object", "{}"},
		} {
			t.Run(c.name, func(t *testing.T) {
				doc := `[0,` + c.last + `]` // 3 nodes
				l := charge.DefaultLimits()
				l.MaxParamsNodes = 3
				if _, ref := check(t, gate(t, d, l), []byte(doc)); ref != nil {
					t.Errorf("%s %s: 3 nodes at a bound of 3: %v", d, doc, ref)
				}
				l.MaxParamsNodes = 2
				_, ref := check(t, gate(t, d, l), []byte(doc))
				if ref == nil || ref.Bound != charge.BoundNodes || ref.Offset != 3 {
					t.Errorf("%s %s: 3 nodes at a bound of 2: %v, want nodes at byte 3", d, doc, ref)
				}
			})
		}
		t.Run("member_name", func(t *testing.T) {
			doc := `{"a":1,"b":2}` // 5 nodes: the name b is the 4th
			l := charge.DefaultLimits()
			l.MaxParamsNodes = 3
			if _, ref := check(t, gate(t, d, l), []byte(doc)); ref == nil || ref.Bound != charge.BoundNodes || ref.Offset != 7 {
				t.Errorf("%s %s: a member name past the node bound: %v, want nodes at byte 7", d, doc, ref)
			}
		})
		t.Run("nesting", func(t *testing.T) {
			l := charge.DefaultLimits()
			l.MaxParamsNesting = 2
			if rep, ref := check(t, gate(t, d, l), []byte(`[{"a":[]}]`)); ref == nil || ref.Bound != charge.BoundNesting || ref.Offset != 6 || rep.Depth > 2 {
				t.Errorf("%s: depth 3 at a bound of 2: %v (depth %d), want nesting at byte 6", d, ref, rep.Depth)
			}
			if rep, ref := check(t, gate(t, d, l), []byte(`[{"a":1}]`)); ref != nil || rep.Depth != 2 {
				t.Errorf("%s: depth 2 at a bound of 2: %v (depth %d)", d, ref, rep.Depth)
			}
		})
	})
}

// TestTheWidestRefusalMeasured builds the widest refusal the gate can give,
// independently of MaxRefusalBytes' arithmetic: every bound the gate refuses
// with (its text and unit taken from a real refusal), the widest limit and
// offset (int64 and int at their maximum) and the widest pointer (measured
// over candidate locations, not taken from MaxPointerBytes). It must fit
// MaxRefusalBytes, and MaxRefusalBytes must not overstate it by more than the
// two sign bytes it reserves for the limit and the offset.
func TestTheWidestRefusalMeasured(t *testing.T) {
	pointer := ""
	for _, seg := range []string{strings.Repeat("a", 100), strings.Repeat(`"`, 100), strings.Repeat("\u0600", 100),
		strings.Repeat("\U0001F600", 100), strings.Repeat("~", 100), strings.Repeat("/", 100), "\xff\xff\xff\xff\xff\xff\xff"} {
		for _, depth := range []int{charge.PointerSegments, charge.PointerSegments + 1, 100} {
			toks := make([]string, depth)
			for i := range toks {
				toks[i] = seg
			}
			if p := charge.DisplayPointer(toks); len(p) > len(pointer) {
				pointer = p
			}
		}
	}
	if len(pointer) != charge.MaxPointerBytes {
		t.Errorf("widest pointer measured %d bytes, MaxPointerBytes %d", len(pointer), charge.MaxPointerBytes)
	}
	widest := 0
	for _, d := range charge.Dialects() {
		for _, r := range everyBoundsRefusal(t, d) {
			r.Limit, r.Offset, r.Pointer = math.MaxInt64, math.MaxInt, pointer
			widest = max(widest, len(r.Error()))
		}
	}
	if max := charge.MaxRefusalBytes(); widest > max || max-widest > 2 {
		t.Errorf("widest refusal measured %d bytes; MaxRefusalBytes %d", widest, max)
	}
}

// everyBoundsRefusal has the gate refuse one document per bound, under small
// limits, and fails unless every bound was reached.
func everyBoundsRefusal(t *testing.T, d charge.Dialect) []*charge.Refusal {
	t.Helper()
	l := charge.Limits{MaxSourceFileBytes: 1, MaxParamsRenderedChars: 8, MaxParamsNodes: 4,
		MaxParamsNesting: 2, MaxNumberBytes: 4, MaxNumberExponent: 9}
	docs := []string{`[`, "[\"\xff\"]", `["\udc00"]`, "[\"\x01\"]", `{"a":1,"a":2}`, `[] 1`,
		`[[[]]]`, `[1,2,3,4]`, `[12345]`, `[1e10]`, `["abcdefghi"]`}
	g := gate(t, d, l)
	seen := map[charge.Bound]*charge.Refusal{}
	for _, doc := range docs {
		if _, ref := check(t, g, []byte(doc)); ref != nil {
			seen[ref.Bound] = ref
		}
	}
	var out []*charge.Refusal
	for _, b := range charge.Bounds() {
		if seen[b] == nil {
			t.Fatalf("%s: no document reached bound %s", d, b)
		}
		out = append(out, seen[b])
	}
	return out
}

// TestExponentPrefixAtTheLimit: an exponent whose leading digits equal the
// limit and go on is past it (the scan keeps reading once it reaches the
// limit), refused at the digit that passes it.
func TestExponentPrefixAtTheLimit(t *testing.T) {
	l := charge.DefaultLimits() // MaxNumberExponent 999
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, l)
		for _, c := range []struct {
			name, doc string
			at        int
		}{{"1e9990", `[1e9990]`, 6}, {"1e-9990", `[1e-9990]`, 7}, {"1E_plus_09990", `[1E+09990]`, 8}} {
			t.Run(c.name, func(t *testing.T) {
				if _, ref := check(t, g, []byte(c.doc)); ref == nil || ref.Bound != charge.BoundNumberExponent || ref.Offset != c.at {
					t.Errorf("%s %s: %v, want number-exponent at byte %d", d, c.doc, ref, c.at)
				}
			})
		}
		t.Run("1e0999_admitted", func(t *testing.T) {
			if _, ref := check(t, g, []byte(`[1e0999]`)); ref != nil {
				t.Errorf("%s: 1e0999 (exponent 999, a leading zero): %v", d, ref)
			}
		})
	})
}

// TestExponentAtTheLargestLimit: under MaxNumberExponent at the largest
// int, an exponent of that magnitude is admitted and one more, or a digit
// more, is refused at the digit that passes it: the scan's magnitude never
// overflows into a small one.
func TestExponentAtTheLargestLimit(t *testing.T) {
	l := charge.DefaultLimits()
	l.MaxNumberBytes, l.MaxNumberExponent = 64, math.MaxInt
	most := strconv.Itoa(math.MaxInt) // 19 digits
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, l)
		for _, doc := range []string{"[1e" + most + "]", "[1E-" + most + "]", "[1e+0" + most + "]"} {
			if _, ref := check(t, g, []byte(doc)); ref != nil {
				t.Errorf("%s: %s (the limit): %v", d, doc, ref)
			}
		}
		for _, c := range []struct {
			doc string
			at  int
		}{
			{"[1e9223372036854775808]", 21},  // the limit plus one
			{"[1e-9223372036854775810]", 22}, // past it by its last digit
			{"[1e" + most + "0]", 22},        // a digit more
			{"[1e99999999999999999999]", 21}, // twenty nines: the nineteenth passes
			{"[1e18446744073709551617]", 22}, // 2^64+1, which an unchecked int64 wraps to 1
		} {
			if _, ref := check(t, g, []byte(c.doc)); ref == nil || ref.Bound != charge.BoundNumberExponent || ref.Offset != c.at {
				t.Errorf("%s: %s: %v, want number-exponent at byte %d", d, c.doc, ref, c.at)
			}
		}
	})
}

// TestEveryPrefixRefusedWithoutReadingPast: a document cut at any byte is
// refused (never read past its end), and a bare literal or number that ends
// the document is admitted; a continuation byte opening a character is not
// UTF-8.
func TestEveryPrefixRefusedWithoutReadingPast(t *testing.T) {
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		full := `{"a" : [true, false, null, -1.5e3, "x\u00e9y"], "b":{}}`
		t.Run("every_prefix", func(t *testing.T) {
			for n := 1; n < len(full); n++ {
				if _, ref := check(t, g, []byte(full[:n])); ref == nil {
					t.Errorf("%s: cut at %d admitted: %q", d, n, full[:n])
				}
			}
		})
		for _, c := range []struct{ name, doc string }{
			{"whole", full}, {"true", "true"}, {"false", "false"}, {"null", "null"}, {"7", "7"}, {"123", "123"}, {"1234", "1234"}, {"string", `"s"`},
		} {
			t.Run(c.name, func(t *testing.T) {
				if _, ref := check(t, g, []byte(c.doc)); ref != nil {
					t.Errorf("%s %s: %v", d, c.doc, ref)
				}
			})
		}
		for _, c := range []struct{ name, doc string }{
			{"continuation_first", "[\"\x80\"]"}, {"continuation_after_a", "[\"a\x80\"]"}, {"lead_then_quote", "[\"\xc3\"]"}, {"continuation_in_a_name", "{\"\x80\":1}"},
		} {
			t.Run(c.name, func(t *testing.T) {
				if _, ref := check(t, g, []byte(c.doc)); ref == nil || ref.Bound != charge.BoundUTF8 {
					t.Errorf("%s %q: %v, want utf8", d, c.doc, ref)
				}
			})
		}
	})
}

// TestRawCharactersCutAtTheEnd: a string whose last character is cut inside
// its UTF-8 sequence at the document's end is refused, never read past (each
// fast path checks the bytes it reads exist).
func TestRawCharactersCutAtTheEnd(t *testing.T) {
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for _, ch := range []string{"é", "中", "😀"} {
			t.Run(fmt.Sprintf("U%04X", []rune(ch)[0]), func(t *testing.T) {
				for _, lead := range []string{`"`, `"` + strings.Repeat("\u0600", 9), `["abcdefghij`} {
					for cut := 1; cut < len(ch); cut++ {
						doc := lead + ch[:cut]
						if _, ref := check(t, g, []byte(doc)); ref == nil {
							t.Errorf("%s %q admitted", d, doc)
						}
					}
				}
			})
		}
	})
}
