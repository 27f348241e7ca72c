package charts

import (
	"fmt"
	"os"
	"path/filepath"
)

// All draws every chart, in a stable order: the memory families, the body
// cap's wire ratio, the gate's throughput.
func All() ([]Chart, error) {
	mem, err := Memory()
	if err != nil {
		return nil, err
	}
	bc, err := BodyCap()
	if err != nil {
		return nil, err
	}
	tp, err := Throughput()
	if err != nil {
		return nil, err
	}
	return append(mem, bc, tp), nil
}

// Written is one chart written to disk.
type Written struct {
	Path  string `json:"path"`
	Title string `json:"title"`
}

// Write renders each chart as SVG into dir, creating dir (and its parents)
// if it does not exist. Every chart is rendered before the first file is
// written, so a chart that cannot be drawn leaves dir untouched; an error
// from the file system is returned as is (a *fs.PathError), so a caller can
// tell it from a drawing error.
func Write(dir string, cs []Chart) ([]Written, error) {
	svgs := make([][]byte, len(cs))
	for i, c := range cs {
		b, err := c.Render(SVG)
		if err != nil {
			return nil, fmt.Errorf("charts: %s: %w", c.File, err)
		}
		svgs[i] = b
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []Written
	for i, c := range cs {
		p := filepath.Join(dir, c.File)
		if err := os.WriteFile(p, svgs[i], 0o644); err != nil {
			return out, err
		}
		out = append(out, Written{Path: p, Title: c.Title})
	}
	return out, nil
}
