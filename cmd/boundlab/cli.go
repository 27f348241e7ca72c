package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit statuses, the same for every verb; `boundlab help` states them once.
const (
	exitOK    = 0 // success: the answer is yes (admit, ok, no drift)
	exitNo    = 1 // the answer is no: refuse, drift, a failed check
	exitUsage = 2 // usage or input error, or the verb could not run
)

// helpWidth is the column every help line stays within.
const helpWidth = 80

// command is one verb's (or subcommand's) flag set and help text.
type command struct {
	*flag.FlagSet
	synopsis []string // usage lines, each after "boundlab "
	about    string   // what it does; paragraphs split on blank lines, wrapped
}

// newCommand makes a flag set whose help is the synopsis, the about text and
// the flags, every line within helpWidth columns.
func newCommand(name string, synopsis []string, about string) *command {
	c := &command{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), synopsis: synopsis, about: about}
	c.Usage = func() { c.printUsage(c.Output()) }
	return c
}

// parse parses args. When ok is false the caller returns code: 0 after -h or
// --help (the help went to stdout), 2 after a bad flag (the error and the
// help went to stderr).
func (c *command) parse(args []string, stdout, stderr io.Writer) (code int, ok bool) {
	var buf bytes.Buffer
	c.SetOutput(&buf)
	err := c.Parse(args)
	switch {
	case err == nil:
		c.SetOutput(stderr)
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		stdout.Write(buf.Bytes())
		return exitOK, false
	default:
		stderr.Write(buf.Bytes())
		return exitUsage, false
	}
}

// usageError prints why the arguments are wrong and the help, to stderr.
func (c *command) usageError(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "boundlab %s: %s\n", c.Name(), fmt.Sprintf(format, a...))
	c.printUsage(stderr)
	return exitUsage
}

// fail prints a failure that is not a "no" answer and returns exitUsage.
func (c *command) fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "boundlab %s: %v\n", c.Name(), err)
	return exitUsage
}

func (c *command) printUsage(w io.Writer) {
	for i, s := range c.synopsis {
		lead := "usage: "
		if i > 0 {
			lead = "       "
		}
		fmt.Fprintf(w, "%sboundlab %s\n", lead, s)
	}
	if c.about != "" {
		for _, para := range strings.Split(c.about, "\n\n") {
			fmt.Fprintln(w)
			if strings.HasPrefix(para, "  ") { // preformatted
				fmt.Fprintln(w, para)
				continue
			}
			for _, line := range wrap(para, helpWidth, "") {
				fmt.Fprintln(w, line)
			}
		}
	}
	n := 0
	c.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintln(w, "\nflags:")
	c.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if name != "" {
			head += " " + name
		}
		fmt.Fprintln(w, head)
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		for _, line := range wrap(usage, helpWidth, "      ") {
			fmt.Fprintln(w, line)
		}
	})
	fmt.Fprintln(w, "\nExit status: see `boundlab help`.")
}

// wrap breaks text into lines of at most width columns, each starting with
// indent; a word longer than a line stands alone.
func wrap(text string, width int, indent string) []string {
	var lines []string
	cur := indent
	for _, word := range strings.Fields(text) {
		if cur != indent && len(cur)+1+len(word) > width {
			lines = append(lines, cur)
			cur = indent
		}
		if cur != indent {
			cur += " "
		}
		cur += word
	}
	if cur != indent {
		lines = append(lines, cur)
	}
	return lines
}

// writeJSON is every verb's --json output: one indented JSON value.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// The one verdict pair, in tables and in --json.
const (
	verdictAdmit  = "admit"
	verdictRefuse = "refuse"
)
