package audit_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/audit"
)

// gosdkMode makes the test binary (TestMain) a bare go-sdk server over
// mcp.StdioTransport: two read-only typed tools, nothing of boundlab's,
// the wiring of the SDK's README; the process exits when the session ends.
const gosdkMode = "gosdk-stdio"

type lookupIn struct {
	Key string `json:"key"`
}

type countIn struct {
	N     int    `json:"n"`
	Label string `json:"label,omitempty"`
}

func gosdkStdio() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "gosdk-stdio", Version: "v0"}, nil)
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(srv, &mcp.Tool{Name: "lookup", Annotations: ro},
		func(context.Context, *mcp.CallToolRequest, lookupIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found nothing"}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "count", Annotations: ro},
		func(context.Context, *mcp.CallToolRequest, countIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "counted"}}}, nil, nil
		})
	_ = srv.Run(context.Background(), &mcp.StdioTransport{})
}

// TestGoSDKStdio audits a real go-sdk v1.8.0 stdio server, which ends the
// session (its transport returns the read error, the process exits) on a
// raw control character in a string and on bytes after a message: the
// audit completes, lists exactly those probes in session_ended with
// BLA019, and measures the rest on new processes.
func TestGoSDKStdio(t *testing.T) {
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = 64<<10, 64, 1<<10, 5*time.Second
	target := &audit.Stdio{Command: os.Args[0], Env: append(os.Environ(), fakeEnv+"="+gosdkMode)}
	rep, err := audit.Run(context.Background(), audit.Config{Target: target, Seed: 7, Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range rep.SessionEnds {
		got = append(got, e.Probe)
	}
	want := []string{
		"envelope: raw_control in the name", "envelope: raw_control in the name, followed by a long string",
		"envelope: raw_control in the arguments", "envelope: raw_control in the arguments, followed by a long string",
		"envelope: bytes after the message",
	}
	if !slices.Equal(got, want) {
		t.Errorf("session_ended %q, want %q", got, want)
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Rule == audit.RuleSessionEnded {
			n++
		}
	}
	if n != len(want) {
		t.Errorf("%d BLA019 findings, want %d", n, len(want))
	}
	b := rep.Boundary
	if b.RawControls != audit.VerdictRefused || b.TrailingBytes != audit.VerdictRefused || b.TrailingAnswer == nil || b.TrailingAnswer.Kind != audit.KindClosed {
		t.Errorf("raw controls %q, trailing %q (%v): want refused, the trailing probe answered closed", b.RawControls, b.TrailingBytes, b.TrailingAnswer)
	}
	// measured on the processes that followed
	if b.InvalidUTF8 != audit.VerdictNormalised || b.BeforeInitialized != audit.VerdictServed || b.AtCap == nil || b.UnknownParamsMember == "" {
		t.Errorf("invalid utf8 %q, before initialized %q, at cap %v, unknown params %q: want normalised, served, measured, measured",
			b.InvalidUTF8, b.BeforeInitialized, b.AtCap, b.UnknownParamsMember)
	}
	for _, tr := range rep.Tools {
		if !tr.Probed || tr.UnknownMember == "" {
			t.Errorf("tool %s probed %v, unknown member %q: want probed and measured", tr.Name, tr.Probed, tr.UnknownMember)
		}
	}
}
