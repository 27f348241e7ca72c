package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/theurian/boundlab/results"
)

func init() {
	register(verb{
		name:    "verify",
		summary: "recompute every record and fail on drift from the pinned results/*.json, retired figures quoted bare, a stale docs/records.md",
		run:     runVerify,
	})
}

func runVerify(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("records", "results", "`DIR` holding the pinned <producer>.json files")
	docs := fs.String("docs", "docs,README.md", "comma-separated Markdown files or directories scanned for retired figures")
	md := fs.String("records-md", "docs/records.md", "the generated records reference to check for staleness (empty: skip)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: boundlab verify [--records DIR] [--docs PATHS] [--records-md FILE]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
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
	}, stdout, stderr)
}

const maxShownPerKind = 8

// verifyWith runs verify and reports; a test drives it with perturbed
// producers or pinned files.
func verifyWith(o results.VerifyOptions, stdout, stderr io.Writer) int {
	probs, err := results.Verify(o)
	if err != nil {
		fmt.Fprintln(stderr, "verify:", err)
		return 2
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
		return 1
	}
	pinned, _ := results.Load(o.RecordsDir)
	n := 0
	for _, rs := range pinned {
		n += len(rs)
	}
	fmt.Fprintf(stdout, "verify: ok, %d records from %d producers hold against the live build\n", n, len(o.Producers))
	return 0
}
