package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/derivation"
	"github.com/theurian/boundlab/sweeps"
)

func init() {
	register(verb{
		name:    "sweep",
		summary: "prove the class model over every code point; print the tables",
		run:     runSweep,
	})
}

type sweepRowJSON struct {
	Class     string             `json:"class"`
	Render    string             `json:"render"`
	Count     int                `json:"count"`
	Example   string             `json:"example"`
	Landed    int                `json:"landed_bytes"`
	Wire      map[string]int     `json:"wire_bytes"`
	Ratio     map[string]float64 `json:"ratio"`
	Width     int                `json:"render_width"`
	WidthUnit string             `json:"render_unit"`
}

type sweepJSON struct {
	CodePoints int                       `json:"code_points"`
	Checks     int64                     `json:"checks"`
	Mismatches []string                  `json:"mismatches"`
	Seconds    float64                   `json:"seconds"`
	Tables     map[string][]sweepRowJSON `json:"tables"`
	Landings   []landingJSON             `json:"source_file_landings,omitempty"`
}

func runSweep(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("sweep", []string{"sweep [--json] [--dialect python|go] [LIMITS]"},
		"Proves charge's class model over every Unicode scalar value against real encoders (encoding/json, a port of "+
			"CPython's json.dumps) and the reference renderer, and prints the class tables. Exit 1 on a mismatch.\n\n"+
			"With LIMITS, also prints where a file of each class at MaxSourceFileBytes is stopped (schema, charge or "+
			"the cap) under each encoder family, at those limits (what derive LIMITS derives; printed, not pinned).\n\n"+
			"--json prints one object: "+jsonFields(sweepJSON{})+".\n\n"+limitsAbout)
	asJSON := c.Bool("json", false, "print the proof and the class tables as JSON")
	dialect := c.String("dialect", "", "print only this dialect's table (python or go)")
	lf := addLimitFlags(c)
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	if c.NArg() > 0 {
		return c.usageError(stderr, "unexpected argument %q", c.Arg(0))
	}
	l, err := lf.resolve()
	if err != nil {
		return c.limitsError(stderr, err)
	}
	dialects := charge.Dialects()
	if *dialect != "" {
		d, err := charge.ParseDialect(*dialect)
		if err != nil {
			return c.fail(stderr, err)
		}
		dialects = []charge.Dialect{d}
	}
	start := time.Now()
	s := sweeps.Run()
	took := time.Since(start)
	out := sweepJSON{CodePoints: s.CodePoints, Checks: s.Checks, Seconds: took.Seconds(), Tables: map[string][]sweepRowJSON{}, Mismatches: []string{}}
	for _, m := range s.Mismatches {
		out.Mismatches = append(out.Mismatches, m.String())
	}
	for _, d := range dialects {
		rows, err := s.Table(d)
		if err != nil {
			return c.fail(stderr, err)
		}
		for _, r := range rows {
			j := sweepRowJSON{Class: r.Wire.Name, Render: r.Render.String(), Count: r.Count, Example: sweeps.RuneName(r.Example),
				Landed: r.Wire.Landed, Wire: map[string]int{}, Ratio: map[string]float64{}, Width: r.Width, WidthUnit: d.Unit()}
			for _, e := range charge.Encoders() {
				j.Wire[e.String()] = r.Wire.Wire(e)
				j.Ratio[e.String()] = r.Ratio(e)
			}
			out.Tables[d.String()] = append(out.Tables[d.String()], j)
		}
	}
	var landings []derivation.Landing
	if lf.given() {
		if landings, err = derivation.Landings(l); err != nil {
			return c.fail(stderr, err)
		}
		for _, j := range toDerivationJSON(derivation.Derivation{Landings: landings}).Landings {
			if *dialect == "" || j.Dialect == *dialect {
				out.Landings = append(out.Landings, j)
			}
		}
	}
	if *asJSON {
		if err := writeJSON(stdout, out); err != nil {
			return c.fail(stderr, err)
		}
	} else {
		verdict := "the model equals every oracle on every one"
		if !s.OK() {
			verdict = fmt.Sprintf("%d MISMATCHES", s.MismatchCount)
		}
		fmt.Fprintf(stdout, "%d code points, %d comparisons against encoding/json, CPython's json.dumps (port) and charge/reference, in %v: %s\n",
			s.CodePoints, s.Checks, took.Round(time.Millisecond), verdict)
		for _, m := range out.Mismatches {
			fmt.Fprintln(stdout, "  ", m)
		}
		for _, d := range dialects {
			fmt.Fprintf(stdout, "\n%s dialect (render width in %s, Unicode %s)\n", d, d.Unit(), d.UnicodeVersion())
			tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "class\trender\tcount\texample\tlanded\tensure_ascii\traw\tgo\twidth\t")
			for _, r := range out.Tables[d.String()] {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%d (%.1fx)\t%d (%.1fx)\t%d (%.1fx)\t%d\t\n", r.Class, r.Render, r.Count, r.Example, r.Landed,
					r.Wire["ensure_ascii"], r.Ratio["ensure_ascii"], r.Wire["raw"], r.Ratio["raw"], r.Wire["go"], r.Ratio["go"], r.Width)
			}
			tw.Flush()
		}
		if lf.given() {
			var mine []derivation.Landing
			for _, ld := range landings {
				if slices.Contains(dialects, ld.Dialect) {
					mine = append(mine, ld)
				}
			}
			printLandings(stdout, l, mine)
		}
	}
	if !s.OK() {
		return exitNo
	}
	return exitOK
}
