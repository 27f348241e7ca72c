package memmodel

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The charts in docs/ are what `boundlab memmodel chart --out docs` writes
// from the live model and the pinned rows: a stale chart fails here.
func TestChartsInDocsAreCurrent(t *testing.T) {
	charts, err := Charts()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Families {
		name := ChartFile(f)
		svg := charts[name]
		if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("measured: cpython")) {
			t.Errorf("%s: not an SVG with the calibration on it", name)
		}
		have, err := os.ReadFile(filepath.Join("..", "docs", name))
		if err != nil {
			t.Errorf("%s: %v (run `go run ./cmd/boundlab memmodel chart --out docs`)", name, err)
			continue
		}
		if !bytes.Equal(have, svg) {
			t.Errorf("docs/%s is stale: run `go run ./cmd/boundlab memmodel chart --out docs`", name)
		}
	}
}
