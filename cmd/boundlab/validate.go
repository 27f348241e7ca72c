package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/theurian/boundlab/internal/demo"
	"io"

	"github.com/theurian/boundlab/mcpvalidate"
)

func init() {
	register(verb{
		name:    "validate",
		summary: "validate a tool's arguments document offline against its published schema (OK, or the bounded refusal)",
		run:     runValidate,
	})
}

// validateResult is `boundlab validate --json`.
type validateResult struct {
	Tool    string             `json:"tool"`
	Verdict string             `json:"verdict"` // admitted | refused
	Stage   string             `json:"stage,omitempty"`
	Leaves  []mcpvalidate.Leaf `json:"leaves,omitempty"`
	Elided  int                `json:"elided,omitempty"`
	Message string             `json:"message,omitempty"`
}

func runValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tool := fs.String("tool", "", "the tool whose published input schema to validate against")
	asJSON := fs.Bool("json", false, "print the verdict as JSON")
	list := fs.Bool("list", false, "list the published tools and their schema files, then exit")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: boundlab validate --tool NAME [--json] FILE|-")
		fmt.Fprintln(stderr, "       boundlab validate --list")
		fmt.Fprintln(stderr, "\nFILE holds the tool call's arguments object (- reads stdin). Exit status 0 when")
		fmt.Fprintln(stderr, "admitted, 1 when refused, 2 on a usage or input error.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	v, err := demo.NewValidator()
	if err != nil {
		fmt.Fprintf(stderr, "boundlab validate: %v\n", err)
		return 2
	}
	if *list {
		for _, name := range v.Tools() {
			file, _ := v.SchemaSource(name)
			fmt.Fprintf(stdout, "%-20s schemas/%s\n", name, file)
		}
		return 0
	}
	if *tool == "" || fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	doc, err := readInput(fs.Arg(0), stdin)
	if err != nil {
		fmt.Fprintf(stderr, "boundlab validate: %v\n", err)
		return 2
	}
	var r *mcpvalidate.Refusal
	if err := v.Check(context.Background(), *tool, doc); err != nil && !errors.As(err, &r) {
		fmt.Fprintf(stderr, "boundlab validate: %v\n", err)
		return 2
	}
	if *asJSON {
		res := validateResult{Tool: *tool, Verdict: "admitted"}
		if r != nil {
			res = validateResult{Tool: r.Tool, Verdict: "refused", Stage: r.Stage.String(), Leaves: r.Leaves, Elided: r.Elided, Message: r.Error()}
		}
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else if r == nil {
		fmt.Fprintln(stdout, "OK")
	} else {
		fmt.Fprintln(stdout, r.Error())
	}
	if r != nil {
		return 1
	}
	return 0
}
