package memmodel

import "fmt"

// ChartFile is the SVG a family's chart is written to, inside the docs dir
// (package charts draws it from FamilyCharts).
func ChartFile(f Family) string { return "memmodel-family-" + f.String() + ".svg" }

// ChartPoint is one point of a family chart, in bytes: X wire, Y peak heap.
type ChartPoint struct{ Wire, Peak int64 }

// ChartSeries is one named series of a family chart.
type ChartSeries struct {
	Name   string
	Points []ChartPoint
}

// FamilyChart is what one family's chart shows: the model's lines along the
// family's searched worst shape (scaled from 1/ChartSteps of its fillers to
// all of them), and the measured points of that family at the pinned shapes.
type FamilyChart struct {
	Family   Family
	Lines    []ChartSeries // model moments and the seed's expression, in a fixed order
	Measured []ChartSeries // pinned CPython rows, then the Go rows
}

// ChartSteps is how many points each model line has.
const ChartSteps = 40

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

// Line names, in the order FamilyChart.Lines holds them.
const (
	LineParse      = "model: parse moment"
	LineCharge     = "model: charge moment"
	LineRender     = "model: render moment"
	LineSeed       = "seed's expression"
	LineRatioWorst = "model: peak along the ratio-worst shape"
)

// FamilyCharts computes, per family, peak against wire bytes: the model's
// moments along the family's searched worst shape (pydantic_core), the seed's
// expression along the same shape, every pinned calibration row of that
// family, and the Go rows for the same bodies. Series with no point are left
// out.
func FamilyCharts() ([]FamilyChart, error) {
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
	var out []FamilyChart
	for _, f := range Families {
		w, ok := worst[f]
		if !ok {
			return nil, fmt.Errorf("memmodel: the search found no worst shape for family %s", f.Describe())
		}
		fc := FamilyChart{Family: f, Lines: modelLines(sc, f, w, byRatio[f])}
		var ms series
		for _, r := range cal.Rows {
			if famOf[r.Shape] != f || r.Measured.Wire != wireOf[r.Shape] {
				continue // a row at another scale, or a shape this family does not take
			}
			ms.add(fmt.Sprintf("measured: %s %s, %s %s", r.Measured.Impl, r.Measured.Python, r.Measured.Parser, r.Measured.ParserVersion),
				ChartPoint{r.Measured.Wire, r.Measured.Peak})
		}
		for _, m := range goRows {
			if famOf[m.Shape] != f || m.Wire != wireOf[m.Shape] {
				continue
			}
			switch m.Path {
			case PathHTTP:
				ms.add("ours (Go): whole HTTP request", ChartPoint{m.Wire, m.PeakLive})
			case PathCheck:
				// Our gate prices bytes, not Python's characters: a body
				// CPython's server admits may be one our gate refuses, so
				// the middleware's outcome is part of the series' name.
				ms.add("ours (Go): middleware, "+m.Outcome, ChartPoint{m.Wire, m.PeakLive})
			}
		}
		fc.Measured = ms.list
		out = append(out, fc)
	}
	return out, nil
}

// modelLines draws the model's moments and the seed's expression along the
// absolute-worst shape w, and the peak along the ratio-worst shape r when its
// ratio is visibly worse.
func modelLines(sc Scale, f Family, w, r Worst) []ChartSeries {
	var s series
	for i := 1; i <= ChartSteps; i++ {
		sh := scaledWorst(w.Shape, float64(i)/ChartSteps)
		pr := Predict(sh, PydanticCore, sc.Limits)
		if pr.Family != f {
			continue // a scaled-down body can leave the family (e.g. fall under the budget)
		}
		x := pr.Stats.Wire
		s.add(LineParse, ChartPoint{x, pr.Moments.Parse})
		s.add(LineCharge, ChartPoint{x, pr.Moments.Charge})
		if f == SchemaRefused {
			s.add(LineRender, ChartPoint{x, pr.Moments.Render})
		}
		seed, _ := SeedModel(sh, sc.Limits)
		s.add(LineSeed, ChartPoint{x, seed})
	}
	if r.Shape.Name != "" && r.Ratio() > w.Ratio()+0.5 {
		for i := 1; i <= ChartSteps; i++ {
			pr := Predict(scaledWorst(r.Shape, float64(i)/ChartSteps), PydanticCore, sc.Limits)
			if pr.Family == f {
				s.add(LineRatioWorst, ChartPoint{pr.Stats.Wire, pr.Peak})
			}
		}
	}
	return s.list
}

// series collects named series in first-seen order.
type series struct{ list []ChartSeries }

func (s *series) add(name string, p ChartPoint) {
	for i := range s.list {
		if s.list[i].Name == name {
			s.list[i].Points = append(s.list[i].Points, p)
			return
		}
	}
	s.list = append(s.list, ChartSeries{Name: name, Points: []ChartPoint{p}})
}
