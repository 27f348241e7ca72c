// Package mutation reads the saved mutation-testing runs of boundlab's
// production packages (scripts/mutation.sh: gremlins v0.6.0 over charge and
// mcpvalidate) and turns each into measured records: the mutants killed,
// lived, not covered, timed out and not viable, and the efficacy, killed over
// killed plus lived. `boundlab verify` reads the saved files; it never re-runs
// gremlins (a run takes the better part of an hour per package on two cores).
//
// Where it ends: a record holds for the files the run mutated (a subset run
// names them in its instance) at the commit the run names; whether a lived
// mutant is equivalent is argued in docs/testing.md, not here.
package mutation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/theurian/boundlab/results"
	mutationdata "github.com/theurian/boundlab/results/mutation"
)

// Producer is the name the mutation records are pinned under.
const Producer = "mutation"

func init() {
	results.Register(results.Producer{Name: Producer, Records: func() ([]results.Record, error) {
		var out []results.Record
		for _, s := range mutationdata.Runs() {
			recs, err := RunRecords(s.Data, s.File)
			if err != nil {
				return nil, err
			}
			out = append(out, recs...)
		}
		return out, nil
	}})
}

// Run is one saved run: gremlins' report with the context scripts/mutation.sh
// records beside it.
type Run struct {
	Package            string `json:"package"`
	Files              string `json:"files"` // "" when every file of the package was mutated
	Flags              string `json:"flags"` // further gremlins flags, e.g. mutator types turned off
	TimeoutCoefficient int    `json:"timeout_coefficient"`
	Workers            int    `json:"workers"` // 0 in runs saved before the field: they ran one worker
	Gremlins           string `json:"gremlins"`
	Commit             string `json:"commit"`
	Go                 string `json:"go"`
	Date               string `json:"date"`
	Machine            string `json:"machine"`
	// Replay, when set, says the run's lived mutants were re-applied, one at
	// a time, to a later commit with the same production files
	// (scripts/replay-lived.py -o): their statuses are the replay's.
	Replay *struct {
		Commit    string `json:"commit"`
		Go        string `json:"go"`
		Date      string `json:"date"`
		Replayed  int    `json:"replayed"`
		KilledNow int    `json:"killed_now"`
		Tests     string `json:"tests"` // set when each was run with its named tests only
	} `json:"replay"`
	Report struct {
		GoModule string `json:"go_module"`
		Files    []struct {
			Name      string `json:"file_name"`
			Mutations []struct {
				Type   string `json:"type"`
				Status string `json:"status"`
				Line   int    `json:"line"`
				Column int    `json:"column"`
			} `json:"mutations"`
		} `json:"files"`
	} `json:"report"`
}

// Counts are a run's mutants by status.
type Counts struct {
	Killed, Lived, NotCovered, TimedOut, NotViable int
}

// Efficacy is killed over killed plus lived, in percent (NaN with neither).
func (c Counts) Efficacy() float64 {
	if c.Killed+c.Lived == 0 {
		return math.NaN()
	}
	return 100 * float64(c.Killed) / float64(c.Killed+c.Lived)
}

// ParseRun reads a saved run; gremlins' statuses are counted strictly (an
// unknown status fails).
func ParseRun(data []byte) (*Run, Counts, error) {
	var r Run
	var c Counts
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return nil, c, err
	}
	if r.Package == "" || len(r.Report.Files) == 0 {
		return nil, c, fmt.Errorf("the run names no package or holds no file")
	}
	for _, f := range r.Report.Files {
		for _, m := range f.Mutations {
			switch m.Status {
			case "KILLED":
				c.Killed++
			case "LIVED":
				c.Lived++
			case "NOT COVERED":
				c.NotCovered++
			case "TIMED OUT":
				c.TimedOut++
			case "NOT VIABLE":
				c.NotViable++
			default:
				return nil, c, fmt.Errorf("%s:%d: unknown status %q", f.Name, m.Line, m.Status)
			}
		}
	}
	return &r, c, nil
}

// Lived lists a run's lived mutants as file:line:column TYPE.
func (r *Run) Lived() []string {
	var out []string
	for _, f := range r.Report.Files {
		for _, m := range f.Mutations {
			if m.Status == "LIVED" {
				out = append(out, fmt.Sprintf("%s:%d:%d %s", f.Name, m.Line, m.Column, m.Type))
			}
		}
	}
	return out
}

// RunRecords turns a saved run into measured records, mutation.<package>.*.
// Counts are exact; the efficacy is rounded to 0.01 and allowed 1 point, what
// one flaky mutant moves it by.
func RunRecords(data []byte, source string) ([]results.Record, error) {
	r, c, err := ParseRun(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	files := "every file of the package but its subpackages"
	if r.Files != "" {
		files = "the files " + strings.Join(strings.Fields(r.Files), ", ")
	}
	mutators := "default mutators"
	if r.Flags != "" {
		mutators = "default mutators with " + r.Flags
	}
	workers := "1 worker"
	if r.Workers > 1 {
		workers = fmt.Sprintf("%d workers", r.Workers)
	}
	inst := fmt.Sprintf("gremlins %s over ./%s, %s (%s), %s, timeout coefficient %d; machine: %s",
		r.Gremlins, r.Package, files, mutators, workers, r.TimeoutCoefficient, r.Machine)
	src := fmt.Sprintf("%s (`scripts/mutation.sh %s`, at %s on %s), read by mutation.RunRecords", source, r.Package, r.Commit, r.Date)
	if p := r.Replay; p != nil {
		how := "the whole suite each"
		if p.Tests != "" {
			how = "each with the tests named for it (a pass leaves it lived)"
		}
		src = fmt.Sprintf("%s (`scripts/mutation.sh %s` at %s on %s; %d of its lived mutants re-applied at %s on %s by `scripts/replay-lived.py -o`, %s: %d killed there), read by mutation.RunRecords",
			source, r.Package, r.Commit, r.Date, p.Replayed, p.Commit, p.Date, how, p.KilledNow)
	}
	build := results.Build{Go: r.Go, Modules: map[string]string{"github.com/go-gremlins/gremlins": r.Gremlins}}
	prefix := "mutation." + r.Package + "."
	rec := func(id, title string, v float64, unit string, tol float64) results.Record {
		return results.Record{ID: prefix + id, Title: title, Value: v, Unit: unit, Instance: inst,
			Method: results.Measured, Source: src, Tolerance: tol, Build: build}
	}
	eff := c.Efficacy()
	if math.IsNaN(eff) {
		return nil, fmt.Errorf("%s: no mutant was killed or lived", source)
	}
	return []results.Record{
		rec("efficacy", "mutation efficacy of "+r.Package+"'s tests: killed over killed plus lived", math.Round(eff*100)/100, "percent", 1),
		rec("killed", "mutants of "+r.Package+" its tests killed", float64(c.Killed), "mutants", 0),
		rec("lived", "mutants of "+r.Package+" that lived through its tests", float64(c.Lived), "mutants", 0),
		rec("not-covered", "mutants of "+r.Package+" on lines gremlins found no test covering", float64(c.NotCovered), "mutants", 0),
		rec("timed-out", "mutants of "+r.Package+" whose test run passed the timeout (the suite did not pass on them)", float64(c.TimedOut), "mutants", 0),
	}, nil
}
