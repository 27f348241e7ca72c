package mcpvalidate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type fileIn struct {
	File string `json:"file"`
}

// A handler's error quoting a long argument reaches the caller without it,
// however the handler errs: a typed handler's error (a result with
// isError), a result it builds with isError, a JSON-RPC error. Its answers
// that are not errors are its output and pass as they are; so do errors
// whose quote is at most 255 bytes.
func TestAToolsErrorNeverQuotesALongArgument(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "typed"}, func(_ context.Context, _ *mcp.CallToolRequest, in fileIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("open %s: no such file or directory", in.File)
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "result"}, func(_ context.Context, _ *mcp.CallToolRequest, in fileIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: []byte{1}}, &mcp.TextContent{Text: "bad file " + in.File + " (" + in.File + ")"}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in fileIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.File}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "wire"}, func(_ context.Context, _ *mcp.CallToolRequest, in fileIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, &jsonrpc.Error{Code: 4711, Message: "no " + in.File, Data: []byte(`{"file":"` + in.File + `"}`)}
	})
	if _, err := Install(srv, nil); err != nil {
		t.Fatal(err)
	}
	cs := sdkSession(t, srv)
	call := func(tool, file string) (*mcp.CallToolResult, error) {
		return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"file": file}})
	}
	long := strings.Repeat("&", 65536)
	res, err := call("typed", long)
	if err != nil || !res.IsError || text(res) != "open [65536 bytes of the call's arguments, not quoted]: no such file or directory" {
		t.Errorf("typed: %v, %.120q", err, text(res))
	}
	res, err = call("result", long)
	if err != nil || len(res.Content) != 2 || text(res) != "bad file [65536 bytes of the call's arguments, not quoted] ([65536 bytes of the call's arguments, not quoted])" {
		t.Errorf("result: %v, %d contents, %.120q", err, len(res.Content), text(res))
	}
	res, err = call("echo", long)
	if err != nil || res.IsError || text(res) != long {
		t.Errorf("a result that is not an error changed: %v, %d bytes", err, len(text(res)))
	}
	_, err = call("wire", long)
	var w *jsonrpc.Error
	if !errors.As(err, &w) || w.Code != 4711 || w.Message != "no [65536 bytes of the call's arguments, not quoted]" || w.Data != nil {
		t.Errorf("wire: %v", err)
	}
	// At the bound the quote stays; one past it, it is marked.
	for _, n := range []int{255, 256} {
		v := strings.Repeat("é", n/2) + strings.Repeat("x", n%2)
		res, err := call("typed", v)
		kept := err == nil && text(res) == "open "+v+": no such file or directory"
		if kept != (n == 255) {
			t.Errorf("a quote of %d bytes: %v, %.80q", n, err, text(res))
		}
	}
}
