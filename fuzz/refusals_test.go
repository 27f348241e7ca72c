package fuzz

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/mcpvalidate/bounds"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/fuzz/badinput"
	"github.com/theurian/boundlab/mcpvalidate"
)

// The refusal properties, on mcpvalidate.Validator.Check and on a served
// tools/call through its middleware:
//
//  1. a refusal's text is printable ASCII and at most MaxRefusalBytes;
//  2. it holds no caller-written value: no string value of the arguments
//     (canaries are planted to make this sharp), and no member name or tool
//     name longer than its cut in full;
//  3. the handler runs exactly on the calls an oracle independent of Check
//     admits (shouldServe: encoding/json, I-JSON, charge/reference's counts,
//     the schema compiled on its own), and on a refused call the caller
//     receives exactly the refusal's text.

var (
	validatorOnce sync.Once
	validator     *mcpvalidate.Validator
	validatorErr  error
	schemaText    string // every published schema, concatenated: schema-side text a refusal may quote
)

// theValidator takes an interface where a test would take testing.TB: this
// file is compiled on its own by OSS-Fuzz's builder, whose stand-in for
// package testing has no TB.
func theValidator(tb interface{ Fatal(args ...any) }) *mcpvalidate.Validator {
	validatorOnce.Do(func() {
		validator, validatorErr = demo.NewValidator(nil)
		if validatorErr != nil {
			return
		}
		var b strings.Builder
		for _, name := range validator.ToolNames() {
			s, _ := validator.InputSchema(name)
			b.Write(s)
			b.WriteByte('\n')
		}
		if files, _ := filepath.Glob("../schemas/mcp/*.json"); len(files) > 0 {
			for _, f := range files {
				raw, _ := os.ReadFile(f)
				b.Write(raw)
			}
		}
		schemaText = b.String()
	})
	if validatorErr != nil {
		tb.Fatal(validatorErr)
	}
	return validator
}

// toolProperties are the member names a tool's published schema declares, so
// generated arguments reach past unevaluatedProperties into each field.
func toolProperties(v *mcpvalidate.Validator, tool string) []string {
	raw, ok := v.InputSchema(tool)
	if !ok {
		return nil
	}
	var names []string
	var walk func(x any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			if props, ok := x["properties"].(map[string]any); ok {
				for k := range props {
					names = append(names, k)
				}
			}
			for _, v := range x {
				walk(v)
			}
		case []any:
			for _, v := range x {
				walk(v)
			}
		}
	}
	var doc any
	_ = json.Unmarshal(raw, &doc)
	walk(doc)
	return names
}

const canary = "CANARY-7f3a9c"

// argumentsFor builds a tools/call arguments object from data: the tool's own
// field names (and a few strangers), each given a generated value, with
// canary values planted among them.
func argumentsFor(data []byte, props []string) []byte {
	g := newGen(data, Options{MaxNodes: 48, MaxDepth: 6, MaxString: 48, Hostile: len(data) > 0 && data[0]&1 == 1})
	b := []byte{'{'}
	n := g.n(len(props) + 3)
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		var name string
		if len(props) > 0 && !g.chance(5) {
			name = props[g.n(len(props))]
		} else {
			name = string(g.runes(40))
		}
		if seen[name] && !g.opt.Hostile {
			continue
		}
		seen[name] = true
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = g.appendString(b, []rune(name), g.esc)
		b = append(b, ':')
		switch g.n(4) {
		case 0:
			b = append(b, `"`+canary+string(rune('a'+g.n(26)))+`"`...)
		case 1:
			// A canary buried in a long value of the document's classes.
			rs := append(g.runes(200), []rune(canary)...)
			b = g.appendString(b, append(rs, g.runes(20)...), g.esc)
		default:
			b = g.value(b, 1)
		}
	}
	return append(b, '}')
}

// stringLeaves collects every string value and every member name of doc.
func stringLeaves(v any, values, names *[]string) {
	switch x := v.(type) {
	case string:
		*values = append(*values, x)
	case map[string]any:
		for k, e := range x {
			*names = append(*names, k)
			stringLeaves(e, values, names)
		}
	case []any:
		for _, e := range x {
			stringLeaves(e, values, names)
		}
	}
}

// namePositionStrings scans possibly broken JSON and returns the raw content
// of every string literal in member-name position (after { or , inside an
// object), unescaped leniently.
func namePositionStrings(doc []byte) []string {
	var out []string
	var stack []byte
	expectName := false
	for i := 0; i < len(doc); i++ {
		switch c := doc[i]; c {
		case '{', '[':
			stack = append(stack, c)
			expectName = c == '{'
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectName = false
		case ',':
			expectName = len(stack) > 0 && stack[len(stack)-1] == '{'
		case '"':
			j := i + 1
			for j < len(doc) && doc[j] != '"' {
				if doc[j] == '\\' {
					j++
				}
				j++
			}
			if expectName {
				raw := doc[i+1 : min(j, len(doc))]
				if v, err := decodeStd(append(append([]byte{'"'}, raw...), '"'), false); err == nil {
					if s, ok := v.(string); ok {
						out = append(out, s)
					}
				}
				out = append(out, string(raw))
			}
			expectName = false
			i = j
		}
	}
	return out
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// checkRefusalText holds one refusal's text to properties 1 and 2.
func checkRefusalText(t *testing.T, tool string, args []byte, text string) {
	t.Helper()
	if max := mcpvalidate.MaxRefusalBytes(); len(text) > max {
		t.Fatalf("refusal of %d bytes, past MaxRefusalBytes %d\nargs: %q", len(text), max, args)
	}
	if !printableASCII(text) {
		t.Fatalf("refusal holds bytes outside printable ASCII: %q\nargs: %q", text, args)
	}
	if len(tool) > bounds.ToolCut+len("...") && strings.Contains(text, tool) {
		t.Fatalf("refusal holds the whole %d-byte tool name: %q", len(tool), text)
	}
	var values, names []string
	if doc, err := decodeStd(args, false); err == nil {
		stringLeaves(doc, &values, &names)
	} else {
		// Undecodable arguments still have names a refusal may point at
		// (the gate names the member it was reading): take every string in
		// name position, leniently.
		names = namePositionStrings(args)
	}
	keyText := strings.Join(names, "\n") + "\n" + tool
	if strings.Contains(text, canary) && !strings.Contains(keyText, canary) {
		t.Fatalf("refusal holds a planted caller value: %q\nargs: %q", text, args)
	}
	for _, v := range values {
		// A value can coincide with a key or with schema-side text a refusal
		// legitimately quotes; only a value that is neither is the caller's.
		if len(v) < 8 || !printableASCII(v) || strings.Contains(keyText, v) || strings.Contains(schemaText, v) {
			continue
		}
		if strings.Contains(text, v) {
			t.Fatalf("refusal holds the caller's value %q: %q", v, text)
		}
	}
	for _, k := range names {
		if len(k) > charge.KeyCut+len("...") && strings.Contains(text, k) {
			t.Fatalf("refusal holds a whole %d-byte member name, past KeyCut %d: %q", len(k), charge.KeyCut, text)
		}
	}
}

// servedHarness is one server with the validator's middleware and every
// published tool registered raw, whose handlers count their runs, and a
// client connected to it over the in-memory transport.
type servedHarness struct {
	cs   *mcp.ClientSession
	ran  atomic.Int64
	seen atomic.Pointer[json.RawMessage] // the arguments the middleware saw
}

var (
	harnessOnce sync.Once
	harness     *servedHarness
)

func theHarness(t *testing.T) *servedHarness {
	v := theValidator(t)
	harnessOnce.Do(func() {
		h := &servedHarness{}
		srv := mcp.NewServer(&mcp.Implementation{Name: "fuzz", Version: "0"}, nil)
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if c, ok := req.(*mcp.CallToolRequest); ok && c.Params != nil {
					a := append(json.RawMessage(nil), c.Params.Arguments...)
					h.seen.Store(&a)
				}
				return next(ctx, method, req)
			}
		}, v.Middleware())
		for _, name := range v.ToolNames() {
			schema, _ := v.InputSchema(name)
			srv.AddTool(&mcp.Tool{Name: name, InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				h.ran.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
			})
		}
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			panic(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "fuzz-client", Version: "0"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			panic(err)
		}
		h.cs = cs
		harness = h
	})
	return harness
}

// checkServed makes one served call and holds it to property 3.
func checkServed(t *testing.T, tool string, args []byte) {
	t.Helper()
	if !json.Valid(args) {
		return // the client cannot send it; BadInput drives such bytes over HTTP
	}
	h := theHarness(t)
	h.seen.Store(nil)
	before := h.ran.Load()
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		return // refused by the SDK before any middleware (e.g. a tool name it will not send)
	}
	ran := h.ran.Load() != before
	seen := h.seen.Load()
	if seen == nil {
		t.Fatalf("the call reached no middleware")
	}
	// Whether the call should have been served comes from shouldServe, which
	// does not use Check; Check only supplies the text a refusal must carry.
	serve, why := shouldServe(theValidator(t), tool, *seen)
	ref := theValidator(t).Check(context.Background(), tool, *seen)
	switch {
	case !serve && ran:
		t.Fatalf("the handler ran on a call the oracle refuses (%s)\nargs: %q", why, *seen)
	case serve && !ran:
		t.Fatalf("the handler did not run on a call the oracle admits\nargs: %q", *seen)
	case ref == nil && !ran:
		t.Fatalf("Check admits a call the handler did not run on\nargs: %q", *seen)
	case !serve:
		if ref == nil {
			t.Fatalf("Check admits a call the oracle refuses (%s)\nargs: %q", why, *seen)
		}
		if !res.IsError || len(res.Content) != 1 {
			t.Fatalf("a refusal reached the caller as isError=%v with %d contents", res.IsError, len(res.Content))
		}
		text, _ := res.Content[0].(*mcp.TextContent)
		if text == nil || text.Text != ref.Error() {
			t.Fatalf("the caller got %+v, not the refusal %q", res.Content[0], ref.Error())
		}
		checkRefusalText(t, tool, *seen, text.Text)
	}
}

// FuzzRefusals: mcpvalidate's refusals are bounded, hold no caller value, and
// stand between the caller and the handler. Each input is tried as raw
// arguments and as the seed of arguments built from a tool's own fields.
func FuzzRefusals(f *testing.F) {
	for _, s := range []string{
		`{"projectId":"demo","query":"x"}`,
		`{"projectId":"` + canary + `","query":"x"}`,
		`{"projectId":"demo","query":"` + strings.Repeat("\u0600", 2001) + `"}`,
		`{"projectId":"demo","query":"x","` + strings.Repeat("k", 100) + `":1}`,
		`{"projectId":"demo","query":"x","limit":1e999}`,
		`{"projectId":"demo","query":"x","limit":1e1000}`,
		`{"projectId":"demo","query":"x","query":"y"}`,
		"{\"projectId\":\"demo\",\"query\":\"\xff\"}",
		`null`, `[]`, `"x"`, ``,
	} {
		f.Add(uint8(0), []byte(s))
	}
	for i, c := range badinput.Cases(false) {
		f.Add(uint8(i), c.Doc)
	}
	f.Fuzz(func(t *testing.T, pick uint8, data []byte) {
		v := theValidator(t)
		tools := v.ToolNames()
		tool := "no.such.tool"
		if int(pick) < len(tools)*32 {
			tool = tools[int(pick)%len(tools)]
		} else if pick > 250 && len(data) > 0 {
			tool = string(data[:min(len(data), 200)]) // a caller-written tool name
		}
		for _, args := range [][]byte{data, argumentsFor(data, toolProperties(v, tool))} {
			if ref := v.Check(context.Background(), tool, args); ref != nil {
				checkRefusalText(t, tool, args, ref.Error())
			}
			checkServed(t, tool, args)
		}
	})
}
