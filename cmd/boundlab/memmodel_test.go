package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/theurian/boundlab/memmodel"
)

func memmodelRun(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(append([]string{"memmodel"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestMemmodelVerbPrintsTheSeedsRows(t *testing.T) {
	code, out, errOut := memmodelRun()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"26214400", "seed-ratio-worst", "pydantic_core.from_json", "38.05", "cpython 3.11.7"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestMemmodelVerbJSON(t *testing.T) {
	code, out, errOut := memmodelRun("--json", "--wire", "3276800")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []memmodel.TableRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range rows {
		if r.Wire > 3276800 || r.Peak <= 0 || r.Instance == "" {
			t.Errorf("%s: wire %d, peak %d, instance %q", r.Shape, r.Wire, r.Peak, r.Instance)
		}
	}
}

func TestMemmodelVerbGoRows(t *testing.T) {
	code, out, errOut := memmodelRun("--dialect", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "refused: gate charge") || !strings.Contains(out, "runtime/metrics") {
		t.Errorf("go rows lack the gate refusal or the instrument:\n%s", out)
	}
}

// --wire is bounded below by the envelope plus room for a leaf and above by
// 2 GiB; --div by 1..4096: at each bound and one past it.
func TestMemmodelVerbBounds(t *testing.T) {
	lo := memmodel.EnvelopeBytes + 16
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"wire_at_the_lower_bound", []string{"--wire", strconv.Itoa(lo)}, 0},
		{"wire_one_under_the_lower_bound", []string{"--wire", strconv.Itoa(lo - 1)}, 2},
		{"wire_at_2GiB", []string{"--wire", strconv.Itoa(1 << 31), "--json"}, 0},
		{"wire_one_past_2GiB", []string{"--wire", strconv.Itoa(1<<31 + 1)}, 2},
		{"an_unknown_dialect", []string{"--dialect", "ruby"}, 2},
		{"a_stray_argument", []string{"stray"}, 2},
		{"calibrate_without_python", []string{"calibrate"}, 2},
		{"calibrate_div_0", []string{"calibrate", "--python", "python3", "--div", "0"}, 2},
		{"calibrate_div_4097", []string{"calibrate", "--python", "python3", "--div", "4097"}, 2},
		{"calibrate_out_with_div", []string{"calibrate", "--python", "python3", "--div", "2", "--out", "x.json"}, 2},
		{"measure-go_div_0", []string{"measure-go", "--div", "0"}, 2},
		{"measure-go_div_4097", []string{"measure-go", "--div", "4097"}, 2},
		{"measure-go_an_unknown_row", []string{"measure-go", "--row", "no-such-shape"}, 2},
		{"measure-go_an_unknown_path", []string{"measure-go", "--row", "ascii", "--path", "ftp"}, 2},
		{"measure-go_out_with_div", []string{"measure-go", "--out", "x.json", "--div", "2"}, 2},
		{"measure-go_an_unknown_shape", []string{"measure-go", "--shapes", "ascii,no-such-shape"}, 2},
		{"measure-go_row_and_shapes", []string{"measure-go", "--row", "ascii", "--shapes", "ascii"}, 2},
		{"calibrate_a_stray_argument", []string{"calibrate", "--python", "python3", "stray"}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := memmodelRun(c.args...)
			if code != c.want {
				t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.want, errOut)
			}
			if c.want == 2 && errOut == "" {
				t.Errorf("%v: refused without saying why", c.args)
			}
		})
	}
}

func TestMemmodelVerbCalibrateNamesAMissingInterpreter(t *testing.T) {
	code, _, errOut := memmodelRun("calibrate", "--python", filepath.Join(t.TempDir(), "python-missing"), "--div", "64")
	if code != 2 || !strings.Contains(errOut, "python-missing") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// calibrate's table lines up: every column of every row ends where the
// header's does, whatever the cells' lengths (a short and a long shape name,
// parser versions and interpreter versions of different widths, a held and
// an under-predicted row).
func TestCalibrationTableAligned(t *testing.T) {
	row := func(shape, parser, version, python string, wire, peak, pred int64) memmodel.CalibratedRow {
		return memmodel.CalibratedRow{Shape: shape, Family: "ii", Measured: memmodel.Measurement{Python: python, Parser: parser,
			ParserVersion: version, Wire: wire, Peak: peak}, PredPeak: pred, SeedPeak: pred / 2}
	}
	rows := []memmodel.CalibratedRow{
		row("a", "json", "2.0.9", "3.11.7", 1234, 99_000, 100_000),
		row("astral-nonprintable-at-budget", "pydantic_core", "2.41.5", "3.13.0", 26_214_400, 1_500_000_000, 1_400_000_000),
		row("2byte-printable-at-budget", "json", "", "3.9.18", 12, 4096, 8192),
	}
	var b bytes.Buffer
	writeCalibrationTable(&b, rows)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != len(rows)+1 {
		t.Fatalf("%d lines for %d rows:\n%s", len(lines), len(rows), b.String())
	}
	// A right-aligned column ends at the same byte on every line: the
	// header's cell ends (a non-space before two spaces or the end).
	var ends []int
	h := lines[0]
	for i := 0; i < len(h); i++ {
		if h[i] != ' ' && (i+1 == len(h) || strings.HasPrefix(h[i+1:], "  ")) {
			ends = append(ends, i)
		}
	}
	if len(ends) != 10 {
		t.Fatalf("the header has %d columns, want 10: %q", len(ends), h)
	}
	for i, l := range lines[1:] {
		t.Run(rows[i].Shape, func(t *testing.T) { // the table's lines are the rows, in order
			if len(l) != len(h) {
				t.Fatalf("row of %d bytes, header %d:\n%s\n%s", len(l), len(h), h, l)
			}
			for _, e := range ends {
				if l[e] == ' ' || (e+1 < len(l) && l[e+1] != ' ') {
					t.Errorf("a cell does not end at column %d:\n%s\n%s", e, h, l)
				}
			}
		})
	}
	if !strings.Contains(b.String(), "NO") || !strings.Contains(b.String(), "26,214,400") {
		t.Errorf("the under-predicted row or the wire bytes are missing:\n%s", b.String())
	}
}
