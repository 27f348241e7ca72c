package adopters

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
)

// pathMax is a bound a server could publish for a file path: Linux's
// PATH_MAX.
const pathMax = 4096

// gopls's handlers quote a valid argument in their errors (docs/adopters.md,
// "Before and after"): the middleware cuts the quote out of the error, and
// a maxLength gopls published would be held too. This pins both halves on
// a tool shaped like gopls's go_file_context (one string, "file", inferred
// from a Go string: no maxLength), whose error quotes the file as gopls
// does, once as given and once made a file URI.
func TestEchoIsTheHandlers(t *testing.T) {
	ctx := context.Background()
	validator := func(schema string) *mcpvalidate.Validator {
		t.Helper()
		v, err := mcpvalidate.New(mcpvalidate.Tools(&mcp.Tool{Name: "go_file_context", InputSchema: json.RawMessage(schema)}), nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// the fillers below need no escaping: sent as they are, as the audit
	// sends them
	args := func(file string) json.RawMessage { return json.RawMessage(`{"file":"` + file + `"}`) }

	// As published: the audit's 64 KiB string is admitted, and the
	// handler's error reaches the client with a mark where it quoted it.
	type in struct {
		File string `json:"file"`
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "gopls-like", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "go_file_context"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		uri := (&url.URL{Scheme: "file", Path: "/ws/" + a.File}).String()
		return nil, nil, fmt.Errorf("no such file %s (%s)", a.File, uri)
	})
	if _, err := mcpvalidate.Install(srv, nil); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
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
	for _, filler := range []string{strings.Repeat("&", 64<<10), strings.Repeat("\u007f", 64<<10)} {
		var file string
		if err := json.Unmarshal([]byte(`"`+filler+`"`), &file); err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "go_file_context", Arguments: json.RawMessage(args(filler))})
		if err != nil || !res.IsError {
			t.Fatalf("the handler's error did not come back: %v", err)
		}
		answer, _ := json.Marshal(res)
		text := res.Content[0].(*mcp.TextContent).Text
		if ratio := float64(len(answer)) / float64(len(args(filler))); ratio > 0.01 || !strings.Contains(text, "bytes of the call's arguments, not quoted") {
			t.Errorf("the handler's error is %.4fx the request: %.200q", ratio, text)
		}
	}

	// With a maxLength published, the validator holds it: at the bound
	// admitted, one past refused, the refusal naming the bound and not
	// the value.
	bounded := validator(fmt.Sprintf(`{"type":"object","properties":{"file":{"type":"string","maxLength":%d}},"required":["file"],"additionalProperties":false}`, pathMax))
	at := strings.Repeat("&", pathMax)
	if err := bounded.Check(ctx, "go_file_context", args(at)); err != nil {
		t.Errorf("a path of maxLength characters refused: %v", err)
	}
	err = bounded.Check(ctx, "go_file_context", args(at+"&"))
	if err == nil {
		t.Fatal("a path one past maxLength admitted")
	}
	if msg := err.Error(); !strings.Contains(msg, "maxLength") || strings.Contains(msg, "&&") {
		t.Errorf("the refusal does not name the bound, or quotes the value: %.200s", msg)
	}
}
