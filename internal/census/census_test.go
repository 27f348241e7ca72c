package census

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/internal/strangers"
	"github.com/theurian/boundlab/results"
)

// TestCheapServers audits the census's Cheap servers (the go-sdk over
// HTTP and stdio), as the producer does, and holds every figure the census
// publishes of them to the direct measurements. BOUNDLAB_CENSUS=KEY
// audits that server instead (any of the census), BOUNDLAB_CENSUS=all every
// one. -short skips it: it builds and runs servers as children (seconds on
// an idle machine, minutes on a loaded one).
func TestCheapServers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the census's Go servers as children")
	}
	only := os.Getenv("BOUNDLAB_CENSUS")
	for _, s := range Servers() {
		if (only == "" && !s.Cheap) || (only != "" && only != "all" && only != s.Key) {
			continue
		}
		t.Run(s.Key, func(t *testing.T) {
			res, err := Audit(context.Background(), s, nil)
			if why, ok := results.IsUnavailable(err); ok {
				t.Skipf("SKIP: %s", why)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range Disagreements(res.Report, res.Direct) {
				t.Error(d)
			}
			b := res.Report.Boundary
			built, called := BaselinesBuilt(res.Report)
			mem := "-"
			if b.Memory != nil && res.Direct.Memory != nil {
				mem = fmt.Sprintf("%.3f (direct %.3f)", b.Memory.PerByte, *res.Direct.Memory)
			}
			t.Logf("%s: %.0f s; baselines %d of %d; echo %.3f (direct params %.3f, unknown tool %.3f); memory %s; not measured %d %v",
				s.Key, res.Seconds, built, called, b.EchoRatio, res.Direct.Params.Ratio, res.Direct.UnknownTool.Ratio, mem, len(res.Report.NotMeasured), res.Report.NotMeasured)
			if res.Stdio && b.Memory == nil {
				t.Errorf("over stdio, no peak memory measured: %v", res.Report.NotMeasured)
			}
		})
	}
}

// TestDocTable: the table in docs/census.md is Table of the pinned
// records, byte for byte.
func TestDocTable(t *testing.T) {
	pinned, err := results.Load("../../results")
	if err != nil {
		t.Fatal(err)
	}
	recs := pinned[Producer]
	if len(recs) == 0 {
		t.Fatalf("no pinned records of %s: run `go run ./cmd/boundlab derive --only %s --out results`", Producer, Producer)
	}
	want, err := Table(recs)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/census.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), TableStart+"\n")
	got, _, ok2 := strings.Cut(rest, TableEnd)
	if !ok || !ok2 {
		t.Fatalf("docs/census.md has no %q ... %q block", TableStart, TableEnd)
	}
	if got != want {
		t.Errorf("docs/census.md's table is not Table of results/%s.json; want:\n%s", Producer, want)
	}
}

// TestTableWhole: a server with no records, or a figure missing, is an
// error, not a row with a hole.
func TestTableWhole(t *testing.T) {
	var recs []results.Record
	for _, s := range Servers() {
		for _, id := range []string{"tools-called", "tools-listed", "baselines-built", "body-cap", "max-depth", "echo-ratio",
			"findings.error", "findings.warning", "findings.note", "not-measured"} {
			recs = append(recs, results.Record{ID: "census." + s.Key + "." + id, Value: 1234})
		}
	}
	table, err := Table(recs)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(table, "\n"); n != len(Servers())+2 {
		t.Errorf("%d lines, want a header, a rule and %d rows", n, len(Servers()))
	}
	if !strings.Contains(table, "| 1,234 |") {
		t.Errorf("a figure is not printed with thousands commas: %s", table)
	}
	for _, drop := range []string{"census.gopls.tools-called", "census.everything.echo-ratio", "census.mcp-go.findings.note"} {
		cut := slices.DeleteFunc(slices.Clone(recs), func(r results.Record) bool { return r.ID == drop })
		if _, err := Table(cut); err == nil {
			t.Errorf("without %s: no error", drop)
		}
	}
}

// TestDisagreements: each figure the census publishes is held to its
// direct measurement, and a measurement that differs is named.
func TestDisagreements(t *testing.T) {
	capN, depth := int64(4096), 64
	rep := &audit.Report{Boundary: &audit.Boundary{BodyCap: &capN, MaxDepth: &depth, DepthCeiling: 10000, EchoRatio: 5,
		EnvelopeEcho: &audit.Echo{Ratio: 5}, Memory: &audit.Memory{PerByte: 6}}}
	no, mem := false, 6.1
	good := func() *Direct {
		return &Direct{AtCap: true, PastCap: &no, AtDepth: true, PastDepth: &no, Params: strangers.Echo{Ratio: 5.0}, UnknownTool: strangers.Echo{Ratio: 4}, Memory: &mem}
	}
	if d := Disagreements(rep, good()); len(d) > 0 {
		t.Fatalf("agreeing: %v", d)
	}
	yes, far, near := true, 0.5, 6.0+MemoryTolerance(6.0)
	for name, mutate := range map[string]func(*Direct){
		"cap not answered":   func(d *Direct) { d.AtCap = false },
		"past cap answered":  func(d *Direct) { d.PastCap = &yes },
		"depth not answered": func(d *Direct) { d.AtDepth = false },
		"past depth":         func(d *Direct) { d.PastDepth = &yes },
		"params echo":        func(d *Direct) { d.Params.Ratio = 4.9 },
		"unknown tool echo":  func(d *Direct) { d.UnknownTool.Ratio = 5.5 },
		"memory":             func(d *Direct) { d.Memory = &far },
	} {
		d := good()
		mutate(d)
		if got := Disagreements(rep, d); len(got) != 1 {
			t.Errorf("%s: %v, want one disagreement", name, got)
		}
	}
	d := good()
	d.Memory = &near
	if got := Disagreements(rep, d); len(got) > 0 {
		t.Errorf("memory at the tolerance: %v", got)
	}
}

// TestJobs: 1 to 8 servers at once; anything else is one at a time.
func TestJobs(t *testing.T) {
	for v, want := range map[string]int{"": 1, "1": 1, "8": 8, "9": 1, "0": 1, "-2": 1, "four": 1} {
		t.Setenv(JobsEnv, v)
		if got := Jobs(); got != want {
			t.Errorf("%s=%q: %d, want %d", JobsEnv, v, got, want)
		}
	}
}

// TestKept: a server whose records the keep directory holds is taken from
// there, not measured; a file that is not records is an error.
func TestKept(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(KeepEnv, dir)
	s := Servers()[0]
	want := []results.Record{{ID: "census." + s.Key + ".tools-called", Value: 3}}
	data, _ := json.Marshal(want)
	if err := os.WriteFile(filepath.Join(dir, s.Key+".json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	measured := false
	got, err := kept(context.Background(), 0, s, func(int, Server) { measured = true })
	if err != nil || measured || len(got) != 1 || got[0].ID != want[0].ID || got[0].Value != want[0].Value {
		t.Fatalf("kept = %v, %v (measured %v); want %v", got, err, measured, want)
	}
	if err := os.WriteFile(filepath.Join(dir, s.Key+".json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := kept(context.Background(), 0, s, nil); err == nil {
		t.Error("a broken keep file: no error")
	}
}
