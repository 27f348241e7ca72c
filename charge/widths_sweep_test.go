package charge_test

// The two exhaustive sweeps, every scalar value through both dialects. They
// sit in the file that sorts last so that go test runs them after every other
// test of the package: a mutation run (go test -failfast per mutant) then
// stops at the cheap test that catches a mutant before paying for a sweep.

import (
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
)

// refAlone is, per dialect, the reference width of every code point alone
// (indexed by the code point; surrogates left 0), computed once per test
// binary: both exhaustive sweeps compare with it, and the reference render is
// most of their time.
var refAlone = map[charge.Dialect]func() []int64{}

func init() {
	for _, d := range charge.Dialects() {
		refAlone[d] = sync.OnceValue(func() []int64 {
			w := make([]int64, utf8.MaxRune+1)
			scalars(func(r rune) { w[r] = refWidth(d, string(r)) })
			return w
		})
	}
}

// TestEveryCodePointRendersAtItsReferenceWidth is the exhaustive proof: for
// every scalar value and both dialects, the fast width equals the slow
// reference renderer's, alone and in a string that also holds both quotes.
func TestEveryCodePointRendersAtItsReferenceWidth(t *testing.T) {
	eachDialect(t, func(t *testing.T, d charge.Dialect) {
		bad := 0
		alone := refAlone[d]()
		scalars(func(r rune) {
			s := string(r)
			if got, want := int64(d.StringWidth(s)), alone[r]; got != want && bad < 10 {
				bad++
				t.Errorf("%s: U+%04X alone: width %d, reference %d", d, r, got, want)
			}
			mixed := s + `'"` + s
			if got, want := int64(d.StringWidth(mixed)), refWidth(d, mixed); got != want && bad < 10 {
				bad++
				t.Errorf("%s: U+%04X between quotes: width %d, reference %d", d, r, got, want)
			}
		})
	})
}

// TestTheGateChargesEveryCodePointExactly drives every scalar value through the
// gate, raw and escaped, and compares the charge with the reference.
func TestTheGateChargesEveryCodePointExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: skipping the 2 x 1,112,064-document gate sweep")
	}
	eachDialect(t, func(t *testing.T, d charge.Dialect) {
		g, err := charge.NewGate(d, charge.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		alone := refAlone[d]()
		scalars(func(r rune) {
			want := alone[r]
			raw, escaped := jsonString(r)
			for _, doc := range []string{raw, escaped} {
				// g.Check, not check: check's t.Helper costs more than the
				// gate over 2,224,128 documents.
				rep, err := g.Check([]byte(doc))
				if err != nil {
					if bad++; bad < 10 {
						t.Errorf("%s: U+%04X refused: %v", d, r, err)
					}
					continue
				}
				if rep.Charge != want && bad < 10 {
					bad++
					t.Errorf("%s: U+%04X charged %d, reference %d", d, r, rep.Charge, want)
				}
			}
		})
	})
}
