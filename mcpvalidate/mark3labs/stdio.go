package mark3labs

import (
	"context"
	"io"
	"os"

	"github.com/mark3labs/mcp-go/server"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/internal/inspect"
)

// ListenStdio serves s over newline-delimited JSON-RPC on in and out (nil:
// os.Stdin and os.Stdout), with v's front gate in front as
// mcpvalidate.Validator.StdioTransport puts it in front of a go-sdk server:
// each line bounded by the frame cap and scanned once before mcp-go reads
// it, a refused line answered by the gate, the session going on. It returns
// when ctx ends or the input does.
//
//	err := mark3labs.ListenStdio(ctx, s, v, nil, nil)
func ListenStdio(ctx context.Context, s *server.MCPServer, v *mcpvalidate.Validator, in io.Reader, out io.Writer) error {
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	r, w, err := inspect.StdioGate(v, in, out)
	if err != nil {
		return err
	}
	return server.NewStdioServer(s).Listen(ctx, r, w)
}
