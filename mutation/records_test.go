package mutation

import (
	"maps"
	"path"
	"strings"
	"testing"

	mutationdata "github.com/theurian/boundlab/results/mutation"
)

const run = `{"package":"p","files":"a.go b.go","timeout_coefficient":10,"gremlins":"v0.6.0","commit":"abc","go":"go1.26.8","date":"d","machine":"m",
"report":{"go_module":"x","files":[{"file_name":"a.go","mutations":[
{"type":"ARITHMETIC_BASE","status":"KILLED","line":1,"column":2},{"type":"ARITHMETIC_BASE","status":"KILLED","line":1,"column":3},
{"type":"ARITHMETIC_BASE","status":"KILLED","line":2,"column":3},{"type":"CONDITIONALS_BOUNDARY","status":"LIVED","line":4,"column":5},
{"type":"CONDITIONALS_BOUNDARY","status":"NOT COVERED","line":6,"column":5},{"type":"CONDITIONALS_NEGATION","status":"TIMED OUT","line":7,"column":1}]}]}}`

func TestRunRecords(t *testing.T) {
	r, c, err := ParseRun([]byte(run))
	if err != nil {
		t.Fatal(err)
	}
	if c != (Counts{Killed: 3, Lived: 1, NotCovered: 1, TimedOut: 1}) || c.Efficacy() != 75 {
		t.Fatalf("counts %+v, efficacy %v", c, c.Efficacy())
	}
	if l := r.Lived(); len(l) != 1 || l[0] != "a.go:4:5 CONDITIONALS_BOUNDARY" {
		t.Fatalf("lived %v", l)
	}
	recs, err := RunRecords([]byte(run), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"mutation.p.efficacy": 75, "mutation.p.killed": 3, "mutation.p.lived": 1, "mutation.p.not-covered": 1, "mutation.p.timed-out": 1}
	missing := maps.Clone(want)
	for _, rec := range recs {
		_, first := missing[rec.ID] // false for an id not wanted or seen before
		delete(missing, rec.ID)
		t.Run(rec.ID, func(t *testing.T) {
			if v, ok := want[rec.ID]; !ok || !first || v != rec.Value {
				t.Errorf("%s = %v, want %v (first of its id: %v)", rec.ID, rec.Value, v, first)
			}
			if !strings.Contains(rec.Instance, "the files a.go, b.go") || !strings.Contains(rec.Source, "at abc") {
				t.Errorf("%s: instance %q, source %q", rec.ID, rec.Instance, rec.Source)
			}
		})
	}
	if len(missing) != 0 {
		t.Errorf("missing records %v", missing)
	}
	replayed := strings.Replace(run, `"machine":"m",`, `"machine":"m","replay":{"commit":"def","go":"go1.26.8","date":"e","replayed":1,"killed_now":0},`, 1)
	recs, err = RunRecords([]byte(replayed), "f.json")
	if err != nil || len(recs) == 0 || !strings.Contains(recs[0].Source, "at abc on d; 1 of its lived mutants re-applied at def on e") {
		t.Errorf("a replayed run's source does not say so: %v %v", recs, err)
	}
	if _, err := RunRecords([]byte(strings.Replace(run, `"LIVED"`, `"SURVIVED"`, 1)), "f"); err == nil {
		t.Error("an unknown status must fail")
	}
	if _, err := RunRecords([]byte(strings.Replace(run, `"package":"p"`, `"package":""`, 1)), "f"); err == nil {
		t.Error("a run without a package must fail")
	}
}

// The saved runs parse, and each is of the package it is filed under.
func TestSavedRuns(t *testing.T) {
	for _, s := range mutationdata.Runs() {
		t.Run(path.Base(s.File), func(t *testing.T) { // the run's file name: charge.run.json
			r, c, err := ParseRun(s.Data)
			if err != nil {
				t.Fatalf("%s: %v", s.File, err)
			}
			if !strings.HasSuffix(s.File, "/"+r.Package+".run.json") || c.Killed == 0 {
				t.Errorf("%s: package %s, %+v", s.File, r.Package, c)
			}
		})
	}
}
