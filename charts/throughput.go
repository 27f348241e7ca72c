package charts

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/theurian/boundlab/bench"
	benchdata "github.com/theurian/boundlab/results/bench"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ThroughputFile is the throughput chart's file name.
const ThroughputFile = "gate-throughput.svg"

// throughputFamily is the benchmark family the chart reads: the gate beside
// its peers on the same bytes, one group per document shape.
const throughputFamily = "BenchmarkValid"

// implNames say what each impl of the family runs (docs/bench.md).
var implNames = map[string]string{
	"gate":          "gate (charge.Gate.Check: syntax, strictness, bounds, charge)",
	"encoding-json": "encoding/json.Valid (syntax only)",
	"sonic":         "sonic Valid (syntax; skips string contents)",
	"sonic-decode":  "sonic decode (UseNumber, ValidateString; builds a tree)",
}

// Throughput draws the gate's throughput beside its peers' per document
// shape, from the pinned run (results/bench/suite.txt) read by package
// bench: each impl's median MB/s with its 95% interval, on a log scale.
func Throughput() (Chart, error) {
	return throughputFrom(benchdata.Suite, benchdata.SuiteFile)
}

func throughputFrom(data []byte, name string) (Chart, error) {
	s, err := bench.Parse(bytes.NewReader(data), name)
	if err != nil {
		return Chart{}, err
	}
	var groups, impls []string
	seen := map[string]bool{}
	rows := map[[2]string]bench.Row{}
	for _, r := range s.Compare("B/s") {
		if r.Family != throughputFamily {
			continue
		}
		if !seen["g"+r.Group] {
			seen["g"+r.Group] = true
			groups = append(groups, r.Group)
		}
		if !seen["i"+r.Impl] {
			seen["i"+r.Impl] = true
			impls = append(impls, r.Impl)
		}
		rows[[2]string{r.Group, r.Impl}] = r
	}
	if len(groups) == 0 {
		return Chart{}, fmt.Errorf("charts: %s has no %s results in B/s", name, throughputFamily)
	}
	f := newFigure("Validation throughput per document shape: the gate beside its peers", 9*vg.Inch, 7.5*vg.Inch)
	f.caption = fmt.Sprintf("throughput, MB/s (log scale): median and 95%% interval of %s runs; %s, GOMAXPROCS %s, %s, %s-byte documents",
		runsOf(rows), s.Config["cpu-model"], s.Config["gomaxprocs"], s.Config["go"], s.Config["bench-bytes"])
	f.p.Y.Label.Text = "document shape"
	f.p.X.Scale = plot.LogScale{}
	f.p.X.Tick.Marker = logTicks{}
	n := len(groups)
	f.rowGrid(n)
	labels := make([]string, n)
	for i, g := range groups {
		labels[n-1-i] = strings.TrimPrefix(g, "shape=")
	}
	f.p.NominalY(labels...)
	lo, hi := math.Inf(1), math.Inf(-1)
	const group = 0.72
	step := group / float64(max(1, len(impls)-1))
	for j, impl := range impls {
		var pts plotter.XYs
		var errs plotter.XErrors
		for i, g := range groups {
			r, ok := rows[[2]string{g, impl}]
			if !ok || r.Median <= 0 {
				continue
			}
			y := float64(n-1-i) + group/2 - float64(j)*step
			m := r.Median / 1e6
			pts = append(pts, plotter.XY{X: m, Y: y})
			errs = append(errs, struct{ Low, High float64 }{m - r.Lo/1e6, r.Hi/1e6 - m})
			lo, hi = math.Min(lo, r.Lo/1e6), math.Max(hi, r.Hi/1e6)
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return Chart{}, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: pick(palette, j), Radius: vg.Points(3.5), Shape: pick(glyphs, j)}
		eb, err := plotter.NewXErrorBars(struct {
			plotter.XYs
			plotter.XErrors
		}{pts, errs})
		if err != nil {
			return Chart{}, err
		}
		eb.LineStyle.Color, eb.CapWidth = pick(palette, j), vg.Points(4)
		f.p.Add(eb)
		name := implNames[impl]
		if name == "" {
			name = impl
		}
		f.add(name, sc, sc)
		if impl == "gate" {
			if err := f.pointLabels(pts); err != nil {
				return Chart{}, err
			}
		}
	}
	f.p.X.Min, f.p.X.Max = lo/1.6, hi*1.6
	f.p.Y.Min, f.p.Y.Max = -0.5, float64(n)-0.5
	return f.chart(ThroughputFile), nil
}

// runsOf is the sample count the rows share, or a range when they differ.
func runsOf(rows map[[2]string]bench.Row) string {
	lo, hi := math.MaxInt, 0
	for _, r := range rows {
		lo, hi = min(lo, r.N), max(hi, r.N)
	}
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// pointLabels writes each point's X value above it.
func (f *figure) pointLabels(pts plotter.XYs) error {
	var txt []string
	for _, p := range pts {
		txt = append(txt, strconv.FormatFloat(p.X, 'f', 0, 64))
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: txt})
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font.Size = 8
		lb.TextStyle[i].XAlign = draw.XCenter
	}
	lb.Offset = vg.Point{Y: vg.Points(5)}
	f.p.Add(lb)
	return nil
}

// logTicks labels 1, 2 and 5 times each power of ten, with unlabelled minor
// ticks at the other multiples.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || !(hi > lo) {
		return nil
	}
	var ts []plot.Tick
	for p := math.Floor(math.Log10(lo)); math.Pow(10, p) <= hi; p++ {
		base := math.Pow(10, p)
		for k := 1; k < 10; k++ {
			v := float64(k) * base
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if k == 1 || k == 2 || k == 5 {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}
