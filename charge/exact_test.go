package charge_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// scalars calls f for every Unicode scalar value: all 1,114,112 code points
// but the 2,048 surrogates, which no admitted string can hold.
func scalars(f func(r rune)) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xd800 && r < 0xe000 {
			continue
		}
		f(r)
	}
}

// refWidth is the reference render's width of s without its two quotes.
func refWidth(d charge.Dialect, s string) int64 {
	return reference.Width(d, reference.String(d, s)) - 2
}

// eachDialect runs f for every dialect, the dialects in parallel (the
// exhaustive sweeps take a core each).
func eachDialect(t *testing.T, f func(t *testing.T, d charge.Dialect)) {
	for _, d := range charge.Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			f(t, d)
		})
	}
}

// jsonString writes r into a JSON string both ways a client may: raw UTF-8
// (escaping only what JSON requires) and as \u escapes.
func jsonString(r rune) (raw, escaped string) {
	switch {
	case r == '"':
		raw = `"\""`
	case r == '\\':
		raw = `"\\"`
	case r < 0x20:
		raw = `"` + u4(r, lowerHex) + `"`
	default:
		raw = `"` + string(r) + `"`
	}
	if r < 0x10000 {
		escaped = `"` + u4(r, upperHex) + `"`
	} else {
		r -= 0x10000
		escaped = `"` + u4(0xd800+(r>>10), lowerHex) + u4(0xdc00+(r&0x3ff), lowerHex) + `"`
	}
	return raw, escaped
}

const lowerHex, upperHex = "0123456789abcdef", "0123456789ABCDEF"

// u4 is the escape \uXXXX of r (< 0x10000) in the given hex digits (what
// fmt's %04x and %04X write, without fmt's cost over a million code points).
func u4(r rune, digits string) string {
	return string([]byte{'\\', 'u', digits[r>>12&0xf], digits[r>>8&0xf], digits[r>>4&0xf], digits[r&0xf]})
}

// jsonText is s as a JSON string, escaping only what JSON requires.
func jsonText(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestQuotesAndBackslashes covers the quoting rules on mixed strings.
func TestQuotesAndBackslashes(t *testing.T) {
	// ap is an apostrophe ('), q a quote ("), bs a backslash (\).
	cases := []struct{ name, s string }{
		{"empty", ``}, {"ap", `'`}, {"q", `"`}, {"ap_q", `'"`}, {"q_ap", `"'`}, {"ap_ap_q_q", `''""`},
		{"bs", `\`}, {"bs_ap", `\'`}, {"bs_q", `\"`}, {"ap_bs_q", `'\"`}, {"a_ap_b_ap_c", `a'b'c`}, {"a_q_b_q_c", `a"b"c`},
		{"its_quoted", `it's "quoted"`}, {"a_bs", `a\`}, {"bs_bs_bs", `\\\`}, {"ap_bs", `'\`}, {"q_bs", `"\`}, {"bs_q_bs", `\"\`},
		{"ap_ap_ap_ap_q", `''''"`}, {"tab", "tab\there"}, {"del_ap_q", "\x7f'\""}, {"U0600_ap_q_bs", "\u0600'\"\\"},
		{"bs_bs_bs_bs", `\\\\`}, {"U1F600_ap", "\U0001F600'"},
		{"100_ap_q", strings.Repeat(`'`, 100) + `"`}, {"50_bs_q", strings.Repeat(`\"`, 50)},
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g, _ := charge.NewGate(d, charge.DefaultLimits())
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := c.s
				want := refWidth(d, s)
				if got := int64(d.StringWidth(s)); got != want {
					t.Errorf("%s: StringWidth(%q) = %d, reference %d (%s)", d, s, got, want, reference.String(d, s))
				}
				doc := jsonText(s)
				rep, ref := check(t, g, []byte(doc))
				if ref != nil {
					t.Errorf("%s: %s refused: %v", d, doc, ref)
					return
				}
				if rep.Charge != want {
					t.Errorf("%s: gate charged %s %d, reference %d", d, doc, rep.Charge, want)
				}
			})
		}
	})
}

// TestNumbersRenderAtTheirReferenceWidth covers json.loads' int/float split,
// Python's exponent thresholds, overflow and negative zero, and Go's %v.
func TestNumbersRenderAtTheirReferenceWidth(t *testing.T) {
	cases := []string{
		"0", "-0", "1", "-1", "10", "123456789012345678901234567890", "-0.0", "0.0", "1.0", "1.5",
		"1e0", "1E0", "1e+0", "1e-0", "1e1", "1e15", "1e16", "1e17", "1.5e16", "9999999999999998e0",
		"1e-4", "1e-5", "1.23e-5", "0.0001", "0.00001", "1e308", "1e309", "-1e309", "1e-324", "-1e-324",
		"5e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "123.456", "0.1", "100000000000000000000",
		"1e21", "1e20", "-1e21", "1e-7", "12345678.9", "4.35", "0.30000000000000004", "1e999", "-1e-999",
		"1234", "-1234", "999999", "1000000", "123456.5", "99999.99999", "-1.2345678901234567e-307", "1e6",
		"1e100", "1e-100", "0.000123", "1234567890123", "-0.5", "12e3", "1e3", "100e-2",
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g, _ := charge.NewGate(d, charge.DefaultLimits())
		for _, lit := range cases {
			t.Run(caseName(lit), func(t *testing.T) {
				v, err := reference.Decode([]byte(lit))
				if err != nil {
					t.Fatalf("%s: %v", lit, err)
				}
				want := reference.Charge(d, v)
				if got := int64(d.NumberWidth([]byte(lit))); got != want {
					t.Errorf("%s: NumberWidth(%s) = %d, reference %d (%s)", d, lit, got, want, reference.Render(d, v))
				}
				rep, ref := check(t, g, []byte(lit))
				if ref != nil {
					t.Errorf("%s: %s refused: %v", d, lit, ref)
				} else if rep.Charge != want {
					t.Errorf("%s: gate charged %s %d, reference %d", d, lit, rep.Charge, want)
				}
			})
		}
	})
}

// TestReferencePrintabilityAgreesWithTheTable keeps the two printability
// sources honest against each other over every code point.
func TestReferencePrintabilityAgreesWithTheTable(t *testing.T) {
	bad := 0
	scalars(func(r rune) {
		fast := charge.Python.RuneClass(r) == charge.Printable || r == '\''
		if r == '\\' || r == '\t' || r == '\n' || r == '\r' {
			fast = false
		}
		if slow := reference.PythonPrintable(r) && r != '\\'; fast != slow && bad < 10 {
			bad++
			t.Errorf("U+%04X: table says printable=%v, reference %v", r, fast, slow)
		}
	})
}

// TestNamesRenderAtTheirWidestReference covers the Go dialect's two renders of
// a name (quoted alone, and as an escaped pointer segment) and Python's repr.
func TestNamesRenderAtTheirWidestReference(t *testing.T) {
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for _, c := range []struct{ name, s string }{
			{"a", "a"}, {"tilde", "~"}, {"slash", "/"}, {"a_slash_b_tilde_c", "a/b~c"}, {"backslash", `\`}, {"a_backslash", `a\`},
			{"apostrophe_quote", `'"`}, {"tilde_slash_backslash", "~/\\"}, {"U00E9_slash", "\u00e9/"}, {"empty", ""},
		} {
			t.Run(c.name, func(t *testing.T) {
				name := c.s
				want := reference.Width(d, reference.Name(d, name)) - 2
				if got := int64(d.NameWidth(name)); got != want {
					t.Errorf("%s: NameWidth(%q) = %d, reference %d (%s)", d, name, got, want, reference.Name(d, name))
				}
				doc := "{" + jsonText(name) + ":0}"
				rep, ref := check(t, g, []byte(doc))
				if ref != nil {
					t.Errorf("%s: %s refused: %v", d, doc, ref)
				} else if rep.Charge != want+1 {
					t.Errorf("%s: gate charged %s %d, reference %d", d, doc, rep.Charge, want+1)
				}
			})
		}
		// The escaped spellings of / and ~ are the same names.
		for _, c := range []struct{ name, doc string }{
			{"escaped_slash", `{"a\/b":0}`}, {"u002f", `{"a\u002fb":0}`}, {"u007e", `{"\u007e":0}`},
		} {
			t.Run(c.name, func(t *testing.T) {
				v, _ := reference.Decode([]byte(c.doc))
				rep, ref := check(t, g, []byte(c.doc))
				if ref != nil || rep.Charge != reference.Charge(d, v) {
					t.Errorf("%s: %s charged %d (%v), reference %d", d, c.doc, rep.Charge, ref, reference.Charge(d, v))
				}
			})
		}
	})
}

// TestRunsOfEachCodePoint charges strings that repeat one code point, so the
// multi-byte fast paths (four two-byte sequences at a time) see every member
// of their class in every lane, and refuse overlong leads inside a run.
func TestRunsOfEachCodePoint(t *testing.T) {
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		// One subtest for the 63,360 code points (a failure names the code
		// point), one per overlong or broken lead, named by its bytes.
		t.Run("U0080-UFFFF", func(t *testing.T) {
			for r := rune(0x80); r < 0x10000; r++ {
				if r >= 0xd800 && r < 0xe000 {
					continue
				}
				s := strings.Repeat("a"+string(r), 3) + strings.Repeat(string(r), 9)
				rep, ref := check(t, g, []byte(`"`+s+`"`))
				if ref != nil || rep.Charge != refWidth(d, s) {
					t.Fatalf("%s: runs of U+%04X charged %d (%v), reference %d", d, r, rep.Charge, ref, refWidth(d, s))
				}
			}
		})
		for _, bad := range []string{"\xc1\x80", "\xc0\xaf", "\xd0\x20", "\xd0\xd0"} {
			t.Run(fmt.Sprintf("%x", bad), func(t *testing.T) {
				doc := `"` + strings.Repeat("\u0600", 3) + bad + strings.Repeat("\u0600", 4) + `"`
				if _, ref := check(t, g, []byte(doc)); ref == nil || ref.Bound != charge.BoundUTF8 {
					t.Errorf("%s: %q inside a two-byte run: got %v, want a utf8 refusal", d, bad, ref)
				}
			})
		}
	})
}

// TestGoIntegerWidthsMatchTheReference covers the gate's integer path for the
// go dialect (up to 15 digits, read from the literal) against the reference,
// which prints through x/text itself.
func TestGoIntegerWidthsMatchTheReference(t *testing.T) {
	g := gate(t, charge.Go, charge.DefaultLimits())
	var lits []string
	for d := 1; d <= 17; d++ {
		for _, lead := range []string{"1", "9", "4"} {
			for _, tail := range []string{"0", "7", "5"} {
				lits = append(lits, lead+strings.Repeat(tail, d-1), "-"+lead+strings.Repeat(tail, d-1))
			}
		}
		lits = append(lits, "1"+strings.Repeat("0", d-1)+"1", "10"+strings.Repeat("0", d))
	}
	lits = append(lits, "0", "-0", "999999", "1000000", "123456789012345", "100000000000000", "999999999999999")
	seen := map[string]bool{} // a literal built twice is held once
	for _, lit := range lits {
		if seen[lit] {
			continue
		}
		seen[lit] = true
		t.Run(caseName(lit), func(t *testing.T) {
			v, err := reference.Decode([]byte(lit))
			if err != nil {
				t.Fatal(err)
			}
			want := reference.Charge(charge.Go, v)
			rep, ref := check(t, g, []byte(lit))
			if ref != nil || rep.Charge != want {
				t.Errorf("%s: charged %d (%v), reference %d (%s)", lit, rep.Charge, ref, want, reference.Render(charge.Go, v))
			}
		})
	}
}

// TestDecimalLiteralsRenderAtTheirReferenceWidth holds NumberWidth's
// read-off-the-literal path (up to 15 significant digits) and its converting
// path to the reference over random literals on both sides of 15 digits:
// leading and trailing zeros, the point anywhere, exponents small and near
// the edge of binary64's range.
func TestDecimalLiteralsRenderAtTheirReferenceWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 15))
	type literal struct {
		lit string
		v   any
	}
	var lits []literal
	for n := 0; n < 40_000; n++ {
		var b strings.Builder
		if rng.IntN(3) == 0 {
			b.WriteByte('-')
		}
		digits := make([]byte, 1+rng.IntN(18))
		for i := range digits {
			digits[i] = byte('0' + rng.IntN(10))
			if rng.IntN(4) == 0 {
				digits[i] = '0'
			}
		}
		intPart := 1 + rng.IntN(len(digits))
		if intPart > 1 && digits[0] == '0' {
			digits[0] = '1' + byte(rng.IntN(9)) // no leading zero in the integer part
		}
		b.Write(digits[:intPart])
		if intPart < len(digits) || rng.IntN(2) == 0 {
			b.WriteByte('.')
			b.Write(digits[intPart:])
			if intPart == len(digits) {
				b.WriteByte('0')
			}
		}
		if rng.IntN(2) == 0 {
			b.WriteString([]string{"e", "E", "e+", "e-"}[rng.IntN(4)])
			exp := rng.IntN(40)
			if rng.IntN(8) == 0 {
				exp = 280 + rng.IntN(50)
			}
			b.WriteString(strconv.Itoa(exp))
		}
		lit := b.String()
		v, err := reference.Decode([]byte(lit))
		if err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		lits = append(lits, literal{lit, v})
	}
	// The literals are drawn above, so each dialect's subtest reads the
	// same 40,000 however -run picks; a failure names the literal.
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		for _, l := range lits {
			if got, want := int64(d.NumberWidth([]byte(l.lit))), reference.Charge(d, l.v); got != want {
				t.Fatalf("%s: NumberWidth(%s) = %d, reference %d (%s)", d, l.lit, got, want, reference.Render(d, l.v))
			}
		}
	})
}
