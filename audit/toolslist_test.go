package audit

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
)

// canary marks caller bytes an error must not quote.
const canary = "CANARY"

// deepSchema is an object schema nesting depth containers: the root and
// depth-1 arrays under an annotation member jsonschema ignores.
func deepSchema(depth int) string {
	return `{"type":"object","x-deep":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
}

// response wraps tools (a JSON array's members) in a tools/list response.
func response(tools string) string {
	return `{"jsonrpc":"2.0","id":1,"result":{"tools":[` + tools + `]}}`
}

func TestParseToolsList(t *testing.T) {
	schema := `{"type":"object","properties":{"q":{"type":"string"}}}`
	long := canary + strings.Repeat("x", 300)
	pad := func(n int) string { // a response of exactly n bytes
		doc := response(`{"name":"a"}`)
		return doc[:len(doc)-1] + strings.Repeat(" ", n-len(doc)) + "}"
	}
	type want struct {
		names    []string
		readOnly []bool
		schemas  []bool // whether each tool has an input schema
	}
	for _, tc := range []struct {
		name   string
		doc    string
		want   *want  // nil: refused
		refuse string // what the refusal says
	}{
		{name: "a JSON-RPC response", doc: response(`{"name":"a","inputSchema":` + schema + `},{"name":"b","inputSchema":` + schema + `}`),
			want: &want{[]string{"a", "b"}, []bool{false, false}, []bool{true, true}}},
		{name: "its result", doc: `{"tools":[{"name":"a","inputSchema":` + schema + `}]}`,
			want: &want{[]string{"a"}, []bool{false}, []bool{true}}},
		{name: "a bare array", doc: `[{"name":"a","inputSchema":` + schema + `},{"name":"b"}]`,
			want: &want{[]string{"a", "b"}, []bool{false, false}, []bool{true, false}}},
		{name: "an empty list", doc: `{"tools":[]}`, want: &want{}},
		{name: "whitespace around", doc: "\n " + response(`{"name":"a"}`) + " \n", want: &want{[]string{"a"}, []bool{false}, []bool{false}}},
		{name: "no schema and a null one", doc: response(`{"name":"a"},{"name":"b","inputSchema":null}`),
			want: &want{[]string{"a", "b"}, []bool{false, false}, []bool{false, false}}},
		{name: "annotations", doc: response(`{"name":"a","annotations":{"readOnlyHint":true}},{"name":"b","annotations":{"readOnlyHint":false,"title":"x"}},{"name":"c","annotations":null}`),
			want: &want{[]string{"a", "b", "c"}, []bool{true, false, false}, []bool{false, false, false}}},
		{name: "the last page's cursor", doc: `{"tools":[{"name":"a"}],"nextCursor":""}`, want: &want{[]string{"a"}, []bool{false}, []bool{false}}},
		{name: "a null cursor", doc: `{"tools":[{"name":"a"}],"nextCursor":null}`, want: &want{[]string{"a"}, []bool{false}, []bool{false}}},
		{name: "at MaxToolsListBytes", doc: pad(MaxToolsListBytes), want: &want{[]string{"a"}, []bool{false}, []bool{false}}},
		{name: "one past MaxToolsListBytes", doc: pad(MaxToolsListBytes + 1), refuse: "over the 16777216"},
		{name: "nesting at its bound", doc: response(`{"name":"a","inputSchema":` + deepSchema(64) + `}`),
			want: &want{[]string{"a"}, []bool{false}, []bool{true}}},
		{name: "nesting one past", doc: response(`{"name":"a","inputSchema":` + deepSchema(65) + `}`), refuse: "nesting bound 68"},
		{name: "a JSON-RPC error", doc: `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"` + long + `"}}`, refuse: "JSON-RPC error, not a tools list (code -32601)"},
		{name: "an error without a code", doc: `{"jsonrpc":"2.0","id":1,"error":{"message":"` + long + `"}}`, refuse: "JSON-RPC error"},
		{name: "result and error", doc: `{"jsonrpc":"2.0","id":1,"result":{"tools":[]},"error":{"code":1}}`, refuse: "both result and error"},
		{name: "one page of several", doc: response(`{"name":"a"}`)[:len(response(`{"name":"a"}`))-2] + `,"nextCursor":"` + long + `"}}`, refuse: "one page of several"},
		{name: "a cursor that is no string", doc: `{"tools":[],"nextCursor":5}`, refuse: "nextCursor is not a string"},
		{name: "a result without tools", doc: `{"jsonrpc":"2.0","id":1,"result":{}}`, refuse: `no "tools" member`},
		{name: "tools not an array", doc: `{"tools":{"` + long + `":1}}`, refuse: `"tools" is not an array`},
		{name: "a result that is no object", doc: `{"jsonrpc":"2.0","id":1,"result":["` + long + `"]}`, refuse: "the result is not an object"},
		{name: "an object of neither", doc: `{"` + long + `":[]}`, refuse: `no "tools" member`},
		{name: "a string", doc: `"` + long + `"`, refuse: "want a JSON-RPC response"},
		{name: "a number", doc: `5`, refuse: "want a JSON-RPC response"},
		{name: "null", doc: `null`, refuse: "want a JSON-RPC response"},
		{name: "a tool that is no object", doc: response(`"` + long + `"`), refuse: "tools[0] is not an object"},
		{name: "a tool without a name", doc: response(`{"name":"a"},{"inputSchema":{}}`), refuse: "tools[1] has no name"},
		{name: "an empty name", doc: response(`{"name":""}`), refuse: "tools[0] has no name"},
		{name: "a name that is no string", doc: response(`{"name":5}`), refuse: "tools[0] has no name"},
		{name: "a name twice", doc: response(`{"name":"` + long + `"},{"name":"b"},{"name":"` + long + `"}`), refuse: "tools[2] has the name of tools[0]"},
		{name: "annotations that are no object", doc: response(`{"name":"a","annotations":["` + long + `"]}`), refuse: "tools[0].annotations"},
		{name: "a readOnlyHint that is no boolean", doc: response(`{"name":"a","annotations":{"readOnlyHint":"` + long + `"}}`), refuse: "tools[0].annotations"},
		{name: "garbage", doc: long, refuse: "not strict JSON (bound syntax)"},
		{name: "empty", doc: ``, refuse: "not strict JSON (bound syntax)"},
		{name: "bytes after the answer", doc: response(`{"name":"a"}`) + long, refuse: "bound trailing-bytes"},
		{name: "invalid UTF-8", doc: response("{\"name\":\"a\xff\"}"), refuse: "bound utf8"},
		{name: "a member twice", doc: `{"tools":[],"tools":[{"name":"a"}]}`, refuse: `bound duplicate-name) at "/tools"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := ParseToolsList([]byte(tc.doc))
			if tc.want == nil {
				if err == nil {
					t.Fatalf("admitted: %+v", tools)
				}
				if msg := err.Error(); !strings.Contains(msg, tc.refuse) || strings.Contains(msg, canary) || len(msg) > 400 {
					t.Errorf("the error does not say %q, or quotes the answer, or runs long: %s", tc.refuse, msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(tools) != len(tc.want.names) {
				t.Fatalf("%d tools, want %v", len(tools), tc.want.names)
			}
			for i, tool := range tools {
				if tool.Name != tc.want.names[i] || tool.ReadOnly() != tc.want.readOnly[i] || (tool.InputSchema != nil) != tc.want.schemas[i] {
					t.Errorf("tools[%d] = %s, read-only %v, schema %q; want %s, %v, schema %v",
						i, tool.Name, tool.ReadOnly(), tool.InputSchema, tc.want.names[i], tc.want.readOnly[i], tc.want.schemas[i])
				}
			}
		})
	}
}

// The nesting bound admits every schema mcpvalidate compiles from a listed
// tool, in the deepest shape (the response), and refuses only deeper ones.
func TestToolsListNestingFitsTheValidator(t *testing.T) {
	for _, tc := range []struct {
		name   string
		depth  int
		parses bool
	}{
		{"the validator's deepest", 64, true},
		{"one deeper", 65, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schema := deepSchema(tc.depth)
			_, perr := ParseToolsList([]byte(response(`{"name":"a","inputSchema":` + schema + `}`)))
			// Open on purpose: the case is about nesting, not closure.
			_, verr := mcpvalidate.New(mcpvalidate.Tools(&mcp.Tool{Name: "a", InputSchema: json.RawMessage(schema)}), &mcpvalidate.Options{OpenTools: []string{"a"}})
			if (perr == nil) != tc.parses || (verr == nil) != tc.parses {
				t.Errorf("depth %d: the parser says %v, the validator %v; want both %s", tc.depth, perr, verr, map[bool]string{true: "to admit", false: "to refuse"}[tc.parses])
			}
		})
	}
}

// A probed server's page is a JSON-RPC response, its nextCursor returned.
func TestToolsPage(t *testing.T) {
	for _, tc := range []struct {
		name, doc, cursor, refuse string
		tools                     int
	}{
		{name: "a page with a cursor", doc: `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}],"nextCursor":"abc"}}`, cursor: "abc", tools: 1},
		{name: "the last page", doc: response(`{"name":"a"},{"name":"b"}`), tools: 2},
		{name: "a result alone", doc: `{"tools":[]}`, refuse: `has a "result" or an "error"`},
		{name: "an array", doc: `[]`, refuse: "not a JSON-RPC response"},
		{name: "an error", doc: `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`, refuse: "code -32601"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools, cursor, err := toolsPage([]byte(tc.doc))
			if tc.refuse != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refuse) {
					t.Errorf("got %v, want an error saying %q", err, tc.refuse)
				}
				if tc.name == "an error" && !errors.Is(err, ErrToolsListError) {
					t.Errorf("a JSON-RPC error is not ErrToolsListError: %v", err)
				}
				return
			}
			if err != nil || cursor != tc.cursor || len(tools) != tc.tools {
				t.Errorf("got %d tools, cursor %q, %v; want %d, %q", len(tools), cursor, err, tc.tools, tc.cursor)
			}
		})
	}
}
