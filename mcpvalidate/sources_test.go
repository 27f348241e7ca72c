package mcpvalidate

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/charge"
)

func TestNewNeedsASource(t *testing.T) {
	if _, err := New(nil, nil); err == nil || !strings.Contains(err.Error(), "no schema source") {
		t.Errorf("no source: %v", err)
	}
}

// Every zero field of Options.Limits is its default, field by field, and
// MaxFileBytes sets the source-file limit the body cap is derived from.
func TestLimitsDefaultFieldByField(t *testing.T) {
	v, err := New(published, &Options{Limits: &charge.Limits{MaxParamsNesting: 8}, MaxFileBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	want := charge.DefaultLimits()
	want.MaxParamsNesting, want.MaxSourceFileBytes = 8, 1<<20
	if v.cfg.limits != want {
		t.Errorf("limits %+v, want %+v", v.cfg.limits, want)
	}
	if got := charge.BodyCap(want, charge.EnsureASCII, charge.Raw).Cap; v.MaxBodyBytes() != got {
		t.Errorf("body cap %d, want %d", v.MaxBodyBytes(), got)
	}
}

func TestWithTools(t *testing.T) {
	ctx := context.Background()
	closed := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string", "maxLength": 3}},
		"additionalProperties": false}
	v, err := New(Tools(
		&mcp.Tool{Name: "search", InputSchema: closed},
		&mcp.Tool{Name: "raw", InputSchema: json.RawMessage(`{"type":"object","required":["x"]}`)},
		&mcp.Tool{Name: "unpublished"}, // no schema: refused, fail-closed
	), &Options{OpenTools: []string{"raw"}}) // raw is open (open_test.go): kept so on purpose
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(v.names, ","); got != "raw,search" {
		t.Fatalf("tools %q", got)
	}
	for _, c := range []struct {
		tool, args string
		stage      Stage // 0: admitted
	}{
		{"search", `{"q":"abc"}`, 0},
		{"search", `{"q":"abcd"}`, StageSchema},
		{"search", `{"q":"a","z":1}`, StageSchema},
		{"search", `{"q":"a","q":"b"}`, StageGate},
		{"raw", `{"x":null}`, 0},
		{"raw", `{}`, StageSchema},
		{"unpublished", `{}`, StageUnknownTool},
	} {
		t.Run(c.tool+"_"+caseName(c.args), func(t *testing.T) {
			err := v.Check(ctx, c.tool, []byte(c.args))
			var r *callRefusal
			switch {
			case c.stage == 0 && err != nil:
				t.Errorf("%s %s: refused: %v", c.tool, c.args, err)
			case c.stage != 0 && !errorsAs(err, &r):
				t.Errorf("%s %s: want a refusal at %v, got %v", c.tool, c.args, c.stage, err)
			case c.stage != 0 && r.Stage != c.stage:
				t.Errorf("%s %s: refused at %v, want %v", c.tool, c.args, r.Stage, c.stage)
			}
		})
	}
	for _, c := range []struct {
		name string
		tool *mcp.Tool
		want string
	}{
		{"not an object schema", &mcp.Tool{Name: "s", InputSchema: map[string]any{"type": "string"}}, `must declare "type": "object"`},
		{"does not compile", &mcp.Tool{Name: "s", InputSchema: map[string]any{"type": "object", "minLength": "three"}}, `tool "s"`},
		{"remote ref", &mcp.Tool{Name: "s", InputSchema: map[string]any{"type": "object", "$ref": "https://example.com/s.json"}}, "nothing is fetched"},
		{"duplicate member", &mcp.Tool{Name: "s", InputSchema: json.RawMessage(`{"type":"object","type":"string"}`)}, "not strict JSON"},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			if _, err := New(Tools(c.tool), nil); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: want an error containing %q, got %v", c.name, c.want, err)
			}
		})
	}
	two := &mcp.Tool{Name: "d", InputSchema: map[string]any{"type": "object"}}
	if _, err := New(Tools(two, two), nil); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("a tool listed twice: %v", err)
	}
}

// Install validates a typed server's calls against the schemas the SDK
// infers and tools/list publishes, and runs before the SDK's own validation.
func TestInstallOnATypedServer(t *testing.T) {
	type in struct {
		N int    `json:"n"`
		S string `json:"s,omitempty"`
	}
	ran := 0
	srv := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, any, error) {
		ran++
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	var events []*Refusal
	type key struct{}
	v, err := Install(srv, &Options{OnRefusal: func(ctx context.Context, ev *Refusal) {
		if ctx.Value(key{}) == nil {
			t.Error("the hook did not get the call's context")
		}
		events = append(events, ev)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(v.names, ","); got != "t" {
		t.Fatalf("tools %q", got)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.WithValue(context.Background(), key{}, 1)
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct {
		args    string
		refused bool
	}{
		{`{"n":1}`, false},
		{`{"n":1,"extra":true}`, true},
		{`{"n":"one"}`, true},
		{`{"n":1,"n":2}`, true},
	} {
		t.Run(caseName(c.args), func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t", Arguments: rawArgs(c.args)})
			if err != nil {
				t.Fatalf("%s: %v", c.args, err)
			}
			if res.IsError != c.refused {
				t.Errorf("%s: isError %v, want %v", c.args, res.IsError, c.refused)
			}
		})
	}
	if ran != 1 {
		t.Errorf("the handler ran %d times, want 1", ran)
	}
	if len(events) != 3 || events[0].Tool != "t" || events[2].Stage != StageGate {
		t.Errorf("refusal events: %+v", events)
	}
	// A tool added after Install is refused: fail-closed.
	mcp.AddTool(srv, &mcp.Tool{Name: "late"}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, any, error) {
		ran++
		return &mcp.CallToolResult{}, nil, nil
	})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "late", Arguments: rawArgs(`{"n":1}`)})
	if err != nil || !res.IsError || ran != 1 {
		t.Errorf("a tool added after Install: err %v, isError %v, ran %d", err, res != nil && res.IsError, ran)
	}
}

// rawArgs sends args exactly as written (the client marshals a RawMessage
// unchanged), so a duplicate member reaches the server.
func rawArgs(args string) any { return jsonRaw(args) }

type jsonRaw string

func (j jsonRaw) MarshalJSON() ([]byte, error) { return []byte(j), nil }
