package results

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		name string
		r    Record
		want string
	}{
		{"bytes", Record{Value: 26214400, Unit: "bytes"}, "26,214,400 bytes"},
		{"ratio", Record{Value: 6.166651, Unit: "x budget"}, "6.17x budget"},
		{"negative", Record{Value: -1234, Unit: "u"}, "-1,234 u"},
		{"fraction", Record{Value: 0.0610239, Unit: "fraction"}, "0.0610239 fraction"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := FormatValue(c.r); got != c.want {
				t.Errorf("FormatValue(%v %q) = %q, want %q", c.r.Value, c.r.Unit, got, c.want)
			}
		})
	}
}

func TestDiffAllowsAMeasuredValueItsToleranceAndNoMore(t *testing.T) {
	pinned := Record{ID: "m", Value: 10, Unit: "u", Method: Measured, Tolerance: 0.5}
	for _, c := range []struct {
		live  float64
		drift bool
	}{{10, false}, {10.5, false}, {9.5, false}, {10.51, true}, {9.49, true}} {
		t.Run(fmt.Sprintf("live_%v", c.live), func(t *testing.T) {
			live := pinned
			live.Value = c.live
			if got := len(Diff("p", []Record{pinned}, []Record{live})) > 0; got != c.drift {
				t.Errorf("live %v against %v ±%v: drift %v, want %v", c.live, pinned.Value, pinned.Tolerance, got, c.drift)
			}
		})
	}
	derived := Record{ID: "d", Value: 10, Method: Derived}
	live := derived
	live.Value = 10.0000001
	if len(Diff("p", []Record{derived}, []Record{live})) == 0 {
		t.Error("a derived value moved and Diff saw nothing")
	}
}

func TestLoadRefusesAFileNamedForAnotherProducer(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"producer":"b","records":[]}`), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "<producer>.json") {
		t.Fatalf("Load: %v, want a refusal naming the layout", err)
	}
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"producer":"a","records":[],"extra":1}`), 0o644)
	if _, err := Load(dir); err == nil {
		t.Fatal("Load accepted an unknown field")
	}
}

func TestScanRetiredWantsTheIDInTheSameParagraphOrRow(t *testing.T) {
	recs := []Record{{ID: "retired.x", Method: Retired, Retirement: &Retirement{Keys: []string{`53,476,811`}}}}
	dir := t.TempDir()
	doc := filepath.Join(dir, "a.md")
	write := func(s string) int {
		os.WriteFile(doc, []byte(s), 0o644)
		return len(ScanRetired(recs, []string{dir}))
	}
	if n := write("It was 53,476,811.\n\nretired.x is elsewhere.\n"); n != 1 {
		t.Errorf("id in another paragraph: %d problems, want 1", n)
	}
	if n := write("It was 53,476,811\n(retired.x).\n"); n != 0 {
		t.Errorf("id in the same paragraph: %d problems, want 0", n)
	}
	if n := write("| a | 53,476,811 |\n| retired.x | b |\n"); n != 1 {
		t.Errorf("id in another table row: %d problems, want 1", n)
	}
	if n := write("| 53,476,811 | retired.x |\n"); n != 0 {
		t.Errorf("id in the same row: %d problems, want 0", n)
	}
}
