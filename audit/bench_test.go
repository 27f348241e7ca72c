package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/audit"
)

// eightySchemas are the input schemas the eighty-tool server cycles
// through: what real servers publish — patterns, formats, enums, numeric
// bounds, arrays, nested required objects, $defs — so every per-tool probe
// has a member to go to and a baseline the schema admits.
var eightySchemas = []string{
	`{"type":"object","properties":{"q":{"type":"string","maxLength":200},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["q"]}`,
	`{"type":"object","properties":{"projectId":{"type":"string","pattern":"^[a-z][a-z0-9-]{2,30}$"},"page":{"type":"integer","minimum":0}},"required":["projectId"]}`,
	`{"type":"object","properties":{"since":{"type":"string","format":"date-time"},"kind":{"type":"string","enum":["issue","pull","commit"]}},"required":["since","kind"]}`,
	`{"type":"object","properties":{"ratio":{"type":"number","minimum":0,"maximum":1},"tags":{"type":"array","items":{"type":"string","maxLength":32},"maxItems":8}},"required":["ratio"]}`,
	`{"type":"object","properties":{"filter":{"type":"object","properties":{"owner":{"type":"string","format":"email"},"state":{"const":"open"}},"required":["owner"]},"n":{"type":"integer","multipleOf":5}},"required":["filter"]}`,
	`{"type":"object","$defs":{"id":{"type":"string","format":"uuid"}},"properties":{"id":{"$ref":"#/$defs/id"},"verbose":{"type":"boolean"}},"required":["id"]}`,
	`{"type":"object","properties":{"url":{"type":"string","format":"uri"},"depth":{"type":"integer","minimum":1,"maximum":5}},"required":["url"],"additionalProperties":false}`,
	`{"type":"object","properties":{"path":{"type":"string","minLength":1,"maxLength":4096},"lines":{"type":"array","prefixItems":[{"type":"integer"},{"type":"integer"}],"maxItems":2}},"required":["path"]}`,
}

// eighty is a go-sdk server with 80 tools annotated readOnlyHint: true,
// their schemas cycling through eightySchemas; each answers "ok" without
// looking at its arguments (the SDK's raw AddTool: no validation but the
// server's own).
func eighty() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "eighty", Version: "v0"}, nil)
	for i := range 80 {
		var schema map[string]any
		if err := json.Unmarshal([]byte(eightySchemas[i%len(eightySchemas)]), &schema); err != nil {
			panic(err)
		}
		srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool%02d", i), InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
	}
	return srv
}

// eightyAudit audits the eighty-tool server over HTTP on 127.0.0.1 with
// limits l.
func eightyAudit(tb testing.TB, l audit.Limits) *audit.Report {
	srv := eighty()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	rep, err := audit.Run(context.Background(), audit.Config{Target: &audit.HTTP{URL: hs.URL}, Seed: 7, Limits: l})
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

// TestEightyToolsEveryProbe: under the default bounds an 80-tool server
// is called whole, every probe measured, within the request budget. The
// fillers and the body ceiling are small here (they change the bytes, not
// which probes are sent); BenchmarkEightyTools times the full size.
func TestEightyToolsEveryProbe(t *testing.T) {
	l := audit.DefaultLimits()
	l.EchoBytes, l.BodyCeiling = 1<<10, 1<<20
	rep := eightyAudit(t, l)
	probed := 0
	for _, tr := range rep.Tools {
		if tr.Probed {
			probed++
		} else {
			t.Errorf("%s not called: %s", tr.Name, tr.Skipped)
		}
		if tr.Baseline == nil || tr.Baseline.Refused() {
			t.Errorf("%s: baseline %v (%s)", tr.Name, tr.Baseline, tr.BaselineFrom)
		}
	}
	for _, n := range rep.NotMeasured {
		t.Errorf("not measured: %s %s: %s", n.Probe, n.Tool, n.Why)
	}
	if probed != 80 || rep.Requests > audit.DefaultLimits().MaxRequests/2 {
		t.Errorf("%d tools called in %d requests", probed, rep.Requests)
	}
	t.Logf("80 tools: %d requests (%d timed)", rep.Requests, rep.TimedRequests)
}

// BenchmarkEightyTools is the time of an audit of 80 read-only tools over
// HTTP on 127.0.0.1 with the default limits, every one called with every
// probe (the target: at most 30 s an audit). The time is a figure, not a
// test: a loaded machine moves it.
func BenchmarkEightyTools(b *testing.B) {
	for b.Loop() {
		rep := eightyAudit(b, audit.DefaultLimits())
		b.ReportMetric(float64(rep.Requests), "requests/op")
		b.ReportMetric(float64(len(rep.NotMeasured)), "not-measured/op")
	}
}

// BenchmarkDozenTools is the time of an audit of twelve read-only tools
// over HTTP on 127.0.0.1 with the default limits (the target: within a
// minute).
func BenchmarkDozenTools(b *testing.B) {
	for b.Loop() {
		rep := dozenAudit(b)
		b.ReportMetric(float64(rep.Requests), "requests/op")
	}
}
