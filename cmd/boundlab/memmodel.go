package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"text/tabwriter"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/memmodel"
	"github.com/theurian/boundlab/results"
)

func init() {
	register(verb{
		name:    "memmodel",
		summary: "per-request memory: the CPython model, calibration, Go rows",
		run:     runMemmodel,
	})
}

var memmodelSynopsis = []string{
	"memmodel [--dialect python|go] [--wire N] [--json] [LIMITS]",
	"memmodel calibrate --python PATH [--small] [--div N]\n                [--out FILE] [--json]",
	"memmodel measure-go [--div N] [--shapes NAMES] [--out FILE]\n                [--json]",
	"memmodel measure-go --row SHAPE [--path check|http|guarded]\n                [--div N]",
	measureStateSynopsis,
}

const memmodelAbout = `Prints the model's rows at transport cap N (default: the cap derived from the limits), with the pinned calibration beside them (python) or our validator's measured rows (go). With LIMITS the python rows are built at those limits' cap and budget (printed, not pinned; the calibration and the Go rows exist at the defaults only).

  calibrate   run CPython with tracemalloc over the lab's bodies, one
              process per row; exit 1 when the model under-predicts one
  measure-go  measure our validator's per-request memory, one child
              process per row; --row measures one row here and prints
              it as JSON (what each child runs)
  measure-state
              measure what a stateful server's sessions, GET streams
              and idle connections cost, one child process per point

Run ` + "`boundlab memmodel SUBCOMMAND -h`" + ` for a subcommand's flags. To pin the memmodel records: ` + "`boundlab derive --only memmodel --out results`" + `.

` + limitsAbout

func runMemmodel(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "calibrate":
			return memmodelCalibrate(args[1:], stdout, stderr)
		case "measure-go":
			return memmodelMeasureGo(args[1:], stdout, stderr)
		case "measure-state":
			return memmodelMeasureState(args[1:], stdin, stdout, stderr)
		}
	}
	c := newCommand("memmodel", memmodelSynopsis, memmodelAbout+"\n\n--json prints the rows: with --dialect python "+
		jsonFields([]memmodel.TableRow{})+"; with --dialect go "+jsonFields([]memmodel.GoRow{})+". The model: docs/memmodel.md.")
	dialect := c.String("dialect", "python", "python (the CPython model) or go (our validator's rows)")
	wire := c.Int64("wire", 0, "transport cap the rows are built at, in bytes (0: the derived cap)")
	asJSON := c.Bool("json", false, "print the rows as JSON")
	lf := addLimitFlags(c)
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	l, err := lf.resolve()
	if err != nil {
		return c.limitsError(stderr, err)
	}
	if c.NArg() > 0 {
		return c.usageError(stderr, "unexpected argument %q", c.Arg(0))
	}
	d, err := charge.ParseDialect(*dialect)
	if err != nil {
		return c.fail(stderr, err)
	}
	sc := memmodel.Scale{Cap: charge.BodyCap(l, charge.EnsureASCII, charge.Raw).Cap, Limits: l}
	if d == charge.Go && l != charge.DefaultLimits() {
		return c.usageError(stderr, "the Go rows are measured at the default limits only; drop the limits flags or use --dialect python")
	}
	if *wire != 0 {
		if *wire < int64(memmodel.EnvelopeBytes)+16 || *wire > 1<<31 {
			return c.usageError(stderr, "--wire must be between %d and %d bytes", memmodel.EnvelopeBytes+16, int64(1)<<31)
		}
		sc.Cap = *wire
	}
	if d == charge.Go {
		return printGoRows(c, sc, *asJSON, stdout, stderr)
	}
	return printPythonRows(c, sc, *asJSON, stdout, stderr)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func printPythonRows(c *command, sc memmodel.Scale, asJSON bool, stdout, stderr io.Writer) int {
	rows := memmodel.PythonTable(sc)
	if asJSON {
		if err := writeJSON(stdout, rows); err != nil {
			return c.fail(stderr, err)
		}
		return exitOK
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
	return exitOK
}

func memmodelCalibrate(args []string, stdout, stderr io.Writer) int {
	c := newCommand("memmodel calibrate", []string{memmodelSynopsis[1]},
		"Runs CPython with tracemalloc over the lab's bodies, one fresh process per row, reporting each row on stderr as it lands, "+
			"then prints every row beside the model's prediction as one aligned table. Exit 1 when the model under-predicts a row.\n\n"+
			"--json prints "+jsonFields([]memmodel.CalibratedRow{})+".")
	python := c.String("python", "", "`PATH` of the CPython interpreter to calibrate against (required)")
	div := c.Int64("div", 1, "build the bodies at cap/N and budget/N (1 to 4096)")
	out := c.String("out", "", "merge the rows into `FILE` (full scale only; the pinned file is "+memmodel.CalibrationFile+")")
	asJSON := c.Bool("json", false, "print the rows as JSON when done, instead of the table")
	small := c.Bool("small", false, "calibrate the small-values family instead: each value kind's cost, every shape at 2 MiB and, at full scale, each parser's worst at the cap")
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	switch {
	case c.NArg() > 0:
		return c.usageError(stderr, "unexpected argument %q", c.Arg(0))
	case *python == "":
		return c.usageError(stderr, "--python PATH is required")
	case *div < 1 || *div > 4096:
		return c.usageError(stderr, "--div must be between 1 and 4096")
	case *out != "" && *div != 1:
		return c.usageError(stderr, "--out pins full-scale rows only; drop --div")
	}
	sc := memmodel.FullScale().Scaled(*div)
	if *small {
		return memmodelCalibrateSmall(c, *python, sc, *div == 1, *out, *asJSON, stdout, stderr)
	}
	var failed []error
	n := 0
	rows, err := memmodel.Calibrate(context.Background(), *python, memmodel.CalibrationShapes(sc, *div == 1), sc.Limits,
		func(r memmodel.CalibratedRow) {
			n++
			holds := "holds"
			if err := r.Holds(); err != nil {
				holds = "UNDER-PREDICTS"
				failed = append(failed, err)
			}
			// Progress as rows land (each is a fresh interpreter); the
			// table, aligned over every row, comes when all have.
			fmt.Fprintf(stderr, "calibrate: row %d, %s through %s: %.2fx wire, model %s\n", n, r.Shape, r.Measured.Parser, r.Ratio(), holds)
		})
	if err != nil {
		return c.fail(stderr, err)
	}
	if !*asJSON {
		writeCalibrationTable(stdout, rows)
	}
	for _, e := range failed {
		fmt.Fprintln(stderr, "model under-predicts:", e)
	}
	if *out != "" {
		cal, err := memmodel.ReadCalibrationFile(*out)
		if errors.Is(err, fs.ErrNotExist) {
			cal, err = memmodel.Calibration{}, nil // a new file holds this run's rows
		}
		if err != nil {
			return c.fail(stderr, err)
		}
		cal.Cap, cal.Budget = sc.Cap, sc.Limits.MaxParamsRenderedChars
		cal.Merge(rows)
		if err := cal.WriteFile(*out); err != nil {
			return c.fail(stderr, err)
		}
		fmt.Fprintf(stderr, "wrote %d rows to %s (%d in all)\n", len(rows), *out, len(cal.Rows))
	}
	if *asJSON {
		if err := writeJSON(stdout, rows); err != nil {
			return c.fail(stderr, err)
		}
	}
	if len(failed) > 0 {
		return exitNo
	}
	return exitOK
}

// writeCalibrationTable prints calibrate's rows as one table, every column
// aligned over every row.
func writeCalibrationTable(w io.Writer, rows []memmodel.CalibratedRow) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shape\tfam\tparser\tpython\twire B\tmeasured MiB\tx wire\tpredicted x\tseed expr x\tholds\t")
	for _, r := range rows {
		holds := "yes"
		if r.Holds() != nil {
			holds = "NO"
		}
		wire := float64(r.Measured.Wire)
		parser := strings.TrimSpace(r.Measured.Parser + " " + r.Measured.ParserVersion)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1f\t%.2f\t%.2f\t%.2f\t%s\t\n", r.Shape, r.Family, parser, r.Measured.Python, results.Thousands(r.Measured.Wire), mib(r.Measured.Peak), r.Ratio(),
			float64(r.PredPeak)/wire, float64(r.SeedPeak)/wire, holds)
	}
	tw.Flush()
}

// memmodelCalibrateSmall is calibrate --small: the kinds' costs, then every
// checked row beside the model those costs make.
func memmodelCalibrateSmall(c *command, python string, sc memmodel.Scale, atCap bool, out string, asJSON bool, stdout, stderr io.Writer) int {
	n := 0
	rows, err := memmodel.CalibrateSmall(context.Background(), python, sc, atCap, func(r memmodel.SmallRow) {
		n++
		fmt.Fprintf(stderr, "calibrate --small: row %d, %s %s (%s) through %s: %.2fx wire\n", n, r.Role, r.Shape, r.Scale, r.Measured.Parser,
			float64(r.Measured.Moments["parse"])/float64(r.Measured.Wire))
	})
	if err != nil {
		return c.fail(stderr, err)
	}
	checked, err := memmodel.CheckSmall(rows, sc)
	if err != nil {
		return c.fail(stderr, err)
	}
	failed := 0
	if !asJSON {
		tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "shape\tscale\tparser\tpython\twire B\tvalues\tmeasured MiB\tpredicted MiB\tpredicted/measured\tholds\t")
		for _, ck := range checked {
			holds := "yes"
			if ck.Err != nil {
				holds, failed = "NO", failed+1
			}
			m := ck.Row.Measured
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%.1f\t%.4f\t%s\t\n", ck.Row.Shape, ck.Row.Scale, m.Parser, m.Python, results.Thousands(m.Wire),
				results.Thousands(ck.Row.Values), mib(m.Moments["parse"]), mib(ck.Pred.Parse), float64(ck.Pred.Parse)/float64(m.Moments["parse"]), holds)
		}
		tw.Flush()
	}
	for _, ck := range checked {
		if ck.Err != nil {
			fmt.Fprintln(stderr, "model misses:", ck.Err)
		}
	}
	if out != "" {
		cal, err := memmodel.ReadCalibrationFile(out)
		if err != nil {
			return c.fail(stderr, err)
		}
		cal.MergeSmall(rows)
		if err := cal.WriteFile(out); err != nil {
			return c.fail(stderr, err)
		}
		fmt.Fprintf(stderr, "wrote %d small-values rows to %s (%d in all)\n", len(rows), out, len(cal.Small))
	}
	if asJSON {
		if err := writeJSON(stdout, rows); err != nil {
			return c.fail(stderr, err)
		}
	}
	if failed > 0 {
		return exitNo
	}
	return exitOK
}
