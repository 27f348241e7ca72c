package charge

import (
	"strings"
	"testing"
)

// TestLiteralShortestReadsWhatItCan: literalShortest, the fast path that
// reads a number's shortest digits off its literal, answers (ok) for every
// nonzero literal of at most 15 significant digits with a decimal exponent
// within ±300 (a written exponent of up to five digits read whole), and its
// answer is what converting the literal gives; it
// declines zero, 16 or more significant digits and exponents past ±300
// (which the caller converts). Its results never change a width — a decline
// is converted — so this holds that the fast path is taken where it claims.
func TestLiteralShortestReadsWhatItCan(t *testing.T) {
	answers := func(t *testing.T, lit string) {
		digits, exp, sign, ok := literalShortest([]byte(lit))
		wd, we, ws := shortest(parseFloat([]byte(lit)))
		if !ok || digits != wd || exp != we || sign != ws {
			t.Errorf("literalShortest(%s) = %d, %d, %d, %v; converting gives %d, %d, %d", lit, digits, exp, sign, ok, wd, we, ws)
		}
	}
	for _, lit := range []string{"1", "-7", "1.5", "-0.001", "0.1", "10", "100.000", "123456789012345", "-12345678901234.5",
		"0.000123456789012345", "1e5", "1E-5", "2.5e+10", "9.99999999999999e300", "1e-300", "100e-302", "0.001e303", "1e0300"} {
		t.Run("answers_"+caseName(lit), func(t *testing.T) { answers(t, lit) })
	}
	t.Run("answers_five_digit_exponent", func(t *testing.T) {
		answers(t, "0."+strings.Repeat("0", 9999)+"1e10000") // 1: a five-digit written exponent, read whole
	})
	for _, lit := range []string{"0", "-0", "0.000", "0e5", "1234567890123456", "1.000000000000001", "1e301", "1e-301", "10e300", "1e100000", "-1e-99999"} {
		t.Run("declines_"+caseName(lit), func(t *testing.T) {
			if _, _, _, ok := literalShortest([]byte(lit)); ok {
				t.Errorf("literalShortest(%s) answered; it must decline", lit)
			}
		})
	}
}

// TestGoLiteralWidthAtItsEdge: goLiteralWidth, go's path that prices a
// literal of more than 15 significant digits at its own length without
// converting it, takes a literal whose bound xtextWidth(D, e) is exactly its
// length (the 17-digit floats binary fractions print as, and a literal that
// rounds up to the next power of ten) and declines one whose bound is one
// past it (a comma in the integer part) or more (the exponent form); what it
// answers is go's width by conversion, and up to 15 digits it always answers.
func TestGoLiteralWidthAtItsEdge(t *testing.T) {
	byConversion := func(lit string) int { return max(len(lit), xtextFloatWidth(parseFloat([]byte(lit)))) }
	for _, lit := range []string{"0.060000000000000005", "-0.06999999999999999", "12.350000000000001", "999.99999999999999999", "0.00012345678901234567",
		"12.35", "1234.5", "1e-7", "-123456789012345"} {
		t.Run("answers_"+caseName(lit), func(t *testing.T) {
			w, ok := goLiteralWidth([]byte(lit))
			if !ok {
				t.Errorf("goLiteralWidth(%s) declined", lit)
			} else if want := byConversion(lit); w != want {
				t.Errorf("goLiteralWidth(%s) = %d; by conversion %d", lit, w, want)
			}
		})
	}
	for _, lit := range []string{"1234.0000000000000001", "-1000.0000000000000001", "0.000012345678901234567", "1234567890123456789"} {
		t.Run("declines_"+caseName(lit), func(t *testing.T) {
			if w, ok := goLiteralWidth([]byte(lit)); ok {
				t.Errorf("goLiteralWidth(%s) = %d; its bound is past its length, it must decline", lit, w)
			}
		})
	}
}
