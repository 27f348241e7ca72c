package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charts"
)

func chartRun(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(append([]string{"chart"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestChartVerbHelp(t *testing.T) {
	for _, h := range []string{"-h", "--help"} {
		t.Run(h, func(t *testing.T) {
			code, out, errOut := chartRun(h)
			if code != 0 || errOut != "" || !strings.HasPrefix(out, "usage: boundlab chart") {
				t.Errorf("%s: exit %d, stdout %q, stderr %q", h, code, out, errOut)
			}
			for _, l := range strings.Split(out, "\n") {
				if len(l) > 80 {
					t.Errorf("help line of %d columns: %q", len(l), l)
				}
			}
		})
	}
}

func TestChartVerbUsageErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"no_flags", []string{}},
		{"json_without_out", []string{"--json"}},
		{"out_without_DIR", []string{"--out"}},
		{"out_empty", []string{"--out", ""}},
		{"an_argument_past_the_flags", []string{"--out", t.TempDir(), "extra"}},
		{"an_unknown_flag", []string{"--bogus"}},
		{"DIR_cannot_be_created", []string{"--out", filepath.Join(file, "sub")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := chartRun(c.args...)
			if code != 2 || out != "" || errOut == "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q", c.args, code, out, errOut)
			}
			if strings.Contains(errOut, file) {
				t.Errorf("%q: the error echoes the path: %q", c.args, errOut)
			}
		})
	}
}

// --out creates the directory; --json lists every chart written, with its
// title, and each file is there.
func TestChartVerbJSONCreatesTheDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "charts")
	code, out, errOut := chartRun("--out", dir, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got chartOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want, err := charts.All()
	if err != nil {
		t.Fatal(err)
	}
	if got.Out != dir || len(got.Charts) != len(want) {
		t.Fatalf("out %q, %d charts, want %q and %d", got.Out, len(got.Charts), dir, len(want))
	}
	for i, w := range got.Charts {
		if w.Path != filepath.Join(dir, want[i].File) || w.Title != want[i].Title {
			t.Errorf("chart %d: %+v, want %s %q", i, w, want[i].File, want[i].Title)
		}
		b, err := os.ReadFile(w.Path)
		if err != nil || !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("%s: %v", w.Path, err)
		}
	}
}

func TestChartVerbPlainOutput(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := chartRun("--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, f := range []string{charts.BodyCapFile, charts.ThroughputFile} {
		if !strings.Contains(out, "wrote "+filepath.Join(dir, f)) {
			t.Errorf("output lacks %s:\n%s", f, out)
		}
	}
}
