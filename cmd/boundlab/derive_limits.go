package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/derivation"
	"github.com/theurian/boundlab/results"
	"github.com/theurian/boundlab/sweeps"
)

// notPinned is what a derivation at limits other than the defaults says first.
const notPinned = "Derived at your limits: printed, not pinned. The records under results/ (and verify, and docs/records.md) " +
	"hold for charge.DefaultLimits, the seed's; nothing below is checked against them."

// derivationJSON is `boundlab derive --json` at limits other than the defaults.
type derivationJSON struct {
	Pinned      bool                 `json:"pinned"`
	Note        string               `json:"note"`
	Core        limitsJSON           `json:"core"`
	Needs       []needJSON           `json:"budget_needed"`
	Landings    []landingJSON        `json:"source_file_landings"`
	Scenarios   []scenarioJSON       `json:"worst_render_scenarios"`
	MemoryCap   int64                `json:"memory_model_cap"`
	Memory      any                  `json:"memory_model_rows"`
	Findings    []derivation.Finding `json:"findings"`
	Contradicts bool                 `json:"contradicts"`
}

type needJSON struct {
	Dialect             string `json:"dialect"`
	Printable           int64  `json:"printable_every_script"`
	PrintableClass      string `json:"printable_widest_class"`
	PrintableArithmetic string `json:"printable_arithmetic"`
	All                 int64  `json:"every_class_within_cap"`
	AllClass            string `json:"every_class_widest"`
	AllArithmetic       string `json:"every_class_arithmetic"`
}

type landingJSON struct {
	Dialect string             `json:"dialect"`
	Encoder string             `json:"encoder"`
	Cap     int64              `json:"cap"`
	Classes []classLandingJSON `json:"classes"`
}

type classLandingJSON struct {
	Class      string `json:"class"`
	Example    string `json:"example"`
	CodePoints int64  `json:"code_points"`
	Wire       int64  `json:"body_bytes"`
	Charge     int64  `json:"charge"`
	Outcome    string `json:"stopped_by"`
}

func needsJSON(ns []derivation.Need) []needJSON {
	var out []needJSON
	for _, n := range ns {
		out = append(out, needJSON{n.Dialect.String(), n.Printable, n.PrintableClass + " under " + n.PrintableEncoder, n.PrintableArithmetic,
			n.All, n.AllClass + " under " + n.AllEncoder, n.AllArithmetic})
	}
	return out
}

func toDerivationJSON(d derivation.Derivation) derivationJSON {
	out := derivationJSON{Pinned: false, Note: notPinned, Core: coreLimits(d.Limits), Needs: needsJSON(d.Needs),
		Scenarios: scenariosJSON(d.Scenarios), MemoryCap: d.Memory.Cap, Memory: d.Memory.Rows, Findings: d.Findings, Contradicts: d.Contradicts()}
	for _, ld := range d.Landings {
		j := landingJSON{Dialect: ld.Dialect.String(), Encoder: ld.Encoder.String(), Cap: ld.Cap}
		for _, c := range ld.Classes {
			j.Classes = append(j.Classes, classLandingJSON{c.Row.Name(), sweeps.RuneName(c.Row.Example), c.CodePoints, c.Wire, c.Charge, c.Outcome})
		}
		out.Landings = append(out.Landings, j)
	}
	return out
}

// measuredFacts reads the measured facts a derivation checks the limits
// against from the pinned records in dir; missing ones stay unknown.
func measuredFacts(dir string) derivation.Measured {
	if dir == "" {
		dir = "results"
	}
	pinned, err := results.Load(dir)
	if err != nil {
		return derivation.Measured{}
	}
	return derivation.MeasuredFrom(pinned)
}

// deriveAtLimits prints the whole derivation at limits other than the
// defaults; exit 1 when a finding contradicts the limits.
func deriveAtLimits(c *command, f deriveFlags, l charge.Limits, stdout, stderr io.Writer) int {
	d, err := derivation.For(l, measuredFacts(f.records))
	if err != nil {
		return c.fail(stderr, err)
	}
	if f.asJSON {
		if err := writeJSON(stdout, toDerivationJSON(d)); err != nil {
			return c.fail(stderr, err)
		}
	} else {
		for _, line := range wrap(notPinned, helpWidth, "") {
			fmt.Fprintln(stdout, line)
		}
		fmt.Fprintln(stdout)
		printCore(stdout, "Your limits (* differs from the default)", coreLimits(l))
		printNeeds(stdout, l, d.Needs)
		printLandings(stdout, l, d.Landings)
		if f.classes {
			printScenarios(stdout, d.Scenarios)
		} else {
			printScenarioSummary(stdout, d.Scenarios)
		}
		printMemory(stdout, d.Memory)
		printFindings(stdout, d.Findings)
	}
	if d.Contradicts() {
		return exitNo
	}
	return exitOK
}

func printNeeds(w io.Writer, l charge.Limits, ns []derivation.Need) {
	fmt.Fprintf(w, "\nThe budget a file at MaxSourceFileBytes (%s bytes) needs to reach its schema, not the charge\n", results.Thousands(l.MaxSourceFileBytes))
	fmt.Fprintf(w, "(the budget is %s; a file is priced as {\"body\": <file>}, one class at a time)\n", results.Thousands(l.MaxParamsRenderedChars))
	var rows [][]string
	for _, n := range ns {
		rows = append(rows,
			[]string{n.Dialect.String() + ", printable text in every script", results.Thousands(n.Printable) + " " + n.Dialect.Unit(),
				fmt.Sprintf("= %s: %s under %s clients", n.PrintableArithmetic, n.PrintableClass, n.PrintableEncoder)},
			[]string{n.Dialect.String() + ", every class within the cap", results.Thousands(n.All) + " " + n.Dialect.Unit(),
				fmt.Sprintf("= %s: %s under %s clients", n.AllArithmetic, n.AllClass, n.AllEncoder)})
	}
	writeFitted(w, "  ", rows, summaryWidth)
}

// printLandings is one table per dialect: each class's file at the limit,
// and what stops it under each encoder family.
func printLandings(w io.Writer, l charge.Limits, ls []derivation.Landing) {
	for _, d := range charge.Dialects() {
		var mine []derivation.Landing
		for _, ld := range ls {
			if ld.Dialect == d {
				mine = append(mine, ld)
			}
		}
		if len(mine) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nA file at MaxSourceFileBytes, %s dialect: what stops it (schema: nothing; charge; transport: the cap)\n", d)
		tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
		head := "class\texample\tcode points\tcharge\t"
		for _, ld := range mine {
			head += fmt.Sprintf("%s (cap %s)\t", ld.Encoder, results.Thousands(ld.Cap))
		}
		fmt.Fprintln(tw, head)
		for i, c := range mine[0].Classes {
			line := fmt.Sprintf("%s\t%s\t%s\t%s\t", c.Row.Name(), sweeps.RuneName(c.Row.Example), results.Thousands(c.CodePoints), results.Thousands(c.Charge))
			for _, ld := range mine {
				oc := ld.Classes[i]
				line += fmt.Sprintf("%s, %s B\t", oc.Outcome, results.Thousands(oc.Wire))
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
	}
}

func printScenarioSummary(w io.Writer, ds []sweeps.Derivation) {
	fmt.Fprintln(w, "\nThe worst render of every scenario at these limits (--classes: every class's reach)")
	for _, d := range ds {
		fmt.Fprintf(w, "  %s: %s dialect, %s clients, %s charge, cap %s bytes, budget %s\n", d.ID, d.Dialect, d.Encoder, d.Rule,
			results.Thousands(d.Transport), results.Thousands(d.Budget))
		fmt.Fprintf(w, "    worst one class: %s %s (%.2fx budget), %s-bound: %s\n", results.Thousands(d.WorstPure.Render), d.Dialect.Unit(),
			d.WorstPure.Ratio(), d.WorstPure.Binds, d.WorstPure.Classes())
		fmt.Fprintf(w, "    worst string:    %s %s (%.2fx budget), %s-bound: %s\n", results.Thousands(d.Worst.Render), d.Dialect.Unit(),
			d.Worst.Ratio(), d.Worst.Binds, d.Worst.Classes())
		fmt.Fprintf(w, "    instance: %s\n", d.Worst.Instance().Describe())
	}
}

func printMemory(w io.Writer, m derivation.MemoryRows) {
	fmt.Fprintf(w, "\nThe CPython memory model's predicted rows at cap %s bytes (memmodel; tracemalloc-visible heap)\n", results.Thousands(m.Cap))
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shape\tfam\twire B\tparser\tpredicted MiB\tx wire\tdecides\t")
	for _, r := range m.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f\t%.2f\t%s\t\n", r.Shape, r.Family, results.Thousands(r.Wire), r.Parser, mib(r.Peak), r.Ratio, r.Decider)
	}
	tw.Flush()
}

func printFindings(w io.Writer, fs []derivation.Finding) {
	fmt.Fprintln(w, "\nConsistency between the limits")
	if len(fs) == 0 {
		fmt.Fprintln(w, "  none: every limit can do what it is for at these values")
	}
	for _, f := range fs {
		tag := "note on " + f.Limit
		if f.Contradicts {
			tag = "CONTRADICTS " + f.Limit
		}
		lines := wrap(fmt.Sprintf("[%s] %s: %s", tag, f.ID, f.Text), helpWidth, "    ")
		fmt.Fprintln(w, "  "+strings.TrimPrefix(lines[0], "    "))
		for _, l := range lines[1:] {
			fmt.Fprintln(w, l)
		}
	}
}
