package charge_test

import (
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// containerShapes are documents whose containers open and close in every order:
// siblings after a deep one, empty containers, objects in arrays and back.
var containerShapes = []string{
	`[[],[]]`,
	`[[],[[]]]`,
	`[[[]],[]]`,
	`[[[[]]],[[]],[]]`,
	`{"a":{},"b":{"c":{}}}`,
	`{"a":{"b":{"c":[]}},"d":[1,[2,[3]]],"e":{}}`,
	`[{"a":[{}]},{"b":[]},[[[1]]],"x"]`,
	`[{},{},{},{}]`,
	`{"a":[],"b":[],"c":[[]],"d":[[[]]]}`,
}

// TestReportAndBoundsOnEveryShape: for every shape, the report's nodes, depth
// and charge are the reference's, and each counted bound set to the
// document's own count admits it while one less refuses it where
// reference.FirstCrossing — an encoding/json token walk — says the bound is
// first passed. Depth is only right if every close takes a level back.
func TestReportAndBoundsOnEveryShape(t *testing.T) {
	for _, d := range charge.Dialects() {
		for _, doc := range containerShapes {
			v, err := reference.Decode([]byte(doc))
			if err != nil {
				t.Fatalf("%s: %v", doc, err)
			}
			rep, ref := check(t, gate(t, d, charge.DefaultLimits()), []byte(doc))
			want := charge.Report{Bytes: len(doc), Nodes: reference.Nodes(v), Depth: reference.Depth(v), Charge: reference.Charge(d, v)}
			if ref != nil || rep != want {
				t.Errorf("%s %s: report %+v (%v), reference %+v", d, doc, rep, ref, want)
				continue
			}
			for _, c := range []struct {
				name string
				set  func(*charge.Limits, int)
				at   int
			}{
				{"nesting", func(l *charge.Limits, n int) { l.MaxParamsNesting = n }, want.Depth},
				{"nodes", func(l *charge.Limits, n int) { l.MaxParamsNodes = n }, want.Nodes},
				{"charge", func(l *charge.Limits, n int) { l.MaxParamsRenderedChars = int64(n) }, int(want.Charge)},
			} {
				if c.at < 2 {
					continue // a bound of 0 is not a valid limit
				}
				for _, lim := range []int{c.at, c.at - 1} {
					l := charge.DefaultLimits()
					c.set(&l, lim)
					_, ref := check(t, gate(t, d, l), []byte(doc))
					cross, crossed := reference.FirstCrossing(d, []byte(doc), l)
					switch {
					case !crossed && ref != nil:
						t.Errorf("%s %s, %s %d: refused (%v), the reference crosses nothing", d, doc, c.name, lim, ref)
					case crossed && (ref == nil || ref.Bound != cross.Bound || ref.Offset < cross.Start || ref.Offset >= cross.End):
						t.Errorf("%s %s, %s %d: %v, the reference crosses %s in [%d,%d)", d, doc, c.name, lim, ref, cross.Bound, cross.Start, cross.End)
					case lim == c.at-1 && !crossed:
						t.Errorf("%s %s, %s %d: the reference crosses nothing one under the document's own count", d, doc, c.name, lim)
					}
				}
			}
		}
	}
}
