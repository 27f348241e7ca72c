package results

import (
	"strings"
	"testing"
)

// TestDiffAcrossBuilds holds diffBuild's rules on records pinned on one
// build and recomputed on another.
func TestDiffAcrossBuilds(t *testing.T) {
	const sdk = "github.com/modelcontextprotocol/go-sdk"
	old := Build{Go: "go1.26.8", Unicode: map[string]string{"go": "15.0.0", "python": "15.1.0"}}
	now := Build{Go: "go1.27.3", Unicode: map[string]string{"go": "17.0.0", "python": "15.1.0"}}
	rec := func(id string, v float64, b Build, deps ...string) Record {
		return Record{ID: id, Title: "t", Value: v, Unit: "u", Method: Derived, Build: b, DependsOn: deps}
	}
	withSDK := func(b Build, v string) Build {
		b.Modules = map[string]string{sdk: v}
		return b
	}
	cases := []struct {
		name          string
		pinned, live  Record
		strict        bool
		drift, rederi int
		changes       int
	}{
		{"same build, same value", rec("a", 1, old), rec("a", 1, old), false, 0, 0, 0},
		{"same build, moved", rec("a", 1, old), rec("a", 2, old), false, 1, 0, 0},
		{"independent, other toolchain", rec("a", 1, old), rec("a", 1, now), false, 0, 0, 0},
		{"independent, other toolchain, moved", rec("a", 1, old), rec("a", 2, now), false, 1, 0, 0},
		{"independent, strict", rec("a", 1, old), rec("a", 1, now), true, 2, 0, 0},
		{"unicode-dependent, held", rec("a", 1, old, DepGoUnicode), rec("a", 1, now, DepGoUnicode), false, 0, 1, 0},
		{"unicode-dependent, moved", rec("a", 1, old, DepGoUnicode), rec("a", 2, now, DepGoUnicode), false, 0, 1, 1},
		{"unicode-dependent, strict", rec("a", 1, old, DepGoUnicode), rec("a", 2, now, DepGoUnicode), true, 3, 0, 0},
		{"runtime-dependent, only Go moved", rec("a", 1, old, DepGo), rec("a", 2, Build{Go: "go1.26.9", Unicode: old.Unicode}, DepGo), false, 0, 1, 1},
		{"unicode-dependent, only Go moved", rec("a", 1, old, DepGoUnicode), rec("a", 2, Build{Go: "go1.26.9", Unicode: old.Unicode}, DepGoUnicode), false, 1, 0, 0},
		{"dependence undeclared since pinning", rec("a", 1, old), rec("a", 2, now, DepGoUnicode), false, 1, 1, 1},
		{"module named, module moved", rec("a", 1, withSDK(old, "v1.8.0")), rec("a", 2, withSDK(old, "v1.9.0")), false, 0, 1, 1},
		{"method changed on a dependent record", rec("a", 1, old, DepGo), Record{ID: "a", Title: "t", Value: 1, Unit: "u", Method: Measured, Build: now, DependsOn: []string{DepGo}}, false, 1, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { // t.Run writes the spaces as _
			probs, rds := diffBuild("p", []Record{c.pinned}, []Record{c.live}, c.strict)
			changes := 0
			for _, r := range rds {
				changes += len(r.Changes)
			}
			if len(probs) != c.drift || len(rds) != c.rederi || changes != c.changes {
				t.Errorf("%s: %d drift %v, %d re-derived %+v; want %d, %d with %d changes", c.name, len(probs), probs, len(rds), rds, c.drift, c.rederi, c.changes)
			}
		})
	}
	// Diff, the exported form, is strict.
	if probs := Diff("p", []Record{rec("a", 1, old)}, []Record{rec("a", 1, now)}); len(probs) != 2 {
		t.Errorf("Diff across builds: %v, want build.go and build.unicode drift", probs)
	}
	_, rds := diffBuild("p", []Record{rec("a", 1, old, DepGoUnicode)}, []Record{rec("a", 2, now, DepGoUnicode)}, false)
	if len(rds) != 1 || strings.Join(rds[0].Because, ";") != "unicode.go: 15.0.0 -> 17.0.0" || rds[0].Changes[0] != "value: pinned 1 u, live 2 u" {
		t.Errorf("re-derivation report: %+v", rds)
	}
}

func TestDependencies(t *testing.T) {
	r := Record{DependsOn: []string{DepGoUnicode, DepGo}, Build: Build{Modules: map[string]string{"m/x": "v1", "cpython": "3.13.0"}}}
	if got := strings.Join(Dependencies(r), " "); got != "go modules.cpython modules.m/x unicode.go" {
		t.Errorf("Dependencies = %q", got)
	}
	if got := DescribeBuild(Build{Go: "go1.27.3", Unicode: map[string]string{"go": "17.0.0", "python": "15.1.0"}}); got != "go1.27.3 (Unicode go=17.0.0, python=15.1.0)" {
		t.Errorf("DescribeBuild = %q", got)
	}
}
