package mark3labs_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	m3client "github.com/mark3labs/mcp-go/client"
	m3 "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/mark3labs"
)

// itemSchema is published identically by both servers under test.
const itemSchema = `{
  "type": "object",
  "properties": {
    "name":  {"type": "string", "maxLength": 16},
    "count": {"type": "integer", "minimum": 0}
  },
  "required": ["name"],
  "additionalProperties": false
}`

// canary is a caller value no refusal may carry.
const canary = "CANARY-7f3a"

// handled counts handler runs per server.
type handled struct{ n atomic.Int64 }

func (h *handled) m3Handler(context.Context, m3.CallToolRequest) (*m3.CallToolResult, error) {
	h.n.Add(1)
	return m3.NewToolResultText("ok"), nil
}

func (h *handled) sdkHandler(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	h.n.Add(1)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
}

// m3Server is a mark3labs server holding item.put (raw schema), noschema (the
// zero InputSchema) and, added after Install, late.
func m3Server(t *testing.T, h *handled) (*m3server.MCPServer, *mcpvalidate.Validator) {
	t.Helper()
	s := m3server.NewMCPServer("m3", "0", m3server.WithToolCapabilities(false))
	s.AddTool(m3.NewToolWithRawSchema("item.put", "", json.RawMessage(itemSchema)), h.m3Handler)
	s.AddTool(m3.Tool{Name: "noschema"}, h.m3Handler)
	v, err := mark3labs.Install(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.AddTool(m3.NewToolWithRawSchema("late", "", json.RawMessage(itemSchema)), h.m3Handler)
	return s, v
}

// caller makes one tools/call and returns the result's isError and its text.
type caller func(t *testing.T, tool, args string) (bool, string)

// started starts c and initializes its session.
func started(t *testing.T, c *m3client.Client) {
	t.Helper()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(ctx, m3.InitializeRequest{Params: m3.InitializeParams{
		ProtocolVersion: m3.LATEST_PROTOCOL_VERSION, ClientInfo: m3.Implementation{Name: "test", Version: "0"},
	}}); err != nil {
		t.Fatal(err)
	}
}

func m3Caller(t *testing.T, c *m3client.Client) caller {
	started(t, c)
	ctx := context.Background()
	return func(t *testing.T, tool, args string) (bool, string) {
		t.Helper()
		p := m3.CallToolParams{Name: tool}
		if args != "" {
			p.Arguments = json.RawMessage(args)
		}
		res, err := c.CallTool(ctx, m3.CallToolRequest{Params: p})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if len(res.Content) != 1 {
			t.Fatalf("%s: %d contents, want 1", tool, len(res.Content))
		}
		text, ok := res.Content[0].(m3.TextContent)
		if !ok {
			t.Fatalf("%s: content %T, want text", tool, res.Content[0])
		}
		return res.IsError, text.Text
	}
}

// m3Transports are mark3labs' own clients against s: in process, and
// streamable HTTP against an httptest server on 127.0.0.1.
func m3Transports(t *testing.T, s *m3server.MCPServer) map[string]caller {
	ip, err := m3client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(m3server.NewStreamableHTTPServer(s))
	t.Cleanup(ts.Close)
	hc, err := m3client.NewStreamableHttpClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]caller{"inprocess": m3Caller(t, ip), "http": m3Caller(t, hc)}
}

// sdkCaller is the go-sdk peer: item.put with the same schema behind
// mcpvalidate.Install, late added after it, called through the go-sdk client.
func sdkCaller(t *testing.T, h *handled) caller {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk", Version: "0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "item.put", InputSchema: json.RawMessage(itemSchema)}, h.sdkHandler)
	if _, err := mcpvalidate.Install(srv, nil); err != nil {
		t.Fatal(err)
	}
	srv.AddTool(&mcp.Tool{Name: "late", InputSchema: json.RawMessage(itemSchema)}, h.sdkHandler)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return func(t *testing.T, tool, args string) (bool, string) {
		t.Helper()
		p := &mcp.CallToolParams{Name: tool}
		if args != "" {
			p.Arguments = json.RawMessage(args)
		}
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			t.Fatalf("go-sdk %s: %v", tool, err)
		}
		if len(res.Content) != 1 {
			t.Fatalf("go-sdk %s: %d contents, want 1", tool, len(res.Content))
		}
		return res.IsError, res.Content[0].(*mcp.TextContent).Text
	}
}

// refusals are calls both servers must refuse, with the stage that refuses.
var refusals = []struct {
	name, tool, args string
	stage            mcpvalidate.Stage
}{
	{"unknown member", "item.put", `{"name":"a","extra":"` + canary + `"}`, mcpvalidate.StageSchema},
	{"wrong type", "item.put", `{"name":"a","count":"` + canary + `"}`, mcpvalidate.StageSchema},
	{"too long", "item.put", `{"name":"` + canary + canary + `"}`, mcpvalidate.StageSchema},
	{"missing required", "item.put", `{"count":1}`, mcpvalidate.StageSchema},
	{"absent", "item.put", ``, mcpvalidate.StageSchema},
	{"null", "item.put", `null`, mcpvalidate.StageSchema},
	{"duplicate name", "item.put", `{"name":"a","name":"` + canary + `"}`, mcpvalidate.StageGate},
	{"invalid UTF-8", "item.put", "{\"name\":\"\xff" + canary + "\"}", mcpvalidate.StageGate},
	{"lone surrogate", "item.put", `{"name":"\ud800` + canary + `"}`, mcpvalidate.StageGate},
	{"unknown tool", "late", `{"name":"a"}`, mcpvalidate.StageUnknownTool},
}

// Every refusal reaches mark3labs' client as the go-sdk middleware's answer,
// byte for byte, and the handler never runs.
func TestRefusalsMatchTheGoSDK(t *testing.T) {
	var m3h, sdkh handled
	s, v := m3Server(t, &m3h)
	sdk := sdkCaller(t, &sdkh)
	ctx := context.Background()
	for tname, call := range m3Transports(t, s) {
		for _, c := range refusals {
			t.Run(tname+"_"+strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
				var want *mcpvalidate.Refusal
				if err := v.Check(ctx, c.tool, json.RawMessage(c.args)); !errors.As(err, &want) || want.Stage != c.stage {
					t.Fatalf("Check: %v, want a %v refusal", err, c.stage)
				}
				sdkErr, sdkText := sdk(t, c.tool, c.args)
				isErr, text := call(t, c.tool, c.args)
				if !isErr || !sdkErr {
					t.Fatalf("isError mark3labs %v, go-sdk %v", isErr, sdkErr)
				}
				if text != sdkText || text != want.Error() {
					t.Fatalf("mark3labs %q\ngo-sdk    %q\nCheck     %q", text, sdkText, want.Error())
				}
				if len(text) > mcpvalidate.MaxRefusalBytes() || strings.Contains(text, canary) {
					t.Fatalf("refusal of %d bytes (max %d) or holding the canary: %q", len(text), mcpvalidate.MaxRefusalBytes(), text)
				}
			})
		}
	}
	if m3h.n.Load() != 0 || sdkh.n.Load() != 0 {
		t.Fatalf("handlers ran on refused calls: mark3labs %d, go-sdk %d", m3h.n.Load(), sdkh.n.Load())
	}
}

func TestAdmittedCallRunsTheHandler(t *testing.T) {
	var h handled
	s, _ := m3Server(t, &h)
	for tname, call := range m3Transports(t, s) {
		before := h.n.Load()
		isErr, text := call(t, "item.put", `{"name":"widget","count":3}`)
		if isErr || text != "ok" || h.n.Load() != before+1 {
			t.Fatalf("%s: isError %v, %q, handler runs %d", tname, isErr, text, h.n.Load()-before)
		}
	}
}

// A tool registered with no schema has no contract: refused, fail-closed.
func TestToolWithoutSchemaIsRefused(t *testing.T) {
	var h handled
	s, v := m3Server(t, &h)
	want := v.Check(context.Background(), "noschema", nil)
	var r *mcpvalidate.Refusal
	if !errors.As(want, &r) || r.Stage != mcpvalidate.StageUnknownTool {
		t.Fatalf("Check: %v, want an unknown-tool refusal", want)
	}
	for tname, call := range m3Transports(t, s) {
		if isErr, text := call(t, "noschema", `{}`); !isErr || text != want.Error() {
			t.Fatalf("%s: isError %v, %q", tname, isErr, text)
		}
	}
	if h.n.Load() != 0 {
		t.Fatal("the handler ran")
	}
}
