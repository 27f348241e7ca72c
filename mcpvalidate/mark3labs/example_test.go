package mark3labs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	m3client "github.com/mark3labs/mcp-go/client"
	m3 "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/mark3labs"
)

// A mark3labs server whose tools carry their schemas gets validation in one
// line, after its tools are added.
func ExampleInstall() {
	s := m3server.NewMCPServer("greeter", "v0")
	s.AddTool(m3.NewTool("greet",
		m3.WithString("name", m3.Required(), m3.MaxLength(32)),
		m3.WithSchemaAdditionalProperties(false), // mark3labs' typed schemas are open otherwise
	), func(ctx context.Context, req m3.CallToolRequest) (*m3.CallToolResult, error) {
		return m3.NewToolResultText("hello, " + req.GetString("name", "")), nil
	})

	if _, err := mark3labs.Install(s, nil); err != nil {
		panic(err)
	}

	ctx := context.Background()
	c, _ := m3client.NewInProcessClient(s)
	defer c.Close()
	_ = c.Start(ctx)
	_, _ = c.Initialize(ctx, m3.InitializeRequest{Params: m3.InitializeParams{ProtocolVersion: m3.LATEST_PROTOCOL_VERSION}})
	for _, args := range []string{`{"name":"Ada"}`, `{"name":"Ada","admin":true}`, `{"name":"Ada","name":"root"}`} {
		res, err := c.CallTool(ctx, m3.CallToolRequest{Params: m3.CallToolParams{Name: "greet", Arguments: json.RawMessage(args)}})
		if err != nil {
			panic(err)
		}
		fmt.Println(res.IsError, res.Content[0].(m3.TextContent).Text)
	}
	// Output:
	// false hello, Ada
	// true tool "greet": arguments refused by the tool's input schema: at "/admin": additionalProperties false
	// true tool "greet": arguments refused: document repeats a member name in one object (bound duplicate-name) at "/name", byte 14
}

// Built before the server, the validator's middleware is given first at
// construction: the outermost, ahead of every other tool-handler middleware.
// Each tool publishes the schema the validator enforces.
func ExampleMiddleware() {
	v, err := mcpvalidate.New(mcpvalidate.SchemaFiles(os.DirFS("../testdata/schemas"), "mcp"), nil)
	if err != nil {
		panic(err)
	}
	s := m3server.NewMCPServer("example", "v0",
		m3server.WithToolHandlerMiddleware(mark3labs.Middleware(v)), // first: outermost
		m3server.WithRecovery(),
	)
	schema, _ := v.InputSchema("project.list")
	s.AddTool(m3.NewToolWithRawSchema("project.list", "", schema), func(context.Context, m3.CallToolRequest) (*m3.CallToolResult, error) {
		return m3.NewToolResultText("[]"), nil
	})
	// mcp-go reads the HTTP body with no cap of its own: the front gate caps
	// it, and bounds the envelope, the memory in flight and the sessions.
	h, err := v.Protect(m3server.NewStreamableHTTPServer(s), nil)
	if err != nil {
		panic(err)
	}
	_ = h // h.ListenAndServe("127.0.0.1:8080")

	ctx := context.Background()
	c, _ := m3client.NewInProcessClient(s)
	defer c.Close()
	_ = c.Start(ctx)
	_, _ = c.Initialize(ctx, m3.InitializeRequest{Params: m3.InitializeParams{ProtocolVersion: m3.LATEST_PROTOCOL_VERSION}})
	res, err := c.CallTool(ctx, m3.CallToolRequest{Params: m3.CallToolParams{Name: "project.list", Arguments: map[string]any{"all": true}}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.IsError, res.Content[0].(m3.TextContent).Text)
	// Output:
	// true tool "project.list": arguments refused by the tool's input schema: at "/all": unevaluatedProperties false
}

// Over stdio the gate answers a line it refuses itself, and mcp-go's
// session goes on with the next.
func ExampleListenStdio() {
	s := m3server.NewMCPServer("example", "v0")
	v, err := mark3labs.Install(s, nil)
	if err != nil {
		panic(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"ping","id":8}` + "\n")
	var out strings.Builder
	_ = mark3labs.ListenStdio(context.Background(), m3server.NewStdioServer(s), v, in, &out) // nil, nil: os.Stdin and os.Stdout
	fmt.Print(out.String())
	// Output:
	// {"jsonrpc":"2.0","id":7,"error":{"code":-32700,"message":"request refused by the front gate: bound duplicate-name","data":{"bound":"duplicate-name"}}}
}
