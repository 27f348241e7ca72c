package memmodel

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// ReplaceGoRows puts each fresh row in the place of the pinned row of its
// shape and path, keeps every other row as it was and in its order, and
// refuses a fresh row that replaces nothing; ReadGoRows reads what
// WriteGoRows wrote.
func TestReplaceGoRows(t *testing.T) {
	pinned := []GoMeasurement{
		{Shape: "a", Path: PathCheck, PeakLive: 1},
		{Shape: "a", Path: PathHTTP, PeakLive: 2},
		{Shape: "b", Path: PathCheck, PeakLive: 3},
		{Shape: "b", Path: PathGuarded, PeakLive: 4},
	}
	fresh := []GoMeasurement{
		{Shape: "b", Path: PathGuarded, PeakLive: 40, Processes: GuardedProcesses},
		{Shape: "a", Path: PathHTTP, PeakLive: 20},
	}
	got, err := ReplaceGoRows(pinned, fresh)
	if err != nil {
		t.Fatal(err)
	}
	want := []GoMeasurement{pinned[0], fresh[1], pinned[2], fresh[0]}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("replaced: %+v, want %+v", got, want)
	}
	if pinned[1].PeakLive != 2 || pinned[3].PeakLive != 4 {
		t.Fatal("ReplaceGoRows wrote into the pinned rows")
	}
	for _, bad := range []GoMeasurement{{Shape: "c", Path: PathCheck}, {Shape: "a", Path: PathGuarded}} {
		if _, err := ReplaceGoRows(pinned, []GoMeasurement{bad}); err == nil || !strings.Contains(err.Error(), bad.Shape+" "+string(bad.Path)) {
			t.Errorf("a fresh row %s %s with no pinned row: %v", bad.Shape, bad.Path, err)
		}
	}
	path := filepath.Join(t.TempDir(), "rows.json")
	if err := WriteGoRows(path, got); err != nil {
		t.Fatal(err)
	}
	back, err := ReadGoRows(path)
	if err != nil || !reflect.DeepEqual(back, got) {
		t.Fatalf("read back %+v, %v; wrote %+v", back, err, got)
	}
	if _, err := ReadGoRows(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("a missing file read without error")
	}
}
