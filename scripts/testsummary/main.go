// Command testsummary reads `go test -json` on stdin and writes what a CI log
// needs: each package's result line, the whole output of every failed test,
// and a summary of every skipped test with its reason, so a skipped oracle is
// seen without -v. It exits 1 when a test or package failed, or the input
// holds no test event.
//
//	go test -json ./... | go run ./scripts/testsummary
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of test2json's output.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type key struct{ pkg, test string }

func main() {
	os.Exit(run(os.Stdin, os.Stdout))
}

func run(in io.Reader, out io.Writer) int {
	outputs := map[key][]string{}
	var skipped, failed []key
	events, failedPkgs := 0, 0
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Fprintln(out, sc.Text()) // a build error or other non-JSON line: pass it on
			continue
		}
		events++
		k := key{e.Package, e.Test}
		switch e.Action {
		case "output":
			if e.Test == "" {
				if l := strings.TrimSpace(e.Output); strings.HasPrefix(l, "ok") || strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "?") {
					fmt.Fprint(out, e.Output)
				} else if !strings.HasPrefix(l, "PASS") && l != "" {
					outputs[k] = append(outputs[k], e.Output)
				}
				continue
			}
			outputs[k] = append(outputs[k], e.Output)
		case "skip":
			if e.Test != "" {
				skipped = append(skipped, k)
			}
		case "fail":
			if e.Test != "" {
				failed = append(failed, k)
			} else {
				failedPkgs++
				failed = append(failed, k)
			}
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "testsummary:", err)
		return 1
	}
	for _, k := range failed {
		fmt.Fprintf(out, "\n--- FAIL %s %s\n%s", k.pkg, k.test, strings.Join(outputs[k], ""))
	}
	sort.Slice(skipped, func(i, j int) bool {
		if skipped[i].pkg != skipped[j].pkg {
			return skipped[i].pkg < skipped[j].pkg
		}
		return skipped[i].test < skipped[j].test
	})
	fmt.Fprintf(out, "\n== skipped tests: %d\n", len(skipped))
	for _, k := range skipped {
		fmt.Fprintf(out, "  %s %s: %s\n", strings.TrimPrefix(k.pkg, "github.com/theurian/boundlab/"), k.test, reason(outputs[k]))
	}
	switch {
	case events == 0:
		fmt.Fprintln(out, "testsummary: no test events on stdin")
		return 1
	case len(failed) > 0:
		fmt.Fprintf(out, "== %d failed (%d packages)\n", len(failed)-failedPkgs, failedPkgs)
		return 1
	}
	return 0
}

// reason is a skipped test's own log lines (what t.Skip said), joined.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		parts = append(parts, l)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " | ")
}
