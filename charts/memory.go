package charts

import (
	"fmt"
	"math"

	"github.com/theurian/boundlab/memmodel"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// Memory draws the memory model's family charts: per family, peak heap
// against wire bytes, the model's moments and the seed's expression as lines
// and every pinned measured row as a point (memmodel.FamilyCharts).
func Memory() ([]Chart, error) {
	fcs, err := memmodel.FamilyCharts()
	if err != nil {
		return nil, err
	}
	var out []Chart
	for _, fc := range fcs {
		c, err := memoryChart(fc)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func memoryChart(fc memmodel.FamilyChart) (Chart, error) {
	f := newFigure(fmt.Sprintf("Per-request peak heap, family %s: pydantic_core model, measured rows", fc.Family.Describe()),
		9*vg.Inch, 6.5*vg.Inch)
	f.p.X.Label.Text = "request body on the wire, MiB"
	f.p.Y.Label.Text = "peak heap, MiB"
	f.p.Add(plotter.NewGrid())
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	xys := func(s memmodel.ChartSeries) plotter.XYs {
		pts := make(plotter.XYs, len(s.Points))
		for i, p := range s.Points {
			pts[i] = plotter.XY{X: mib(p.Wire), Y: mib(p.Peak)}
			xlo, xhi = math.Min(xlo, pts[i].X), math.Max(xhi, pts[i].X)
			ylo, yhi = math.Min(ylo, pts[i].Y), math.Max(yhi, pts[i].Y)
		}
		return pts
	}
	for i, s := range fc.Lines {
		l, err := plotter.NewLine(xys(s))
		if err != nil {
			return Chart{}, fmt.Errorf("charts: family %s, %s: %w", fc.Family, s.Name, err)
		}
		l.Color = pick(lineColors, i)
		if i < len(dashes) {
			l.Dashes = dashes[i]
		}
		l.Width = vg.Points(1.5)
		f.add(s.Name, l, l)
	}
	for i, s := range fc.Measured {
		sc, err := plotter.NewScatter(xys(s))
		if err != nil {
			return Chart{}, fmt.Errorf("charts: family %s, %s: %w", fc.Family, s.Name, err)
		}
		sc.GlyphStyle.Shape = pick(glyphs, i)
		sc.GlyphStyle.Color = pick(palette, i)
		sc.GlyphStyle.Radius = vg.Points(4)
		f.add(s.Name, sc, sc)
	}
	// Every measured row sits at the cap, the lines' right end: the margin
	// keeps those points whole and off the frame.
	f.p.X.Min, f.p.X.Max = span(xlo, xhi, 0.06)
	f.p.Y.Min, f.p.Y.Max = span(ylo, yhi, 0.06)
	return f.chart(memmodel.ChartFile(fc.Family)), nil
}
