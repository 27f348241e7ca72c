package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/memmodel"
	"github.com/theurian/boundlab/results"
)

func init() {
	register(verb{
		name:    "memmodel",
		summary: "per-request memory: the CPython model's rows, calibration, our validator's measured rows, charts",
		run:     runMemmodel,
	})
}

const memmodelUsage = `usage:
  boundlab memmodel [--dialect python|go] [--wire N] [--json]
      the model's rows at transport cap N (default: the derived cap), with the
      pinned calibration beside them (python) or our validator's rows (go)
  boundlab memmodel calibrate --python PATH [--div N] [--write]
      run CPython with tracemalloc over the lab's bodies, one process per row;
      --div N builds them at cap/N and budget/N; --write pins full-scale rows
      into ` + memmodel.CalibrationFile + `
  boundlab memmodel measure-go [--div N] [--write]
      measure our validator's per-request memory, one child process per row
  boundlab memmodel chart --out DIR
      write the per-family charts as SVG
  boundlab memmodel pin [--records DIR]
      recompute the memmodel records and pin them in DIR/memmodel.json
`

func runMemmodel(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "calibrate":
			return memmodelCalibrate(args[1:], stdout, stderr)
		case "measure-go":
			return memmodelMeasureGo(args[1:], stdout, stderr)
		case "measure-go-row":
			return memmodelMeasureGoRow(args[1:], stdin, stdout, stderr)
		case "chart":
			return memmodelChart(args[1:], stdout, stderr)
		case "pin":
			return memmodelPin(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("memmodel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, memmodelUsage) }
	dialect := fs.String("dialect", "python", "python or go")
	wire := fs.Int64("wire", 0, "transport cap the rows are built at, in bytes (0: the derived cap)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "memmodel: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	d, err := charge.ParseDialect(*dialect)
	if err != nil {
		fmt.Fprintln(stderr, "memmodel:", err)
		return 2
	}
	sc := memmodel.FullScale()
	if *wire != 0 {
		if *wire < int64(memmodel.EnvelopeBytes)+16 || *wire > 1<<31 {
			fmt.Fprintf(stderr, "memmodel: --wire must be between %d and %d bytes\n", memmodel.EnvelopeBytes+16, int64(1)<<31)
			return 2
		}
		sc.Cap = *wire
	}
	if d == charge.Go {
		return printGoRows(sc, *asJSON, stdout, stderr)
	}
	return printPythonRows(sc, *asJSON, stdout, stderr)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func printPythonRows(sc memmodel.Scale, asJSON bool, stdout, stderr io.Writer) int {
	rows := memmodel.PythonTable(sc)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			fmt.Fprintln(stderr, "memmodel:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stdout, "CPython per-request memory model at cap %d bytes, budget %d characters (tracemalloc-visible heap)\n\n",
		sc.Cap, sc.Limits.MaxParamsRenderedChars)
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shape\tfam\twire B\tparser\tpredicted MiB\tx wire\tdecides\tseed expr x\tmeasured x\tmeasured on\t")
	for _, r := range rows {
		meas, on := "", ""
		if r.Measured != nil {
			meas = fmt.Sprintf("%.2f", r.Measured.Ratio)
			on = r.Measured.On
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%.1f\t%.2f\t%s\t%.2f\t%s\t%s\t\n", r.Shape, r.Family, r.Wire, r.Parser,
			mib(r.Peak), r.Ratio, r.Decider, r.SeedRatio, meas, on)
	}
	tw.Flush()
	fmt.Fprintln(stdout, "\nfamilies: (i) charge-refused, (ii) refused by jsonschema (renders), (iii) valid; x wire = peak / body bytes.")
	fmt.Fprintln(stdout, "measured: pinned rows of "+memmodel.CalibrationFile+" whose body is the same size; instances: --json.")
	return 0
}

func memmodelCalibrate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("memmodel calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	python := fs.String("python", "", "path of the CPython interpreter to calibrate against (required)")
	div := fs.Int64("div", 1, "build the bodies at cap/N and budget/N")
	write := fs.Bool("write", false, "merge the rows into "+memmodel.CalibrationFile+" (full scale only)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *python == "" {
		fmt.Fprintln(stderr, "memmodel calibrate: --python PATH is required")
		return 2
	}
	if *div < 1 || *div > 4096 {
		fmt.Fprintln(stderr, "memmodel calibrate: --div must be between 1 and 4096")
		return 2
	}
	if *write && *div != 1 {
		fmt.Fprintln(stderr, "memmodel calibrate: --write pins full-scale rows only; drop --div")
		return 2
	}
	sc := memmodel.FullScale().Scaled(*div)
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shape\tfam\tparser\tpython\twire B\tmeasured MiB\tx wire\tpredicted x\tseed expr x\tholds\t")
	var failed []error
	rows, err := memmodel.Calibrate(context.Background(), *python, memmodel.CalibrationShapes(sc, *div == 1), sc.Limits,
		func(r memmodel.CalibratedRow) {
			holds := "yes"
			if err := r.Holds(); err != nil {
				holds = "NO"
				failed = append(failed, err)
			}
			w := float64(r.Measured.Wire)
			fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s\t%d\t%.1f\t%.2f\t%.2f\t%.2f\t%s\t\n", r.Shape, r.Family, r.Measured.Parser,
				r.Measured.ParserVersion, r.Measured.Python, r.Measured.Wire, mib(r.Measured.Peak), r.Ratio(),
				float64(r.PredPeak)/w, float64(r.SeedPeak)/w, holds)
			tw.Flush()
		})
	tw.Flush()
	if err != nil {
		fmt.Fprintln(stderr, "memmodel calibrate:", err)
		return 1
	}
	for _, e := range failed {
		fmt.Fprintln(stderr, "model under-predicts:", e)
	}
	if *write {
		c, err := memmodel.ReadCalibrationFile(memmodel.CalibrationFile)
		if err != nil {
			fmt.Fprintln(stderr, "memmodel calibrate:", err)
			return 1
		}
		c.Cap, c.Budget = sc.Cap, sc.Limits.MaxParamsRenderedChars
		c.Merge(rows)
		if err := c.WriteFile(memmodel.CalibrationFile); err != nil {
			fmt.Fprintln(stderr, "memmodel calibrate:", err)
			return 1
		}
		fmt.Fprintf(stdout, "\nwrote %d rows to %s (%d in all)\n", len(rows), memmodel.CalibrationFile, len(c.Rows))
	}
	if len(failed) > 0 {
		return 1
	}
	return 0
}

func memmodelPin(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("memmodel pin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("records", "results", "directory of pinned record files")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	recs, err := memmodel.Records()
	if err != nil {
		fmt.Fprintln(stderr, "memmodel pin:", err)
		return 1
	}
	// The layout results.Load reads: {"producer": name, "records": [...]}.
	b, err := json.MarshalIndent(struct {
		Producer string           `json:"producer"`
		Records  []results.Record `json:"records"`
	}{"memmodel", recs}, "", "  ")
	if err != nil {
		fmt.Fprintln(stderr, "memmodel pin:", err)
		return 1
	}
	path := filepath.Join(*dir, "memmodel.json")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		fmt.Fprintln(stderr, "memmodel pin:", err)
		return 1
	}
	fmt.Fprintf(stdout, "pinned %d records in %s\n", len(recs), path)
	return 0
}
