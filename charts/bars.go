package charts

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// hbars draws horizontal bars from 0 to each value, centred at Y+Shift with
// a thickness, both in data units, so a group's bars and the marks placed on
// them share one coordinate system whatever the canvas size.
type hbars struct {
	Values    []float64 // bar i sits at Y = i + Shift
	Shift     float64
	Thickness float64
	Color     color.Color
	Outline   draw.LineStyle
}

func (b hbars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, v := range b.Values {
		y := float64(i) + b.Shift
		y0, y1 := trY(y-b.Thickness/2), trY(y+b.Thickness/2)
		x0, x1 := trX(0), trX(v)
		pts := []vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}}
		c.FillPolygon(b.Color, c.ClipPolygonXY(pts))
		c.StrokeLines(b.Outline, c.ClipLinesXY(append(pts, pts[0]))...)
	}
}

func (b hbars) DataRange() (xmin, xmax, ymin, ymax float64) {
	for _, v := range b.Values {
		xmin, xmax = min(xmin, v), max(xmax, v)
	}
	return xmin, xmax, b.Shift - b.Thickness/2, float64(len(b.Values)-1) + b.Shift + b.Thickness/2
}

func (b hbars) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	pts := []vg.Point{r.Min, {X: r.Min.X, Y: r.Max.Y}, r.Max, {X: r.Max.X, Y: r.Min.Y}}
	c.FillPolygon(b.Color, pts)
	c.StrokeLines(b.Outline, append(pts, pts[0]))
}
