// Command mcpgo is a stranger's server for the auditor:
// github.com/mark3labs/mcp-go (the version go.mod pins) as its README wires
// it, two read-only tools (typed arguments, no validator), served by its
// StreamableHTTPServer at /mcp on 127.0.0.1 (an ephemeral port unless -addr
// names one). It prints its URL as the first line on stdout ("stranger: MCP
// streamable HTTP at URL") and serves until killed. With -stdio it serves
// over mcp-go's stdio server instead (newline-delimited JSON-RPC on stdin
// and stdout) until stdin ends; -stdio -gate puts mcpvalidate in front of
// it (mark3labs.Install and mark3labs.ListenStdio), the guarded stranger
// beside the bare one.
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
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/mark3labs"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "the loopback address to listen on")
	stdio := flag.Bool("stdio", false, "serve over stdin and stdout instead of HTTP")
	gate := flag.Bool("gate", false, "with -stdio: serve through mcpvalidate's stdio gate")
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
	if *stdio {
		var err error
		if *gate {
			// after the tools, as the README has it; the tools' schemas stay
			// as mcp-go builds them (open to other members), named so
			v, verr := mark3labs.Install(s, &mcpvalidate.Options{OpenTools: []string{"lookup", "count"}})
			if verr != nil {
				fmt.Fprintln(os.Stderr, "mcpgo:", verr)
				os.Exit(1)
			}
			err = mark3labs.ListenStdio(context.Background(), server.NewStdioServer(s), v, nil, nil)
		} else {
			err = server.NewStdioServer(s).Listen(context.Background(), os.Stdin, os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpgo:", err)
		}
		return
	}
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
