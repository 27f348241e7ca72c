package mark3labs

import (
	"context"
	"io"
	"os"

	"github.com/mark3labs/mcp-go/server"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/internal/inspect"
)

// ListenStdio runs srv.Listen on newline-delimited JSON-RPC from in to out
// (nil: os.Stdin and os.Stdout), with v's front gate in front as
// mcpvalidate.Validator.StdioTransport puts it in front of a go-sdk server:
// each line bounded by the frame cap and scanned once before mcp-go reads
// it, a refused line answered by the gate, the session going on. It returns
// when ctx ends or the input does.
//
// srv is the server's own StdioServer, with whatever it set on it (a context
// function, an error logger, its worker pool): ListenStdio stands where the
// server called srv.Listen(ctx, in, out).
//
//	err := mark3labs.ListenStdio(ctx, server.NewStdioServer(s), v, nil, nil)
func ListenStdio(ctx context.Context, srv *server.StdioServer, v *mcpvalidate.Validator, in io.Reader, out io.Writer) error {
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
	return srv.Listen(ctx, r, w)
}
