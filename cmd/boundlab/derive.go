package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/derivation"
	"github.com/theurian/boundlab/results"
	"github.com/theurian/boundlab/sweeps"
)

func init() {
	register(verb{
		name:    "derive",
		summary: "did the seed hold? Every record, derived from the live build",
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
	Verdict   results.Verdict      `json:"verdict"`
	Core      limitsJSON           `json:"core"`
	Scenarios []scenarioJSON       `json:"worst_render_scenarios,omitempty"`
	Needs     []needJSON           `json:"budget_needed,omitempty"`
	Findings  []derivation.Finding `json:"findings,omitempty"`
	Producers []results.File       `json:"producers"`
	// NotRun are the producers not re-derived: their records in Producers
	// are the pinned ones (when found), and Reason says what running them
	// re-measures.
	NotRun []skippedJSON     `json:"not_rederived,omitempty"`
	Errors map[string]string `json:"errors,omitempty"`
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

func printCore(w io.Writer, title string, c limitsJSON) {
	l, def := c.Limits, charge.DefaultLimits()
	fmt.Fprintln(w, title)
	mark := func(v, d int64) string {
		if v != d {
			return " *"
		}
		return ""
	}
	writeFitted(w, "  ", [][]string{
		{"MaxSourceFileBytes", results.Thousands(l.MaxSourceFileBytes) + " bytes (the largest file a call may land)" + mark(l.MaxSourceFileBytes, def.MaxSourceFileBytes)},
		{"EnvelopeAllowance", results.Thousands(l.EnvelopeAllowance) + " bytes (an allowance, not derived)" + mark(l.EnvelopeAllowance, def.EnvelopeAllowance)},
		{"MaxParamsRenderedChars", results.Thousands(l.MaxParamsRenderedChars) + " (the charge budget, in each dialect's unit)" + mark(l.MaxParamsRenderedChars, def.MaxParamsRenderedChars)},
		{"MaxParamsNodes", results.Thousands(int64(l.MaxParamsNodes)) + mark(int64(l.MaxParamsNodes), int64(def.MaxParamsNodes))},
		{"MaxParamsNesting", fmt.Sprint(l.MaxParamsNesting) + mark(int64(l.MaxParamsNesting), int64(def.MaxParamsNesting))},
		{"MaxNumberBytes", fmt.Sprint(l.MaxNumberBytes) + mark(int64(l.MaxNumberBytes), int64(def.MaxNumberBytes))},
		{"MaxNumberExponent", fmt.Sprint(l.MaxNumberExponent) + mark(int64(l.MaxNumberExponent), int64(def.MaxNumberExponent))},
	}, summaryWidth)
	fmt.Fprintln(w, "\nWhat derives from them")
	var rows [][]string
	for _, d := range charge.Dialects() {
		rows = append(rows, []string{"composed ceiling, " + d.String(), results.Thousands(c.ComposedCeiling[d.String()]) + " " + d.Unit(),
			fmt.Sprintf("= budget + %s nodes x %d", results.Thousands(int64(l.MaxParamsNodes)), d.PerNodeMax())})
	}
	for _, bc := range c.BodyCaps {
		res := "none"
		if len(bc.Residual) > 0 {
			res = strings.Join(bc.Residual, "; ")
		}
		rows = append(rows, []string{"body cap, " + strings.Join(bc.Encoders, "+") + " clients", results.Thousands(bc.Cap) + " bytes",
			fmt.Sprintf("= %s x MaxSourceFileBytes + EnvelopeAllowance; residual: %s", bc.Multiplier, res)})
	}
	writeFitted(w, "  ", rows, summaryWidth)
}

const deriveAbout = `Prints the summary: first the verdict, every figure the seed ADR states, as the records carry it, reproduced, refuted (with the counterexample's record and the lab's value) or retired, with the counts; then the core's limits and what derives from them, the budget a file at the cap needs, the consistency findings between the limits, and where the records are and how to list them; every line within 120 columns. --list-records adds every record beside what the seed said (wide: one record a line).

By default the producers that re-measure servers (audits in process; child servers built and audited: seconds to a minute each) are not run: their records pinned in results/ stand in for them, and the summary names them. --all runs them too; --only NAMES runs just the named producers.

--records DIR reads the records pinned in DIR instead of recomputing them (how docs/records.md is generated). --out DIR pins the live records in DIR/<producer>.json (re-pinning: review the diff); a producer not run keeps its file. Exit 1 when a producer fails.

--instances writes the worst instances instead: each worst-render scenario's worst string and worst one-class string, and the widest whole document per dialect, as whole tools/call request bodies for knowledge.search (a tool boundlab serve serves), re-solved at the LIMITS so the call's own members are paid for. It first prints the plan: every file, its size, the total, what the scenario's gate does with it and what validate --request and serve answer it (computed from the charge, the derived body caps and the published schema). Together they are large, so it writes nothing when the chosen instances total more than --max-bytes (default 64MiB): choose with --scenario (comma-separated ids or globs, e.g. 'go-go-*,document-*') or raise --max-bytes (0: no bound). --list prints the plan and writes nothing; --list --json prints it as JSON. Beside the bodies it writes DIR/instances.manifest.json, the plan with each instance's arithmetic.

With LIMITS other than the defaults, derive re-derives every figure for them and prints it, pinning nothing: the limits and what derives from them (composed ceilings; body cap, multiplier and residual per encoder family), the budget a file at MaxSourceFileBytes needs to reach its schema in every class, where such a file is stopped class by class, the worst render of every scenario at those caps and that budget, the CPython memory model's rows at the cap, and the consistency findings with their arithmetic. Exit 1 when a finding contradicts a limit's purpose (printable text at MaxSourceFileBytes refused by the charge; a nesting bound the go-sdk undercuts).

` + limitsAbout

// pinnedDir is where the pinned records live in a clone, read for the
// producers derive does not run.
const pinnedDir = "results"

// deriveMore is derive's help on its JSON and on re-pinning.
func deriveMore() string {
	return "--json prints one object: " + jsonFields(deriveJSON{}) + "; a producer in not_run has its pinned records in producers " +
		"(when found). With --summary, only the verdict. " +
		"With LIMITS: " + jsonFields(derivationJSON{}) + ". --instances --list --json prints the plan: " + jsonFields(manifestJSON{}) + "." +
		"\n\nTo re-pin after a deliberate change: boundlab derive --out results [--all | --only NAMES], then " +
		"boundlab derive --records results --markdown > docs/records.md; review the diff."
}

// deriveFlags are derive's parsed flags.
type deriveFlags struct {
	asJSON, asMD, summary, classes, instances, all, list bool
	records, out, only                                   string
}

func runDerive(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("derive", []string{"derive [--summary | --list-records] [--json | --markdown]\n" +
		"                [--classes] [--all | --only NAMES] [--records DIR | --out DIR]",
		"derive LIMITS [--json] [--classes]",
		"derive --instances (--out DIR | --list [--json])\n" +
			"                [--scenario IDS] [--max-bytes SIZE] [LIMITS]"}, deriveAbout+"\n\n"+deriveMore())
	var f deriveFlags
	c.BoolVar(&f.asJSON, "json", false, "print the verdict, the core's limits and every record as JSON")
	c.BoolVar(&f.asMD, "markdown", false, "print the records reference (docs/records.md)")
	c.BoolVar(&f.summary, "summary", false, "print only the verdict (with --json: only the verdict's JSON)")
	c.BoolVar(&f.list, "list-records", false, "also print every record: its id, value, method, what the seed said and its title")
	c.BoolVar(&f.classes, "classes", false, "also print every class's reach in every worst-render scenario")
	c.StringVar(&f.records, "records", "", "read the records pinned in `DIR` instead of recomputing them")
	c.StringVar(&f.out, "out", "", "pin the live records in `DIR`/<producer>.json")
	c.BoolVar(&f.instances, "instances", false, "write every worst instance into --out DIR as a "+derivation.ServedTool+" request body, "+
		"with "+ManifestFile+" (--list: print the plan, write nothing)")
	c.BoolVar(&f.all, "all", false, "run every producer, those that re-measure servers too")
	c.StringVar(&f.only, "only", "", "comma-separated producer `NAMES` to derive, print and pin (default: every one that re-measures no server)")
	ef := addEmitFlags(c)
	lf := addLimitFlags(c)
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	l := charge.DefaultLimits()
	if lf.given() {
		var err error
		if l, err = lf.resolve(); err != nil {
			return c.limitsError(stderr, err)
		}
	}
	switch {
	case c.NArg() > 0:
		return c.usageError(stderr, "unexpected argument %q", c.Arg(0))
	case ef.given() && !f.instances:
		return c.usageError(stderr, "--scenario, --max-bytes and --list go with --instances")
	case f.instances && (f.asMD || f.summary || f.only != "" || f.records != "" || f.classes || f.all || f.list):
		return c.usageError(stderr, "--instances takes --out DIR or --list, with --scenario, --max-bytes, --json and the limits")
	case f.instances && ef.list == (f.out != ""):
		return c.usageError(stderr, "--instances writes into --out DIR, or with --list prints the plan: give one")
	case f.instances && f.asJSON && !ef.list:
		return c.usageError(stderr, "--instances --json goes with --list (writing, the plan is in DIR/"+ManifestFile+")")
	case f.instances:
		return emitInstances(c, f, ef, l, stdout, stderr)
	}
	if l != charge.DefaultLimits() {
		if f.out != "" || f.asMD || f.summary || f.only != "" || f.all || f.list {
			return c.usageError(stderr, "at limits other than the defaults derive prints the derivation and pins nothing: "+
				"drop --out, --markdown, --summary, --list-records, --all and --only")
		}
		return deriveAtLimits(c, f, l, stdout, stderr)
	}
	switch {
	case f.asJSON && f.asMD, f.summary && f.asMD:
		return c.usageError(stderr, "--markdown prints the records reference alone")
	case f.list && (f.asJSON || f.asMD || f.summary):
		return c.usageError(stderr, "--list-records goes with the summary (--json and --markdown hold every record already)")
	case f.records != "" && f.out != "":
		return c.usageError(stderr, "--records reads pinned records; --out pins live ones: choose one")
	case f.all && f.only != "":
		return c.usageError(stderr, "--all runs every producer, --only the named ones: choose one")
	case f.all && f.records != "":
		return c.usageError(stderr, "--records reads pinned records; --all runs every producer: choose one")
	}
	set, code := deriveRecords(c, f, stderr)
	if code != exitOK {
		return code
	}
	status := exitOK
	for _, sk := range set.skipped {
		// a runtime absent here: reported, not a failure, and its pinned
		// file is left as it is
		fmt.Fprintf(stderr, "boundlab derive: producer %s skipped: %s\n", sk.Producer, sk.Reason)
	}
	for _, n := range set.names {
		if err, ok := set.errs[n]; ok {
			fmt.Fprintf(stderr, "boundlab derive: producer %s: %v\n", n, err)
			status = exitNo
		}
	}
	verdict, err := results.Classify(set.recs)
	if err != nil {
		return c.fail(stderr, err)
	}
	var dv *derivation.Derivation
	if !f.asMD && !f.summary {
		// The consistency findings at the defaults, from the live code.
		d, err := derivation.For(charge.DefaultLimits(), measuredFacts(f.records))
		if err != nil {
			return c.fail(stderr, err)
		}
		dv = &d
		if d.Contradicts() {
			status = exitNo
		}
	}
	if code := printDerive(c, f, verdict, dv, set, stdout, stderr); code != exitOK {
		return code
	}
	if f.out != "" {
		if len(set.errs) > 0 {
			fmt.Fprintln(stderr, "boundlab derive: not pinning while a producer fails")
			return exitNo
		}
		for _, n := range set.names {
			if err := results.Save(f.out, n, set.recs[n]); err != nil {
				return c.fail(stderr, err)
			}
		}
		fmt.Fprintf(stderr, "derive: pinned %d producers in %s (%d skipped, %d not run: their files left as they were)\n",
			len(set.names), f.out, len(set.skipped), len(set.notRun))
	}
	return status
}

// deriveSet is what derive shows: each producer's records, live or pinned.
type deriveSet struct {
	// names are the producers shown, in registration order; then, reading
	// --records DIR, the pinned ones no producer registers.
	names []string
	recs  map[string][]results.Record
	// errs are the producers that failed; skipped, those whose runtime is
	// absent here (not shown).
	errs    map[string]error
	skipped []results.Skipped
	// notRun are the producers that re-measure servers and were not asked
	// for, each with its Pinned count: its pinned records stand in for it
	// (with --out, its file there is left as it is); pinnedErr says why
	// none could be read.
	notRun    []results.Skipped
	pinnedErr error
	// ran is how many producers ran; 0 reading --records DIR.
	ran int
}

// fromPinned reports whether producer n's records are pinned ones.
func (s deriveSet) fromPinned(n string) bool {
	is := func(sk results.Skipped) bool { return sk.Producer == n }
	return slices.ContainsFunc(s.notRun, is) || slices.ContainsFunc(s.skipped, is)
}

// deriveRecords recomputes the chosen producers' records, or reads them
// from --records DIR.
func deriveRecords(c *command, f deriveFlags, stderr io.Writer) (deriveSet, int) {
	ps := results.Producers()
	run, notRun, err := results.Select(ps, splitList(f.only), f.all || f.records != "")
	if err != nil {
		return deriveSet{}, c.usageError(stderr, "--only: %v", err)
	}
	set := deriveSet{recs: map[string][]results.Record{}, errs: map[string]error{}}
	if f.records != "" {
		pinned, err := results.Load(f.records)
		if err != nil {
			return deriveSet{}, c.fail(stderr, err)
		}
		for _, p := range run {
			set.names = append(set.names, p.Name)
			set.recs[p.Name] = pinned[p.Name]
		}
		if f.only == "" {
			// Pinned files no registered producer makes still belong in the reference.
			var extra []string
			for n, rs := range pinned {
				if _, ok := set.recs[n]; !ok {
					set.recs[n] = rs
					extra = append(extra, n)
				}
			}
			sort.Strings(extra)
			set.names = append(set.names, extra...)
		}
		return set, exitOK
	}
	live, errs := results.Live(run)
	set.ran = len(run)
	// A producer not run keeps its pinned file: its records stand in for
	// it, or, pinning into --out DIR, the file there is left as it is.
	dir := pinnedDir
	if f.out != "" {
		dir = f.out
	}
	var pinned map[string][]results.Record
	for _, sk := range notRun {
		if sk.Reason == results.NotAsked {
			continue
		}
		if pinned == nil && set.pinnedErr == nil {
			if pinned, set.pinnedErr = results.Load(dir); set.pinnedErr != nil {
				pinned = nil
			}
		}
		if rs, ok := pinned[sk.Producer]; ok {
			sk.Pinned = len(rs)
			if f.out == "" {
				live[sk.Producer] = rs
			}
		}
		set.notRun = append(set.notRun, sk)
	}
	for _, p := range ps {
		err, failed := errs[p.Name]
		if why, un := results.IsUnavailable(err); failed && un {
			set.skipped = append(set.skipped, results.Skipped{Producer: p.Name, Reason: why})
			// Its pinned records stand in, as a producer's not run do.
			if pinned == nil && set.pinnedErr == nil {
				if pinned, set.pinnedErr = results.Load(dir); set.pinnedErr != nil {
					pinned = nil
				}
			}
			if rs, ok := pinned[p.Name]; ok && f.out == "" {
				live[p.Name] = rs
				set.names = append(set.names, p.Name)
			}
			continue
		}
		if failed {
			set.errs[p.Name] = err
		}
		if _, ok := live[p.Name]; ok || failed {
			set.names = append(set.names, p.Name)
		}
	}
	set.recs = live
	return set, exitOK
}

// printDerive prints what the flags ask for: the verdict first.
func printDerive(c *command, f deriveFlags, v results.Verdict, dv *derivation.Derivation, set deriveSet, stdout, stderr io.Writer) int {
	switch {
	case f.asJSON && f.summary:
		if err := writeJSON(stdout, v); err != nil {
			return c.fail(stderr, err)
		}
	case f.asJSON:
		out := deriveJSON{Verdict: v, Core: coreLimits(charge.DefaultLimits())}
		if dv != nil {
			out.Needs, out.Findings = needsJSON(dv.Needs), dv.Findings
		}
		if f.records == "" {
			ds, err := sweeps.Derivations(charge.DefaultLimits())
			if err != nil {
				return c.fail(stderr, err)
			}
			out.Scenarios = scenariosJSON(ds)
		}
		for _, n := range set.names {
			if _, failed := set.errs[n]; !failed {
				out.Producers = append(out.Producers, results.File{Producer: n, Records: set.recs[n]})
			}
		}
		for _, sk := range set.notRun {
			out.NotRun = append(out.NotRun, skippedJSON(sk))
		}
		if len(set.errs) > 0 {
			out.Errors = map[string]string{}
			for n, err := range set.errs {
				out.Errors[n] = err.Error()
			}
		}
		if err := writeJSON(stdout, out); err != nil {
			return c.fail(stderr, err)
		}
	case f.asMD:
		stdout.Write(results.Markdown(set.recs, set.names))
	case f.summary:
		printVerdict(stdout, v)
	default:
		printVerdict(stdout, v)
		fmt.Fprintln(stdout)
		printCore(stdout, "The core's limits (charge.DefaultLimits)", coreLimits(charge.DefaultLimits()))
		if dv != nil {
			printNeeds(stdout, dv.Limits, dv.Needs)
			printFindings(stdout, dv.Findings)
		}
		printRecordsSummary(stdout, f, set)
		if f.list {
			printRecords(stdout, set)
		}
		if f.classes {
			ds, err := sweeps.Derivations(charge.DefaultLimits())
			if err != nil {
				return c.fail(stderr, err)
			}
			printScenarios(stdout, ds)
		}
	}
	return exitOK
}

// printRecordsSummary says what became of the records: how many, derived
// or read from where, which producers were not run and how to run them,
// where they are pinned and how to list them.
func printRecordsSummary(w io.Writer, f deriveFlags, set deriveSet) {
	count := func(pinned bool) (recs, producers int) {
		for _, n := range set.names {
			if _, failed := set.errs[n]; !failed && set.fromPinned(n) == pinned {
				recs += len(set.recs[n])
				producers++
			}
		}
		return recs, producers
	}
	fmt.Fprintln(w, "\nThe records")
	switch n, p := count(false); {
	case f.records != "":
		printWrapped(w, "  ", fmt.Sprintf("%s records of %d producers, read as pinned in %s, not re-derived", results.Thousands(int64(n)), p, f.records))
	default:
		printWrapped(w, "  ", fmt.Sprintf("%s records of %d producers, derived now from the live build; not printed here", results.Thousands(int64(n)), p))
	}
	if f.out != "" {
		printWrapped(w, "  ", fmt.Sprintf("pinned now in %s/<producer>.json", strings.TrimSuffix(f.out, "/")))
	}
	if len(set.notRun) > 0 {
		kept := "stand in"
		if f.out != "" {
			kept = "left as they were"
		}
		printNotRun(w, "derive", "  ", kept, set.notRun)
		if set.pinnedErr != nil && f.out == "" {
			printWrapped(w, "  ", fmt.Sprintf("their pinned records could not be read (%v): run from the repository's root", set.pinnedErr))
		}
	}
	for _, sk := range set.skipped {
		printWrapped(w, "  ", fmt.Sprintf("skipped [%s] (its runtime is absent here; its pinned records kept): %s", sk.Producer, sk.Reason))
	}
	printWrapped(w, "  ", "every record is pinned in results/<producer>.json; docs/records.md lists them with each one's instance "+
		"and source; docs/derivations.md says how each is derived")
	printWrapped(w, "  ", "list them here: boundlab derive --list-records [--only NAMES]; as JSON: boundlab derive --json")
}

// printRecords is every record, a line each, by producer.
func printRecords(w io.Writer, set deriveSet) {
	for _, name := range set.names {
		rs := set.recs[name]
		if len(rs) == 0 {
			continue
		}
		head := name
		if set.fromPinned(name) {
			head += " (pinned, not re-measured: boundlab derive --only " + name + " re-measures it)"
		}
		fmt.Fprintf(w, "\n%s\n", head)
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

// printVerdict is derive's first screen: did the seed hold? One row per
// refuted or retired figure of the seed's list (results.Verdict.Rows); the
// reproduced and the not re-derivable by number (derive --json --summary
// lists every record of each).
func printVerdict(w io.Writer, v results.Verdict) {
	printWrapped(w, "", fmt.Sprintf("Did the seed hold? %d of ADR-0031's %d listed figures have a verdict (%d silent %v);",
		v.Listed-len(v.Silent), v.Listed, len(v.Silent), v.Silent))
	printWrapped(w, "  ", fmt.Sprintf("over their records: %d reproduced, %d refuted (a record holds another value), %d retired (withdrawn by the seed), %d not re-derivable here",
		v.Reproduced, v.Refuted, v.Retired, v.NotRederivable))
	fmt.Fprintln(w)
	rows := [][]string{{"#", "STATUS", "SEED SAID", "LAB", "RECORD (the counterexample, when refuted)"}}
	grouped := map[results.Status][]string{}
	for _, r := range v.Rows() {
		if r.SeedFigure > 0 && (r.Status == results.FigureReproduced || r.Status == results.FigureNotRederivable) {
			grouped[r.Status] = append(grouped[r.Status], strconv.Itoa(r.SeedFigure))
			continue
		}
		rec, lab := r.Record, r.Lab
		if r.Others > 0 {
			rec = fmt.Sprintf("%s (+%d)", rec, r.Others)
		}
		if lab == "" {
			lab = "-"
		}
		rows = append(rows, []string{strconv.Itoa(r.SeedFigure), string(r.Status), r.Seed, lab, rec})
	}
	writeFitted(w, "", rows, summaryWidth)
	for _, st := range []results.Status{results.FigureReproduced, results.FigureNotRederivable} {
		printWrapped(w, "", fmt.Sprintf("%s: %s", st, strings.Join(grouped[st], " ")))
	}
	fmt.Fprintln(w, "\nEach figure's records, reasons, a retired claim's wording and correction: derive --json --summary, or docs/records.md.")
}
