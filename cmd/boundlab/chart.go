package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"

	"github.com/theurian/boundlab/charts"
)

func init() {
	register(verb{
		name:    "chart",
		summary: "draw every chart as SVG into a directory",
		run:     runChart,
	})
}

const chartUsage = `usage: boundlab chart --out DIR [--json]

Draws every chart as SVG into DIR, creating it if missing: the memory
model's family charts, the body cap's wire ratio per code-point class and
encoder family, and the gate's throughput beside its peers. Nothing is
measured: the charts read live constants and the pinned records.

  --out DIR   the directory the SVG files are written into
  --json      print the files written and their titles as JSON

Exit status: 0 written; 1 a chart could not be drawn from the records;
2 a usage error, or DIR could not be created or written.
`

// chartOutput is what --json prints.
type chartOutput struct {
	Out    string           `json:"out"`
	Charts []charts.Written `json:"charts"`
}

func runChart(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chart", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "")
	asJSON := fs.Bool("json", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, chartUsage)
			return 0
		}
		fmt.Fprintf(stderr, "chart: %v\n\n%s", err, chartUsage)
		return 2
	}
	if fs.NArg() > 0 || *out == "" {
		fmt.Fprintf(stderr, "chart: want --out DIR and no other arguments\n\n%s", chartUsage)
		return 2
	}
	cs, err := charts.All()
	if err != nil {
		fmt.Fprintln(stderr, "chart:", err)
		return 1
	}
	written, err := charts.Write(*out, cs)
	if err != nil {
		return chartWriteError(err, stderr)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(chartOutput{Out: *out, Charts: written}); err != nil {
			fmt.Fprintln(stderr, "chart:", err)
			return 1
		}
		return 0
	}
	for _, w := range written {
		fmt.Fprintf(stdout, "wrote %s  (%s)\n", w.Path, w.Title)
	}
	return 0
}

// chartWriteError reports a failed write without echoing the path back: the
// operation and the system's reason are enough, and the caller knows DIR.
func chartWriteError(err error, stderr io.Writer) int {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		fmt.Fprintf(stderr, "chart: --out: %s failed: %v\n", pe.Op, pe.Err)
		return 2
	}
	fmt.Fprintln(stderr, "chart:", err)
	return 1
}
