// Command boundlab derives, verifies and enforces the bounds an MCP server puts
// on untrusted tool input. Each verb is a thin call into the packages beside it;
// run `boundlab help` for the list and the conventions every verb follows.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// verb is one subcommand. run gets the arguments after the verb's name and
// returns the process exit status (exitOK, exitNo or exitUsage).
type verb struct {
	name    string
	summary string // one line; with the verb's name it fits helpWidth
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var verbs = map[string]verb{}

// register adds a verb; each verb lives in its own file and registers itself
// from init.
func register(v verb) {
	if _, dup := verbs[v.name]; dup {
		panic("boundlab: verb registered twice: " + v.name)
	}
	verbs[v.name] = v
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) == 2 && args[0] == "help" && args[1] == "--markdown" {
			if err := writeCLIDoc(stdout); err != nil {
				fmt.Fprintf(stderr, "boundlab help --markdown: %v\n", err)
				return exitUsage
			}
			return exitOK
		}
		if len(args) == 2 {
			if v, ok := verbs[args[1]]; ok {
				return v.run([]string{"-h"}, stdin, stdout, stderr)
			}
		}
		if len(args) > 2 || (len(args) == 2 && args[0] != "help") {
			usage(stderr)
			return exitUsage
		}
		if len(args) == 2 {
			fmt.Fprintf(stderr, "boundlab: no verb %q\n\n", args[1])
			usage(stderr)
			return exitUsage
		}
		usage(stdout)
		return exitOK
	}
	v, ok := verbs[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "boundlab: unknown verb %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return v.run(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: boundlab VERB [flags] [args]")
	fmt.Fprintln(w, "       boundlab help [VERB | --markdown]")
	fmt.Fprintln(w, "\nverbs:")
	names := make([]string, 0, len(verbs))
	for n := range verbs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, verbs[n].summary)
	}
	fmt.Fprint(w, `
Every verb takes -h or --help (help to stdout, exit 0) and --json (one JSON
value on stdout instead of tables); help --markdown prints every verb's help
as the CLI reference, docs/cli.md. Flags: --records DIR names a directory of
pinned records (results/<producer>.json); --out PATH names what a verb
writes. A verdict is admit or refuse, in tables and in JSON.

Exit status, every verb:
  0  success: the answer is yes (admit, ok, no drift)
  1  the answer is no: refuse, drift, a failed check
  2  usage or input error, or the verb could not run
`)
}
