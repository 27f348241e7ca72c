package mcpvalidate_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
)

func ExampleValidator_Check() {
	v, err := mcpvalidate.New()
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Check("knowledge.get", []byte(`{"projectId":"demo","itemId":"item-1"}`)) == nil)
	fmt.Println(v.Check("knowledge.get", []byte(`{"projectId":"demo","itemId":"item-1","force":"yes please"}`)))
	fmt.Println(v.Check("knowledge.get", []byte(`{"projectId":"demo","itemId":"item-1","itemId":"item-2"}`)))
	fmt.Println(v.Check("knowledge.delete", nil))
	// Output:
	// true
	// tool "knowledge.get": arguments refused by the tool's input schema: at "/force": unevaluatedProperties false
	// tool "knowledge.get": arguments refused: document repeats a member name in one object (bound duplicate-name) at "/itemId", byte 38
	// tool "knowledge.delete": refused: no published input schema for this tool (fail-closed)
}

func ExampleValidator_Middleware() {
	v, err := mcpvalidate.New()
	if err != nil {
		panic(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "v0"}, nil)
	schema, _ := v.InputSchema("project.list") // publish the contract the middleware enforces
	server.AddTool(&mcp.Tool{Name: "project.list", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "[]"}}}, nil
	})
	server.AddReceivingMiddleware(v.Middleware()) // the last call: outermost
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{MaxRequestBodyBytes: v.MaxRequestBodyBytes()})
	_ = handler // http.Handle("/mcp", handler)
	fmt.Println(v.MaxRequestBodyBytes())
	// Output:
	// 26214400
}
