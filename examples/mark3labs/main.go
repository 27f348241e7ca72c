package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/theurian/boundlab/mcpvalidate/mark3labs"
)

// SearchIn is the tool's input: mcp-go infers its JSON Schema (closed to
// other members) and publishes it in tools/list, the contract enforced.
type SearchIn struct {
	Query string   `json:"query" jsonschema:"the text to look for"`
	Limit int      `json:"limit,omitempty" jsonschema:"at most this many hits"`
	Tags  []string `json:"tags,omitempty" jsonschema:"only notes with every one of these tags"`
}

func search(_ context.Context, _ mcp.CallToolRequest, in SearchIn) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText(fmt.Sprintf("no note matches a %d-byte query", len(in.Query))), nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the address to listen on")
	flag.Parse()
	s := server.NewMCPServer("notes", "v0.1.0")
	s.AddTool(mcp.NewTool("search", mcp.WithDescription("Search the notes."), mcp.WithInputSchema[SearchIn]()),
		mcp.NewTypedToolHandler(search))

	v, err := mark3labs.Install(s, nil) // after the tools: each call is checked against what tools/list publishes
	if err != nil {
		log.Fatal(err)
	}
	// mcp-go reads the body with no cap of its own: the front gate caps it at
	// the derived body cap, and bounds the envelope, the memory in flight,
	// sessions and connections.
	h, err := v.Protect(server.NewStreamableHTTPServer(s), nil)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("serving MCP at http://%s/mcp (memory ceiling %d bytes)", *addr, h.Ceiling())
	log.Fatal(h.ListenAndServe(*addr))
}
