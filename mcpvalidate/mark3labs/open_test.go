package mark3labs_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	m3client "github.com/mark3labs/mcp-go/client"
	m3 "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/mark3labs"
)

// searchServer holds search, built with mark3labs' typed helpers (open at the
// top and in filter unless closed), and lookup, closed throughout. Each
// handler run is counted; search's records the arguments it saw.
func searchServer(closed bool, h *handled, saw *map[string]any, opts ...m3server.ServerOption) *m3server.MCPServer {
	filter := []m3.PropertyOption{m3.Properties(map[string]any{"lang": map[string]any{"type": "string"}})}
	top := []m3.ToolOption{m3.WithString("q", m3.Required())}
	if closed {
		filter = append(filter, m3.AdditionalProperties(false))
		top = append(top, m3.WithSchemaAdditionalProperties(false))
	}
	s := m3server.NewMCPServer("m3", "0", opts...)
	s.AddTool(m3.NewTool("search", append(top, m3.WithObject("filter", filter...))...),
		func(ctx context.Context, req m3.CallToolRequest) (*m3.CallToolResult, error) {
			*saw = req.GetArguments()
			return h.m3Handler(ctx, req)
		})
	s.AddTool(m3.NewTool("lookup", m3.WithString("id", m3.Required()), m3.WithSchemaAdditionalProperties(false)), h.m3Handler)
	return s
}

// A mark3labs.NewTool schema is open by default: Install refuses it, naming
// each open location, unless the tool is named in OpenTools; then an unknown
// member reaches the handler on purpose. Closed with mark3labs' own options,
// unknown members are refused at every level through its in-process client,
// the handler never running.
func TestOpenInstallMark3labs(t *testing.T) {
	t.Run("refused to install", func(t *testing.T) {
		var h handled
		var saw map[string]any
		v, err := mark3labs.Install(searchServer(false, &h, &saw), nil)
		if err == nil || v != nil {
			t.Fatalf("Install over a NewTool schema: %v, %v", v, err)
		}
		if msg := err.Error(); !strings.Contains(msg, `"search" at #, #/properties/filter`) || strings.Contains(msg, `"lookup"`) {
			t.Errorf("%s", msg)
		}
	})
	// server.WithStrictInputSchemaDefault closes the top level only: a
	// WithObject member stays open.
	t.Run("strict default leaves nested objects open", func(t *testing.T) {
		var h handled
		var saw map[string]any
		_, err := mark3labs.Install(searchServer(false, &h, &saw, m3server.WithStrictInputSchemaDefault()), nil)
		if err == nil || !strings.Contains(err.Error(), `"search" at #/properties/filter`) {
			t.Fatalf("%v", err)
		}
	})
	t.Run("opted open", func(t *testing.T) {
		var h handled
		var saw map[string]any
		s := searchServer(false, &h, &saw)
		if _, err := mark3labs.Install(s, &mcpvalidate.Options{OpenTools: []string{"search"}}); err != nil {
			t.Fatal(err)
		}
		c, err := m3client.NewInProcessClient(s)
		if err != nil {
			t.Fatal(err)
		}
		call := m3Caller(t, c)
		if isErr, text := call(t, "search", `{"q":"a","filter":{"lang":"en","extra":1},"extra":2}`); isErr {
			t.Fatalf("refused: %s", text)
		}
		if h.n.Load() != 1 || saw["extra"] == nil || saw["filter"].(map[string]any)["extra"] == nil {
			t.Errorf("handler ran %d times and saw %v: the unknown members did not reach it", h.n.Load(), saw)
		}
		for _, c := range []struct{ tool, args string }{
			{"search", `{"q":5,"extra":1}`}, // still validated for what the schema says
			{"lookup", `{"id":"a","extra":1}`},
		} {
			if isErr, _ := call(t, c.tool, c.args); !isErr || h.n.Load() != 1 {
				t.Errorf("%s %s: isError %v, handler ran %d times", c.tool, c.args, isErr, h.n.Load())
			}
		}
	})
	t.Run("closed", func(t *testing.T) {
		var h handled
		var saw map[string]any
		s := searchServer(true, &h, &saw)
		v, err := mark3labs.Install(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := m3client.NewInProcessClient(s)
		if err != nil {
			t.Fatal(err)
		}
		call := m3Caller(t, c)
		for _, c := range []struct{ args, at string }{
			{`{"q":"a","extra":1}`, `at "/extra": additionalProperties false`},
			{`{"q":"a","filter":{"lang":"en","extra":1}}`, `at "/filter/extra": additionalProperties false`},
		} {
			if isErr, text := call(t, "search", c.args); !isErr || !strings.Contains(text, c.at) {
				t.Errorf("%s: isError %v, %q", c.args, isErr, text)
			}
		}
		if h.n.Load() != 0 {
			t.Fatalf("the handler ran %d times on refused calls", h.n.Load())
		}
		if isErr, text := call(t, "search", `{"q":"a","filter":{"lang":"en"}}`); isErr || h.n.Load() != 1 {
			t.Errorf("an admitted call: %q, handler ran %d times", text, h.n.Load())
		}
		// What the client reads in tools/list is what the validator enforces.
		listed, err := c.ListTools(context.Background(), m3.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range listed.Tools {
			enc, _ := json.Marshal(tl)
			var published struct{ InputSchema any }
			var enforced any
			_ = json.Unmarshal(enc, &published)
			schema, ok := v.InputSchema(tl.Name)
			if !ok || json.Unmarshal(schema, &enforced) != nil || !reflect.DeepEqual(published.InputSchema, enforced) {
				t.Errorf("%s: published %s, enforced %s", tl.Name, enc, schema)
			}
		}
	})
}
