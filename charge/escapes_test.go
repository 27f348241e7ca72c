package charge_test

import (
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// TestSurrogateEscapesAtTheRangeEdges: \u escapes at each edge of the
// surrogate ranges — the scalars just outside them, the first and last pair,
// a high half followed by the \u escapes just outside the low range, and lone
// halves at both ends — admitted and charged as the reference charges them,
// or refused as a lone surrogate at the high half's backslash.
func TestSurrogateEscapesAtTheRangeEdges(t *testing.T) {
	admitted := []string{`"\ud7ff"`, `"\ue000"`, `"\ud800\udc00"`, `"\ud800\udfff"`, `"\udbff\udc00"`, `"\udbff\udfff"`}
	refused := []string{`"\ud800"`, `"\udbff"`, `"\udc00"`, `"\udfff"`, `"\ud800\udbff"`, `"\ud800\ue000"`,
		`"\udbff\ud7ff"`, `"\udbff\ue000"`, `"\ud800\u0041"`}
	for _, d := range charge.Dialects() {
		g := gate(t, d, charge.DefaultLimits())
		for _, doc := range admitted {
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
		}
		for _, doc := range refused {
			for _, wrap := range []string{"%s", "[%s]", `{"k":%s}`, `{%s:0}`} {
				in := strings.Replace(wrap, "%s", doc, 1)
				_, ref := check(t, g, []byte(in))
				if ref == nil || ref.Bound != charge.BoundSurrogate || ref.Offset != strings.Index(in, `\`) {
					t.Errorf("%s %s: %v, want surrogate at %d", d, in, ref, strings.Index(in, `\`))
				}
			}
		}
	}
}
