package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/theurian/boundlab/memmodel"
)

func memmodelMeasureGo(args []string, stdout, stderr io.Writer) int {
	c := newCommand("memmodel measure-go", memmodelSynopsis[2:4],
		"Measures our validator's per-request memory, one fresh child process per row (the child is this binary "+
			"with --row), through the middleware's Check and through the whole HTTP path. With --row SHAPE it "+
			"measures that one row in this process and prints it as one JSON object, as each child does.\n\n"+
			"--json prints "+jsonFields([]memmodel.GoMeasurement{})+"; --row prints one of them.")
	div := c.Int64("div", 1, "build the bodies at cap/N and budget/N (1 to 4096)")
	out := c.String("out", "", "write the rows to `FILE` (full scale only; the pinned file is "+memmodel.GoRowsFile+")")
	asJSON := c.Bool("json", false, "print the rows as JSON when done, instead of a table as they come")
	row := c.String("row", "", "measure only the row of this `SHAPE`, here, and print it as JSON")
	only := c.String("shapes", "", "measure only these comma-separated shape `NAMES` (every path of each); with --out, their rows replace the file's (a new shape's are appended) and the others stay as pinned")
	path := c.String("path", string(memmodel.PathCheck), "with --row: the path measured, check, http or guarded")
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	switch {
	case c.NArg() > 0:
		return c.usageError(stderr, "unexpected argument %q", c.Arg(0))
	case *div < 1 || *div > 4096:
		return c.usageError(stderr, "--div must be between 1 and 4096")
	case *out != "" && (*div != 1 || *row != ""):
		return c.usageError(stderr, "--out pins a full-scale run only; drop --div and --row")
	case *row != "" && *only != "":
		return c.usageError(stderr, "--row measures one row here; drop --shapes")
	case *row != "":
		return measureGoRow(c, *row, memmodel.GoPath(*path), *div, stdout, stderr)
	}
	sc := memmodel.FullScale().Scaled(*div)
	shapes := append(memmodel.CalibrationShapes(sc, *div == 1), memmodel.GateShapes(sc)...)
	if *only != "" {
		var picked []memmodel.Shape
		for _, n := range strings.Split(*only, ",") {
			s, err := memmodel.ShapeNamed(sc, *div == 1, n)
			if err != nil {
				return c.usageError(stderr, "--shapes: %v", err)
			}
			picked = append(picked, s)
		}
		shapes = picked
	}
	exe, err := os.Executable()
	if err != nil {
		return c.fail(stderr, err)
	}
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', 0)
	if !*asJSON {
		fmt.Fprintln(tw, "shape\tpath\targs B\tpeak live B\tx args\ttotal alloc B\tx args\toutcome")
	}
	rows, err := memmodel.MeasureGo(context.Background(), []string{exe, "memmodel", "measure-go"},
		shapes, memmodel.GoPaths, *div, func(m memmodel.GoMeasurement) {
			if *asJSON {
				return
			}
			a := float64(m.ArgsWire)
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.2f\t%d\t%.2f\t%s\n", m.Shape, m.Path, m.ArgsWire, m.PeakLive,
				float64(m.PeakLive)/a, m.TotalAlloc, float64(m.TotalAlloc)/a, m.Outcome)
			tw.Flush()
		})
	if err != nil {
		return c.fail(stderr, err)
	}
	if *out != "" {
		pinned := rows
		if *only != "" {
			old, err := memmodel.ReadGoRows(*out)
			if err == nil {
				pinned, err = memmodel.ReplaceGoRows(old, rows)
			}
			if err != nil {
				return c.fail(stderr, err)
			}
		}
		if err := memmodel.WriteGoRows(*out, pinned); err != nil {
			return c.fail(stderr, err)
		}
		fmt.Fprintf(stderr, "wrote %d rows to %s (%d measured)\n", len(pinned), *out, len(rows))
	}
	if *asJSON {
		if err := writeJSON(stdout, rows); err != nil {
			return c.fail(stderr, err)
		}
	}
	return exitOK
}

// measureGoRow is the child mode: one row, measured in this process.
func measureGoRow(c *command, shape string, path memmodel.GoPath, div int64, stdout, stderr io.Writer) int {
	known := false
	for _, p := range memmodel.GoPaths {
		known = known || p == path
	}
	if !known {
		return c.usageError(stderr, "--path must be %s, %s or %s", memmodel.PathCheck, memmodel.PathHTTP, memmodel.PathGuarded)
	}
	s, err := memmodel.ShapeNamed(memmodel.FullScale().Scaled(div), div == 1, shape)
	if err != nil {
		return c.fail(stderr, err)
	}
	m, err := memmodel.MeasureGoHere(s, path)
	if err != nil {
		return c.fail(stderr, err)
	}
	if err := json.NewEncoder(stdout).Encode(m); err != nil {
		return c.fail(stderr, err)
	}
	return exitOK
}

func printGoRows(c *command, sc memmodel.Scale, asJSON bool, stdout, stderr io.Writer) int {
	rows, err := memmodel.GoTable(sc)
	if err != nil {
		return c.fail(stderr, err)
	}
	if asJSON {
		if err := writeJSON(stdout, rows); err != nil {
			return c.fail(stderr, err)
		}
		return exitOK
	}
	fmt.Fprintln(stdout, "Our validator's per-request memory (pinned Go rows), beside the CPython model's peak for the same body")
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shape\twire B\tmiddleware peak MiB\tx args\tmiddleware model MiB\tHTTP peak MiB\tx wire\tHTTP fit MiB\tHTTP alloc x\tguarded peak MiB\tx wire\tpython pred MiB\tpython/go\tgo outcome\t")
	for _, r := range rows {
		if !r.Measured {
			fmt.Fprintf(tw, "%s\t%d\t-\t-\t%.1f\t-\t-\t%.1f\t-\t-\t-\t%.1f\t-\t%s\t\n", r.Shape, r.Wire, mib(r.CheckModel),
				mib(r.HTTPModel), mib(r.PythonPeak), r.Outcome)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.2f\t%.1f\t%.1f\t%.2f\t%.1f\t%.1f\t%.1f\t%.2f\t%.1f\t%.1f\t%s\t\n", r.Shape, r.Wire, mib(r.CheckPeak), r.CheckRatio,
			mib(r.CheckModel), mib(r.HTTPPeak), r.HTTPRatio, mib(r.HTTPModel), r.HTTPAllocRatio, mib(r.GuardedPeak), r.GuardedRatio, mib(r.PythonPeak), r.PythonOverGo, r.Outcome)
	}
	tw.Flush()
	fmt.Fprintln(stdout, "\npeak: runtime/metrics "+"/memory/classes/heap/objects:bytes sampled in a busy goroutine, GOGC=2, steady state (after a warm-up and four at-size calls), one process per row, above the baseline")
	fmt.Fprintln(stdout, "middleware model: memmodel.GoMiddlewareModel; '-': no pinned row for this body (pinned rows are at the derived cap)")
	fmt.Fprintln(stdout, "HTTP fit: memmodel.GoHTTPModel = 6 x wire + middleware model + 4 MiB, fitted to these rows")
	fmt.Fprintln(stdout, "guarded: the whole request behind the front gate (demo.Guarded), the highest of several processes; the front gate weighs it at bounds.PeakFactor x wire")
	fmt.Fprintln(stdout, "python pred: memmodel.Predict with pydantic_core.from_json; python/go = python pred / HTTP peak")
	return exitOK
}
