package audit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/mcpvalidate"
)

// searchIn is the typed input of readmeServer's tool: a project the
// handler must know, and a query.
type searchIn struct {
	ProjectID string `json:"projectId"`
	Query     string `json:"query"`
}

// readmeServer is a go-sdk server with a typed tool wired as the README
// says (mcpvalidate.AddTool, Install, the SDK's handler with the
// validator's options, FrontGate in front). Its handler refuses every
// project but "demo" with isError: state no schema shows, so a baseline
// built from the schema alone is refused by the handler.
func readmeServer(t *testing.T) http.Handler {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "readme", Version: "v0"}, nil)
	mcpvalidate.AddTool(srv, &mcp.Tool{Name: "knowledge.search"}, func(_ context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
		if in.ProjectID != "demo" {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such project"}}}, nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no hits"}}}, nil, nil
	})
	v, err := mcpvalidate.Install(srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	front, err := v.Handler(func(*http.Request) *mcp.Server { return srv }, nil)
	if err != nil {
		t.Fatal(err)
	}
	return front
}

// TestDepthInconclusiveIsNotAFinding: against the README-wired typed
// server, with the tool named and no valid call given, the baseline is
// refused by the handler and the deepest nesting answers alike: the depth
// is not measured, said so, and BLA003 is not raised. With a valid call
// (--call), the depth is measured and is the front gate's bound.
func TestDepthInconclusiveIsNotAFinding(t *testing.T) {
	h := readmeServer(t)
	rep := run(t, audit.Handler("readme typed", h, "/mcp"), "knowledge.search")
	wantRule(t, rep, audit.RuleDeepNesting, false)
	t.Logf("named only: %s; not measured: %+v", headline(rep), rep.NotMeasured)
	// in the arguments the gate's depth refusal looks like the handler's;
	// in params._meta beside the same call it does not: the gate's bound
	if b := rep.Boundary; b.MaxDepth == nil || *b.MaxDepth > 64 || b.DepthPlacement != "params._meta" {
		t.Errorf("depth %v in %q (not measured %v); want at most 64, found in params._meta", b.MaxDepth, b.DepthPlacement, notMeasured(rep, "max_depth"))
	}
	// the unknown member and the mistyped one are refused as the baseline
	// is: whether by the validator or the handler does not show
	if tr := rep.Tools[0]; tr.UnknownMember != "" || tr.TypeMismatch != "" || !notMeasured(rep, "unknown_member") || !notMeasured(rep, "type_mismatch") {
		t.Errorf("against a refused baseline: unknown %q, mismatch %q, not measured %+v", tr.UnknownMember, tr.TypeMismatch, rep.NotMeasured)
	}
	cfg := audit.Config{Target: audit.Handler("readme typed", h, "/mcp"), Seed: 7,
		Examples: map[string]json.RawMessage{"knowledge.search": json.RawMessage(`{"projectId":"demo","query":"x"}`)}}
	rep, err := audit.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantRule(t, rep, audit.RuleDeepNesting, false)
	if b := rep.Boundary; b.MaxDepth == nil || *b.MaxDepth > 64 || notMeasured(rep, "max_depth") {
		t.Errorf("with a valid call the depth is %v (not measured %v), want at most 64", b.MaxDepth, notMeasured(rep, "max_depth"))
	}
	if tr := rep.Tools[0]; tr.Baseline == nil || tr.Baseline.Refused() || tr.BaselineFrom != audit.BaselineGiven {
		t.Errorf("the given call's baseline: %+v from %q", tr.Baseline, tr.BaselineFrom)
	}
	if tr := rep.Tools[0]; tr.UnknownMember != audit.VerdictRefused || tr.TypeMismatch != audit.VerdictRefused || notMeasured(rep, "unknown_member") || notMeasured(rep, "type_mismatch") {
		t.Errorf("with a valid call: unknown %q, mismatch %q, not measured %+v", tr.UnknownMember, tr.TypeMismatch, rep.NotMeasured)
	}
	// the duplicate's valid value is the given one, and the differentials
	// go in a string member the handler accepts with the mark appended:
	// both are measured (the front gate refuses each)
	if tr := rep.Tools[0]; tr.Duplicates != audit.VerdictRefused {
		t.Errorf("with a valid call the duplicate is %q, want refused", tr.Duplicates)
	}
	args := 0
	for _, d := range rep.Boundary.Differentials {
		if d.Placement == "arguments" {
			args++
			if d.Verdict != audit.VerdictRefused {
				t.Errorf("%s in the arguments: %q, want refused", d.Probe, d.Verdict)
			}
		}
	}
	if args == 0 || notMeasured(rep, "invalid_utf8") {
		t.Errorf("with a valid call the arguments differentials are not measured: %+v", rep.NotMeasured)
	}
	t.Logf("with --call: %s", headline(rep))
}

func notMeasured(r *audit.Report, probe string) bool {
	for _, n := range r.NotMeasured {
		if n.Probe == probe {
			return true
		}
	}
	return false
}

// refuseAll is a go-sdk server whose one tool's handler refuses every
// call with isError, and nothing bounds the nesting below the probe's
// ceiling: the shallow and the deepest call are refused alike in the
// arguments and in params._meta.
func refuseAll() http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "refuse-all", Version: "v0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no"}}}, nil
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
}

// TestDepthNotMeasuredRaisesNothing: when no placement tells a depth
// refusal from the handler's, max_depth is null, said not measured, and
// BLA003 is not raised; 5.0 for an integer and the number literals, whose
// valid value is refused too, are not measured either.
func TestDepthNotMeasuredRaisesNothing(t *testing.T) {
	l := audit.DefaultLimits()
	l.DepthCeiling, l.BodyCeiling, l.EchoBytes = 200, 64<<10, 1<<10
	rep, err := audit.Run(context.Background(), audit.Config{Target: audit.Handler("refuse-all", refuseAll(), "/mcp"), Call: []string{"t"}, Seed: 7, Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Boundary.MaxDepth != nil || !notMeasured(rep, "max_depth") {
		t.Errorf("depth %v, not measured %v; want null and said", rep.Boundary.MaxDepth, rep.NotMeasured)
	}
	wantRule(t, rep, audit.RuleDeepNesting, false)
	if tr := rep.Tools[0]; tr.IntegralFloat != "" || !notMeasured(rep, "integral_float") || !notMeasured(rep, "numbers") {
		t.Errorf("integral float %q, not measured %+v", tr.IntegralFloat, rep.NotMeasured)
	}
	wantRule(t, rep, audit.RuleIntegralFloat, false)
	wantRule(t, rep, audit.RuleTypedDecode, false)
}
