package memmodel

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// ReplaceGoRows puts each fresh row in the place of the pinned row of its
// shape and path, keeps every other row as it was and in its order, appends
// a new shape's rows and refuses a new path of a pinned shape; ReadGoRows
// reads what WriteGoRows wrote.
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
	for _, bad := range []GoMeasurement{{Shape: "a", Path: PathGuarded}, {Shape: "b", Path: PathHTTP}} {
		if _, err := ReplaceGoRows(pinned, []GoMeasurement{bad}); err == nil || !strings.Contains(err.Error(), bad.Shape+" "+string(bad.Path)) {
			t.Errorf("a new path %s %s of a pinned shape: %v", bad.Shape, bad.Path, err)
		}
	}
	added := []GoMeasurement{
		{Shape: "c", Path: PathCheck, PeakLive: 5},
		{Shape: "a", Path: PathCheck, PeakLive: 10},
		{Shape: "c", Path: PathGuarded, PeakLive: 6},
	}
	got2, err := ReplaceGoRows(pinned, added)
	if err != nil {
		t.Fatal(err)
	}
	if want := []GoMeasurement{added[1], pinned[1], pinned[2], pinned[3], added[0], added[2]}; !reflect.DeepEqual(got2, want) {
		t.Fatalf("a new shape: %+v, want %+v", got2, want)
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
