package charge_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// TestSurrogateEscapesAtTheRangeEdges: \u escapes at each edge of the
// surrogate ranges — the scalars just outside them, the first and last pair,
// a high half followed by the \u escapes just outside the low range, and lone
// halves at both ends — admitted and charged as the reference charges them,
// or refused as a lone surrogate at the first half's backslash, also when the
// document ends right after the escapes.
func TestSurrogateEscapesAtTheRangeEdges(t *testing.T) {
	admitted := []string{`"\ud7ff"`, `"\ue000"`, `"\ud800\udc00"`, `"\ud800\udfff"`, `"\udbff\udc00"`, `"\udbff\udfff"`}
	refused := []string{`"\ud800"`, `"\udbff"`, `"\udc00"`, `"\udfff"`, `"\ud800\udbff"`, `"\ud800\ue000"`,
		`"\udbff\ud7ff"`, `"\udbff\ue000"`, `"\ud800\u0041"`,
		// A low half first, at each end of its range, then another low half
		// (no pair: not decoded as one past U+10FFFF), or \u and no hex:
		// the surrogate is what is refused, not the bad hex after it.
		`"\udc00\udc00"`, `"\udc00\udfff"`, `"\udfff\udc00"`, `"\udc00\uzzzz"`, `"\udfff\uzzzz"`, `"\udc00\u00"`}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		t.Run("admitted", func(t *testing.T) {
			for _, doc := range admitted {
				t.Run(caseName(doc), func(t *testing.T) {
					for _, wrap := range []string{"%s", "[%s]", `{"k":%s}`, `{%s:0}`} {
						in := strings.Replace(wrap, "%s", doc, 1)
						v, err := reference.Decode([]byte(in))
						if err != nil {
							t.Fatalf("%s: the reference cannot decode it: %v", in, err)
						}
						rep, ref := check(t, g, []byte(in))
						if ref != nil || rep.Charge != reference.Charge(d, v) {
							t.Errorf("%s %s: charge %d (%v), reference %d", d, in, rep.Charge, ref, reference.Charge(d, v))
						}
					}
				})
			}
		})
		t.Run("refused", func(t *testing.T) {
			for _, doc := range refused {
				t.Run(caseName(doc), func(t *testing.T) {
					// The last form ends right after the escapes, with no
					// closing quote: the surrogate is still what is refused.
					for _, wrap := range []string{"%s", "[%s]", `{"k":%s}`, `{%s:0}`, strings.TrimSuffix(doc, `"`)} {
						in := strings.Replace(wrap, "%s", doc, 1) // the cut form has no %s
						_, ref := check(t, g, []byte(in))
						if ref == nil || ref.Bound != charge.BoundSurrogate || ref.Offset != strings.Index(in, `\`) {
							t.Errorf("%s %s: %v, want surrogate at %d", d, in, ref, strings.Index(in, `\`))
						}
					}
				})
			}
		})
	})
}

// TestAnEscapeAtTheDocumentsEndPastTheBudget: a document cut right after an
// escape is refused at the escape's backslash when the escape passes the
// budget — go's allowance for a trailing backslash (a byte narrower before the
// closing quote) needs the quote, which is not there — and as cut short, at
// its end, when it does not; either way nothing past the end is read.
func TestAnEscapeAtTheDocumentsEndPastTheBudget(t *testing.T) {
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		for _, c := range []struct{ name, esc, decoded string }{
			{"backslash", `\\`, `\`}, {"newline", `\n`, "\n"}, {"u00e9", `\u00e9`, "é"}, {"quote", `\"`, `"`},
		} {
			t.Run(c.name, func(t *testing.T) {
				w := refWidth(d, "a"+c.decoded+"z") - 1 // "a" and the escape, not at the string's end
				for _, wrap := range []string{`"a%s`, `["a%s`, `{"a%s`, `{"k":"a%s`} {
					doc := strings.Replace(wrap, "%s", c.esc, 1)
					for budget := int64(1); budget <= w; budget++ {
						l := charge.DefaultLimits()
						l.MaxParamsRenderedChars = budget + int64(strings.Count(wrap, `"k"`)) // the name k costs 1
						_, ref := check(t, gate(t, d, l), []byte(doc))
						bound, off := charge.BoundSyntax, len(doc)
						if budget < w {
							bound, off = charge.BoundCharge, strings.LastIndex(doc, c.esc)
						}
						if ref == nil || ref.Bound != bound || ref.Offset != off {
							t.Errorf("%s %s under %d: %v, want %s at %d", d, doc, l.MaxParamsRenderedChars, ref, bound, off)
						}
					}
				}
			})
		}
	})
}

// TestPythonEscapedSingleQuotesWithADouble: a string that holds a " is
// delimited by ' in Python's repr, which then escapes every ', raw or written
// \u0027: each costs one more. Charged as the reference charges it, as a value
// and as a name, and refused one under at the closing quote.
func TestPythonEscapedSingleQuotesWithADouble(t *testing.T) {
	for _, c := range []struct{ name, s string }{
		{"escaped_apostrophe_quote", `\u0027\"`},
		{"its_q", `it\u0027s \"q\"`},
		{"quote_escaped_apostrophes_raw_apostrophe", `\"\u0027\u0027'`},
		{"raw_apostrophe_escaped_apostrophe_quote", `'\u0027\"`},
		{"escaped_apostrophe_escaped_quote", `\u0027\u0022`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.s
			for _, wrap := range []string{`"%s"`, `{"%s":[]}`, `["x","%s"]`} {
				doc := strings.Replace(wrap, "%s", s, 1)
				v, err := reference.Decode([]byte(doc))
				if err != nil {
					t.Fatal(err)
				}
				full := reference.Charge(charge.Python, v)
				l := charge.DefaultLimits()
				l.MaxParamsRenderedChars = full
				if rep, ref := check(t, gate(t, charge.Python, l), []byte(doc)); ref != nil || rep.Charge != full {
					t.Errorf("%s: charged %d (%v), reference %d", doc, rep.Charge, ref, full)
				}
				l.MaxParamsRenderedChars--
				quote := strings.Index(doc, s) + len(s)
				if _, ref := check(t, gate(t, charge.Python, l), []byte(doc)); ref == nil || ref.Bound != charge.BoundCharge || ref.Offset != quote {
					t.Errorf("%s under %d: %v, want a charge refusal at the closing quote, %d", doc, full-1, ref, quote)
				}
			}
		})
	}
}

// TestAHighHalfAndWhatFollowsIt: a high surrogate escape that is not the
// first half of a pair is refused at its backslash — as a lone surrogate,
// unless a \u escape follows whose four hex digits are cut short by the
// document's end or are not hex: that is refused as not JSON, whatever would
// have followed (the verdict never depends on bytes past the end).
func TestAHighHalfAndWhatFollowsIt(t *testing.T) {
	for _, c := range []struct {
		name, after string
		bound       charge.Bound
	}{
		{"u_cut", `\u`, charge.BoundSyntax},
		{"u0_cut", `\u0`, charge.BoundSyntax},
		{"u00d_cut", `\u00d`, charge.BoundSyntax},
		{"u00zz", `\u00zz"`, charge.BoundSyntax},
		{"uzzzz", `\uzzzz"`, charge.BoundSyntax},
		{"u0041", `\u0041"`, charge.BoundSurrogate},
		{"ud800", `\ud800"`, charge.BoundSurrogate},
		{"newline_escape", `\n"`, charge.BoundSurrogate},
		{"quote_escape_cut", `\"`, charge.BoundSurrogate},
		{"backslash_cut", `\`, charge.BoundSurrogate},
		{"closing_quote", `"`, charge.BoundSurrogate},
		{"plain_byte", `x"`, charge.BoundSurrogate},
		{"document_end", ``, charge.BoundSurrogate},
	} {
		t.Run(c.name, func(t *testing.T) {
			forDialects(t, func(t *testing.T, d charge.Dialect) {
				g := gate(t, d, charge.DefaultLimits())
				for _, lead := range []string{`"`, `["ab`, `{"k":"`, `{"`} {
					doc := lead + `\udbff` + c.after
					_, ref := check(t, g, []byte(doc))
					if ref == nil || ref.Bound != c.bound || ref.Offset != len(lead) {
						t.Errorf("%s %s: %v, want %s at %d", d, doc, ref, c.bound, len(lead))
					}
				}
			})
		})
	}
}

// TestEscapedNamesThatArePrefixesOfEachOther: names compared after
// unescaping, one the other's prefix (either first, escaped or not, in the
// linear scan and through the index), are different names; the same pair
// spelled twice is a duplicate.
func TestEscapedNamesThatArePrefixesOfEachOther(t *testing.T) {
	pairs := [][2]string{{`a`, `\u0061b`}, {`\u0061b`, `a`}, {`\u0061`, `ab`}, {`ab`, `\u0061`}, {`\u00e9`, `\u00e9\u00e9`}, {`é\u00e9`, `\u00e9`}}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for _, p := range pairs {
			t.Run(caseName(p[0])+"_then_"+caseName(p[1]), func(t *testing.T) {
				for _, before := range []int{0, 20} { // names before the pair: none, or enough for the index
					var b strings.Builder
					b.WriteByte('{')
					for i := range before {
						fmt.Fprintf(&b, `"n%d":0,`, i)
					}
					head := b.String()
					doc := head + `"` + p[0] + `":1,"` + p[1] + `":2}`
					if _, ref := check(t, g, []byte(doc)); ref != nil {
						t.Errorf("%s %s: %v", d, doc, ref)
					}
					doc = head + `"` + p[0] + `":1,"` + p[1] + `":2,"` + p[0] + `":3}`
					if _, ref := check(t, g, []byte(doc)); ref == nil || ref.Bound != charge.BoundDuplicateName {
						t.Errorf("%s %s: %v, want duplicate-name", d, doc, ref)
					}
				}
			})
		}
	})
}
