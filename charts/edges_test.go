package charts

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// inkAtEdge reports whether anything is drawn within border pixels of the
// image's edge: a title, axis label, tick label or legend cut off by the
// canvas reaches it.
func inkAtEdge(img image.Image, border int) (image.Point, bool) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if x >= b.Min.X+border && x < b.Max.X-border && y >= b.Min.Y+border && y < b.Max.Y-border {
				continue
			}
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				return image.Point{X: x, Y: y}, true
			}
		}
	}
	return image.Point{}, false
}

func renderPNG(t *testing.T, c Chart) image.Image {
	t.Helper()
	b, err := c.Render(PNG)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// Every chart, rendered, leaves a blank frame around its edge: no title,
// axis label, tick label or legend entry is clipped by the canvas. A chart
// whose title is too long for it does reach the edge (the check can fail).
func TestChartsNothingTouchesTheEdge(t *testing.T) {
	const border = 3 // pixels at 110 DPI; the layout keeps a 6-point margin
	for _, c := range allCharts(t) {
		t.Run(c.File, func(t *testing.T) {
			if p, ok := inkAtEdge(renderPNG(t, c), border); ok {
				t.Errorf("%s: ink at the edge, pixel %v", c.File, p)
			}
		})
	}
	f := newFigure(strings.Repeat("a title far too long to fit ", 8), 4*vg.Inch, 3*vg.Inch)
	if _, ok := inkAtEdge(renderPNG(t, f.chart("long.svg")), border); !ok {
		t.Error("an overlong title leaves the edge blank: the check sees nothing")
	}
}
