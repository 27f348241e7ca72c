package results

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSelect(t *testing.T) {
	ps := []Producer{{Name: "a"}, {Name: "b", Remeasures: "audits b"}, {Name: "c"}, {Name: "d", Remeasures: "builds d", OnDemand: true}}
	names := func(ps []Producer) (out []string) {
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	for _, c := range []struct {
		name      string
		only      []string
		all       bool
		run       []string
		notRun    []Skipped
		wantError bool
	}{
		{"default", nil, false, []string{"a", "c"}, []Skipped{{Producer: "b", Reason: "audits b"}, {Producer: "d", Reason: "builds d"}}, false},
		{"all", nil, true, []string{"a", "b", "c"}, []Skipped{{Producer: "d", Reason: "builds d"}}, false},
		{"only", []string{"b"}, false, []string{"b"}, []Skipped{{Producer: "a", Reason: NotAsked}, {Producer: "c", Reason: NotAsked}, {Producer: "d", Reason: NotAsked}}, false},
		{"only on demand", []string{"d"}, true, []string{"d"}, []Skipped{{Producer: "a", Reason: NotAsked}, {Producer: "b", Reason: NotAsked}, {Producer: "c", Reason: NotAsked}}, false},
		{"unknown", []string{"a", "z"}, false, nil, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			run, notRun, err := Select(ps, c.only, c.all)
			if (err != nil) != c.wantError || !slices.Equal(names(run), c.run) || !slices.Equal(notRun, c.notRun) {
				t.Errorf("Select(%v, %v): run %v, not run %v, %v", c.only, c.all, names(run), notRun, err)
			}
		})
	}
}

// A producer not run is not an orphan, its pinned records are kept and not
// compared (a drifted one does not fail), it counts in the report with its
// pinned records, and records.md still lists it in its place.
func TestVerifyKeepsWhatItDoesNotRun(t *testing.T) {
	dir := t.TempDir()
	rec := func(id string, v float64) Record {
		return Record{ID: id, Title: "t", Value: v, Unit: "u", Instance: "i", Method: Derived, Source: "s", Build: Build{Go: "x"}}
	}
	for _, f := range []struct {
		name string
		recs []Record
	}{{"a", []Record{rec("a.x", 1)}}, {"b", []Record{rec("b.x", 2), rec("b.y", 3)}}, {"c", []Record{rec("c.x", 4)}}} {
		if err := Save(dir, f.name, f.recs); err != nil {
			t.Fatal(err)
		}
	}
	pinned, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(dir, "records.md")
	if err := os.WriteFile(md, Markdown(pinned, []string{"a", "b", "c"}), 0o644); err != nil {
		t.Fatal(err)
	}
	live := func(rs ...Record) func() ([]Record, error) { return func() ([]Record, error) { return rs, nil } }
	ps := []Producer{{Name: "a", Records: live(rec("a.x", 1))}, {Name: "c", Records: live(rec("c.x", 4))}}
	rep, err := VerifyReport(VerifyOptions{RecordsDir: dir, Producers: ps, RecordsMarkdown: md,
		NotRun: []Skipped{{Producer: "b", Reason: "audits b"}}})
	if err != nil || len(rep.Problems) > 0 {
		t.Fatalf("verify with b not run: %v %v", err, rep.Problems)
	}
	if want := []Skipped{{Producer: "b", Reason: "audits b", Pinned: 2}}; !slices.Equal(rep.NotRun, want) || rep.Compared != 2 {
		t.Errorf("not run %v, compared %d; want %v, 2", rep.NotRun, rep.Compared, want)
	}
	// Without NotRun, b's records are orphans: the field is what keeps them.
	rep, _ = VerifyReport(VerifyOptions{RecordsDir: dir, Producers: ps})
	if len(rep.Problems) != 2 || rep.Problems[0].Kind != "orphan" {
		t.Errorf("b neither run nor named as not run: %v", rep.Problems)
	}
}
