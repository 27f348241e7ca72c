package mcpvalidatetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/internal/inspect"
)

type subIn struct {
	A int8 `json:"a"`
}

// keyInt marshals as text and has no UnmarshalText: the SDK's decoder
// cannot take a single key of a map keyed by it.
type keyInt int

func (k keyInt) MarshalText() ([]byte, error) { return []byte(fmt.Sprint(int(k))), nil }

type hidden struct {
	C int `json:"c,omitempty"`
}

type typedIn struct {
	Query string          `json:"query"`
	Limit int             `json:"limit"`
	Ratio float32         `json:"ratio,omitempty"`
	Mode  string          `json:"mode,omitempty"`
	Sub   *subIn          `json:"sub,omitempty"`
	Tags  []uint8         `json:"tags,omitempty"`
	Keyed map[keyInt]bool `json:"keyed,omitempty"`
	Any   any             `json:"any,omitempty"`
	*hidden
}

// modeSchema is typedIn's schema with a documented enum for mode: what the
// handler serves.
func modeSchema(t *testing.T) json.RawMessage {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	mcpvalidate.AddTool(srv, &mcp.Tool{Name: "t"}, typedHandler)
	v, err := mcpvalidate.Install(srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := v.InputSchema("t")
	return edit(t, raw, func(m map[string]any) { prop(m, "mode")["enum"] = []any{"a", "b", "c"} })
}

func typedHandler(context.Context, *mcp.CallToolRequest, typedIn) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{}, nil, nil
}

// edit applies f to a schema document and returns it.
func edit(t *testing.T, raw []byte, f func(map[string]any)) json.RawMessage {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func prop(m map[string]any, path ...string) map[string]any {
	for _, p := range path {
		m = m["properties"].(map[string]any)[p].(map[string]any)
	}
	return m
}

// TestAgreementHoldsTheGoType: a server whose tool is added with
// mcpvalidate.AddTool (with a schema of its own, documenting an enum)
// agrees with itself; each published schema that admits what the Go type's
// decode refuses, and one that narrows the documented enum, fails
// CheckAgreement naming the member — the positive controls of both of
// decision 6's directions.
func TestAgreementHoldsTheGoType(t *testing.T) {
	ctx := context.Background()
	own := modeSchema(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	mcpvalidate.AddTool(srv, &mcp.Tool{Name: "t", InputSchema: own}, typedHandler)
	for _, c := range []struct {
		name string
		edit func(map[string]any)
		want string // "" when the published schema agrees
	}{
		{"as registered", func(map[string]any) {}, ""},
		{"tightened within the type", func(m map[string]any) {
			prop(m, "limit")["minimum"], prop(m, "limit")["maximum"] = 1, 100
			prop(m, "query")["maxLength"] = 2000
			prop(m, "sub", "a")["minimum"] = 0
		}, ""},
		// The Go type's arm: the published schema admits more than the decode takes.
		{"maximum dropped", func(m map[string]any) { delete(prop(m, "limit"), "maximum") }, `"/limit": the Go type's maximum is 9223372036854775000`},
		{"maximum past the kind", func(m map[string]any) { prop(m, "ratio")["maximum"] = 1e39 }, `"/ratio": the Go type's maximum is 3.4028235677973366e+38`},
		{"type widened", func(m map[string]any) { prop(m, "limit")["type"] = "number" }, `"/limit": the published schema admits type number`},
		{"nested bound dropped", func(m map[string]any) { delete(prop(m, "sub", "a"), "maximum") }, `"/sub/a": the Go type's maximum is 127`},
		{"nested opened", func(m map[string]any) {
			m["properties"].(map[string]any)["sub"] = map[string]any{"type": []any{"null", "object"}}
		}, `"/sub/a": the published schema declares no type`},
		{"nested member refused", func(m map[string]any) { prop(m, "sub")["properties"] = map[string]any{} }, `"/sub/a": the Go type reads this member and the published schema refuses it`},
		{"items unbounded", func(m map[string]any) { prop(m, "tags")["items"] = map[string]any{"type": "integer"} }, `"/tags/*": the Go type's maximum is 255`},
		{"key names opened", func(m map[string]any) { delete(prop(m, "keyed"), "propertyNames") }, `"/keyed": the published schema admits member names`},
		{"unsettable member admitted", func(m map[string]any) { m["properties"].(map[string]any)["c"] = map[string]any{"type": "integer"} }, `"/c": the published schema admits a member the Go type's decoder cannot set`},
		{"enum past the kind", func(m map[string]any) { prop(m, "sub", "a")["enum"] = []any{1, 300} }, `"/sub/a": the published schema admits 300, which the Go type refuses (maximum 127)`},
		// The documented capability's arm: an enum narrower than the handler serves.
		{"enum narrowed", func(m map[string]any) { prop(m, "mode")["enum"] = []any{"a", "b"} }, `"mode": the handler's enum [a b c] is not published unchanged`},
	} {
		t.Run(c.name, func(t *testing.T) {
			pub := edit(t, own, c.edit)
			// Open schemas fail New unless named: this one is open on
			// purpose in "nested opened", and the relation is the subject.
			v, err := mcpvalidate.New(mcpvalidate.Tools(&mcp.Tool{Name: "t", InputSchema: pub}), &mcpvalidate.Options{OpenTools: []string{"t"}})
			if err != nil {
				t.Fatal(err)
			}
			err = CheckAgreement(ctx, v, srv, nil)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("want agreement: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("want a finding %q, got %v", c.want, err)
			}
		})
	}
}

// TestPlainToolsHaveNoGoType: a tool added with mcp.AddTool leaves no
// domain behind (the *mcp.Server keeps no Go type), so its unbounded int
// publishes without a finding: the Go type's arm needs mcpvalidate.AddTool.
func TestPlainToolsHaveNoGoType(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "t"}, typedHandlerPlain)
	if _, ok := inspect.TypeDomain(srv, "t"); ok {
		t.Fatal("a plain tool has a domain")
	}
	v, err := mcpvalidate.New(mcpvalidate.ServerTools(srv), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckAgreement(context.Background(), v, srv, nil); err != nil {
		t.Fatal(err)
	}
}

type plainIn struct {
	Limit int `json:"limit"`
}

func typedHandlerPlain(context.Context, *mcp.CallToolRequest, plainIn) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{}, nil, nil
}
