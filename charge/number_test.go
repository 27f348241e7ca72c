package charge_test

import (
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
	for _, d := range charge.Dialects() {
		g := gate(t, d, charge.DefaultLimits())
		for _, lit := range lits {
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
		}
	}
}
