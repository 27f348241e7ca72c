package audit_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/audit"
)

// typedIn is a typed go-sdk tool's input: the schema the SDK infers says
// "integer" and "number", with no bound, so past int64 and past float32
// are admitted by the schema and refused by the decode into the struct.
type typedIn struct {
	Q string  `json:"q"`
	N int64   `json:"n,omitempty"`
	F float32 `json:"f,omitempty"`
}

// typedSDK is the bare go-sdk with one read-only typed tool.
func typedSDK() http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "typed", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, typedIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
}

func number(tr audit.ToolReport, member, sent string) *audit.NumberProbe {
	for i, n := range tr.Numbers {
		if n.Member == member && n.Sent == sent {
			return &tr.Numbers[i]
		}
	}
	return nil
}

// TestTypedDecodeEchoes: the bare go-sdk's typed decode refuses what its
// own schema admits and quotes the literal (BLA018, and the long literal
// an echo, BLA001); fakePy holds past int64 in a float64 and quotes no
// number but the long literal, which its parse error quotes whole.
func TestTypedDecodeEchoes(t *testing.T) {
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.Timeout = 1<<20, 200, 5*time.Second
	long := "65536 digits"
	t.Run("go-sdk typed", func(t *testing.T) {
		rep, err := audit.Run(context.Background(), audit.Config{Target: audit.Handler("typed", typedSDK(), "/mcp"), Seed: 7, Limits: l})
		if err != nil {
			t.Fatal(err)
		}
		tr := rep.Tools[0]
		// the decode error quotes the literal as its float64 re-rendered
		for _, c := range []struct{ member, sent, as string }{{"n", "9223372036854775808", "9223372036854776000"}, {"f", "1e39", "1e+39"}} {
			n := number(tr, c.member, c.sent)
			if n == nil || !n.Admitted || n.Verdict != audit.VerdictEchoed || n.QuotedAs != c.as {
				t.Errorf("%s = %s: %+v; want admitted, refused quoting it as %s", c.member, c.sent, n, c.as)
			}
		}
		if n := number(tr, "n", long); n == nil || n.Verdict != audit.VerdictRefused || n.DigitsBack >= 65536 {
			t.Errorf("the long literal: %+v; want refused, not quoted whole", n)
		}
		wantRule(t, rep, audit.RuleTypedDecode, true)
	})
	t.Run("quotes the long literal", func(t *testing.T) {
		rep := fakeRun(t, fakePy{quoteName: true, quoteArg: true})
		tr := rep.Tools[0]
		if n := number(tr, "n", long); n == nil || !n.Quoted || n.DigitsBack != 65536 || n.Ratio < 0.99 {
			t.Errorf("the long literal: %+v; want every digit back, ~1x", n)
		}
		found := false
		for _, f := range rep.Findings {
			found = found || (f.Rule == audit.RuleEcho && strings.Contains(f.Message, long))
		}
		if !found {
			t.Errorf("the long literal's echo raised no BLA001: %+v", tr.Echo)
		}
		if n := number(tr, "n", "9223372036854775808"); n == nil || n.Verdict != audit.VerdictAccepted {
			t.Errorf("past int64 in a float64 holder: %+v; want accepted", n)
		}
		for _, f := range rep.Findings {
			if f.Rule == audit.RuleTypedDecode && strings.Contains(f.Message, "9223372036854775808") {
				t.Errorf("a held value raised %s", f.Message)
			}
		}
	})
}

// TestNumberAdmittedByTheSchema: a literal past the member's published
// maximum is not the handler's to refuse, and raises no BLA018.
func TestNumberAdmittedByTheSchema(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		want         bool
	}{
		{"no bound", `{"type":"integer"}`, true},
		{"maximum below", `{"type":"integer","maximum":100}`, false},
		{"maximum above", `{"type":"integer","maximum":1e30}`, true},
		{"exclusive maximum at", `{"type":"integer","exclusiveMaximum":9223372036854775808}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := audit.AdmitsForTest(c.schema, "9223372036854775808"); got != c.want {
				t.Errorf("admits %v, want %v", got, c.want)
			}
		})
	}
}
