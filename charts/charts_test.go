package charts

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/memmodel"
	benchdata "github.com/theurian/boundlab/results/bench"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

func allCharts(t *testing.T) []Chart {
	t.Helper()
	cs, err := All()
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func escaped(s string) []byte {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.Bytes()
}

// Every chart renders from the live data, and its SVG holds its title and
// every name in its legend.
func TestChartsRenderTitleAndSeries(t *testing.T) {
	cs := allCharts(t)
	if len(cs) != len(memmodel.Families)+2 {
		t.Fatalf("%d charts, want the %d memory families, the body cap and the throughput", len(cs), len(memmodel.Families))
	}
	files := map[string]bool{}
	for _, c := range cs {
		if files[c.File] {
			t.Errorf("%s drawn twice", c.File)
		}
		files[c.File] = true
		t.Run(c.File, func(t *testing.T) {
			svg, err := c.Render(SVG)
			if err != nil {
				t.Fatalf("%s: %v", c.File, err)
			}
			if !bytes.HasPrefix(bytes.TrimSpace(svg), []byte("<?xml")) || !bytes.Contains(svg, []byte("<svg")) {
				t.Errorf("%s: not an SVG", c.File)
			}
			if c.Title == "" || !bytes.Contains(svg, escaped(c.Title)) {
				t.Errorf("%s: title %q not in the SVG", c.File, c.Title)
			}
			if len(c.Series) < 2 {
				t.Errorf("%s: legend %q", c.File, c.Series)
			}
			for _, s := range c.Series {
				if !bytes.Contains(svg, escaped(s)) {
					t.Errorf("%s: series %q not in the SVG", c.File, s)
				}
			}
			png, err := c.Render(PNG)
			if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
				t.Errorf("%s: PNG: %v", c.File, err)
			}
		})
	}
	if _, err := cs[0].Render("gif"); err == nil {
		t.Error("an unknown format rendered")
	}
}

// Titles and captions are whole: each fits the width on one line.
func TestChartsTextFits(t *testing.T) {
	for _, c := range allCharts(t) {
		t.Run(c.File, func(t *testing.T) {
			if !c.fig.textFits() {
				t.Errorf("%s: title or caption wider than the chart", c.File)
			}
		})
	}
	f := newFigure(strings.Repeat("a title far too long to fit ", 8), 4*vg.Inch, 3*vg.Inch)
	if f.textFits() {
		t.Error("an overlong title fits")
	}
}

// The legend sits below the plot, outside its data area, and its columns do
// not overlap.
func TestChartsLegendOutsideTheData(t *testing.T) {
	for _, c := range allCharts(t) {
		t.Run(c.File, func(t *testing.T) {
			cv := draw.New(vgsvg.New(c.fig.w, c.fig.h))
			ls := c.fig.legends()
			lay := c.fig.layout(cv, ls)
			if len(ls) == 0 {
				t.Fatalf("%s: no legend", c.File)
			}
			for i, l := range ls {
				r := legendRect(l, lay.legend[i])
				if r.Max.Y > lay.plot.Min.Y {
					t.Errorf("%s: legend column %d reaches %v, above the plot's bottom %v", c.File, i, r.Max.Y, lay.plot.Min.Y)
				}
				if r.Min.Y < cv.Min.Y || r.Max.X > cv.Max.X {
					t.Errorf("%s: legend column %d leaves the canvas: %v", c.File, i, r)
				}
				if i > 0 {
					prev := legendRect(ls[i-1], lay.legend[i-1])
					if r.Min.X < prev.Max.X {
						t.Errorf("%s: legend columns %d and %d overlap", c.File, i-1, i)
					}
				}
			}
		})
	}
}

// Every measured point of a memory chart sits inside its axes, clear of the
// edges, and an axis whose data sit far from zero does not start at zero.
func TestMemoryChartsShowEveryPoint(t *testing.T) {
	fcs, err := memmodel.FamilyCharts()
	if err != nil {
		t.Fatal(err)
	}
	for _, fc := range fcs {
		t.Run("family_"+fc.Family.String(), func(t *testing.T) { memoryChartShowsEveryPoint(t, fc) })
	}
}

// memoryChartShowsEveryPoint is TestMemoryChartsShowEveryPoint for one
// family.
func memoryChartShowsEveryPoint(t *testing.T, fc memmodel.FamilyChart) {
	c, err := memoryChart(fc)
	if err != nil {
		t.Fatal(err)
	}
	legend := strings.Join(c.Series, "\n")
	for _, want := range []string{memmodel.LineParse, memmodel.LineCharge, memmodel.LineSeed, "measured: cpython", "ours (Go)"} {
		if !strings.Contains(legend, want) {
			t.Errorf("family %s: no %q series", fc.Family, want)
		}
	}
	x, y := c.fig.p.X, c.fig.p.Y
	xm, ym := 0.02*(x.Max-x.Min), 0.02*(y.Max-y.Min)
	xlo := x.Max
	for k, s := range append(fc.Measured, fc.Lines...) {
		measured := k < len(fc.Measured)
		for _, p := range s.Points {
			px, py := mib(p.Wire), mib(p.Peak)
			xlo = min(xlo, px)
			inside := px >= x.Min && px <= x.Max && py >= y.Min && py <= y.Max
			clear := px >= x.Min+xm && px <= x.Max-xm && py <= y.Max-ym
			if !inside || measured && !clear {
				t.Errorf("family %s, %s: point (%.2f, %.2f) on or past the axes [%.2f, %.2f] x [%.2f, %.2f]",
					fc.Family, s.Name, px, py, x.Min, x.Max, y.Min, y.Max)
			}
		}
	}
	if xlo > 0.2*x.Max && x.Min == 0 {
		t.Errorf("family %s: data start at %.2f MiB, the axis at 0", fc.Family, xlo)
	}
}

func TestSpan(t *testing.T) {
	for _, c := range []struct {
		name                   string
		lo, hi, wantLo, wantHi float64
	}{
		{"far_from_zero", 12.5, 25, 11.75, 25.75}, // starts near the data
		{"near_zero", 0.5, 25, 0, 26.47},          // clamped at zero, not below
		{"around_zero", -4, 4, -4.48, 4.48},
		{"one_value", 5, 5, 4, 6}, // a margin around it
	} {
		t.Run(c.name, func(t *testing.T) {
			lo, hi := span(c.lo, c.hi, 0.06)
			if d := lo - c.wantLo; d > 0.01 || d < -0.01 {
				t.Errorf("span(%v, %v) starts at %v, want %v", c.lo, c.hi, lo, c.wantLo)
			}
			if d := hi - c.wantHi; d > 0.01 || d < -0.01 {
				t.Errorf("span(%v, %v) ends at %v, want %v", c.lo, c.hi, hi, c.wantHi)
			}
		})
	}
}

func TestNiceTicks(t *testing.T) {
	var labels []string
	for _, tk := range (niceTicks{}).Ticks(11.75, 25.75) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "15 20 25" {
		t.Errorf("labels %q", got)
	}
	labels = nil
	for _, tk := range (logTicks{}).Ticks(5, 30000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "5 10 20 50 100 200 500 1000 2000 5000 10000 20000" {
		t.Errorf("log labels %q", got)
	}
}

// The body-cap chart draws charge's multipliers and marks its residual.
func TestBodyCapChartFromTheLiveModel(t *testing.T) {
	c, err := BodyCap()
	if err != nil {
		t.Fatal(err)
	}
	legend := strings.Join(c.Series, "\n")
	anyResidual := false
	for _, set := range clientSets {
		d := charge.BodyCap(charge.DefaultLimits(), set.encs...)
		anyResidual = anyResidual || len(d.Residual) > 0
		var name []string // the set's encoders: ensure_ascii_and_raw, go
		for _, e := range set.encs {
			name = append(name, e.String())
		}
		t.Run("multiplier_"+strings.Join(name, "_and_"), func(t *testing.T) {
			want := "multiplier for " + set.name + ": " + d.Multiplier.FloatString(1) + "x"
			if !strings.Contains(legend, want) {
				t.Errorf("legend lacks %q:\n%s", want, legend)
			}
		})
	}
	if strings.Contains(legend, "residual") != anyResidual {
		t.Errorf("residual in the legend: %v, in the derivations: %v", !anyResidual, anyResidual)
	}
	classes, encs := wireModel()
	for _, e := range encs {
		t.Run("encoder_"+e.String(), func(t *testing.T) {
			if !strings.Contains(legend, "encoder "+e.String()) {
				t.Errorf("legend lacks encoder %s", e)
			}
		})
	}
	svg, err := c.Render(SVG)
	if err != nil {
		t.Fatal(err)
	}
	for _, cl := range classes {
		t.Run(fmt.Sprintf("class_U%04X", cl.Example), func(t *testing.T) { // the class by its example code point
			if !bytes.Contains(svg, escaped(cl.Name)) {
				t.Errorf("class %q not on the chart", cl.Name)
			}
		})
	}
}

// The throughput chart names every impl of the pinned family and the
// machine, and refuses a run with no such family.
func TestThroughputChartFromThePinnedRun(t *testing.T) {
	c, err := Throughput()
	if err != nil {
		t.Fatal(err)
	}
	for _, impl := range []string{"gate", "encoding-json", "sonic", "sonic-decode"} {
		if !bytes.Contains(benchdata.Suite, []byte("impl="+impl+"-")) {
			continue
		}
		t.Run(impl, func(t *testing.T) {
			found := false
			for _, s := range c.Series {
				found = found || s == implNames[impl]
			}
			if !found {
				t.Errorf("impl %s not in the legend %q", impl, c.Series)
			}
		})
	}
	if !strings.Contains(c.fig.caption, "GOMAXPROCS 2") || !strings.Contains(c.fig.caption, "of 6 runs") {
		t.Errorf("caption %q does not name the run", c.fig.caption)
	}
	only := []byte("pkg: x\nBenchmarkServed/req=valid/impl=none-2 \t 10\t 100 ns/op\t 5 MB/s\n")
	if _, err := throughputFrom(only, "only-served.txt"); err == nil {
		t.Error("a run with no BenchmarkValid drew a chart")
	}
	if _, err := throughputFrom([]byte("not a benchmark\n"), "junk.txt"); err == nil {
		t.Error("junk drew a chart")
	}
}

func TestWriteCreatesTheDirectory(t *testing.T) {
	bc, err := BodyCap()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "a", "b")
	ws, err := Write(dir, []Chart{bc})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || ws[0].Path != filepath.Join(dir, BodyCapFile) || ws[0].Title != bc.Title {
		t.Fatalf("wrote %+v", ws)
	}
	if _, err := os.Stat(ws[0].Path); err != nil {
		t.Error(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := Write(filepath.Join(file, "sub"), []Chart{bc}); err == nil {
		t.Error("wrote under a regular file")
	}
	if _, err := Write(dir, []Chart{{File: "empty.svg"}}); err == nil {
		t.Error("wrote a chart with nothing to draw")
	}
}

// The charts in docs/ are what `boundlab chart --out docs` writes from the
// live model and the pinned records: a stale chart fails here.
func TestChartsInDocsAreCurrent(t *testing.T) {
	for _, c := range allCharts(t) {
		t.Run(c.File, func(t *testing.T) {
			svg, err := c.Render(SVG)
			if err != nil {
				t.Fatal(err)
			}
			have, err := os.ReadFile(filepath.Join("..", "docs", c.File))
			if err != nil || !bytes.Equal(have, svg) {
				t.Errorf("docs/%s is missing or stale: run `go run ./cmd/boundlab chart --out docs`", c.File)
			}
		})
	}
}
