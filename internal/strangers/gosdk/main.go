// Command gosdk is a stranger's server for the auditor: the bare
// github.com/modelcontextprotocol/go-sdk (the version go.mod pins), nothing of
// boundlab's, two read-only typed tools (mcp.AddTool: the SDK infers each
// schema and validates calls against it), served by the SDK's default
// streamable HTTP handler at /mcp on 127.0.0.1 (an ephemeral port unless
// -addr names one). It prints its URL as the first line on stdout
// ("stranger: MCP streamable HTTP at URL") and serves until killed. With
// -stdio it serves one session over mcp.StdioTransport instead (the SDK's
// newline-delimited JSON-RPC on stdin and stdout) and exits when that
// session ends, as a stdio server built by the SDK's README does; -stdio
// -gate serves it through mcpvalidate's gated stdio transport, wired as
// mcpvalidate's README shows (the guarded stranger beside the bare one).
//
// It is a lab program: internal/strangers builds and runs it as a child,
// and nothing imports it.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
)

type lookupIn struct {
	Key string `json:"key" jsonschema:"the key to look up"`
}

type countIn struct {
	N     int    `json:"n" jsonschema:"how many to count"`
	Label string `json:"label,omitempty" jsonschema:"an optional label"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "the loopback address to listen on")
	stdio := flag.Bool("stdio", false, "serve one session over stdin and stdout instead of HTTP")
	gate := flag.Bool("gate", false, "with -stdio: serve through mcpvalidate's gated stdio transport")
	flag.Parse()
	if host, _, err := net.SplitHostPort(*addr); err != nil || host != "127.0.0.1" {
		fmt.Fprintln(os.Stderr, "gosdk: -addr must be 127.0.0.1:PORT (loopback only)")
		os.Exit(2)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "stranger-gosdk", Version: "v0"}, nil)
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(srv, &mcp.Tool{Name: "lookup", Description: "look a key up", Annotations: ro},
		func(ctx context.Context, _ *mcp.CallToolRequest, in lookupIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found nothing"}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "count", Description: "count to n", Annotations: ro},
		func(ctx context.Context, _ *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "counted"}}}, nil, nil
		})
	if *stdio {
		// the session's end (the client closed stdin, or the SDK ended it
		// on a read error) is the process's: exit 0 either way, the error
		// on stderr
		var t mcp.Transport = &mcp.StdioTransport{}
		if *gate {
			v, err := mcpvalidate.Install(srv, nil)
			if err != nil {
				fmt.Fprintln(os.Stderr, "gosdk:", err)
				os.Exit(1)
			}
			t = v.StdioTransport(nil, nil)
		}
		if err := srv.Run(context.Background(), t); err != nil {
			fmt.Fprintln(os.Stderr, "gosdk:", err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gosdk:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	fmt.Printf("stranger: MCP streamable HTTP at http://%s/mcp\n", ln.Addr())
	if err := http.Serve(ln, mux); err != nil {
		fmt.Fprintln(os.Stderr, "gosdk:", err)
		os.Exit(1)
	}
}
