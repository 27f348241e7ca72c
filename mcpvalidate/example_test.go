package mcpvalidate_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
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
	v, err := mcpvalidate.New(mcpvalidate.SchemaFiles(os.DirFS("testdata/schemas"), "mcp"), nil)
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
		fmt.Println(r.Stage, r.Bound, r.Where)
	}
	// Output:
	// true
	// tool "knowledge.get": arguments refused by the tool's input schema: at "/force": unevaluatedProperties false
	// tool "knowledge.delete": refused: no published input schema for this tool (fail-closed)
	// gate duplicate-name /itemId
}

// Schema files are the published contract: the server registers each tool
// with the schema the validator enforces, so tools/list publishes it.
func ExampleValidator_Middleware() {
	v, err := mcpvalidate.New(mcpvalidate.SchemaFiles(os.DirFS("testdata/schemas"), "mcp"), nil)
	if err != nil {
		panic(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "v0"}, nil)
	schema, _ := v.InputSchema("project.list") // publish the contract the middleware enforces
	server.AddTool(&mcp.Tool{Name: "project.list", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "[]"}}}, nil
	})
	server.AddReceivingMiddleware(v.Middleware()) // the last call: outermost
	h, err := v.Handler(func(*http.Request) *mcp.Server { return server }, nil)
	if err != nil {
		panic(err)
	}
	_ = h // http.Handle("/mcp", h)
	fmt.Println(v.MaxBodyBytes())
	// Output:
	// 26214400
}

// One call protects a go-sdk server over streamable HTTP: the SDK's handler
// and the front gate, built to agree. ListenAndServe serves it on a hardened
// http.Server; Ceiling is the memory the process can state.
func ExampleValidator_Handler() {
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0"}, nil)
	v, err := mcpvalidate.Install(server, nil)
	if err != nil {
		panic(err)
	}
	h, err := v.Handler(func(*http.Request) *mcp.Server { return server }, &mcpvalidate.HTTPOptions{Stateless: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(h.Ceiling())
	// go h.ListenAndServe("127.0.0.1:8080")
	// Output:
	// 572981248
}

// A server of your own: Harden sets its header cap and timeouts to what the
// connection weight assumes and bounds its connections.
func ExampleHandler_Harden() {
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0"}, nil)
	v, err := mcpvalidate.Install(server, nil)
	if err != nil {
		panic(err)
	}
	h, err := v.Handler(func(*http.Request) *mcp.Server { return server }, nil)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	if _, err := h.Harden(hs, ln); err != nil { // serve hs on the listener Harden returns
		panic(err)
	}
	fmt.Println(hs.MaxHeaderBytes, hs.ReadHeaderTimeout)
	// Output:
	// 16384 10s
}

// One shape for every refusal, whichever stage refused: the request's
// envelope at the front gate, the arguments' charge, or the schema.
func ExampleValidator_CheckRequest() {
	v, err := mcpvalidate.New(mcpvalidate.SchemaFiles(os.DirFS("testdata/schemas"), "mcp"), nil)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"project.list","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"project.list","name":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"project.list","arguments":{"limit":"all"}}}`,
	} {
		var r *mcpvalidate.Refusal
		if err := v.CheckRequest(ctx, []byte(body)); errors.As(err, &r) {
			fmt.Println(r.Stage, r.Bound, r.Where, r.Status)
		} else {
			fmt.Println(err)
		}
	}
	// Output:
	// <nil>
	// request duplicate-name /params 400
	// schema unevaluatedProperties /limit 0
}

// AddTool is mcp.AddTool that also publishes and enforces what the Go input
// type can hold: here, the largest number an int member still decodes to
// after the SDK's float64 round trip.
func ExampleAddTool() {
	type pageIn struct {
		Page int `json:"page"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "pages", Version: "v0"}, nil)
	mcpvalidate.AddTool(server, &mcp.Tool{Name: "page"}, func(ctx context.Context, req *mcp.CallToolRequest, in pageIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.Page)}}}, nil, nil
	})
	v, err := mcpvalidate.Install(server, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Check(context.Background(), "page", []byte(`{"page":1e30}`)))
	// Output:
	// tool "page": arguments refused by the tool's input schema: at "/page": maximum 9223372036854775000
}

// A contract kept in schema files: New compiles them, and each tool is
// registered with the schema the validator enforces.
func ExampleNew() {
	v, err := mcpvalidate.New(mcpvalidate.SchemaFiles(os.DirFS("testdata/schemas"), "mcp"), nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(v.ToolNames())
	// Output:
	// [knowledge.get knowledge.search knowledge.status project.list review.findings review.search system.capabilities]
}

// Protect puts the front gate in front of a handler built elsewhere, here a
// stand-in for mcp-go's streamable HTTP server.
func ExampleValidator_Protect() {
	v, err := mcpvalidate.New(mcpvalidate.SchemaFiles(os.DirFS("testdata/schemas"), "mcp"), nil)
	if err != nil {
		panic(err)
	}
	var other http.Handler = http.NotFoundHandler() // e.g. server.NewStreamableHTTPServer(s)
	h, err := v.Protect(other, &mcpvalidate.HTTPOptions{Stateless: true})
	if err != nil {
		panic(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}trailing`)))
	fmt.Println(rec.Code, rec.Body.String())
	// Output:
	// 400 {"jsonrpc":"2.0","id":1,"error":{"code":-32700,"message":"request refused by the front gate: bound trailing-bytes","data":{"bound":"trailing-bytes"}}}
}

// Over stdio the gate answers a line it refuses itself, and the session
// goes on; the bare SDK would end it.
func ExampleValidator_StdioTransport() {
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0"}, nil)
	v, err := mcpvalidate.Install(server, nil)
	if err != nil {
		panic(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\x00\n")
	var out strings.Builder
	_ = server.Run(context.Background(), v.StdioTransport(in, &out)) // nil, nil: os.Stdin and os.Stdout
	fmt.Print(out.String())
	// Output:
	// {"jsonrpc":"2.0","id":7,"error":{"code":-32700,"message":"request refused by the front gate: bound trailing-bytes","data":{"bound":"trailing-bytes"}}}
}
