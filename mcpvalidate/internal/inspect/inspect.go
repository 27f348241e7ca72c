// Package inspect lets mcpvalidatetest and the adapters reach what a
// Validator and a server hold without widening mcpvalidate's API:
// mcpvalidate sets each function when it is initialised. Only the product's
// packages can import it.
package inspect

import (
	"context"
	"encoding/json"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	// SchemaSource says where a validator's (a *mcpvalidate.Validator)
	// published schema for tool came from: its schema file, or "tools/list".
	SchemaSource func(v any, tool string) (string, bool)
	// TypeDomain is the decode domain of the Go input type of a tool added
	// to srv with mcpvalidate.AddTool, as one JSON Schema document.
	TypeDomain func(srv *mcp.Server, tool string) (json.RawMessage, bool)
	// ListTools lists srv's tools as a client sees them.
	ListTools func(ctx context.Context, srv *mcp.Server) ([]*mcp.Tool, error)
	// StdioGate is the gated pair a stdio server of another SDK reads and
	// writes through (mcpvalidate's StdioTransport, without the go-sdk).
	StdioGate func(v any, in io.Reader, out io.Writer) (io.ReadCloser, io.WriteCloser, error)
)
