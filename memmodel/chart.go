package memmodel

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ChartFile is the SVG a family's chart is written to, inside the docs dir.
func ChartFile(f Family) string { return "memmodel-family-" + f.String() + ".svg" }

func toMiB(b int64) float64 { return float64(b) / (1 << 20) }

// scaledWorst is the family's searched worst shape with its fillers scaled
// by t (singletons kept), so the model's moments can be drawn along the wire.
func scaledWorst(w Shape, t float64) Shape {
	s := w
	s.Segments = nil
	for _, g := range w.Segments {
		if g.Count > 1 {
			g.Count = int(float64(g.Count) * t)
		}
		s.Segments = append(s.Segments, g)
	}
	return s
}

// Charts draws, per family, peak against wire bytes: the model's moments
// along the family's searched worst shape (pydantic_core), the seed's
// expression along the same shape, every pinned calibration row of that
// family, and the Go rows for the same bodies. It returns SVG bytes by file
// name.
func Charts() (map[string][]byte, error) {
	sc := FullScale()
	cal, err := PinnedCalibration()
	if err != nil {
		return nil, err
	}
	goRows, err := PinnedGoRows()
	if err != nil {
		return nil, err
	}
	famOf := map[string]Family{}
	wireOf := map[string]int64{}
	for _, s := range CalibrationShapes(sc, true) {
		pr := Predict(s, PydanticCore, sc.Limits)
		famOf[s.Name], wireOf[s.Name] = pr.Family, pr.Stats.Wire
	}
	worst, byRatio := map[Family]Worst{}, map[Family]Worst{}
	for _, w := range SearchWorst(sc, PydanticCore) {
		if w.By == "absolute" {
			worst[w.Family] = w
		} else {
			byRatio[w.Family] = w
		}
	}
	out := map[string][]byte{}
	for _, f := range Families {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("CPython per-request peak, family %s, and our validator's", f.Describe())
		p.X.Label.Text = "body, MiB on the wire"
		p.Y.Label.Text = "peak heap, MiB"
		p.Legend.Top, p.Legend.Left = true, true
		p.Add(plotter.NewGrid())
		w := worst[f]
		lines := map[string]plotter.XYs{}
		names := []string{"model: parse moment", "model: charge moment", "model: render moment", "seed's expression", "model: peak along the ratio-worst shape"}
		for i := 1; i <= 40; i++ {
			s := scaledWorst(w.Shape, float64(i)/40)
			pr := Predict(s, PydanticCore, sc.Limits)
			if pr.Family != f {
				continue
			}
			x := toMiB(pr.Stats.Wire)
			lines[names[0]] = append(lines[names[0]], plotter.XY{X: x, Y: toMiB(pr.Moments.Parse)})
			lines[names[1]] = append(lines[names[1]], plotter.XY{X: x, Y: toMiB(pr.Moments.Charge)})
			if f == SchemaRefused {
				lines[names[2]] = append(lines[names[2]], plotter.XY{X: x, Y: toMiB(pr.Moments.Render)})
			}
			seed, _ := SeedModel(s, sc.Limits)
			lines[names[3]] = append(lines[names[3]], plotter.XY{X: x, Y: toMiB(seed)})
		}
		if r := byRatio[f]; r.Shape.Name != "" && r.Ratio() > w.Ratio()+0.5 {
			for i := 1; i <= 40; i++ {
				pr := Predict(scaledWorst(r.Shape, float64(i)/40), PydanticCore, sc.Limits)
				if pr.Family == f {
					lines[names[4]] = append(lines[names[4]], plotter.XY{X: toMiB(pr.Stats.Wire), Y: toMiB(pr.Peak)})
				}
			}
		}
		dashes := [][]vg.Length{nil, {vg.Points(2), vg.Points(2)}, {vg.Points(6), vg.Points(2)}, {vg.Points(1), vg.Points(3)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}
		for i, n := range names {
			if len(lines[n]) == 0 {
				continue
			}
			l, err := plotter.NewLine(lines[n])
			if err != nil {
				return nil, err
			}
			l.Color = color.Gray{Y: uint8(40 * i)}
			l.Dashes = dashes[i]
			p.Add(l)
			p.Legend.Add(n, l)
		}
		series := map[string]plotter.XYs{}
		var order []string
		add := func(name string, x, y float64) {
			if _, ok := series[name]; !ok {
				order = append(order, name)
			}
			series[name] = append(series[name], plotter.XY{X: x, Y: y})
		}
		for _, r := range cal.Rows {
			if famOf[r.Shape] != f || r.Measured.Wire != wireOf[r.Shape] {
				continue
			}
			add(fmt.Sprintf("measured: %s %s, %s %s", r.Measured.Impl, r.Measured.Python, r.Measured.Parser, r.Measured.ParserVersion),
				toMiB(r.Measured.Wire), toMiB(r.Measured.Peak))
		}
		for _, m := range goRows {
			if famOf[m.Shape] != f || m.Wire != wireOf[m.Shape] {
				continue
			}
			switch m.Path {
			case PathHTTP:
				add("ours (Go): whole HTTP request", toMiB(m.Wire), toMiB(m.PeakLive))
			case PathCheck:
				add("ours (Go): middleware", toMiB(m.Wire), toMiB(m.PeakLive))
			}
		}
		shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.SquareGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.PyramidGlyph{}, draw.BoxGlyph{}}
		palette := []color.Color{color.RGBA{R: 200, A: 255}, color.RGBA{B: 200, A: 255}, color.RGBA{G: 140, A: 255},
			color.RGBA{R: 140, G: 0, B: 140, A: 255}, color.RGBA{R: 200, G: 120, A: 255}, color.RGBA{G: 120, B: 120, A: 255}}
		for i, n := range order {
			sct, err := plotter.NewScatter(series[n])
			if err != nil {
				return nil, err
			}
			sct.GlyphStyle.Shape = shapes[i%len(shapes)]
			sct.GlyphStyle.Color = palette[i%len(palette)]
			sct.GlyphStyle.Radius = vg.Points(3)
			p.Add(sct)
			p.Legend.Add(n, sct)
		}
		p.Y.Min = 0
		p.X.Min = 0
		p.X.Tick.Marker = stepTicks(5)
		p.Y.Tick.Marker = stepTicks(25)
		wt, err := p.WriterTo(9*vg.Inch, 6*vg.Inch, "svg")
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if _, err := wt.WriteTo(&buf); err != nil {
			return nil, err
		}
		out[ChartFile(f)] = buf.Bytes()
	}
	return out, nil
}

// WriteCharts writes Charts into dir.
func WriteCharts(dir string) ([]string, error) {
	charts, err := Charts()
	if err != nil {
		return nil, err
	}
	var written []string
	for _, f := range Families {
		name := filepath.Join(dir, ChartFile(f))
		if err := os.WriteFile(name, charts[ChartFile(f)], 0o644); err != nil {
			return written, err
		}
		written = append(written, name)
	}
	return written, nil
}

// stepTicks labels every step (a major tick) and marks every fifth of one.
func stepTicks(step float64) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ts []plot.Tick
		minor := step / 5
		for v := math.Floor(lo/minor) * minor; v <= hi; v += minor {
			t := plot.Tick{Value: v}
			if r := math.Mod(math.Abs(v)+minor/2, step); r < minor {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ts = append(ts, t)
		}
		return ts
	})
}
