package mcpvalidate_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/schemas"
)

// A server whose tools are registered typed gets validation in one line, from
// the schemas it already publishes in tools/list.
func ExampleInstall() {
	type addArgs struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "v0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "add"}, func(ctx context.Context, req *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
	})

	v, err := mcpvalidate.Install(server, nil) // after the tools: it validates what tools/list publishes
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	fmt.Println(v.Check(ctx, "add", []byte(`{"a":1,"b":2}`)) == nil)
	fmt.Println(v.Check(ctx, "add", []byte(`{"a":1,"b":2,"c":3}`)))
	fmt.Println(v.Check(ctx, "add", []byte(`{"a":1,"a":2}`)))
	// Output:
	// true
	// tool "add": arguments refused by the tool's input schema: at "/c": additionalProperties false
	// tool "add": arguments refused: document repeats a member name in one object (bound duplicate-name) at "/a", byte 7
}

func ExampleValidator_Check() {
	v, err := mcpvalidate.New(mcpvalidate.SchemaFiles(schemas.FS, schemas.Dir), nil)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	fmt.Println(v.Check(ctx, "knowledge.get", []byte(`{"projectId":"demo","itemId":"item-1"}`)) == nil)
	fmt.Println(v.Check(ctx, "knowledge.get", []byte(`{"projectId":"demo","itemId":"item-1","force":"yes please"}`)))
	fmt.Println(v.Check(ctx, "knowledge.delete", nil))

	err = v.Check(ctx, "knowledge.get", []byte(`{"projectId":"demo","itemId":"item-1","itemId":"item-2"}`))
	var r *mcpvalidate.Refusal
	if errors.As(err, &r) {
		fmt.Println(r.Stage, r.Gate.Bound)
	}
	// Output:
	// true
	// tool "knowledge.get": arguments refused by the tool's input schema: at "/force": unevaluatedProperties false
	// tool "knowledge.delete": refused: no published input schema for this tool (fail-closed)
	// gate duplicate-name
}

// Schema files are the published contract: the server registers each tool
// with the schema the validator enforces, so tools/list publishes it.
func ExampleValidator_Middleware() {
	v, err := mcpvalidate.New(mcpvalidate.SchemaFiles(schemas.FS, schemas.Dir), nil)
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
