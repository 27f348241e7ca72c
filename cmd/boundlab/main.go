// Command boundlab derives, verifies and enforces the bounds an MCP server puts
// on untrusted tool input. Each verb is a thin call into the packages beside it;
// run `boundlab help` for the list.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// verb is one subcommand. run gets the arguments after the verb's name and
// returns the process exit status.
type verb struct {
	name    string
	summary string
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
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return 0
	}
	v, ok := verbs[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "boundlab: unknown verb %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return v.run(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: boundlab VERB [flags]")
	fmt.Fprintln(w)
	names := make([]string, 0, len(verbs))
	for n := range verbs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, verbs[n].summary)
	}
	fmt.Fprintln(w, "\nRun `boundlab VERB -h` for a verb's flags.")
}
