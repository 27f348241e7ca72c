package charge_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// TestIntegersAroundFifteenDigits: integer literals of 1 to 20 digits, both
// signs, whose float64 is exact (up to 15 digits, read off the literal) or
// rounds — all nines round up a digit, 2^53+1 rounds down — render at the
// reference's width, through NumberWidth and through the gate.
func TestIntegersAroundFifteenDigits(t *testing.T) {
	var lits []string
	for n := 1; n <= 20; n++ {
		for _, digits := range []string{strings.Repeat("9", n), "1" + strings.Repeat("0", n-1), strings.Repeat("1", n), "12345678901234567890"[:n]} {
			lits = append(lits, digits, "-"+digits)
		}
	}
	lits = append(lits, "9007199254740993", "-9007199254740993", "9007199254740992", "18014398509481985")
	numbersAtTheReference(t, lits)
}

// TestNumbersAtTheirFormsBoundaries: decimal exponents on both sides of where
// each dialect switches between plain and exponent form (python: below -4,
// from 16; go's x/text: below -4, from 6), one digit and several, both signs,
// and exponents of one, two and three digits: at the reference's width.
func TestNumbersAtTheirFormsBoundaries(t *testing.T) {
	var lits []string
	for _, e := range []int{-325, -324, -101, -100, -99, -11, -10, -9, -6, -5, -4, -3, -1, 0, 1, 3, 4, 5, 6, 7, 9, 10, 11, 15, 16, 17, 99, 100, 101, 307, 308, 309} {
		for _, m := range []string{"1", "2.5", "1.234567890123", "9.999999999999999999"} {
			lits = append(lits, m+"e"+strconv.Itoa(e), "-"+m+"E"+strconv.Itoa(e))
		}
	}
	lits = append(lits, "0.0001", "0.00001", "100000.5", "1000000.5", "123456.0", "1234567.0", "1e-7", "0.0", "-0.0", "5e-324", "1.7976931348623157e308",
		// more than 15 digits, at and one past where go prices them at their length unconverted
		"0.060000000000000005", "-0.06999999999999999", "12.350000000000001", "999.99999999999999999", "0.00012345678901234567",
		"1234.0000000000000001", "-1000.0000000000000001", "0.000012345678901234567", "1234567890123456789")
	numbersAtTheReference(t, lits)
}

// numbersAtTheReference holds each literal, in both dialects, to
// charge/reference's charge: NumberWidth alone and the gate over [lit]. Each
// is a subtest named for the dialect and the literal (a literal listed twice
// is held once).
func numbersAtTheReference(t *testing.T, lits []string) {
	t.Helper()
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		seen := map[string]bool{}
		for _, lit := range lits {
			if seen[lit] {
				continue
			}
			seen[lit] = true
			t.Run(caseName(lit), func(t *testing.T) {
				v, err := reference.Decode([]byte(lit))
				if err != nil {
					t.Fatalf("%s: %v", lit, err)
				}
				want := reference.Charge(d, v)
				if got := int64(d.NumberWidth([]byte(lit))); got != want {
					t.Errorf("%s: NumberWidth(%s) = %d, reference %d", d, lit, got, want)
				}
				if rep, ref := check(t, g, []byte("["+lit+"]")); ref != nil || rep.Charge != want {
					t.Errorf("%s: [%s] charged %d (%v), reference %d", d, lit, rep.Charge, ref, want)
				}
			})
		}
	})
}
