package bench

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/theurian/boundlab/results"
	benchdata "github.com/theurian/boundlab/results/bench"
)

// A synthetic run with known medians: the gate at 1025 ns, encoding/json at
// 4100 ns, so the ratio is exactly 0.25; sonic's sample is encoding/json's
// reversed, so their U-test cannot tell them apart.
func TestCompareSynthetic(t *testing.T) {
	f, err := os.Open("testdata/synthetic.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Parse(f, "synthetic.txt")
	if err != nil {
		t.Fatal(err)
	}
	if s.Config["go"] != "go1.26.8" || s.Config["gomaxprocs"] != "2" {
		t.Fatalf("machine config not read: %v", s.Config)
	}
	rows := s.Compare("sec/op")
	gate, ok := Ratio(rows, "BenchmarkValid", "shape=ascii", "gate")
	if !ok {
		t.Fatal("no gate row")
	}
	if math.Abs(gate.Ratio-0.25) > 1e-12 || gate.N != 6 {
		t.Fatalf("gate ratio %v n %d, want 0.25 n 6", gate.Ratio, gate.N)
	}
	if !(gate.RatioLo <= 0.25 && 0.25 <= gate.RatioHi) || !gate.Significant || gate.P > 0.01 {
		t.Fatalf("gate interval [%v, %v] p=%v", gate.RatioLo, gate.RatioHi, gate.P)
	}
	sonic, _ := Ratio(rows, "BenchmarkValid", "shape=ascii", "sonic")
	if sonic.Significant || sonic.Ratio != 1 {
		t.Fatalf("sonic vs encoding-json: ratio %v significant %v (p=%v), want 1 and not significant", sonic.Ratio, sonic.Significant, sonic.P)
	}
	// Against another baseline: the gate over sonic is 1025/4100 over
	// encoding/json's reversed sample, the same medians, so 0.25 again, and
	// sonic is the baseline (ratio 1, no p-value).
	against := s.CompareTo("sec/op", func(Key) string { return "sonic" })
	gs, _ := Ratio(against, "BenchmarkValid", "shape=ascii", "gate")
	ss, _ := Ratio(against, "BenchmarkValid", "shape=ascii", "sonic")
	if math.Abs(gs.Ratio-0.25) > 1e-12 || gs.Baseline != "sonic" || ss.Ratio != 1 || !math.IsNaN(ss.P) {
		t.Fatalf("against sonic: gate %v (baseline %q), sonic %v p=%v", gs.Ratio, gs.Baseline, ss.Ratio, ss.P)
	}
	var out bytes.Buffer
	if err := WriteTable(&out, s, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"0.25x", "1.00x", "BenchmarkValid (sec/op; ratio = impl / encoding-json"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestParseRejectsEmpty(t *testing.T) {
	if _, err := Parse(strings.NewReader("goos: linux\n"), "empty"); err == nil {
		t.Fatal("a file with no results parsed without error")
	}
}

// The saved suite (results/bench/suite.txt) holds every headline, describes
// its machine, and yields finite records.
func TestSavedSuiteYieldsEveryHeadline(t *testing.T) {
	recs, err := Pinned()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, r := range recs {
		ids[r.ID] = true
	}
	for _, h := range Headlines() {
		t.Run("headline_"+h.ID, func(t *testing.T) {
			if !ids[h.ID] {
				t.Errorf("headline %s: no record in the saved runs", h.ID)
			}
		})
	}
	for _, id := range []string{mixtureMinID, mixtureMedianID, mixtureMinSeedID} {
		if !ids[id] {
			t.Errorf("no %s in the saved runs", id)
		}
	}
	if len(recs) != len(Headlines())+3 {
		t.Fatalf("%d records for %d headlines and the mixture's three", len(recs), len(Headlines()))
	}
	for _, saved := range []struct {
		name string
		data []byte
		keys []string
	}{
		{benchdata.SuiteFile, benchdata.Suite, []string{"go", "gomaxprocs", "cpu-model", "boundlab-commit", "bench-bytes", "command"}},
		{benchdata.FrontGateFile, benchdata.FrontGate, []string{"go", "gomaxprocs", "cpu-model", "boundlab-commit", "command"}},
	} {
		t.Run("config_"+filepath.Base(saved.name), func(t *testing.T) {
			s, _ := Parse(bytes.NewReader(saved.data), saved.name)
			for _, k := range saved.keys {
				if s.Config[k] == "" {
					t.Errorf("%s does not describe %q", saved.name, k)
				}
			}
		})
	}
	for _, r := range recs {
		t.Run("record_"+r.ID, func(t *testing.T) {
			ratio := r.Unit != "bytes" && r.Unit != "seed"
			if math.IsNaN(r.Value) || r.Value <= 0 || (ratio && r.Tolerance <= 0) || r.Build.Go == "" {
				t.Errorf("%s: value %v tolerance %v build %+v", r.ID, r.Value, r.Tolerance, r.Build)
			}
		})
	}
}

// TestRunTakesEachSampleInItsOwnRound: Run with Count 3 runs go test three
// times, -count=1 each, so each of a module's two benchmarks has three
// samples and the two alternate round by round.
func TestRunTakesEachSampleInItsOwnRound(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs a module's benchmarks three times")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":    "module roundtest\n\ngo 1.26\n",
		"r_test.go": "package r\n\nimport \"testing\"\n\nfunc BenchmarkA(b *testing.B) { for b.Loop() {} }\n\nfunc BenchmarkB(b *testing.B) { for b.Loop() {} }\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := Run(context.Background(), RunConfig{Dir: dir, Packages: []string{"."}, Bench: ".", Count: 3, Benchtime: "10x"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, line := range strings.Split(string(out), "\n") {
		if name, _, ok := strings.Cut(line, "\t"); ok && strings.HasPrefix(name, "Benchmark") {
			order = append(order, strings.TrimRight(name, " "))
		}
	}
	if got := strings.Join(order, ","); !regexp.MustCompile(`^(BenchmarkA(-\d+)?,BenchmarkB(-\d+)?,?){3}$`).MatchString(got + ",") {
		t.Fatalf("benchmark lines in order: %s; want A then B, three rounds", got)
	}
	if !strings.Contains(string(out), "-count=1") || !strings.Contains(string(out), "3 rounds") {
		t.Fatalf("the command line does not say -count=1 in 3 rounds:\n%s", out)
	}
}

// CheckTargets fails a record below its floor or above its ceiling, passes one at either, names
// what matched nothing, and reads * as one id segment (a shape), not more.
func TestCheckTargets(t *testing.T) {
	rec := func(id string, v float64) results.Record { return results.Record{ID: id, Value: v} }
	tg := []Target{{"bench.valid.*.jsontext-over-gate", 1, 0, "test"}, {"bench.http.call-1kb.guarded-over-bare-p50", 0, 1.1, "test"}}
	p50 := rec("bench.http.call-1kb.guarded-over-bare-p50", 1.1)
	cases := []struct {
		name string
		recs []results.Record
		ok   bool
	}{
		{"at_the_floor", []results.Record{rec("bench.valid.chat.jsontext-over-gate", 1), rec("bench.valid.ascii.jsontext-over-gate", 8), p50}, true},
		{"below_it", []results.Record{rec("bench.valid.chat.jsontext-over-gate", 0.999), rec("bench.valid.ascii.jsontext-over-gate", 8), p50}, false},
		{"at_the_ceiling", []results.Record{rec("bench.valid.chat.jsontext-over-gate", 1), p50}, true},
		{"above_it", []results.Record{rec("bench.valid.chat.jsontext-over-gate", 1), rec("bench.http.call-1kb.guarded-over-bare-p50", 1.101)}, false},
		{"no_match", []results.Record{rec("bench.valid.chat.simdjson-go-over-gate", 0.5), p50}, false},
		{"star_is_one_segment", []results.Record{rec("bench.valid.a.b.jsontext-over-gate", 0.5), rec("bench.valid.ascii.jsontext-over-gate", 8), p50}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := CheckTargets(c.recs, tg); (err == nil) != c.ok {
				t.Errorf("CheckTargets: %v, want ok %v", err, c.ok)
			}
		})
	}
}
