package charge_test

import (
	"fmt"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// TestEveryBMPEscapeIsChargedAsTheReferenceRendersIt: every \uXXXX naming a
// BMP scalar value (all 63,488 of them, in lower- and upper-case hex), alone
// in a string and between two ASCII bytes, is admitted and charged what the
// reference charges the decoded string; each surrogate half alone is
// refused as one.
func TestEveryBMPEscapeIsChargedAsTheReferenceRendersIt(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: a sweep on one goroutine, which the full run holds")
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for r := rune(0); r < 0x10000; r++ {
			for _, form := range []string{`"\u%04x"`, `"a\u%04Xb"`} {
				doc := fmt.Sprintf(form, r)
				rep, ref := check(t, g, []byte(doc))
				if r >= 0xd800 && r < 0xe000 {
					if ref == nil || ref.Bound != charge.BoundSurrogate {
						t.Fatalf("%s %s: %v, want refused as a surrogate", d, doc, ref)
					}
					continue
				}
				v, err := reference.Decode([]byte(doc))
				if err != nil {
					t.Fatalf("%s: the reference cannot decode it: %v", doc, err)
				}
				if want := reference.Charge(d, v); ref != nil || rep.Charge != want {
					t.Fatalf("%s %s: charge %d (%v), reference %d", d, doc, rep.Charge, ref, want)
				}
			}
		}
	})
}
