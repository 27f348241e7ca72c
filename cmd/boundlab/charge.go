package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/theurian/boundlab/charge"
)

func init() {
	register(verb{
		name:    "charge",
		summary: "run the one-pass gate over a document: its charge and verdict",
		run:     runCharge,
	})
}

// maxInputBytes bounds what the offline verbs read from a file or stdin.
const maxInputBytes = 1 << 30

// readInput reads FILE, or stdin for "-", refusing more than maxInputBytes.
func readInput(name string, stdin io.Reader) ([]byte, error) {
	var r io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxInputBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxInputBytes {
		return nil, fmt.Errorf("input is larger than %d bytes", maxInputBytes)
	}
	return b, nil
}

// chargeResult is `boundlab charge --json`.
type chargeResult struct {
	Dialect string `json:"dialect"`
	Unit    string `json:"unit"`
	Bytes   int    `json:"bytes"`
	Nodes   int    `json:"nodes"`
	Depth   int    `json:"depth"`
	Charge  int64  `json:"charge"`
	Budget  int64  `json:"budget"`
	Ceiling int64  `json:"ceiling"`
	Verdict string `json:"verdict"`
	Bound   string `json:"bound,omitempty"`
	Limit   int64  `json:"limit,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	Offset  *int   `json:"offset,omitempty"`
	Message string `json:"message,omitempty"`
}

func runCharge(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("charge", []string{"charge [--json] [--dialect python|go] [LIMITS] FILE|-"},
		"Runs the one-pass gate over a JSON arguments document (FILE, or - for stdin) and prints its nodes, depth, charge, "+
			"the composed ceiling and the verdict, admit or refuse; for a refusal, the bound, its limit, the JSON pointer and "+
			"the byte offset where it tripped. Exit 1 when the gate refuses.\n\n"+
			"--json prints one object: "+jsonFields(chargeResult{})+" (bound, limit, pointer, offset and message for a refusal; "+
			"limit absent for a strictness rule). For example:\n\n"+
			"  echo '{\"query\":\"x\",\"limit\":10}' | boundlab charge --json -\n\n"+limitsAbout)
	dialect := c.String("dialect", "python", "render dialect: python (CPython repr, characters) or go (jsonschema/v6, bytes)")
	asJSON := c.Bool("json", false, "print one JSON object instead of a table")
	lf := addLimitFlags(c)
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	l, err := lf.resolve()
	if err != nil {
		return c.limitsError(stderr, err)
	}
	if c.NArg() != 1 {
		return c.usageError(stderr, "want one FILE (or - for stdin), got %d arguments", c.NArg())
	}
	d, err := charge.ParseDialect(*dialect)
	if err != nil {
		return c.fail(stderr, err)
	}
	g, err := charge.NewGate(d, l)
	if err != nil {
		return c.fail(stderr, fmt.Errorf("limits: %w", err))
	}
	doc, err := readInput(c.Arg(0), stdin)
	if err != nil {
		return c.fail(stderr, err)
	}
	rep, err := g.Check(doc)
	var ref *charge.Refusal
	if err != nil && !errors.As(err, &ref) {
		// Check's only error is a *charge.Refusal; say so without the text.
		fmt.Fprintf(stderr, "boundlab charge: the gate returned an error that is no refusal (%T)\n", err)
		return exitUsage
	}
	res := chargeResult{
		Dialect: d.String(), Unit: d.Unit(), Bytes: rep.Bytes, Nodes: rep.Nodes, Depth: rep.Depth,
		Charge: rep.Charge, Budget: l.MaxParamsRenderedChars, Ceiling: charge.ComposedCeiling(d, l), Verdict: verdictAdmit,
	}
	if ref != nil {
		res.Verdict, res.Bound, res.Limit, res.Pointer, res.Message = verdictRefuse, ref.Bound.String(), ref.Limit, ref.Pointer, ref.Error()
		res.Offset = &ref.Offset
	}
	if *asJSON {
		if err := writeJSON(stdout, res); err != nil {
			return c.fail(stderr, err)
		}
	} else {
		printCharge(stdout, res, ref != nil)
	}
	if ref != nil {
		return exitNo
	}
	return exitOK
}

func printCharge(w io.Writer, r chargeResult, refused bool) {
	counted := ""
	if refused {
		counted = " (counted up to the refusal)"
	}
	fmt.Fprintf(w, "dialect   %s (%s)\n", r.Dialect, r.Unit)
	fmt.Fprintf(w, "bytes     %d\n", r.Bytes)
	fmt.Fprintf(w, "nodes     %d%s\n", r.Nodes, counted)
	fmt.Fprintf(w, "depth     %d%s\n", r.Depth, counted)
	fmt.Fprintf(w, "charge    %d of budget %d%s\n", r.Charge, r.Budget, counted)
	fmt.Fprintf(w, "ceiling   %d (budget + max nodes x per-node punctuation)\n", r.Ceiling)
	if !refused {
		fmt.Fprintln(w, "verdict   "+verdictAdmit)
		return
	}
	limit := "-"
	if r.Limit != 0 {
		limit = fmt.Sprint(r.Limit)
	}
	pointer := r.Pointer
	if pointer == "" {
		pointer = "(root)"
	}
	fmt.Fprintf(w, "verdict   "+verdictRefuse+"\nbound     %s\nlimit     %s\npointer   %s\noffset    %d\nmessage   %s\n", r.Bound, limit, pointer, *r.Offset, r.Message)
}
