// Command mcpgo is a stranger's server for the auditor:
// github.com/mark3labs/mcp-go (the version go.mod pins) as its README wires
// it, two read-only tools (typed arguments, no validator), served by its
// StreamableHTTPServer at /mcp on 127.0.0.1 (an ephemeral port unless -addr
// names one). It prints its URL as the first line on stdout ("stranger: MCP
// streamable HTTP at URL") and serves until killed.
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

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "the loopback address to listen on")
	flag.Parse()
	if host, _, err := net.SplitHostPort(*addr); err != nil || host != "127.0.0.1" {
		fmt.Fprintln(os.Stderr, "mcpgo: -addr must be 127.0.0.1:PORT (loopback only)")
		os.Exit(2)
	}
	s := server.NewMCPServer("stranger-mcpgo", "v0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("lookup", mcp.WithDescription("look a key up"),
		mcp.WithString("key", mcp.Required(), mcp.Description("the key to look up")),
		mcp.WithReadOnlyHintAnnotation(true),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("found nothing"), nil
	})
	s.AddTool(mcp.NewTool("count", mcp.WithDescription("count to n"),
		mcp.WithNumber("n", mcp.Required(), mcp.Description("how many to count")),
		mcp.WithString("label", mcp.Description("an optional label")),
		mcp.WithReadOnlyHintAnnotation(true),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("counted"), nil
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpgo:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(s))
	fmt.Printf("stranger: MCP streamable HTTP at http://%s/mcp\n", ln.Addr())
	if err := http.Serve(ln, mux); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgo:", err)
		os.Exit(1)
	}
}
