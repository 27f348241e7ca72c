package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
)

// SearchIn is the tool's input. mcpvalidate.AddTool infers its JSON Schema as
// the go-sdk does (closed to other members), tightens it to what the Go type
// can hold (limit within int's range) and publishes that in tools/list: the
// contract enforced.
type SearchIn struct {
	Query string   `json:"query" jsonschema:"the text to look for"`
	Limit int      `json:"limit,omitempty" jsonschema:"at most this many hits"`
	Tags  []string `json:"tags,omitempty" jsonschema:"only notes with every one of these tags"`
}

func search(_ context.Context, _ *mcp.CallToolRequest, in SearchIn) (*mcp.CallToolResult, any, error) {
	text := fmt.Sprintf("no note matches a %d-byte query", len(in.Query))
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the address to listen on")
	flag.Parse()
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0.1.0"}, nil)
	mcpvalidate.AddTool(server, &mcp.Tool{Name: "search", Description: "Search the notes."}, search) // publishes and enforces SearchIn's Go domain

	v, err := mcpvalidate.Install(server, nil) // after the tools: each call is checked against what tools/list publishes
	if err != nil {
		log.Fatal(err)
	}
	// The go-sdk's streamable handler, with the derived body cap, behind the
	// front gate: body, envelope, memory in flight, sessions and streams
	// bounded before the SDK reads.
	h, err := v.Handler(func(*http.Request) *mcp.Server { return server }, nil)
	if err != nil {
		log.Fatal(err)
	}
	// ListenAndServe serves /mcp with open connections weighed too (idle
	// ones closed first): the process stays under h.Ceiling().
	log.Printf("serving MCP at http://%s/mcp (memory ceiling %d bytes)", *addr, h.Ceiling())
	log.Fatal(h.ListenAndServe(*addr))
}
