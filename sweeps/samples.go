package sweeps

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"unicode/utf8"

	"github.com/theurian/boundlab/results"
)

// SampleGlobs are the real files the Go-client question is measured over:
// the HTML the Go toolchain ships, and the Go source of html/template, whose
// text is dense in < > & by the nature of the package. Both come with the
// toolchain a record's build names, so the figures move only with it.
var SampleGlobs = []struct{ ID, Glob, What string }{
	{"html", "doc/*.html", "HTML"},
	{"go-source", "src/html/template/*.go", "Go source"},
}

// HTMLSamples measures Go's encoding/json over each sample set: the worst
// whole-file wire ratio, and that file's share of < > & bytes.
func HTMLSamples() ([]results.Record, error) {
	root := runtime.GOROOT()
	var recs []results.Record
	for _, g := range SampleGlobs {
		files, err := filepath.Glob(filepath.Join(root, g.Glob))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("sweeps: no %s under GOROOT %s: the samples need the Go toolchain's own tree", g.Glob, root)
		}
		var worst, density float64
		var worstFile string
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			if !utf8.Valid(b) || len(b) == 0 {
				continue
			}
			j, err := json.Marshal(string(b))
			if err != nil {
				return nil, err
			}
			if r := float64(len(j)-2) / float64(len(b)); r > worst {
				n := 0
				for _, c := range b {
					if c == '<' || c == '>' || c == '&' {
						n++
					}
				}
				worst, worstFile, density = r, f, float64(n)/float64(len(b))
			}
		}
		rel, _ := filepath.Rel(root, worstFile)
		inst := fmt.Sprintf("$GOROOT/%s, the worst of the %d files $GOROOT/%s matches", filepath.ToSlash(rel), len(files), g.Glob)
		src := "encoding/json.Marshal of the whole file (HTML escaping on, the default) over its UTF-8 length"
		recs = append(recs,
			results.Record{ID: "bodycap.go-clients.sample-" + g.ID + ".ratio", Title: "go wire ratio of real " + g.What + " (worst file)",
				Value: worst, Unit: "x landed bytes", Instance: inst, Method: results.Measured, Source: src, Build: results.CurrentBuild()},
			results.Record{ID: "bodycap.go-clients.sample-" + g.ID + ".density", Title: "share of < > & bytes in that file",
				Value: density, Unit: "fraction of landed bytes", Instance: inst, Method: results.Measured,
				Source: "bytes equal to < > or & over the file's length", Build: results.CurrentBuild()},
		)
	}
	return recs, nil
}
