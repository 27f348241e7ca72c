package charge_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// chunkSizes are the chunk sizes the bound tests scan with: bytes at a time
// up to past every test string, so each bound is met at a chunk boundary,
// inside a chunk and in the trip path.
var chunkSizes = []int{1, 2, 3, 5, 8, 13, 1 << 16}

// TestTheBudgetAtAndOnePastOnEveryPath: each document is admitted under a
// budget of exactly its charge and refused, at the byte that passes it, under
// one less — through every way the scan charges: short strings whole, the
// word loop, odd ASCII, multi-byte runs, two-byte and \u escapes, surrogate
// pairs, member names short and long, short integers, other numbers and
// literals — at every chunk size.
func TestTheBudgetAtAndOnePastOnEveryPath(t *testing.T) {
	long := strings.Repeat("a", 40)
	cases := []struct {
		name, doc string
		off       int // where the refusal under one less lands
	}{
		{"short_string", `"aaaaa"`, 5},
		{"short_name_then_number", `{"aaaa":1}`, 8},
		{"short_name_then_string", `{"aaaa":"b"}`, 9},
		{"short_name", `{"aaaaa":[]}`, 6},
		{"short_element", `["aaaaa"]`, 6},
		{"long_string", `"` + long + `"`, 40},
		{"del_run", `"` + strings.Repeat("\x7f", 6) + `"`, 6},
		{"U0600_run", `"` + strings.Repeat("\u0600", 4) + `"`, 7},
		{"cjk_run", `"` + strings.Repeat("中", 4) + `"`, 10},
		{"astral_run", `"😀😀😀"`, 9},
		{"two_byte_escapes", `"a\n\n"`, 4},
		{"trailing_backslash", `"a\\"`, 2}, // go renders a trailing backslash a byte narrower
		{"backslash", `"a\\b"`, 4},
		{"u_escapes", `"a\u00e9\u00e9"`, 8},
		{"u_escape_word_run", `["a\u00e9\u00e9"]`, 9},                                // the word-at-a-time \u run: two bytes past the escape
		{"u_escape_run_of_five", `["` + strings.Repeat(`\u4e2d`, 5) + `"]`, 2 + 4*6}, // its fifth escape passes
		{"surrogate_pairs", `"\ud83d\ude00\ud83d\ude00"`, 13},
		{"short_integers", `[1,22,333]`, 6},
		{"fraction", `[1,1.5]`, 3},
		{"literals", `[true,null]`, 6},
		{"long_second_name", `{"k":"v","` + long + `":[]}`, 10 + 39},
		{"long_name", `{"` + long + `":[]}`, 41},
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				full, ref := check(t, gate(t, d, charge.DefaultLimits()), []byte(c.doc))
				if ref != nil {
					t.Fatalf("%s %q: refused under the defaults: %v", d, c.doc, ref)
				}
				for _, chunk := range chunkSizes {
					l := charge.DefaultLimits()
					l.MaxParamsRenderedChars = full.Charge
					g := gate(t, d, l)
					charge.SetChunkBytes(g, chunk)
					if _, ref := check(t, g, []byte(c.doc)); ref != nil {
						t.Errorf("%s chunk %d %q: refused at its own charge %d: %v", d, chunk, c.doc, full.Charge, ref)
					}
					l.MaxParamsRenderedChars--
					g = gate(t, d, l)
					charge.SetChunkBytes(g, chunk)
					rep, ref := check(t, g, []byte(c.doc))
					if ref == nil || ref.Bound != charge.BoundCharge || ref.Offset != c.off || ref.Limit != l.MaxParamsRenderedChars {
						t.Errorf("%s chunk %d %q under %d: got %v, want a charge refusal at %d", d, chunk, c.doc, l.MaxParamsRenderedChars, ref, c.off)
					}
					if rep.Charge <= l.MaxParamsRenderedChars { // Report: under BoundCharge it exceeds the budget
						t.Errorf("%s chunk %d %q under %d: the refusal's report charges %d", d, chunk, c.doc, l.MaxParamsRenderedChars, rep.Charge)
					}
				}
			})
		}
	})
}

// TestEveryCountedLimitAtAndOnePast: each structural and number bound admits
// a document at it and refuses one a unit past it at the byte that passes it:
// nodes ending on an element, a name and a value; nesting by arrays and by
// objects; number length on the short-integer path and the general one, in
// arrays and as member values; exponents both signs.
func TestEveryCountedLimitAtAndOnePast(t *testing.T) {
	type limit func(*charge.Limits)
	nodes := func(n int) limit { return func(l *charge.Limits) { l.MaxParamsNodes = n } }
	nesting := func(n int) limit { return func(l *charge.Limits) { l.MaxParamsNesting = n } }
	numBytes := func(n int) limit { return func(l *charge.Limits) { l.MaxNumberBytes = n } }
	exponent := func(n int) limit { return func(l *charge.Limits) { l.MaxNumberExponent = n } }
	cases := []struct {
		name     string
		set      limit
		at, past string
		bound    charge.Bound
		off      int
	}{
		{"nodes, an element", nodes(3), `[1,2]`, `[1,2,3]`, charge.BoundNodes, 5},
		{"nodes, a name", nodes(3), `{"a":1}`, `{"a":1,"b":2}`, charge.BoundNodes, 7},
		{"nodes, a value", nodes(4), `{"a":[1]}`, `{"a":[],"b":"x"}`, charge.BoundNodes, 12},
		{"nesting, arrays", nesting(2), `[[1]]`, `[[[1]]]`, charge.BoundNesting, 2},
		{"nesting, objects", nesting(2), `{"a":{"b":1}}`, `{"a":{"b":{}}}`, charge.BoundNesting, 10},
		{"number bytes, short integer", numBytes(2), `[12]`, `[123]`, charge.BoundNumberBytes, 3},
		{"number bytes, short integer value", numBytes(2), `{"a":12}`, `{"a":123}`, charge.BoundNumberBytes, 7},
		{"number bytes, general", numBytes(4), `-1.5`, `-1.25`, charge.BoundNumberBytes, 4},
		{"number bytes, long integer", numBytes(5), `[12345]`, `[123456]`, charge.BoundNumberBytes, 6},
		{"exponent", exponent(12), `1e12`, `1e13`, charge.BoundNumberExponent, 3},
		{"negative exponent", exponent(12), `[1E-012]`, `[1E-013]`, charge.BoundNumberExponent, 6},
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		for _, c := range cases {
			t.Run(caseName(c.name), func(t *testing.T) {
				l := charge.DefaultLimits()
				c.set(&l)
				for _, chunk := range chunkSizes {
					g := gate(t, d, l)
					charge.SetChunkBytes(g, chunk)
					if _, ref := check(t, g, []byte(c.at)); ref != nil {
						t.Errorf("%s %s: at the bound, refused: %v", d, c.name, ref)
					}
					_, ref := check(t, g, []byte(c.past))
					if ref == nil || ref.Bound != c.bound || ref.Offset != c.off {
						t.Errorf("%s %s: one past, got %v, want %s at %d", d, c.name, ref, c.bound, c.off)
					}
				}
			})
		}
	})
}

// TestValidateAtEachBoundAndOnePast: every Limits field Validate bounds is
// accepted at its bound and refused one past it, with an error naming the
// field; the bounds are written here as documented (1 for the positive
// fields, 0 for the allowance and the exponent, CPython's 4,300 digits, 997
// levels: one under the go-sdk's 998), not read from the package. At the
// upper bounds the gate also holds the limit on a document: a 4,300-digit
// integer and 997 levels are admitted, one more refused.
func TestValidateAtEachBoundAndOnePast(t *testing.T) {
	type set func(*charge.Limits, int64)
	cases := []struct {
		field    string
		set      set
		at, past int64
	}{
		{"MaxSourceFileBytes", func(l *charge.Limits, v int64) { l.MaxSourceFileBytes = v }, 1, 0},
		{"MaxParamsRenderedChars", func(l *charge.Limits, v int64) { l.MaxParamsRenderedChars = v }, 1, 0},
		{"MaxParamsNodes", func(l *charge.Limits, v int64) { l.MaxParamsNodes = int(v) }, 1, 0},
		{"MaxParamsNesting", func(l *charge.Limits, v int64) { l.MaxParamsNesting = int(v) }, 1, 0},
		{"MaxParamsNesting", func(l *charge.Limits, v int64) { l.MaxParamsNesting = int(v) }, 997, 998},
		{"MaxNumberBytes", func(l *charge.Limits, v int64) { l.MaxNumberBytes = int(v) }, 1, 0},
		{"MaxNumberBytes", func(l *charge.Limits, v int64) { l.MaxNumberBytes = int(v) }, 4300, 4301},
		{"EnvelopeAllowance", func(l *charge.Limits, v int64) { l.EnvelopeAllowance = v }, 0, -1},
		{"MaxNumberExponent", func(l *charge.Limits, v int64) { l.MaxNumberExponent = int(v) }, 0, -1},
	}
	for _, c := range cases {
		t.Run(c.field+"="+strconv.FormatInt(c.at, 10), func(t *testing.T) {
			l := charge.DefaultLimits()
			c.set(&l, c.at)
			if err := l.Validate(); err != nil {
				t.Errorf("%s = %d (at its bound): %v", c.field, c.at, err)
			}
			if _, err := charge.NewGate(charge.Go, l); err != nil {
				t.Errorf("%s = %d (at its bound): NewGate: %v", c.field, c.at, err)
			}
			c.set(&l, c.past)
			err := l.Validate()
			if err == nil || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), strconv.FormatInt(c.past, 10)) {
				t.Errorf("%s = %d (one past its bound): Validate said %v, want an error naming the field and the value", c.field, c.past, err)
			}
			if _, err := charge.NewGate(charge.Go, l); err == nil {
				t.Errorf("%s = %d (one past its bound): NewGate accepted it", c.field, c.past)
			}
		})
	}

	forDialects(t, func(t *testing.T, d charge.Dialect) {
		l := charge.DefaultLimits()
		l.MaxNumberBytes = 4300
		g := gate(t, d, l)
		if _, ref := check(t, g, []byte("["+strings.Repeat("9", 4300)+"]")); ref != nil {
			t.Errorf("%s: a 4,300-digit integer under MaxNumberBytes 4300: %v", d, ref)
		}
		if _, ref := check(t, g, []byte("["+strings.Repeat("9", 4301)+"]")); ref == nil || ref.Bound != charge.BoundNumberBytes || ref.Offset != 4301 {
			t.Errorf("%s: a 4,301-digit integer under MaxNumberBytes 4300: %v, want number-length at 4301", d, ref)
		}
		l = charge.DefaultLimits()
		l.MaxParamsNesting = 997
		g = gate(t, d, l)
		if _, ref := check(t, g, []byte(strings.Repeat("[", 997)+strings.Repeat("]", 997))); ref != nil {
			t.Errorf("%s: 997 levels under MaxParamsNesting 997: %v", d, ref)
		}
		if _, ref := check(t, g, []byte(strings.Repeat("[", 998)+strings.Repeat("]", 998))); ref == nil || ref.Bound != charge.BoundNesting || ref.Offset != 997 {
			t.Errorf("%s: 998 levels under MaxParamsNesting 997: %v, want nesting at 997", d, ref)
		}
		l = charge.DefaultLimits()
		l.MaxNumberExponent = 0
		g = gate(t, d, l)
		if _, ref := check(t, g, []byte("[1e0,1E-0,1e+00]")); ref != nil {
			t.Errorf("%s: exponents of 0 under MaxNumberExponent 0: %v", d, ref)
		}
		if _, ref := check(t, g, []byte("[1e1]")); ref == nil || ref.Bound != charge.BoundNumberExponent || ref.Offset != 3 {
			t.Errorf("%s: 1e1 under MaxNumberExponent 0: %v, want number-exponent at 3", d, ref)
		}
	})
}
