package sweeps

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/theurian/boundlab/results"
)

// SampleGlobs are the real files the Go-client question is measured over:
// the HTML in the Go toolchain's source tree, and the Go source of
// html/template, whose text is dense in < > & by the nature of the package.
// Both come with the toolchain a record's build names (under src/, which
// every distribution holds: the toolchains GOTOOLCHAIN fetches have no doc/),
// so the figures move only with it. A Glob starting "src/**/" matches its
// tail at any depth under src/.
var SampleGlobs = []struct{ ID, Glob, What string }{
	{"html", "src/**/*.html", "HTML"},
	{"go-source", "src/html/template/*.go", "Go source"},
}

// sampleFiles lists the files under root a SampleGlobs pattern matches.
func sampleFiles(root, glob string) ([]string, error) {
	dir, tail, deep := strings.Cut(glob, "/**/")
	if !deep {
		return filepath.Glob(filepath.Join(root, glob))
	}
	var out []string
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ok, _ := filepath.Match(tail, d.Name()); ok && !d.IsDir() {
			out = append(out, path)
		}
		return nil
	})
	return out, err
}

// HTMLSamples measures Go's encoding/json over each sample set: the worst
// whole-file wire ratio, and that file's share of < > & bytes.
func HTMLSamples() ([]results.Record, error) {
	root := runtime.GOROOT()
	var recs []results.Record
	for _, g := range SampleGlobs {
		files, err := sampleFiles(root, g.Glob)
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
				Value: worst, Unit: "x landed bytes", Instance: inst, Method: results.Measured, Source: src, Build: results.CurrentBuild(),
				DependsOn: []string{results.DepGo}},
			results.Record{ID: "bodycap.go-clients.sample-" + g.ID + ".density", Title: "share of < > & bytes in that file",
				Value: density, Unit: "fraction of landed bytes", Instance: inst, Method: results.Measured,
				Source: "bytes equal to < > or & over the file's length", Build: results.CurrentBuild(),
				DependsOn: []string{results.DepGo}},
		)
	}
	return recs, nil
}
