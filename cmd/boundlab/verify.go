package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	// The mutation records have no verb of their own: they come from saved
	// runs of scripts/mutation.sh, registered by the package's init.
	_ "github.com/theurian/boundlab/mutation"
	// Real servers before and after their patch (internal/adopters).
	_ "github.com/theurian/boundlab/internal/adopters"
	_ "github.com/theurian/boundlab/internal/census"
	// The strangers' audits: child servers of other SDKs (internal/strangers).
	_ "github.com/theurian/boundlab/internal/pyseed"
	_ "github.com/theurian/boundlab/internal/strangers"
	"github.com/theurian/boundlab/results"
)

func init() {
	register(verb{
		name:    "verify",
		summary: "recompute every record; fail on drift from the pinned records",
		run:     runVerify,
	})
}

// verifyJSON is `boundlab verify --json`.
type verifyJSON struct {
	OK           bool            `json:"ok"`
	Records      int             `json:"records"`
	Producers    int             `json:"producers"`
	PinnedBuild  string          `json:"pinned_build"`
	RunningBuild string          `json:"running_build"`
	Problems     []problemJSON   `json:"problems"`
	Rederived    []rederivedJSON `json:"rederived"`
	Skipped      []skippedJSON   `json:"skipped"`
	NotRun       []skippedJSON   `json:"not_run"`
}

type skippedJSON struct {
	Producer string `json:"producer"`
	Reason   string `json:"reason"`
	Pinned   int    `json:"pinned"`
}

type rederivedJSON struct {
	Producer string   `json:"producer"`
	ID       string   `json:"id"`
	Because  []string `json:"because"`
	Changes  []string `json:"changes"`
}

type problemJSON struct {
	Kind     string `json:"kind"`
	Producer string `json:"producer,omitempty"`
	ID       string `json:"id,omitempty"`
	Detail   string `json:"detail,omitempty"`
}

func runVerify(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("verify", []string{"verify [--all | --only NAMES] [--json] [--strict-build]\n                [--records DIR] [--docs PATHS] [--records-md FILE]"},
		"Recomputes the registered producers' records and compares them with the pinned DIR/<producer>.json. "+
			"By default the producers that re-measure servers (audits in process, child servers built and audited: "+
			"seconds to a minute each) are not run: their pinned records are kept, not compared, and the output names "+
			"them; --all runs them too (CI does), --only NAMES runs just the named producers. "+
			"Exit 1, naming each problem, on: a field that drifted (a measured value past its pinned tolerance); a "+
			"pinned record no producer makes, or a live record not pinned; a producer that fails; a retired figure "+
			"quoted in the docs without its record id; a doc figure that is not the value of the record it names, or that "+
			"names none (docs/records.md is generated; every other figure in --docs quotes a record, see results.ScanFigures); "+
			"a stale records reference. A producer that cannot run here (a runtime absent: node, a Python with the "+
			"MCP SDK, the Go toolchain a child server is built with) is skipped with its reason, its pinned records "+
			"kept and not compared; it does not fail verify. "+
			"On a build other than the pinned one (another Go toolchain, another module version), a record that "+
			"depends on a part that changed (its depends_on, the modules its build names) is re-derived for this "+
			"build and listed with its old and new values, without failing; every other record must still match "+
			"exactly. --strict-build compares every record exactly, build included.\n\n"+
			"A doc quotes a figure as a Markdown link into the records reference, [FIGURE](docs/records.md#RECORD-ID), "+
			"or in a paragraph (or table row) that names the record's id; the figure must be the record's value to the "+
			"precision written. Only the default limits and a few outside constants (results.DocConstants) stand bare.\n\n"+
			"--json prints one object: "+jsonFields(verifyJSON{})+".")
	dir := c.String("records", "results", "`DIR` holding the pinned <producer>.json files")
	docs := c.String("docs", "docs,README.md", "comma-separated Markdown files or directories whose figures are held to the records")
	md := c.String("records-md", "docs/records.md", "the generated records reference checked for staleness (empty: skip)")
	asJSON := c.Bool("json", false, "print the outcome and every problem as JSON")
	strict := c.Bool("strict-build", false, "fail on any difference from the pinned build too (no re-derivation)")
	all := c.Bool("all", false, "run every producer, those that re-measure servers too")
	only := c.String("only", "", "comma-separated producer `NAMES` to run (default: every one that re-measures no server)")
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	if c.NArg() > 0 {
		return c.usageError(stderr, "unexpected argument %q", c.Arg(0))
	}
	if *all && *only != "" {
		return c.usageError(stderr, "--all runs every producer, --only the named ones: choose one")
	}
	run, notRun, err := results.Select(results.Producers(), splitList(*only), *all)
	if err != nil {
		return c.usageError(stderr, "--only: %v", err)
	}
	return verifyWith(results.VerifyOptions{
		RecordsDir:      *dir,
		Producers:       run,
		NotRun:          notRun,
		DocPaths:        splitList(*docs),
		RecordsMarkdown: *md,
		StrictBuild:     *strict,
	}, *asJSON, stdout, stderr)
}

// splitList is a comma-separated flag's items, blanks dropped.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

const maxShownPerKind = 8

// verifyWith runs verify and reports; a test drives it with perturbed
// producers or pinned files.
func verifyWith(o results.VerifyOptions, asJSON bool, stdout, stderr io.Writer) int {
	rep, err := results.VerifyReport(o)
	if err != nil {
		fmt.Fprintln(stderr, "boundlab verify:", err)
		return exitUsage
	}
	probs := rep.Problems
	pinned, _ := results.Load(o.RecordsDir)
	n := 0
	for _, rs := range pinned {
		n += len(rs)
	}
	if asJSON {
		out := verifyJSON{OK: len(probs) == 0, Records: n, Producers: len(o.Producers), PinnedBuild: rep.Pinned,
			RunningBuild: rep.Running, Problems: []problemJSON{}, Rederived: []rederivedJSON{}, Skipped: []skippedJSON{},
			NotRun: []skippedJSON{}}
		for _, sk := range rep.Skipped {
			out.Skipped = append(out.Skipped, skippedJSON(sk))
		}
		for _, sk := range rep.NotRun {
			out.NotRun = append(out.NotRun, skippedJSON(sk))
		}
		for _, p := range probs {
			out.Problems = append(out.Problems, problemJSON(p))
		}
		for _, r := range rep.Rederived {
			out.Rederived = append(out.Rederived, rederivedJSON{r.Producer, r.ID, r.Because, append([]string{}, r.Changes...)})
		}
		if err := writeJSON(stdout, out); err != nil {
			fmt.Fprintln(stderr, "boundlab verify:", err)
			return exitUsage
		}
		if len(probs) > 0 {
			return exitNo
		}
		return exitOK
	}
	moved := printRederived(stdout, rep.Rederived)
	for _, sk := range rep.Skipped {
		fmt.Fprintf(stdout, "skipped [%s] (%d pinned records kept, not re-measured): %s\n", sk.Producer, sk.Pinned, sk.Reason)
	}
	notRun := printNotRun(stdout, "verify", "", "kept, not compared", rep.NotRun)
	builds := fmt.Sprintf("pins hold for %s; running %s", rep.Pinned, rep.Running)
	if len(rep.Skipped) > 0 {
		builds += fmt.Sprintf("; %d producers skipped", len(rep.Skipped))
	}
	if len(rep.NotRun) > 0 {
		builds += fmt.Sprintf("; %d producers not run (%s pinned records not compared)", len(rep.NotRun), results.Thousands(int64(notRun)))
	}
	if len(rep.Rederived) > 0 {
		builds += fmt.Sprintf("; %d records re-derived for this build (%d moved)", len(rep.Rederived), moved)
	}
	if len(probs) > 0 {
		printProblems(stderr, probs)
		fmt.Fprintf(stderr, "verify: FAIL, %d problems; %s\n", len(probs), builds)
		return exitNo
	}
	fmt.Fprintf(stdout, "verify: ok, %d records from %d producers hold against the live build; %s\n", rep.Compared, len(o.Producers), builds)
	return exitOK
}

// printNotRun names the producers a verb did not run and how to run them,
// those that re-measure servers one a line, those left out by --only on one,
// within summaryWidth; kept says what became of their pinned records. It
// returns how many pinned records they hold.
func printNotRun(w io.Writer, verb, indent, kept string, nr []results.Skipped) int {
	if len(nr) == 0 {
		return 0
	}
	total, notAsked := 0, []string{}
	var remeasure []string
	for _, sk := range nr {
		total += sk.Pinned
		if sk.Reason == results.NotAsked {
			notAsked = append(notAsked, sk.Producer)
			continue
		}
		remeasure = append(remeasure, sk.Producer)
		held := fmt.Sprintf("%d pinned records %s", sk.Pinned, kept)
		if sk.Pinned == 0 {
			held = "none pinned"
		}
		printWrapped(w, indent, fmt.Sprintf("not re-measured [%s] (%s): %s", sk.Producer, held, sk.Reason))
	}
	if len(notAsked) > 0 {
		printWrapped(w, indent, fmt.Sprintf("not run (not named by --only): %s", strings.Join(notAsked, ", ")))
	}
	if len(remeasure) > 0 {
		printWrapped(w, indent, fmt.Sprintf("to re-measure them: boundlab %s --only NAMES, of %s (--all runs every one not kept on demand)", verb, strings.Join(remeasure, ", ")))
	}
	return total
}

// printWrapped prints text within summaryWidth after indent, its later
// lines indented by hang more.
func printWrapped(w io.Writer, indent, text string) {
	for i, l := range wrap(text, summaryWidth, indent+hang) {
		if i == 0 {
			l = indent + strings.TrimPrefix(l, indent+hang)
		}
		fmt.Fprintln(w, l)
	}
}

// printRederived lists every re-derived record, its cause and each move,
// and returns how many moved.
func printRederived(w io.Writer, rds []results.Rederived) int {
	moved := 0
	for _, r := range rds {
		state := "held"
		if len(r.Changes) > 0 {
			moved++
			state = "moved"
		}
		fmt.Fprintf(w, "re-derived [%s] %s (%s): %s\n", r.Producer, r.ID, strings.Join(r.Because, "; "), state)
		for _, c := range r.Changes {
			fmt.Fprintln(w, "    "+c)
		}
	}
	return moved
}

// printProblems shows every problem of a kind, up to a few per producer: a
// producer nobody pinned yet should not bury a drift.
func printProblems(w io.Writer, probs []results.Problem) {
	shown := map[string]int{}
	for _, p := range probs {
		k := p.Kind + "/" + p.Producer
		if shown[k]++; shown[k] <= maxShownPerKind {
			fmt.Fprintln(w, p)
		}
	}
	var kinds []string
	for k := range shown {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		if n := shown[k]; n > maxShownPerKind {
			fmt.Fprintf(w, "... and %d more %s problems\n", n-maxShownPerKind, k)
		}
	}
}
