package bench

import (
	"context"
	"encoding/json"
	"testing"

	gjs "github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/theurian/boundlab/mcpvalidate"
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
//   - none: a raw tool with no validation, the transport's own cost.
//
// Both sides pay the same JSON-RPC encode/decode; the ratio is of whole calls.

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

// servedSession connects a client to a server holding knowledge.search
// validated the named way.
func servedSession(tb testing.TB, impl string) *mcp.ClientSession {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	switch impl {
	case "mcpvalidate", "none":
		v, err := mcpvalidate.New()
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
	for _, impl := range []string{"mcpvalidate", "go-sdk-typed"} {
		cs := servedSession(t, impl)
		for _, rq := range ServedRequests(4096) {
			res := call(t, cs, rq.args)
			if res.IsError == rq.admit {
				t.Errorf("%s on %s: isError=%v, want admit=%v", impl, rq.name, res.IsError, rq.admit)
			}
		}
	}
}

// BenchmarkServed: whole tools/call round trips over the in-memory
// transport; refusal-bytes/op is the size of the answer the caller gets.
func BenchmarkServed(b *testing.B) {
	size := benchSize()
	impls := []string{"mcpvalidate", "go-sdk-typed", "none"}
	sessions := map[string]*mcp.ClientSession{}
	for _, impl := range impls {
		sessions[impl] = servedSession(b, impl)
	}
	for _, rq := range ServedRequests(size) {
		for _, impl := range impls {
			cs := sessions[impl]
			b.Run("req="+rq.name+"/impl="+impl, func(b *testing.B) {
				b.SetBytes(int64(len(rq.args)))
				b.ReportAllocs()
				var answer int
				for b.Loop() {
					answer = resultText(call(b, cs, rq.args))
				}
				b.ReportMetric(float64(answer), "answer-bytes/op")
			})
		}
	}
}
