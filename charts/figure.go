package charts

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart is one figure: the file it is written to, its title and the names in
// its legend.
type Chart struct {
	File   string
	Title  string
	Series []string // the legend's entries, in order
	fig    *figure
}

// Formats Render accepts.
const (
	SVG = "svg"
	PNG = "png"
)

// Render draws the chart as SVG or PNG.
func (c Chart) Render(format string) ([]byte, error) {
	if c.fig == nil {
		return nil, fmt.Errorf("charts: %s has nothing to draw", c.File)
	}
	return c.fig.render(format)
}

// Layout, in points. The legend strip sits under the plot.
const (
	titleSize  = 13
	legendSize = 10
	margin     = 6
	columnGap  = 18
)

// figure is a plot whose legend is drawn outside its data area.
type figure struct {
	p       *plot.Plot
	entries []entry
	w, h    vg.Length
	// caption is a line under the plot, above the legend: the axis label of
	// a log-scale axis (gonum centres an axis label by the linear midpoint
	// of the range, which on a log scale pushes the data area aside).
	caption string
}

type entry struct {
	name   string
	thumbs []plot.Thumbnailer
}

func newFigure(title string, w, h vg.Length) *figure {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = titleSize
	p.Title.Padding = vg.Points(8)
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	return &figure{p: p, w: w, h: h}
}

// add puts a plotter on the plot and, when name is not empty, in the legend.
func (f *figure) add(name string, pl plot.Plotter, thumbs ...plot.Thumbnailer) {
	f.p.Add(pl)
	if name != "" {
		f.entries = append(f.entries, entry{name, thumbs})
	}
}

func (f *figure) names() []string {
	var ns []string
	for _, e := range f.entries {
		ns = append(ns, e.name)
	}
	return ns
}

func (f *figure) chart(file string) Chart {
	return Chart{File: file, Title: f.p.Title.Text, Series: f.names(), fig: f}
}

// textFits reports whether the title and the caption each fit the figure's
// width on one line.
func (f *figure) textFits() bool {
	return f.p.Title.TextStyle.Width(f.p.Title.Text) <= f.w-2*margin &&
		f.captionStyle().Width(f.caption) <= f.w-2*margin
}

func (f *figure) captionStyle() text.Style {
	sty := f.p.X.Label.TextStyle
	sty.Font.Size = legendSize
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
	return sty
}

// legends splits the entries into as many columns as fit the width, filled
// column by column.
func (f *figure) legends() []plot.Legend {
	if len(f.entries) == 0 {
		return nil
	}
	base := plot.NewLegend()
	base.TextStyle.Font.Size = legendSize
	base.Top, base.Left = true, true
	base.Padding = vg.Points(2)
	var widest vg.Length
	for _, e := range f.entries {
		widest = max(widest, base.ThumbnailWidth+base.TextStyle.Width(" "+e.name))
	}
	cols := max(1, min(len(f.entries), int((f.w-2*margin+columnGap)/(widest+columnGap))))
	rows := (len(f.entries) + cols - 1) / cols
	var out []plot.Legend
	for i := 0; i < len(f.entries); i += rows {
		l := base
		for _, e := range f.entries[i:min(i+rows, len(f.entries))] {
			l.Add(e.name, e.thumbs...)
		}
		out = append(out, l)
	}
	return out
}

// layout splits the canvas: the legend's columns along the bottom, the
// caption above them, the plot (title, axes, data) above both.
type layout struct {
	plot    draw.Canvas
	legend  []draw.Canvas // one per column, each as tall as the legend
	caption vg.Point      // the caption's centre baseline, if there is one
}

// legendRect is where a legend with Top and Left set draws itself in col
// (plot.Legend.Rectangle places a Left legend at the right edge).
func legendRect(l plot.Legend, col draw.Canvas) vg.Rectangle {
	size := l.Rectangle(col).Size()
	return vg.Rectangle{Min: vg.Point{X: col.Min.X, Y: col.Max.Y - size.Y}, Max: vg.Point{X: col.Min.X + size.X, Y: col.Max.Y}}
}

func (f *figure) layout(c draw.Canvas, ls []plot.Legend) layout {
	c = draw.Crop(c, margin, -margin, margin, -margin)
	var lay layout
	var legendH, colW vg.Length
	for _, l := range ls {
		r := l.Rectangle(c)
		legendH = max(legendH, r.Size().Y)
		colW = max(colW, r.Size().X)
	}
	for i := range ls {
		col := draw.Crop(c, vg.Length(i)*(colW+columnGap), 0, 0, 0)
		col.Max.Y = c.Min.Y + legendH
		lay.legend = append(lay.legend, col)
	}
	under := legendH
	if legendH > 0 {
		under += 2 * margin
	}
	right := f.rightOverhang()
	if f.caption != "" {
		sty := f.captionStyle()
		pc := f.p.DataCanvas(draw.Crop(c, 0, -right, under, 0))
		// Centred under the data area, but never past the canvas: a
		// caption as wide as the figure slides left rather than being cut.
		half := sty.Width(f.caption) / 2
		x := min(max((pc.Min.X+pc.Max.X)/2, c.Min.X+half), c.Max.X-half)
		lay.caption = vg.Point{X: x, Y: c.Min.Y + under + sty.FontExtents().Descent}
		under += sty.Height(f.caption) + margin
	}
	lay.plot = draw.Crop(c, 0, -right, under, 0)
	return lay
}

// rightOverhang is how far the X axis's last tick label reaches past the
// data area's right edge: half its width, since gonum centres a tick label
// on its tick and does not keep the last one inside the canvas.
func (f *figure) rightOverhang() vg.Length {
	if f.p.X.Tick.Marker == nil || !(f.p.X.Max > f.p.X.Min) {
		return 0
	}
	var last string
	for _, t := range f.p.X.Tick.Marker.Ticks(f.p.X.Min, f.p.X.Max) {
		if t.Label != "" {
			last = t.Label
		}
	}
	return f.p.X.Tick.Label.Width(last) / 2
}

func (f *figure) draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	ls := f.legends()
	lay := f.layout(c, ls)
	for i, l := range ls {
		l.Draw(lay.legend[i])
	}
	if f.caption != "" {
		c.FillText(f.captionStyle(), lay.caption, f.caption)
	}
	f.p.Draw(lay.plot)
}

func (f *figure) render(format string) ([]byte, error) {
	var buf bytes.Buffer
	switch format {
	case SVG:
		cv := vgsvg.New(f.w, f.h)
		f.draw(draw.New(cv))
		if _, err := cv.WriteTo(&buf); err != nil {
			return nil, err
		}
	case PNG:
		cv := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.w, f.h), vgimg.UseDPI(110))}
		f.draw(draw.New(cv))
		if _, err := cv.WriteTo(&buf); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("charts: unknown format %q (want svg or png)", format)
	}
	return buf.Bytes(), nil
}

// span is an axis range around [lo, hi]: a margin of frac of the width on
// each side, kept at or above zero when the data are, so an axis starts near
// its data rather than at zero.
func span(lo, hi, frac float64) (float64, float64) {
	if hi <= lo {
		d := math.Max(math.Abs(lo)*frac, 1)
		return lo - d, hi + d
	}
	pad := (hi - lo) * frac
	a, b := lo-pad, hi+pad
	if lo >= 0 && a < 0 {
		a = 0
	}
	return a, b
}

// Series styles, distinct in hue, glyph and dash so they read in grey too.
var (
	// lineColors are darker and muted, for model lines under bright points.
	lineColors = []color.Color{
		color.RGBA{R: 0x20, G: 0x20, B: 0x20, A: 255},
		color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 255},
		color.RGBA{R: 0x00, G: 0x80, B: 0x80, A: 255},
		color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 255},
		color.RGBA{R: 0xc0, G: 0x4f, B: 0x9a, A: 255},
	}
	palette = []color.Color{
		color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 255}, // blue
		color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 255}, // red
		color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 255}, // green
		color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 255}, // orange
		color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 255}, // purple
		color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 255}, // brown
		color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 255}, // cyan
		color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 255}, // grey
	}
	// glyphs are mostly hollow, so points at the same place stay visible.
	glyphs = []draw.GlyphDrawer{draw.RingGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{},
		draw.PlusGlyph{}, draw.PyramidGlyph{}, draw.CircleGlyph{}, draw.BoxGlyph{}}
	dashes = [][]vg.Length{nil, {vg.Points(5), vg.Points(3)}, {vg.Points(1.5), vg.Points(2.5)},
		{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}, {vg.Points(10), vg.Points(4)}}
)

func pick[T any](s []T, i int) T { return s[i%len(s)] }

// niceTicks labels steps of 1, 2 or 5 times a power of ten, about six of
// them across the range, with unlabelled minor ticks between.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	raw := (hi - lo) / 6
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	step, minors := 10*pow, 5.0
	for _, m := range []struct{ k, minors float64 }{{1, 5}, {2, 4}, {5, 5}} {
		if m.k*pow >= raw {
			step, minors = m.k*pow, m.minors
			break
		}
	}
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	minor := step / minors
	var ts []plot.Tick
	for i := math.Ceil(lo / minor); i*minor <= hi+minor*1e-9; i++ {
		v := i * minor
		t := plot.Tick{Value: v}
		if k := math.Round(i / minors); math.Abs(i/minors-k) < 1e-9 {
			v = k * step
			t.Value, t.Label = v, strconv.FormatFloat(v, 'f', decimals, 64)
		}
		ts = append(ts, t)
	}
	return ts
}

// rowGrid draws vertical grid lines at the X ticks and a rule between each
// of n rows of a nominal Y axis, so every mark reads against its own row.
func (f *figure) rowGrid(n int) {
	g := plotter.NewGrid()
	g.Horizontal.Color = nil
	f.p.Add(g)
	for i := 0; i < n-1; i++ {
		r := rule{Y: float64(i) + 0.5, Style: draw.LineStyle{Color: color.Gray{Y: 0xb0}, Width: vg.Points(0.5)}}
		f.p.Add(r)
	}
}

// rule is a horizontal line across the whole data area at Y.
type rule struct {
	Y     float64
	Style draw.LineStyle
}

func (r rule) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(r.Y)
	c.StrokeLine2(r.Style, c.Min.X, y, c.Max.X, y)
}
