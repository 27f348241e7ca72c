package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/theurian/boundlab/charge"
)

// File is the layout of one pinned file, DIR/<producer>.json: every record
// one producer makes, in the order it makes them. Each producer owns its file,
// so producers from different packages pin side by side.
type File struct {
	Producer string   `json:"producer"`
	Records  []Record `json:"records"`
}

// FileName is the pinned file that holds a producer's records.
func FileName(producer string) string { return producer + ".json" }

// Load reads every DIR/*.json pinned file, keyed by producer.
func Load(dir string) (map[string][]Record, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("results: %s is not a directory of pinned records", dir)
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	out := map[string][]Record{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var f File
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if f.Producer == "" || FileName(f.Producer) != filepath.Base(p) {
			return nil, fmt.Errorf("%s: holds producer %q; a producer's records live in <producer>.json", p, f.Producer)
		}
		out[f.Producer] = f.Records
	}
	return out, nil
}

// Marshal is the canonical bytes of a pinned file.
func Marshal(producer string, recs []Record) ([]byte, error) {
	data, err := json.MarshalIndent(File{Producer: producer, Records: recs}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Save pins a producer's records in DIR/<producer>.json.
func Save(dir, producer string, recs []Record) error {
	data, err := Marshal(producer, recs)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, FileName(producer)), data, 0o644)
}

// Live runs every producer, keyed by name. A producer's error is returned
// beside the records the others made.
func Live(producers []Producer) (map[string][]Record, map[string]error) {
	out, errs := map[string][]Record{}, map[string]error{}
	for _, p := range producers {
		recs, err := p.Records()
		if err != nil {
			errs[p.Name] = err
			continue
		}
		out[p.Name] = recs
	}
	return out, errs
}

// CurrentBuild is the build a record computed now holds for: the Go version,
// each dialect's Unicode version, and the version of each named module as
// linked into this binary ("(devel)" for the main module, "not linked" when
// the binary does not hold it).
func CurrentBuild(modules ...string) Build {
	b := Build{Go: runtime.Version(), Unicode: map[string]string{}}
	for _, d := range charge.Dialects() {
		b.Unicode[d.String()] = d.UnicodeVersion()
	}
	if len(modules) == 0 {
		return b
	}
	b.Modules = map[string]string{}
	info, ok := debug.ReadBuildInfo()
	for _, m := range modules {
		v := "not linked"
		if ok {
			if info.Main.Path == m {
				v = info.Main.Version
			}
			for _, dep := range info.Deps {
				if dep.Path == m {
					v = dep.Version
					if dep.Replace != nil {
						v += " => " + dep.Replace.Path + " " + dep.Replace.Version
					}
				}
			}
		}
		b.Modules[m] = v
	}
	return b
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func joinMap(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ", ")
}
