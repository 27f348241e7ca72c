package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	// The mutation records have no verb of their own: they come from saved
	// runs of scripts/mutation.sh, registered by the package's init.
	_ "github.com/theurian/boundlab/mutation"
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
	OK        bool          `json:"ok"`
	Records   int           `json:"records"`
	Producers int           `json:"producers"`
	Problems  []problemJSON `json:"problems"`
}

type problemJSON struct {
	Kind     string `json:"kind"`
	Producer string `json:"producer,omitempty"`
	ID       string `json:"id,omitempty"`
	Detail   string `json:"detail,omitempty"`
}

func runVerify(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("verify", []string{"verify [--json] [--records DIR] [--docs PATHS]\n                [--records-md FILE]"},
		"Recomputes every registered producer's records and compares them with the pinned DIR/<producer>.json. "+
			"Exit 1, naming each problem, on: a field that drifted (a measured value past its pinned tolerance); a "+
			"pinned record no producer makes, or a live record not pinned; a producer that fails; a retired figure "+
			"quoted in the docs without its record id; a stale records reference.")
	dir := c.String("records", "results", "`DIR` holding the pinned <producer>.json files")
	docs := c.String("docs", "docs,README.md", "comma-separated Markdown files or directories scanned for retired figures")
	md := c.String("records-md", "docs/records.md", "the generated records reference checked for staleness (empty: skip)")
	asJSON := c.Bool("json", false, "print the outcome and every problem as JSON")
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	if c.NArg() > 0 {
		return c.usageError(stderr, "unexpected argument %q", c.Arg(0))
	}
	var paths []string
	for _, p := range strings.Split(*docs, ",") {
		if p = strings.TrimSpace(p); p != "" {
			paths = append(paths, p)
		}
	}
	return verifyWith(results.VerifyOptions{
		RecordsDir:      *dir,
		Producers:       results.Producers(),
		DocPaths:        paths,
		RecordsMarkdown: *md,
	}, *asJSON, stdout, stderr)
}

const maxShownPerKind = 8

// verifyWith runs verify and reports; a test drives it with perturbed
// producers or pinned files.
func verifyWith(o results.VerifyOptions, asJSON bool, stdout, stderr io.Writer) int {
	probs, err := results.Verify(o)
	if err != nil {
		fmt.Fprintln(stderr, "boundlab verify:", err)
		return exitUsage
	}
	pinned, _ := results.Load(o.RecordsDir)
	n := 0
	for _, rs := range pinned {
		n += len(rs)
	}
	if asJSON {
		out := verifyJSON{OK: len(probs) == 0, Records: n, Producers: len(o.Producers), Problems: []problemJSON{}}
		for _, p := range probs {
			out.Problems = append(out.Problems, problemJSON(p))
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
	if len(probs) > 0 {
		// Every problem of a kind, up to a few per producer: a producer nobody
		// pinned yet should not bury a drift.
		shown := map[string]int{}
		for _, p := range probs {
			k := p.Kind + "/" + p.Producer
			if shown[k]++; shown[k] <= maxShownPerKind {
				fmt.Fprintln(stderr, p)
			}
		}
		var kinds []string
		for k := range shown {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			if n := shown[k]; n > maxShownPerKind {
				fmt.Fprintf(stderr, "... and %d more %s problems\n", n-maxShownPerKind, k)
			}
		}
		fmt.Fprintf(stderr, "verify: FAIL, %d problems\n", len(probs))
		return exitNo
	}
	fmt.Fprintf(stdout, "verify: ok, %d records from %d producers hold against the live build\n", n, len(o.Producers))
	return exitOK
}
