package main

import (
	"bytes"
	"context"
	"flag"
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
		summary: "run the side-by-side benchmarks and print benchstat-style ratios with intervals",
		run:     runBench,
	})
}

func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	count := fs.Int("count", 6, "go test -count: samples per benchmark (benchmath needs 6 for a 95% median interval)")
	pattern := fs.String("bench", ".", "go test -bench regexp")
	benchtime := fs.String("benchtime", "", "go test -benchtime (e.g. 1s, 50x); empty for go test's default")
	size := fs.Int("bytes", 1<<20, "document size for the shape benchmarks (BOUNDLAB_BENCH_BYTES)")
	pkgs := fs.String("pkg", "./bench/", "package holding the benchmarks")
	from := fs.String("from", "", "analyse this benchfmt file instead of running (- for stdin)")
	save := fs.String("save", "", "write the run's benchfmt output here (the pinned file is "+benchdata.SuiteFile+")")
	unit := fs.String("unit", "sec/op", "the unit to compare (sec/op, B/op, allocs/op, B/s)")
	check := fs.Bool("check", false, "after running, compare the headline ratios with the saved suite within each record's tolerance; exit 1 on drift")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var data []byte
	var name string
	switch {
	case *from == "-":
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		data, name = b, "stdin"
	case *from != "":
		b, err := os.ReadFile(*from)
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		data, name = b, *from
	default:
		root, err := moduleRoot()
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		data, err = bench.Run(context.Background(), bench.RunConfig{
			Dir: root, Packages: []string{*pkgs}, Bench: *pattern, Count: *count, Benchtime: *benchtime,
			Env: []string{"BOUNDLAB_BENCH_BYTES=" + strconv.Itoa(*size)},
		}, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		name = "run"
	}
	if *save != "" {
		if err := os.WriteFile(*save, data, 0o644); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
	}
	s, err := bench.Parse(bytes.NewReader(data), name)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	if err := bench.WriteTable(stdout, s, s.Compare(*unit)); err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	if *check {
		return checkAgainstSaved(data, stdout, stderr)
	}
	return 0
}

// checkAgainstSaved re-measures: the headline ratios of this run against the
// saved suite's records, each within its tolerance.
func checkAgainstSaved(data []byte, stdout, stderr io.Writer) int {
	pinned, err := bench.SuiteRecords(benchdata.Suite, benchdata.SuiteFile)
	if err != nil {
		fmt.Fprintln(stderr, "bench -check: saved suite:", err)
		return 1
	}
	live, err := bench.SuiteRecords(data, "this run")
	if err != nil {
		fmt.Fprintln(stderr, "bench -check: this run:", err)
		return 1
	}
	byID := map[string]float64{}
	for _, r := range live {
		byID[r.ID] = r.Value
	}
	status := 0
	fmt.Fprintln(stdout, "\nheadline ratios against", benchdata.SuiteFile)
	for _, p := range pinned {
		v, ok := byID[p.ID]
		verdict := "ok"
		if !ok || math.Abs(v-p.Value) > p.Tolerance {
			verdict, status = "DRIFT", 1
		}
		fmt.Fprintf(stdout, "  %-55s saved %-6g now %-6g ± %-6g %s\n", p.ID, p.Value, v, p.Tolerance, verdict)
	}
	return status
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
