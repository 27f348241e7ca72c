package mcpvalidatetest_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/mcpvalidatetest"
)

type searchIn struct {
	Query string `json:"query"`
}

func search(context.Context, *mcp.CallToolRequest, searchIn) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{}, nil, nil
}

// In a server's tests: every registered tool has a published schema the
// validator enforces, and none is published for a tool that is not there.
func ExampleCheckCompleteness() {
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0"}, nil)
	mcpvalidate.AddTool(server, &mcp.Tool{Name: "search"}, search)
	v, err := mcpvalidate.Install(server, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(mcpvalidatetest.CheckCompleteness(context.Background(), v, server))
	// Output:
	// <nil>
}

// A typed tool's published schema agrees with the domain of its Go input
// type: nothing published that the type cannot hold.
func ExampleCheckAgreement() {
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0"}, nil)
	mcpvalidate.AddTool(server, &mcp.Tool{Name: "search"}, search)
	v, err := mcpvalidate.Install(server, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(mcpvalidatetest.CheckAgreement(context.Background(), v, server, nil))
	// Output:
	// <nil>
}
