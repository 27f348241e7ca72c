package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/theurian/boundlab/bench"
	benchdata "github.com/theurian/boundlab/results/bench"
)

func init() {
	register(verb{
		name:    "bench",
		summary: "run the side-by-side benchmarks, or read a run; print ratios",
		run:     runBench,
	})
}

// benchRowJSON is one row of `boundlab bench --json`; a value benchmath could
// not compute (the baseline's p-value) is null.
type benchRowJSON struct {
	Family      string   `json:"family"`
	Group       string   `json:"group"`
	Impl        string   `json:"impl"`
	Unit        string   `json:"unit"`
	N           int      `json:"n"`
	Median      *float64 `json:"median"`
	Lo          *float64 `json:"lo"`
	Hi          *float64 `json:"hi"`
	Baseline    string   `json:"baseline"`
	Ratio       *float64 `json:"ratio"`
	RatioLo     *float64 `json:"ratio_lo"`
	RatioHi     *float64 `json:"ratio_hi"`
	P           *float64 `json:"p"`
	Significant bool     `json:"significant"`
	Warnings    []string `json:"warnings,omitempty"`
}

// benchJSON is `boundlab bench --json`.
type benchJSON struct {
	Source string            `json:"source"`
	Config map[string]string `json:"config"`
	Rows   []benchRowJSON    `json:"rows"`
	Check  []benchCheckJSON  `json:"check,omitempty"`
}

type benchCheckJSON struct {
	ID        string   `json:"id"`
	Saved     float64  `json:"saved"`
	Now       *float64 `json:"now"`
	Tolerance float64  `json:"tolerance"`
	Drift     bool     `json:"drift"`
}

func finite(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

func runBench(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("bench", []string{"bench [--json] [--unit U] [--check] [--out FILE] [run flags]", "bench [--json] [--unit U] FILE|-"},
		"Runs the side-by-side benchmarks (go test -bench in --pkg) and prints benchstat-style ratios of medians with "+
			"their intervals; given FILE (a saved benchfmt run, or - for stdin) it analyses that instead of running. "+
			"The pinned runs are "+benchdata.SuiteFile+" and "+benchdata.FrontGateFile+". Exit 1 when --check finds a headline ratio out of its tolerance. "+
			"What each benchmark measures: docs/bench.md.\n\n"+
			"--json prints one object: "+jsonFields(benchJSON{})+".")
	count := c.Int("count", 6, "samples per benchmark, taken in rounds of go test -count=1 (a 95% median interval needs 6)")
	pattern := c.String("bench", ".", "go test -bench regexp")
	benchtime := c.String("benchtime", "", "go test -benchtime (e.g. 1s, 50x); empty for go test's default")
	size := c.Int("bytes", 1<<20, "document size for the shape benchmarks (BOUNDLAB_BENCH_BYTES)")
	mixSeeds := c.Int("mix-seeds", 50, "seeds of the mixture BenchmarkMixture draws (BOUNDLAB_MIX_SEEDS)")
	mixBytes := c.Int("mix-bytes", 256<<10, "size of each BenchmarkMixture document (BOUNDLAB_MIX_BYTES)")
	pkgs := c.String("pkg", "./bench/", "package holding the benchmarks")
	out := c.String("out", "", "write the run's benchfmt output to `FILE`")
	unit := c.String("unit", "sec/op", "the unit to compare (sec/op, B/op, allocs/op, B/s)")
	check := c.Bool("check", false, "compare the headline ratios with the pinned run, each within its record's tolerance")
	asJSON := c.Bool("json", false, "print the rows (and the check) as JSON")
	abBase := c.String("ab", "", "A/B: run the gate built at `REV` (side A) against this tree's (side B, or --ab-head) over the fixed shapes and the mixture's seeds, in alternating rounds with -cpu 1; --bench selects documents (shape=chat, seed=12)")
	abHead := c.String("ab-head", "", "A/B: side B at `REV` instead of the work tree")
	callgrind := c.Bool("callgrind", false, "A/B: also count each document's Check instructions under valgrind --tool=callgrind")
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	if c.NArg() > 1 {
		return c.usageError(stderr, "want at most one FILE, got %d arguments", c.NArg())
	}
	var data []byte
	var name string
	switch {
	case c.NArg() == 1:
		b, err := readInput(c.Arg(0), stdin)
		if err != nil {
			return c.fail(stderr, err)
		}
		data, name = b, c.Arg(0)
		if name == "-" {
			name = "stdin"
		}
	case *abBase != "":
		root, err := moduleRoot()
		if err != nil {
			return c.fail(stderr, err)
		}
		data, err = bench.RunAB(context.Background(), bench.ABConfig{
			Dir: root, Base: *abBase, Head: *abHead, Rounds: *count, Bench: *pattern, Benchtime: *benchtime,
			Bytes: *size, MixSeeds: *mixSeeds, MixBytes: *mixBytes, Callgrind: *callgrind,
		}, stderr)
		if err != nil {
			return c.fail(stderr, err)
		}
		name = "run"
	default:
		root, err := moduleRoot()
		if err != nil {
			return c.fail(stderr, err)
		}
		data, err = bench.Run(context.Background(), bench.RunConfig{
			Dir: root, Packages: []string{*pkgs}, Bench: *pattern, Count: *count, Benchtime: *benchtime,
			Env: []string{"BOUNDLAB_BENCH_BYTES=" + strconv.Itoa(*size),
				"BOUNDLAB_MIX_SEEDS=" + strconv.Itoa(*mixSeeds), "BOUNDLAB_MIX_BYTES=" + strconv.Itoa(*mixBytes)},
		}, stderr)
		if err != nil {
			return c.fail(stderr, err)
		}
		name = "run"
	}
	if *out != "" {
		if err := os.WriteFile(*out, data, 0o644); err != nil {
			return c.fail(stderr, err)
		}
	}
	s, err := bench.Parse(bytes.NewReader(data), name)
	if err != nil {
		return c.fail(stderr, err)
	}
	if ab := bench.ABVerdicts(s); len(ab) > 0 && !*asJSON {
		if err := bench.WriteAB(stdout, s, ab); err != nil {
			return c.fail(stderr, err)
		}
		return exitOK
	}
	rows := s.Compare(*unit)
	var checks []benchCheckJSON
	status := exitOK
	if *check {
		if checks, err = checkAgainstSaved(data); err != nil {
			return c.fail(stderr, err)
		}
		for _, ch := range checks {
			if ch.Drift {
				status = exitNo
			}
		}
	}
	if *asJSON {
		j := benchJSON{Source: name, Config: s.Config, Rows: []benchRowJSON{}, Check: checks}
		for _, r := range rows {
			j.Rows = append(j.Rows, benchRowJSON{Family: r.Family, Group: r.Group, Impl: r.Impl, Unit: r.Unit, N: r.N,
				Median: finite(r.Median), Lo: finite(r.Lo), Hi: finite(r.Hi), Baseline: r.Baseline, Ratio: finite(r.Ratio),
				RatioLo: finite(r.RatioLo), RatioHi: finite(r.RatioHi), P: finite(r.P), Significant: r.Significant, Warnings: r.Warnings})
		}
		if err := writeJSON(stdout, j); err != nil {
			return c.fail(stderr, err)
		}
		return status
	}
	if err := bench.WriteTable(stdout, s, rows); err != nil {
		return c.fail(stderr, err)
	}
	if *check {
		fmt.Fprintln(stdout, "\nheadline ratios against", benchdata.SuiteFile, "and", benchdata.FrontGateFile)
		for _, ch := range checks {
			verdict, now := "ok", "-"
			if ch.Drift {
				verdict = "DRIFT"
			}
			if ch.Now != nil {
				now = fmt.Sprint(*ch.Now)
			}
			fmt.Fprintf(stdout, "  %-55s saved %-6g now %-6s ± %-6g %s\n", ch.ID, ch.Saved, now, ch.Tolerance, verdict)
		}
	}
	return status
}

// checkAgainstSaved re-measures: the headline ratios of this run against the
// saved suite's records, each within its tolerance.
func checkAgainstSaved(data []byte) ([]benchCheckJSON, error) {
	pinned, err := bench.Pinned()
	if err != nil {
		return nil, fmt.Errorf("--check: saved runs: %w", err)
	}
	live, err := bench.SuiteRecords(data, "this run")
	if err != nil {
		return nil, fmt.Errorf("--check: this run: %w", err)
	}
	byID := map[string]float64{}
	ran := map[string]bool{} // the families this run measured: only their headlines are checked
	for _, r := range live {
		byID[r.ID] = r.Value
		ran[bench.HeadlineFamily(r.ID)] = true
	}
	var out []benchCheckJSON
	for _, p := range pinned {
		if !ran[bench.HeadlineFamily(p.ID)] {
			continue
		}
		ch := benchCheckJSON{ID: p.ID, Saved: p.Value, Tolerance: p.Tolerance, Drift: true}
		if v, ok := byID[p.ID]; ok {
			ch.Now, ch.Drift = finite(v), !(math.Abs(v-p.Value) <= p.Tolerance)
		}
		out = append(out, ch)
	}
	return out, nil
}

// moduleRoot walks up from the working directory to go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory: run boundlab bench inside the module")
		}
		dir = parent
	}
}
