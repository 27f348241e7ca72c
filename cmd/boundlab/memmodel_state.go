package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/theurian/boundlab/memmodel"
)

const measureStateSynopsis = "memmodel measure-state [--kinds LIST] [--counts LIST]\n                [--procs N] [--out FILE] [--json]"

func memmodelMeasureState(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("memmodel measure-state", []string{measureStateSynopsis, "memmodel measure-state --serve"},
		"Measures what the state a request leaves behind costs a stateful go-sdk server behind the front gate: "+
			"an idle session, a session after one tools/call, a standalone GET stream on its own connection, an idle "+
			"keep-alive connection. Each count of each kind runs in fresh child processes (this binary with --serve, "+
			"the server on 127.0.0.1:0); this process is the client, so nothing it holds is counted. The child reads "+
			"its own memory after two collections and debug.FreeOSMemory, before and after the units are opened; the "+
			"per-unit cost is the slope of the growth over the counts. Exit 1 when a row costs more than the weight "+
			"the front gate charges for it.")
	kinds := c.String("kinds", joinKinds(memmodel.StateKinds), "the kinds to measure, comma-separated")
	counts := c.String("counts", joinInts(memmodel.StateCounts), "the counts each kind is measured at, comma-separated (at least 2, each 1 to 16000)")
	procs := c.Int("procs", memmodel.StateProcesses, "fresh processes per count (1 to 8); a point keeps the highest growth")
	out := c.String("out", "", "merge the rows into `FILE` (the pinned file is "+memmodel.StateRowsFile+")")
	asJSON := c.Bool("json", false, "print the rows as JSON when done, instead of the table")
	serve := c.Bool("serve", false, "be the measured child: serve on 127.0.0.1:0, print the URL, read memory on each \"read\" line of stdin")
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	if c.NArg() > 0 {
		return c.usageError(stderr, "unexpected argument %q", c.Arg(0))
	}
	if *serve {
		if err := memmodel.ServeStateChild(stdin, stdout); err != nil {
			return c.fail(stderr, err)
		}
		return exitOK
	}
	var ks []memmodel.StateKind
	for _, k := range strings.Split(*kinds, ",") {
		ks = append(ks, memmodel.StateKind(k))
	}
	var ns []int
	for _, s := range strings.Split(*counts, ",") {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 16000 {
			return c.usageError(stderr, "--counts: %q is not a count from 1 to 16000", s)
		}
		ns = append(ns, n)
	}
	switch {
	case len(ns) < 2:
		return c.usageError(stderr, "--counts: a slope needs at least 2 counts")
	case *procs < 1 || *procs > 8:
		return c.usageError(stderr, "--procs must be between 1 and 8")
	}
	exe, err := os.Executable()
	if err != nil {
		return c.fail(stderr, err)
	}
	rows, err := memmodel.MeasureState(context.Background(), []string{exe, "memmodel", "measure-state", "--serve"}, ks, ns, *procs,
		func(k memmodel.StateKind, p memmodel.StatePoint) {
			fmt.Fprintf(stderr, "measure-state: %s at %d: %d held, governed +%d, RSS +%d, %.0f bytes each (governed)\n",
				k, p.N, p.Held, p.Growth.Governed, p.Growth.RSS, float64(p.Growth.Governed)/float64(max(1, p.Held)))
		})
	if err != nil {
		return c.fail(stderr, err)
	}
	if *out != "" {
		old, err := memmodel.ReadStateRows(*out)
		if errors.Is(err, fs.ErrNotExist) {
			old, err = nil, nil
		}
		if err != nil {
			return c.fail(stderr, err)
		}
		if err := memmodel.WriteStateRows(*out, memmodel.ReplaceStateRows(old, rows)); err != nil {
			return c.fail(stderr, err)
		}
		fmt.Fprintf(stderr, "wrote %d rows to %s\n", len(rows), *out)
	}
	if *asJSON {
		if err := writeJSON(stdout, rows); err != nil {
			return c.fail(stderr, err)
		}
	} else if err := writeStateTable(stdout, rows); err != nil {
		return c.fail(stderr, err)
	}
	if err := memmodel.CheckStateWeights(rows, memmodel.GateStateWeights()); err != nil && len(rows) == len(memmodel.StateKinds) {
		fmt.Fprintln(stderr, err)
		return exitNo
	}
	return exitOK
}

func writeStateTable(w io.Writer, rows []memmodel.StateRow) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tcounts\theap B/unit\tstacks B/unit\tgoverned B/unit\tRSS B/unit\tgoroutines/unit\tcost B\tweight B\trefused\t")
	weights := memmodel.GateStateWeights()
	for _, r := range rows {
		c, err := r.Cost()
		if err != nil {
			return err
		}
		weight, _ := weights.Of(r.Kind)
		var ns []int
		refused := map[string]int{}
		for _, p := range r.Points {
			ns = append(ns, p.N)
			for k, v := range p.Refused {
				refused[k] += v
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.2f\t%.0f\t%d\t%s\t\n", r.Kind, joinInts(ns), c.Heap.PerUnit, c.Stacks.PerUnit,
			c.Governed.PerUnit, c.RSS.PerUnit, c.Goroutines.PerUnit, c.Cost, weight, stateCounts(refused))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nper unit: least-squares slope of the growth over the units held; cost: the higher of governed (what the soft memory limit counts) and RSS")
	fmt.Fprintln(w, "weight: what the front gate charges (a stream holds its own connection: stream + conn)")
	return nil
}

func joinKinds(ks []memmodel.StateKind) string {
	var s []string
	for _, k := range ks {
		s = append(s, string(k))
	}
	return strings.Join(s, ",")
}

func joinInts(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ",")
}

func stateCounts(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	var s []string
	for k, v := range m {
		s = append(s, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}
