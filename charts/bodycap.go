package charts

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/theurian/boundlab/charge"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BodyCapFile is the body-cap chart's file name.
const BodyCapFile = "bodycap-wire-ratio.svg"

// clientSet is a set of encoder families one body cap is derived for.
type clientSet struct {
	name string
	encs []charge.Encoder
}

// clientSets are the sets the body-cap records derive a cap for (package
// sweeps pins them); all clients share the go set's multiplier.
var clientSets = []clientSet{
	{"Python and JS clients (ensure_ascii, raw)", []charge.Encoder{charge.EnsureASCII, charge.Raw}},
	{"Go clients (go)", []charge.Encoder{charge.GoJSON}},
}

// wireModel is the live class model the chart reads: charge's wire classes
// and encoder families.
func wireModel() ([]charge.WireClass, []charge.Encoder) {
	return charge.WireClasses(), charge.Encoders()
}

func ratF(r *big.Rat) float64 { f, _ := r.Float64(); return f }

// BodyCap draws the wire ratio (wire bytes / landed UTF-8 bytes) of every
// code-point class under every encoder family, the multiplier charge.BodyCap
// derives for each set of clients as a line, and a mark on every class that
// is residual for its clients (above their multiplier, so an at-cap file of
// it does not fit the cap).
func BodyCap() (Chart, error) {
	classes, encs := wireModel()
	n := len(classes)
	f := newFigure("Body-cap wire ratio per code-point class and encoder family", 9*vg.Inch, 7*vg.Inch)
	f.p.X.Label.Text = "wire bytes per landed UTF-8 byte"
	f.p.Y.Label.Text = "code-point class (count)"
	f.rowGrid(n)

	// Classes top to bottom in charge's order: row i is class n-1-i.
	labels := make([]string, n)
	for i, c := range classes {
		l := fmt.Sprintf("%s (%s)", c.Name, thousands(c.Count))
		if c.Control {
			l = fmt.Sprintf("%s (%s, control)", c.Name, thousands(c.Count))
		}
		labels[n-1-i] = l
	}
	f.p.NominalY(labels...)
	const group = 0.78 // the share of a row the bars fill
	thick := group / float64(len(encs))
	ratio := func(c charge.WireClass, e charge.Encoder) float64 { return ratF(c.Ratio(e)) }
	var xmax float64
	for j, e := range encs {
		vals := make([]float64, n)
		for i, c := range classes {
			vals[n-1-i] = ratio(c, e)
			xmax = max(xmax, vals[n-1-i])
		}
		// The first encoder on top within a row.
		b := hbars{Values: vals, Shift: group/2 - thick/2 - float64(j)*thick, Thickness: thick * 0.9,
			Color: pick(palette, j), Outline: draw.LineStyle{Color: pick(palette, j), Width: vg.Points(0.5)}}
		f.add("encoder "+e.String(), b, b)
		if err := f.barLabels(b); err != nil {
			return Chart{}, err
		}
	}

	resid := plotter.XYs{}
	for k, set := range clientSets {
		d := charge.BodyCap(charge.DefaultLimits(), set.encs...)
		m := ratF(d.Multiplier)
		l, err := plotter.NewLine(plotter.XYs{{X: m, Y: -0.5}, {X: m, Y: float64(n) - 0.5}})
		if err != nil {
			return Chart{}, err
		}
		l.Color, l.Dashes, l.Width = pick(lineColors, k), dashes[1+k], vg.Points(2)
		f.add(fmt.Sprintf("multiplier for %s: %sx", set.name, d.Multiplier.FloatString(1)), l, l)
		for _, r := range d.Residual {
			i, j := classIndex(classes, r.Class.Name), encIndex(encs, r.Encoder)
			resid = append(resid, plotter.XY{X: ratF(r.Ratio) + xmax*0.07, Y: float64(n-1-i) + group/2 - thick/2 - float64(j)*thick})
		}
	}
	if len(resid) > 0 {
		sc, err := plotter.NewScatter(resid)
		if err != nil {
			return Chart{}, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: palette[4], Radius: vg.Points(4), Shape: draw.PyramidGlyph{}}
		f.add("residual: above its clients' multiplier (the cap lists it)", sc, sc)
	}
	f.p.X.Min, f.p.X.Max = 0, xmax*1.12
	f.p.Y.Min, f.p.Y.Max = -0.5, float64(n)-0.5
	return f.chart(BodyCapFile), nil
}

// barLabels writes each bar's ratio just past its end.
func (f *figure) barLabels(b hbars) error {
	var xys plotter.XYs
	var txt []string
	for i, v := range b.Values {
		xys = append(xys, plotter.XY{X: v, Y: float64(i) + b.Shift})
		txt = append(txt, strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), "."))
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: txt})
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font.Size = 8
		lb.TextStyle[i].YAlign = draw.YCenter
	}
	lb.Offset = vg.Point{X: vg.Points(3)}
	f.p.Add(lb)
	return nil
}

func classIndex(cs []charge.WireClass, name string) int {
	for i, c := range cs {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func encIndex(es []charge.Encoder, e charge.Encoder) int {
	for i, x := range es {
		if x == e {
			return i
		}
	}
	return -1
}

// thousands writes n with comma separators, as the records' prose does.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
