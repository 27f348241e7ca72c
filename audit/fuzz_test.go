package audit

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/theurian/boundlab/charge"
)

// A published schema is the server's, so hostile: the static audit of any
// bytes ends, bounded, without a panic.
func FuzzAuditSchema(f *testing.F) {
	f.Add([]byte(`{"type":"object","allOf":[{"$ref":"#"}],"properties":{"a":{"type":"string","pattern":"x"}},"additionalProperties":false}`))
	f.Add([]byte(`{"$defs":{"d":{"$id":"https://x/d","allOf":[{"$ref":"https://x/d"},{"$ref":"https://x/d"}]}},"$ref":"https://x/d"}`))
	f.Add([]byte(`{"properties":{"o":{"type":"object","required":["p"],"properties":{"p":{"type":"integer","minimum":3}}}},"required":["o"]}`))
	// The worst render per wire byte is a sweep of every code point, done
	// once per process: done here, so the time bound below is the audit's
	// own (charged to the first input, it took 2.4 s in a CI fuzz smoke on a
	// loaded machine).
	for _, d := range charge.Dialects() {
		worstPerByte(d)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		start := time.Now()
		sa := auditSchema(raw)
		sa.figures("t", 1<<20)
		if doc, err := parseSchema(raw); err == nil && doc != nil {
			for _, p := range doc.rootProps() {
				if v := validValue(p.schema, "zq", 4); !json.Valid([]byte(v)) {
					t.Fatalf("validValue built invalid JSON %q", v)
				}
			}
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("the static audit of %d bytes took %v", len(raw), d)
		}
	})
}

// An answer is the server's: classifying any bytes ends without a panic.
func FuzzShapeOf(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"isError\":true}}\n\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		a := Answer{Status: 200, Raw: raw, Message: extractMessage(raw)}
		s := ShapeOf(a, json.RawMessage("1"))
		if s.Kind == "" || s.Bytes != len(raw) {
			t.Fatalf("shape %+v of %d bytes", s, len(raw))
		}
		answers(raw, json.RawMessage("1"))
	})
}

// An allOf fan-out through $refs (ten branches a level, seven levels: 10^7
// visits) is cut by the walk bound.
func TestRootPropsFanOutIsBounded(t *testing.T) {
	defs := map[string]any{"b0": map[string]any{"properties": map[string]any{"leaf": map[string]any{}}}}
	for i := 1; i <= 7; i++ {
		var all []any
		for range 10 {
			all = append(all, map[string]any{"$ref": "#/$defs/b" + strconv.Itoa(i-1)})
		}
		defs["b"+strconv.Itoa(i)] = map[string]any{"allOf": all}
	}
	raw, _ := json.Marshal(map[string]any{"$defs": defs, "allOf": []any{map[string]any{"$ref": "#/$defs/b7"}}})
	doc, err := parseSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if ps := doc.rootProps(); len(ps) != 1 || ps[0].name != "leaf" {
		t.Fatalf("rootProps %v, want the leaf", ps)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("rootProps over the fan-out took %v", d)
	}
}

// A saved tools/list answer is anyone's bytes: ParseToolsList never panics,
// refuses in a bounded error, and what it admits has named, distinct tools.
func FuzzParseToolsList(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`))
	f.Add([]byte(`[{"name":"a","annotations":{"readOnlyHint":true}},{"name":"b"}]`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`))
	f.Add([]byte(`{"tools":[{"name":"a"},{"name":"a"}],"nextCursor":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tools, err := ParseToolsList(data)
		if err != nil {
			if n := len(err.Error()); n > 600 {
				t.Errorf("a %d-byte error", n)
			}
			return
		}
		seen := map[string]bool{}
		for i, tool := range tools {
			if tool.Name == "" || seen[tool.Name] {
				t.Errorf("tools[%d]: an empty or repeated name", i)
			}
			seen[tool.Name] = true
			if tool.InputSchema != nil && !json.Valid(tool.InputSchema) {
				t.Errorf("tools[%d]: a schema that is not JSON", i)
			}
		}
	})
}
