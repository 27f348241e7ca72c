package mark3labs_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	m3client "github.com/mark3labs/mcp-go/client"
	m3 "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"
	"github.com/theurian/boundlab/mcpvalidate/mark3labs"
)

const fileSchema = `{"type":"object","properties":{"file":{"type":"string"}},"required":["file"],"additionalProperties":false}`

// A handler's error quoting a long argument reaches the caller without it:
// an error returned (mark3labs answers it as a JSON-RPC error), a result
// with isError, its text content a value or a pointer. A result that is not
// an error is the tool's output and passes as it is.
func TestAToolsErrorNeverQuotesALongArgument(t *testing.T) {
	s := m3server.NewMCPServer("m3", "0", m3server.WithToolCapabilities(false))
	add := func(name string, h m3server.ToolHandlerFunc) {
		s.AddTool(m3.NewToolWithRawSchema(name, "", json.RawMessage(fileSchema)), h)
	}
	file := func(req m3.CallToolRequest) string { return req.GetString("file", "") }
	add("returned", func(_ context.Context, req m3.CallToolRequest) (*m3.CallToolResult, error) {
		return nil, errors.New("datasource '" + file(req) + "' not found")
	})
	add("value", func(_ context.Context, req m3.CallToolRequest) (*m3.CallToolResult, error) {
		return m3.NewToolResultError("bad '" + file(req) + "' and '" + file(req) + "'"), nil
	})
	add("pointer", func(_ context.Context, req m3.CallToolRequest) (*m3.CallToolResult, error) {
		return &m3.CallToolResult{IsError: true, Content: []m3.Content{&m3.TextContent{Type: "text", Text: "bad " + file(req)}}}, nil
	})
	add("echo", func(_ context.Context, req m3.CallToolRequest) (*m3.CallToolResult, error) {
		return m3.NewToolResultText(file(req)), nil
	})
	if _, err := mark3labs.Install(s, nil); err != nil {
		t.Fatal(err)
	}
	c, err := m3client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	started(t, c)
	long := strings.Repeat("<", 65536)
	mark := "[65536 bytes of the call's arguments, not quoted]"
	call := func(tool string) (*m3.CallToolResult, error) {
		return c.CallTool(context.Background(), m3.CallToolRequest{Params: m3.CallToolParams{Name: tool, Arguments: map[string]any{"file": long}}})
	}
	textOf := func(res *m3.CallToolResult) string {
		switch c := res.Content[0].(type) {
		case m3.TextContent:
			return c.Text
		case *m3.TextContent:
			return c.Text
		}
		return ""
	}
	if _, err := call("returned"); err == nil || !strings.HasSuffix(err.Error(), "datasource '"+mark+"' not found") {
		t.Errorf("returned: %.120v", err)
	}
	for tool, want := range map[string]string{"value": "bad '" + mark + "' and '" + mark + "'", "pointer": "bad " + mark} {
		res, err := call(tool)
		if err != nil || !res.IsError || textOf(res) != want {
			t.Errorf("%s: %v, %.120q", tool, err, textOf(res))
		}
	}
	if res, err := call("echo"); err != nil || res.IsError || textOf(res) != long {
		t.Errorf("a result that is not an error changed: %v", err)
	}
}
