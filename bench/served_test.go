package bench

import (
	"context"
	"encoding/json"
	"github.com/theurian/boundlab/internal/demo"
	"testing"

	gjs "github.com/google/jsonschema-go/jsonschema"
	m3client "github.com/mark3labs/mcp-go/client"
	m3 "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The served comparison: one tools/call over the go-sdk's in-memory
// transport, the same tool and the same request, validated three ways:
//
//   - mcpvalidate: a raw tool behind mcpvalidate's middleware, held to the
//     published schemas/mcp/knowledge-search.input.schema.json;
//   - go-sdk-typed: mcp.AddTool with a typed handler, validated by the SDK
//     itself (google/jsonschema-go) against flatSearchSchema, the published
//     schema flattened (tool-context's properties merged, unevaluated →
//     additionalProperties:false): the same accept set, which
//     TestServedPeersAgree checks on every request below;
//   - none: a raw tool with no validation, the transport's own cost;
//   - mark3labs: github.com/mark3labs/mcp-go with WithInputSchemaValidation
//     (jsonschema/v6 inside), the tool registered with the same bundled
//     published schema mcpvalidate publishes, called through its in-process
//     client; mark3labs-none is the same stack without validation.
//
// Each stack pays its own JSON-RPC encode/decode (the go-sdk's over a pipe,
// mark3labs' in process): read a peer's ratio beside its own -none row.

const flatSearchSchema = `{
  "type": "object",
  "properties": {
    "projectId":  {"type": "string", "pattern": "^[a-z][a-z0-9-]{0,62}$"},
    "snapshotId": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"},
    "agentId":    {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"},
    "taskId":     {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"},
    "query":      {"type": "string", "minLength": 1, "maxLength": 2000},
    "limit":      {"type": "integer", "minimum": 1, "maximum": 100}
  },
  "required": ["projectId", "query"],
  "additionalProperties": false
}`

type searchIn struct {
	ProjectID  string `json:"projectId"`
	SnapshotID string `json:"snapshotId,omitempty"`
	AgentID    string `json:"agentId,omitempty"`
	TaskID     string `json:"taskId,omitempty"`
	Query      string `json:"query"`
	Limit      int    `json:"limit,omitempty"`
}

func okResult() *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
}

// caller is one stack's way to make a knowledge.search call.
type caller func(tb testing.TB, args string) (isError bool, answer int)

func goSDKCaller(cs *mcp.ClientSession) caller {
	return func(tb testing.TB, args string) (bool, int) {
		res := call(tb, cs, args)
		return res.IsError, resultText(res)
	}
}

// mark3labsCaller builds a mark3labs/mcp-go server and in-process client.
func mark3labsCaller(tb testing.TB, validate bool) caller {
	v, err := demo.NewValidator(nil)
	if err != nil {
		tb.Fatal(err)
	}
	schema, _ := v.InputSchema("knowledge.search")
	opts := []m3server.ServerOption{m3server.WithToolCapabilities(false)}
	if validate {
		opts = append(opts, m3server.WithInputSchemaValidation())
	}
	srv := m3server.NewMCPServer("bench", "0", opts...)
	srv.AddTool(m3.NewToolWithRawSchema("knowledge.search", "", schema), func(context.Context, m3.CallToolRequest) (*m3.CallToolResult, error) {
		return m3.NewToolResultText("ok"), nil
	})
	c, err := m3client.NewInProcessClient(srv)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := c.Initialize(ctx, m3.InitializeRequest{Params: m3.InitializeParams{
		ProtocolVersion: m3.LATEST_PROTOCOL_VERSION, ClientInfo: m3.Implementation{Name: "bench-client", Version: "0"},
	}}); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return func(tb testing.TB, args string) (bool, int) {
		res, err := c.CallTool(ctx, m3.CallToolRequest{Params: m3.CallToolParams{Name: "knowledge.search", Arguments: json.RawMessage(args)}})
		if err != nil {
			tb.Fatal(err)
		}
		n := 0
		for _, ct := range res.Content {
			if t, ok := ct.(m3.TextContent); ok {
				n += len(t.Text)
			}
		}
		return res.IsError, n
	}
}

func callerFor(tb testing.TB, impl string) caller {
	switch impl {
	case "mark3labs":
		return mark3labsCaller(tb, true)
	case "mark3labs-none":
		return mark3labsCaller(tb, false)
	}
	return goSDKCaller(servedSession(tb, impl))
}

// servedSession connects a client to a server holding knowledge.search
// validated the named way.
func servedSession(tb testing.TB, impl string) *mcp.ClientSession {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	switch impl {
	case "mcpvalidate", "none":
		v, err := demo.NewValidator(nil)
		if err != nil {
			tb.Fatal(err)
		}
		schema, _ := v.InputSchema("knowledge.search")
		if impl == "mcpvalidate" {
			srv.AddReceivingMiddleware(v.Middleware())
		}
		srv.AddTool(&mcp.Tool{Name: "knowledge.search", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return okResult(), nil
		})
	case "go-sdk-typed":
		var s gjs.Schema
		if err := json.Unmarshal([]byte(flatSearchSchema), &s); err != nil {
			tb.Fatal(err)
		}
		mcp.AddTool(srv, &mcp.Tool{Name: "knowledge.search", InputSchema: &s}, func(context.Context, *mcp.CallToolRequest, searchIn) (*mcp.CallToolResult, any, error) {
			return okResult(), nil, nil
		})
	default:
		tb.Fatalf("unknown impl %q", impl)
	}
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		tb.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

func call(tb testing.TB, cs *mcp.ClientSession, args string) *mcp.CallToolResult {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "knowledge.search", Arguments: json.RawMessage(args)})
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

func resultText(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			n += len(t.Text)
		}
	}
	return n
}

// The two validating peers accept and refuse the same requests: the
// comparison is of one contract enforced two ways.
func TestServedPeersAgree(t *testing.T) {
	for _, impl := range []string{"mcpvalidate", "go-sdk-typed", "mark3labs"} {
		t.Run(impl, func(t *testing.T) {
			c := callerFor(t, impl)
			for _, rq := range ServedRequests(4096) {
				t.Run(rq.name, func(t *testing.T) {
					isError, answer := c(t, rq.args)
					if isError == rq.admit {
						t.Errorf("%s on %s: isError=%v, want admit=%v", impl, rq.name, isError, rq.admit)
					}
					t.Logf("%-14s %-16s isError=%v answer %d bytes", impl, rq.name, isError, answer)
				})
			}
		})
	}
}

// BenchmarkServed: whole tools/call round trips over the in-memory
// transport; refusal-bytes/op is the size of the answer the caller gets.
func BenchmarkServed(b *testing.B) {
	size := benchSize()
	impls := []string{"mcpvalidate", "go-sdk-typed", "none", "mark3labs", "mark3labs-none"}
	callers := map[string]caller{}
	for _, impl := range impls {
		callers[impl] = callerFor(b, impl)
	}
	for _, rq := range ServedRequests(size) {
		for _, impl := range impls {
			c := callers[impl]
			b.Run("req="+rq.name+"/impl="+impl, func(b *testing.B) {
				b.SetBytes(int64(len(rq.args)))
				b.ReportAllocs()
				var answer int
				for b.Loop() {
					_, answer = c(b, rq.args)
				}
				b.ReportMetric(float64(answer), "answer-bytes/op")
			})
		}
	}
}
