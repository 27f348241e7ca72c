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
	"strings"

	"github.com/theurian/boundlab/audit"
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
	openTools := c.String("open-tools", "", "comma-separated `NAMES` of tools whose open input schemas are kept open on purpose (mcpvalidate's Options.OpenTools); any other open schema refuses the contract")
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
	v, err := validatorFrom(*schemas, opts)
	if err != nil {
		return c.fail(stderr, err)
	}
	if *list {
		return listTools(c, v, *schemas, *asJSON, stdout, stderr)
	}
	doc, err := readInput(c.Arg(0), stdin)
	if err != nil {
		return c.fail(stderr, err)
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
func validatorFrom(schemas string, opts *mcpvalidate.Options) (*mcpvalidate.Validator, error) {
	if schemas == "" {
		return demo.NewValidator(opts)
	}
	src, _, err := audit.SchemasAt(schemas)
	if err != nil {
		return nil, err
	}
	return mcpvalidate.New(src, opts)
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
