package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/theurian/boundlab/memmodel"
)

func memmodelMeasureGoRow(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("memmodel measure-go-row", flag.ContinueOnError)
	fs.SetOutput(stderr)
	shape := fs.String("shape", "", "shape name")
	path := fs.String("path", string(memmodel.PathCheck), "check or http")
	div := fs.Int64("div", 1, "scale divisor")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *div < 1 || *div > 4096 {
		fmt.Fprintln(stderr, "memmodel measure-go-row: --div must be between 1 and 4096")
		return 2
	}
	s, err := memmodel.ShapeNamed(memmodel.FullScale().Scaled(*div), *div == 1, *shape)
	if err != nil {
		fmt.Fprintln(stderr, "memmodel measure-go-row:", err)
		return 2
	}
	m, err := memmodel.MeasureGoHere(s, memmodel.GoPath(*path))
	if err != nil {
		fmt.Fprintln(stderr, "memmodel measure-go-row:", err)
		return 1
	}
	if err := json.NewEncoder(stdout).Encode(m); err != nil {
		return 1
	}
	return 0
}

func memmodelMeasureGo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("memmodel measure-go", flag.ContinueOnError)
	fs.SetOutput(stderr)
	div := fs.Int64("div", 1, "build the bodies at cap/N and budget/N")
	write := fs.Bool("write", false, "pin the rows into "+memmodel.GoRowsFile+" (full scale only)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *div < 1 || *div > 4096 {
		fmt.Fprintln(stderr, "memmodel measure-go: --div must be between 1 and 4096")
		return 2
	}
	if *write && *div != 1 {
		fmt.Fprintln(stderr, "memmodel measure-go: --write pins full-scale rows only; drop --div")
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "memmodel measure-go:", err)
		return 1
	}
	sc := memmodel.FullScale().Scaled(*div)
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "shape\tpath\targs B\tpeak live B\tx args\ttotal alloc B\tx args\toutcome")
	rows, err := memmodel.MeasureGo(context.Background(), []string{exe, "memmodel", "measure-go-row"},
		memmodel.CalibrationShapes(sc, *div == 1), memmodel.GoPaths, *div, func(m memmodel.GoMeasurement) {
			a := float64(m.ArgsWire)
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.2f\t%d\t%.2f\t%s\n", m.Shape, m.Path, m.ArgsWire, m.PeakLive,
				float64(m.PeakLive)/a, m.TotalAlloc, float64(m.TotalAlloc)/a, m.Outcome)
		})
	tw.Flush()
	if err != nil {
		fmt.Fprintln(stderr, "memmodel measure-go:", err)
		return 1
	}
	if *write {
		if err := memmodel.WriteGoRows(memmodel.GoRowsFile, rows); err != nil {
			fmt.Fprintln(stderr, "memmodel measure-go:", err)
			return 1
		}
		fmt.Fprintf(stdout, "\nwrote %d rows to %s\n", len(rows), memmodel.GoRowsFile)
	}
	return 0
}

func printGoRows(sc memmodel.Scale, asJSON bool, stdout, stderr io.Writer) int {
	rows, err := memmodel.GoTable(sc)
	if err != nil {
		fmt.Fprintln(stderr, "memmodel:", err)
		return 1
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return 1
		}
		return 0
	}
	fmt.Fprintln(stdout, "Our validator's per-request memory (pinned Go rows), beside the CPython model's peak for the same body")
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shape\twire B\tmiddleware peak MiB\tx args\tmiddleware model MiB\tHTTP peak MiB\tx wire\tHTTP fit MiB\tHTTP alloc x\tpython pred MiB\tpython/go\tgo outcome\t")
	for _, r := range rows {
		if !r.Measured {
			fmt.Fprintf(tw, "%s\t%d\t-\t-\t%.1f\t-\t-\t%.1f\t-\t%.1f\t-\t%s\t\n", r.Shape, r.Wire, mib(r.CheckModel),
				mib(r.HTTPModel), mib(r.PythonPeak), r.Outcome)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.2f\t%.1f\t%.1f\t%.2f\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t\n", r.Shape, r.Wire, mib(r.CheckPeak), r.CheckRatio,
			mib(r.CheckModel), mib(r.HTTPPeak), r.HTTPRatio, mib(r.HTTPModel), r.HTTPAllocRatio, mib(r.PythonPeak), r.PythonOverGo, r.Outcome)
	}
	tw.Flush()
	fmt.Fprintln(stdout, "\npeak: runtime/metrics "+"/memory/classes/heap/objects:bytes sampled in a busy goroutine, GOGC=2, steady state (after a warm-up and four at-size calls), one process per row, above the baseline")
	fmt.Fprintln(stdout, "middleware model: memmodel.GoMiddlewareModel; '-': no pinned row for this body (pinned rows are at the derived cap)")
	fmt.Fprintln(stdout, "HTTP fit: memmodel.GoHTTPModel = 6 x wire + middleware model + 4 MiB, fitted to these rows")
	fmt.Fprintln(stdout, "python pred: memmodel.Predict with pydantic_core.from_json; python/go = python pred / HTTP peak")
	return 0
}

func memmodelChart(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("memmodel chart", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "docs", "directory the SVG files are written into")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if st, err := os.Stat(*out); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "memmodel chart: --out %s is not a directory\n", *out)
		return 2
	}
	files, err := writeMemoryCharts(*out)
	if err != nil {
		fmt.Fprintln(stderr, "memmodel chart:", err)
		return 1
	}
	for _, f := range files {
		fmt.Fprintln(stdout, "wrote", f)
	}
	return 0
}
