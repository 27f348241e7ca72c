package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/schemas"
)

func init() {
	register(verb{
		name:    "validate",
		summary: "validate a tool call's arguments offline against its schema",
		run:     runValidate,
	})
}

// validateResult is `boundlab validate --json`.
type validateResult struct {
	Tool    string `json:"tool"`
	Verdict string `json:"verdict"` // admit | refuse
	Stage   string `json:"stage,omitempty"`
	Bound   string `json:"bound,omitempty"` // the bound or the first failing schema keyword
	Where   string `json:"where,omitempty"` // a JSON pointer into the arguments (or the request), escaped and cut
	Message string `json:"message,omitempty"`
}

// listedJSON is one tool of `boundlab validate --list --json`.
type listedJSON struct {
	Tool   string `json:"tool"`
	Source string `json:"source"`
}

const validateAbout = `Validates a tool call's arguments object (FILE, or - for stdin) against the tool's input schema through exactly what the middleware runs: gate, decode, jsonschema/v6, bounded refusal. Prints admit, or the bounded refusal; exit 1 when refused.

The contract is --schemas: a directory of *.schema.json files (the schema-file contract of package mcpvalidate), or a JSON file holding a saved tools/list answer (the JSON-RPC response, its result, or an array of tools; a JSON-RPC error or one page of several is refused), each tool's inputSchema its contract. audit --schemas reads the same PATH the same way. Without --schemas: the seven demo tools boundlab serve publishes.

Open schemas (an object schema that admits members it neither names nor checks): in a saved tools/list answer, the other tools' open schemas are kept open with a warning on stderr (how many, the first few names), since they bear on calls to those tools, not this one; the tool checked is held closed, and when its own schema is open validate refuses (exit 2) unless --open-tools names it, since it would admit any member the schema does not name. A directory is the contract the middleware itself loads: an open schema there refuses it whole, as mcpvalidate.New does, unless --open-tools names the tool.

--request reads FILE as a whole JSON-RPC tools/call request body instead (what a client POSTs; what derive --instances writes) and answers what boundlab serve would: the body cap first (serve's, derived from the limits; --go-clients sizes it for Go encoding/json clients too), then the front gate's envelope checks and charge, then the tool's schema. The tool is the request's params.name.`

// validateStages names the stages a call's *Refusal can carry, as --json
// writes them (StageRequest is the front gate's refusal of a request, which
// --request reports as envelope).
func validateStages() string {
	var names []string
	for s := mcpvalidate.Stage(1); !strings.HasPrefix(s.String(), "stage("); s++ {
		if s != mcpvalidate.StageRequest {
			names = append(names, s.String())
		}
	}
	return strings.Join(names, ", ")
}

func runValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("validate", []string{"validate --tool NAME [--schemas DIR|FILE] [--json]\n                  [LIMITS] FILE|-",
		"validate --request [--go-clients] [--schemas DIR|FILE] [--json]\n                  [LIMITS] FILE|-",
		"validate --list [--schemas DIR|FILE] [--json]"}, validateAbout+"\n\n"+
		"--json prints one object: "+jsonFields(validateResult{})+"; for a refusal, stage is one of "+validateStages()+
		" (with --request also transport or envelope), leaves the schema's failing leaves, sorted, and elided how many "+
		"leaves past the first few were left out. --list --json prints "+jsonFields([]listedJSON{})+".\n\n"+limitsAbout)
	tool := c.String("tool", "", "the tool whose input schema to validate against")
	request := c.Bool("request", false, "FILE is a whole tools/call request body: answer what serve would")
	goClients := c.Bool("go-clients", false, "with --request: size the body cap for Go encoding/json clients too, as serve --go-clients")
	schemas := c.String("schemas", "", "the contract: a `DIR` of *.schema.json files or a saved tools/list answer")
	asJSON := c.Bool("json", false, "print the verdict (or the list) as JSON")
	list := c.Bool("list", false, "list the tools and where each one's schema came from")
	openTools := c.String("open-tools", "", "comma-separated `NAMES` of tools whose open input schemas are kept open on purpose, without a warning (mcpvalidate's Options.OpenTools)")
	lf := addLimitFlags(c)
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	l, err := lf.resolve()
	if err != nil {
		return c.limitsError(stderr, err)
	}
	switch {
	case *list && (*tool != "" || c.NArg() > 0):
		return c.usageError(stderr, "--list takes no --tool and no FILE")
	case *list && *request:
		return c.usageError(stderr, "--list takes no --request")
	case *request && (*tool != "" || c.NArg() != 1):
		return c.usageError(stderr, "--request reads the tool from the request: want one FILE (or - for stdin) and no --tool")
	case *goClients && !*request:
		return c.usageError(stderr, "--go-clients sizes the body cap, which only --request checks")
	case !*list && !*request && (*tool == "" || c.NArg() != 1):
		return c.usageError(stderr, "want --tool NAME and one FILE (or - for stdin)")
	}
	opts := &mcpvalidate.Options{Limits: &l}
	if *openTools != "" {
		opts.OpenTools = strings.Split(*openTools, ",")
	}
	opts.GoClients = *goClients
	var doc []byte
	if !*list {
		if doc, err = readInput(c.Arg(0), stdin); err != nil {
			return c.fail(stderr, err)
		}
	}
	checked := *tool
	if *request {
		checked = requestedTool(doc)
	}
	v, err := validatorFrom(*schemas, checked, opts, stderr)
	if err != nil {
		return c.fail(stderr, err)
	}
	if *list {
		return listTools(c, v, *schemas, *asJSON, stdout, stderr)
	}
	var r *mcpvalidate.Refusal
	if *request {
		var front *validateResult
		*tool, doc, r, front, err = unwrapRequest(v, doc)
		switch {
		case err != nil:
			return c.fail(stderr, err)
		case front != nil:
			if *asJSON {
				if err := writeJSON(stdout, front); err != nil {
					return c.fail(stderr, err)
				}
			} else {
				fmt.Fprintln(stdout, front.Message)
			}
			return exitNo
		}
	}
	if r == nil {
		if err := v.Check(context.Background(), *tool, doc); err != nil && !errors.As(err, &r) {
			return c.fail(stderr, err)
		}
	}
	switch {
	case *asJSON:
		res := validateResult{Tool: *tool, Verdict: verdictAdmit}
		if r != nil {
			res = validateResult{Tool: r.Tool, Verdict: verdictRefuse, Stage: r.Stage.String(), Bound: r.Bound, Where: r.Where, Message: r.Error()}
		}
		if err := writeJSON(stdout, res); err != nil {
			return c.fail(stderr, err)
		}
	case r == nil:
		fmt.Fprintln(stdout, verdictAdmit)
	default:
		fmt.Fprintln(stdout, r.Error())
	}
	if r != nil {
		return exitNo
	}
	return exitOK
}

// unwrapRequest reads a whole tools/call request body as serve does before
// the SDK: the body cap, then the front gate's envelope checks and charge.
// It returns the tool and its arguments to check; or the middleware's
// refusal when only the arguments failed the charge; or front, the answer to
// a request refused before any tool (the body cap, the envelope).
func unwrapRequest(v *mcpvalidate.Validator, body []byte) (tool string, args []byte, r *mcpvalidate.Refusal, front *validateResult, err error) {
	if bc := v.MaxBodyBytes(); int64(len(body)) > bc {
		// The transport's stage, as serve reports it.
		return "", nil, nil, &validateResult{Verdict: verdictRefuse, Stage: "transport",
			Message: fmt.Sprintf("request refused: a body of %d bytes is over the body cap %d (serve answers 413)", len(body), bc)}, nil
	}
	err = v.CheckRequest(context.Background(), body)
	switch {
	case errors.As(err, &r) && r.Stage == mcpvalidate.StageRequest:
		return "", nil, nil, &validateResult{Verdict: verdictRefuse, Stage: "envelope", Bound: r.Bound, Where: r.Where,
			Message: fmt.Sprintf("%s (serve answers %d)", r.Error(), r.Status)}, nil
	case errors.As(err, &r):
		return r.Tool, nil, r, nil, nil
	case err != nil:
		return "", nil, nil, nil, err
	}
	// Admitted whole: the envelope is strict JSON-RPC, so encoding/json
	// reads what the gate read.
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		return "", nil, nil, nil, err
	}
	if msg.Method != "tools/call" {
		return "", nil, nil, &validateResult{Verdict: verdictRefuse, Stage: "envelope",
			Message: "request refused: not a tools/call request (validate --request checks tool calls only)"}, nil
	}
	return msg.Params.Name, msg.Params.Arguments, nil, nil, nil
}

func listTools(c *command, v *mcpvalidate.Validator, schemaDir string, asJSON bool, stdout, stderr io.Writer) int {
	files := toolFiles(schemaDir)
	out := []listedJSON{}
	for _, name := range v.ToolNames() {
		src, ok := files[name]
		if !ok {
			src = "tools/list"
		}
		out = append(out, listedJSON{Tool: name, Source: src})
	}
	if asJSON {
		if err := writeJSON(stdout, out); err != nil {
			return c.fail(stderr, err)
		}
		return exitOK
	}
	for _, t := range out {
		fmt.Fprintf(stdout, "%-20s %s\n", t.Tool, t.Source)
	}
	return exitOK
}

// validatorFrom builds the validator for --schemas: the demo's embedded
// schemas when empty, else what audit.SchemasAt names (a directory of schema
// files or a saved tools/list answer), the one reading audit --schemas shares.
//
// A saved tools/list answer is another party's server, whose other tools'
// open schemas bear on calls to them, not on the call checked: they are kept
// open, with a warning on stderr naming how many and a few, rather than
// refusing the whole answer. The tool checked (tool; "" for --list) is held
// to mcpvalidate's rule: when its own schema is open, validate refuses unless
// --open-tools names it, since it would admit any member the schema does not
// name. A directory stays strict: it is the schema-file contract the
// middleware itself loads, so validate answers what New would.
func validatorFrom(schemas, tool string, opts *mcpvalidate.Options, stderr io.Writer) (*mcpvalidate.Validator, error) {
	if schemas == "" {
		return demo.NewValidator(opts)
	}
	src, listed, err := audit.SchemasAt(schemas)
	if err != nil {
		return nil, err
	}
	if listed == nil {
		return mcpvalidate.New(src, opts)
	}
	named := map[string]bool{}
	for _, n := range opts.OpenTools {
		named[n] = true
	}
	var kept []string
	toolOpen := false
	for _, name := range openListed(listed) {
		switch {
		case named[name]:
		case name == tool:
			toolOpen = true
		default:
			kept = append(kept, name)
		}
	}
	o := *opts
	o.OpenTools = append(append([]string(nil), opts.OpenTools...), kept...)
	v, err := mcpvalidate.New(src, &o)
	if err != nil {
		if toolOpen {
			err = fmt.Errorf("%w\n--tool %s: its own input schema is open, so validate would admit any member it does not name; "+
				"--open-tools %s validates against it as published", err, shownName(tool), shownName(tool))
		}
		return nil, err
	}
	if len(kept) > 0 {
		fmt.Fprintln(stderr, openWarning(filepath.Base(schemas), tool, kept))
	}
	return v, nil
}

// shownTools is how many open tools a warning names; shownToolBytes, how
// much of each name: the names come from the file, so they are bounded and
// display-escaped before they reach a terminal.
const (
	shownTools     = 3
	shownToolBytes = 40
)

func shownName(name string) string { return charge.DisplayText(name, shownToolBytes) }

// openWarning is the warning for the open tools kept open: how many, a
// few names, and how to keep them open on purpose.
func openWarning(file, tool string, kept []string) string {
	var names []string
	for _, n := range kept[:min(len(kept), shownTools)] {
		names = append(names, `"`+shownName(n)+`"`)
	}
	list := strings.Join(names, ", ")
	if more := len(kept) - len(names); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	whose, scope := "tools", "validate --tool refuses a tool whose own schema is open"
	if tool != "" {
		whose, scope = "other tools", "this call is checked against "+shownName(tool)+"'s schema alone"
	}
	text := fmt.Sprintf("boundlab validate: warning: %d %s in %s publish open input schemas (unknown members would reach "+
		"their handlers unchecked), kept open here: %s; %s; --open-tools NAMES keeps them open without this warning",
		len(kept), whose, shownName(file), list, scope)
	lines := wrap(text, summaryWidth, "  ")
	lines[0] = strings.TrimPrefix(lines[0], "  ")
	return strings.Join(lines, "\n")
}

// openListed names the listed tools whose published input schema is open
// and compiles once kept open: each compiled alone, so one tool's schema is
// judged by mcpvalidate's own rule, not by a copy of it. A schema that does
// not compile at all is not among them; New reports it.
func openListed(listed []audit.Tool) []string {
	var open []string
	for _, t := range listed {
		if t.InputSchema == nil {
			continue
		}
		src := mcpvalidate.Tools(&mcp.Tool{Name: t.Name, InputSchema: t.InputSchema})
		if _, err := mcpvalidate.New(src, nil); err == nil {
			continue
		}
		if _, err := mcpvalidate.New(src, &mcpvalidate.Options{OpenTools: []string{t.Name}}); err == nil {
			open = append(open, t.Name)
		}
	}
	sort.Strings(open)
	return open
}

// requestedTool is the tool a tools/call request body names, read leniently
// only to know which tool's open schema refuses (the gate reads the body
// strictly after); "" when it names none.
func requestedTool(body []byte) string {
	var msg struct {
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return ""
	}
	return msg.Params.Name
}

// toolFiles maps each tool to its schema file for --schemas (the demo's
// embedded files when empty): the file whose ToolKey member names it. A
// saved tools/list answer maps nothing.
func toolFiles(schemaDir string) map[string]string {
	fsys, dir := fs.FS(schemas.FS), schemas.Dir
	if schemaDir != "" {
		if st, err := os.Stat(schemaDir); err != nil || !st.IsDir() {
			return nil
		}
		fsys, dir = os.DirFS(schemaDir), "."
	}
	out := map[string]string{}
	names, _ := fs.Glob(fsys, path.Join(dir, "*.schema.json"))
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			continue
		}
		var doc map[string]any
		if json.Unmarshal(b, &doc) != nil {
			continue
		}
		if tool, ok := doc[mcpvalidate.ToolKey].(string); ok {
			out[tool] = n
		}
	}
	return out
}
