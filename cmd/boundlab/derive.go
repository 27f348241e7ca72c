package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/results"
	"github.com/theurian/boundlab/sweeps"
)

func init() {
	register(verb{
		name:    "derive",
		summary: "derive every record from the live build: the core's limits and caps, sweeps, worst renders, retired claims",
		run:     runDerive,
	})
}

// limitsJSON is the core section of derive --json.
type limitsJSON struct {
	Limits          charge.Limits    `json:"limits"`
	ComposedCeiling map[string]int64 `json:"composed_ceiling"`
	BodyCaps        []bodyCapJSON    `json:"body_caps"`
}

type bodyCapJSON struct {
	Encoders   []string `json:"encoders"`
	Multiplier string   `json:"multiplier"`
	Cap        int64    `json:"cap"`
	Residual   []string `json:"residual"`
}

type reachJSON struct {
	Classes   []string `json:"classes"`
	Runes     []string `json:"code_points"`
	Counts    []int64  `json:"counts"`
	Admitted  int64    `json:"admitted"`
	ByCharge  int64    `json:"by_charge,omitempty"`
	ByWire    int64    `json:"by_transport,omitempty"`
	Binds     string   `json:"binds"`
	WireBytes int64    `json:"body_bytes"`
	Charge    int64    `json:"charge"`
	Render    int64    `json:"render"`
	Ratio     float64  `json:"ratio"`
	Instance  string   `json:"instance"`
}

type scenarioJSON struct {
	ID        string      `json:"id"`
	Dialect   string      `json:"dialect"`
	Encoder   string      `json:"encoder"`
	Rule      string      `json:"rule"`
	Transport int64       `json:"transport_cap"`
	Budget    int64       `json:"budget"`
	Classes   []reachJSON `json:"classes"`
	WorstPure reachJSON   `json:"worst_one_class"`
	Worst     reachJSON   `json:"worst"`
}

func toReachJSON(r sweeps.Reach) reachJSON {
	j := reachJSON{Admitted: r.Admitted, ByCharge: r.ByCharge, ByWire: r.ByWire, Binds: r.Binds, WireBytes: r.Wire,
		Charge: r.Charge, Render: r.Render, Ratio: r.Ratio(), Instance: r.Instance().Name + ".json"}
	for i, row := range r.Rows {
		j.Classes = append(j.Classes, row.Name())
		j.Runes = append(j.Runes, sweeps.RuneName(r.Spans[i].Rune))
		j.Counts = append(j.Counts, r.Spans[i].N)
	}
	return j
}

func scenariosJSON(ds []sweeps.Derivation) []scenarioJSON {
	var out []scenarioJSON
	for _, d := range ds {
		j := scenarioJSON{ID: d.ID, Dialect: d.Dialect.String(), Encoder: d.Encoder.String(), Rule: d.Rule.String(),
			Transport: d.Transport, Budget: d.Budget, WorstPure: toReachJSON(d.WorstPure), Worst: toReachJSON(d.Worst)}
		for _, c := range d.Classes {
			j.Classes = append(j.Classes, toReachJSON(c))
		}
		out = append(out, j)
	}
	return out
}

func printScenarios(w io.Writer, ds []sweeps.Derivation) {
	for _, d := range ds {
		fmt.Fprintf(w, "\nworst render, %s: %s dialect, %s clients, %s charge, cap %s bytes, budget %s %s\n", d.ID, d.Dialect, d.Encoder, d.Rule,
			results.Thousands(d.Transport), results.Thousands(d.Budget), d.Dialect.Unit())
		tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "class	example	by charge	by transport	admitted	binds	body bytes	render	x budget	")
		for _, c := range d.Classes {
			fmt.Fprintf(tw, "%s	%s	%s	%s	%s	%s	%s	%s	%.2f	\n", c.Rows[0].Name(), sweeps.RuneName(c.Spans[0].Rune), results.Thousands(c.ByCharge),
				results.Thousands(c.ByWire), results.Thousands(c.Admitted), c.Binds, results.Thousands(c.Wire), results.Thousands(c.Render), c.Ratio())
		}
		tw.Flush()
		fmt.Fprintf(w, "  worst one class: %s, %s (%.2fx)\n", d.WorstPure.Classes(), results.Thousands(d.WorstPure.Render), d.WorstPure.Ratio())
		fmt.Fprintf(w, "  worst string:    %s, %s (%.2fx), %s-bound\n", d.Worst.Classes(), results.Thousands(d.Worst.Render), d.Worst.Ratio(), d.Worst.Binds)
	}
}

type deriveJSON struct {
	Core      limitsJSON        `json:"core"`
	Scenarios []scenarioJSON    `json:"worst_render_scenarios,omitempty"`
	Producers []results.File    `json:"producers"`
	Errors    map[string]string `json:"errors,omitempty"`
}

func coreLimits(l charge.Limits) limitsJSON {
	out := limitsJSON{Limits: l, ComposedCeiling: map[string]int64{}}
	for _, d := range charge.Dialects() {
		out.ComposedCeiling[d.String()] = charge.ComposedCeiling(d, l)
	}
	for _, encs := range [][]charge.Encoder{
		{charge.EnsureASCII, charge.Raw},
		{charge.GoJSON},
		{charge.EnsureASCII, charge.Raw, charge.GoJSON},
	} {
		bc := charge.BodyCap(l, encs...)
		j := bodyCapJSON{Multiplier: bc.Multiplier.RatString(), Cap: bc.Cap}
		for _, e := range encs {
			j.Encoders = append(j.Encoders, e.String())
		}
		for _, r := range bc.Residual {
			j.Residual = append(j.Residual, fmt.Sprintf("%s under %s at %sx", r.Class.Name, r.Encoder, r.Ratio.FloatString(1)))
		}
		out.BodyCaps = append(out.BodyCaps, j)
	}
	return out
}

func printCore(w io.Writer, c limitsJSON) {
	l := c.Limits
	fmt.Fprintln(w, "The core's limits (charge.DefaultLimits)")
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	for _, row := range [][2]string{
		{"MaxSourceFileBytes", results.Thousands(l.MaxSourceFileBytes) + " bytes (the largest file a call may land)"},
		{"EnvelopeAllowance", results.Thousands(l.EnvelopeAllowance) + " bytes (an allowance, not derived)"},
		{"MaxParamsRenderedChars", results.Thousands(l.MaxParamsRenderedChars) + " (the charge budget, in each dialect's unit)"},
		{"MaxParamsNodes", results.Thousands(int64(l.MaxParamsNodes))},
		{"MaxParamsNesting", fmt.Sprint(l.MaxParamsNesting)},
		{"MaxNumberBytes", fmt.Sprint(l.MaxNumberBytes)},
		{"MaxNumberExponent", fmt.Sprint(l.MaxNumberExponent)},
	} {
		fmt.Fprintf(tw, "  %s\t%s\n", row[0], row[1])
	}
	tw.Flush()
	fmt.Fprintln(w, "\nWhat derives from them")
	tw = tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	for _, d := range charge.Dialects() {
		fmt.Fprintf(tw, "  composed ceiling, %s\t%s %s\t= budget + %s nodes x %d\n", d, results.Thousands(c.ComposedCeiling[d.String()]), d.Unit(),
			results.Thousands(int64(l.MaxParamsNodes)), d.PerNodeMax())
	}
	for _, bc := range c.BodyCaps {
		res := "none"
		if len(bc.Residual) > 0 {
			res = strings.Join(bc.Residual, "; ")
		}
		fmt.Fprintf(tw, "  body cap, %s clients\t%s bytes\t= %s x MaxSourceFileBytes + EnvelopeAllowance; residual: %s\n",
			strings.Join(bc.Encoders, "+"), results.Thousands(bc.Cap), bc.Multiplier, res)
	}
	tw.Flush()
}

func printRecords(w io.Writer, names []string, recs map[string][]results.Record) {
	for _, name := range names {
		rs := recs[name]
		if len(rs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", name)
		tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "  ID\tVALUE\tMETHOD\tSEED SAID\tFIGURE")
		for _, r := range rs {
			seed := r.Seed
			if r.Method == results.Retired && r.Retirement != nil {
				seed = "(retired; see records.md)"
			}
			if seed == "" {
				seed = "-"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.ID, results.FormatValue(r), r.Method, seed, r.Title)
		}
		tw.Flush()
	}
}

func runDerive(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("derive", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the core's limits and every record as JSON")
	asMD := fs.Bool("markdown", false, "print the records reference (docs/records.md)")
	emit := fs.String("emit", "", "write every worst instance as a real tools/call request body into `DIR`")
	pin := fs.String("pin", "", "write the live records to `DIR`/<producer>.json, one file per producer (re-pinning: review the diff)")
	classes := fs.Bool("classes", false, "also print every class's reach in every worst-render scenario")
	from := fs.String("from", "", "print the records pinned in `DIR` instead of recomputing them (how docs/records.md is generated)")
	only := fs.String("only", "", "comma-separated producer `NAMES` to derive, print and pin (default: all registered)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: boundlab derive [--json | --markdown] [--classes] [--only NAMES] [--from DIR | --pin DIR] [--emit DIR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || (*asJSON && *asMD) || (*from != "" && *pin != "") {
		fs.Usage()
		return 2
	}
	ps := results.Producers()
	if *only != "" {
		want := map[string]bool{}
		for _, n := range strings.Split(*only, ",") {
			want[strings.TrimSpace(n)] = true
		}
		var kept []results.Producer
		for _, p := range ps {
			if want[p.Name] {
				kept = append(kept, p)
				delete(want, p.Name)
			}
		}
		for n := range want {
			fmt.Fprintf(stderr, "derive: no producer %q is registered\n", n)
			return 2
		}
		ps = kept
	}
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	var live map[string][]results.Record
	var errs map[string]error
	if *from != "" {
		pinned, err := results.Load(*from)
		if err != nil {
			fmt.Fprintln(stderr, "derive:", err)
			return 1
		}
		live, errs = map[string][]results.Record{}, map[string]error{}
		for _, n := range names {
			live[n] = pinned[n]
		}
		if *only == "" {
			// Pinned files no registered producer makes still belong in the reference.
			var extra []string
			for n, rs := range pinned {
				if _, ok := live[n]; !ok {
					live[n] = rs
					extra = append(extra, n)
				}
			}
			sort.Strings(extra)
			names = append(names, extra...)
		}
	} else {
		live, errs = results.Live(ps)
	}
	status := 0
	for _, n := range names {
		if err, ok := errs[n]; ok {
			fmt.Fprintf(stderr, "derive: producer %s: %v\n", n, err)
			status = 1
		}
	}
	core := coreLimits(charge.DefaultLimits())
	switch {
	case *asJSON:
		out := deriveJSON{Core: core}
		if *from == "" {
			ds, err := sweeps.Derivations(charge.DefaultLimits())
			if err != nil {
				fmt.Fprintln(stderr, "derive:", err)
				return 1
			}
			out.Scenarios = scenariosJSON(ds)
		}
		for _, n := range names {
			if _, failed := errs[n]; !failed {
				out.Producers = append(out.Producers, results.File{Producer: n, Records: live[n]})
			}
		}
		if len(errs) > 0 {
			out.Errors = map[string]string{}
			for n, err := range errs {
				out.Errors[n] = err.Error()
			}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintln(stderr, "derive:", err)
			return 1
		}
	case *asMD:
		stdout.Write(results.Markdown(live, names))
	default:
		printCore(stdout, core)
		printRecords(stdout, names, live)
		if *classes {
			ds, err := sweeps.Derivations(charge.DefaultLimits())
			if err != nil {
				fmt.Fprintln(stderr, "derive:", err)
				return 1
			}
			printScenarios(stdout, ds)
		}
		fmt.Fprintln(stdout, "\n`boundlab derive --markdown` adds each figure's instance and source; docs/derivations.md says how each is derived.")
	}
	if *pin != "" {
		if len(errs) > 0 {
			fmt.Fprintln(stderr, "derive: not pinning while a producer fails")
			return 1
		}
		for _, n := range names {
			if err := results.Save(*pin, n, live[n]); err != nil {
				fmt.Fprintln(stderr, "derive:", err)
				return 1
			}
		}
		fmt.Fprintf(stderr, "derive: pinned %d producers in %s\n", len(names), *pin)
	}
	if *emit != "" {
		if err := emitInstances(*emit, stderr); err != nil {
			fmt.Fprintln(stderr, "derive:", err)
			return 1
		}
	}
	return status
}

// emitInstances writes every worst instance the records name.
func emitInstances(dir string, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	l := charge.DefaultLimits()
	ds, err := sweeps.Derivations(l)
	if err != nil {
		return err
	}
	var ins []sweeps.Instance
	seen := map[string]bool{}
	add := func(in sweeps.Instance) {
		if !seen[in.Name] {
			seen[in.Name] = true
			ins = append(ins, in)
		}
	}
	for _, d := range ds {
		add(d.WorstPure.Instance())
		add(d.Worst.Instance())
		for _, r := range []rune{0x7f, 0x1000c} {
			if c, ok := d.ClassReach(r); ok && d.ID == "python-raw-codepoint-shipped" {
				add(c.Instance())
			}
		}
	}
	for _, d := range charge.Dialects() {
		add(sweeps.DocumentWorst(d, l).Instance)
	}
	for _, in := range ins {
		path, err := in.Emit(dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s (%s bytes)\n", path, results.Thousands(in.Size()))
	}
	return nil
}
