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
	return srv.Listen(ctx, &grownReader{r}, w)
}

// grownReader runs each Read of r on a stack grown first, in one step,
// while it is still shallow. mcp-go reads each line on a goroutine of its
// own (StdioServer.readNextLine), whose stack starts small; the gate's scan
// of the line needs more, and the runtime grew it twice in the middle of
// the scan, copying every frame each time. Growing it once, on entering
// Read, costs a fraction of that: the runtime walks the frames the stack
// holds when it grows, and there are fewest there. It keeps the read on
// mcp-go's goroutine, where a hand-off to a goroutine of the gate's own
// cost two wake-ups a line.
type grownReader struct{ r io.Reader }

// Read's frame holds scanStack bytes it never touches: entering it makes
// the runtime grow the stack to fit, and the scan below runs in what is
// left (the stack grows by doubling, so the reserve takes it from its
// first few KiB to 16 KiB at once, and the scan's frames, about 5 KiB,
// fit beside it).
func (g *grownReader) Read(p []byte) (int, error) {
	if never {
		var reserve [scanStack]byte
		keep(reserve[:])
	}
	return g.r.Read(p)
}

// scanStack is the reserve Read's frame holds.
const scanStack = 7 << 10

// never is false; the compiler cannot prove it, so Read's frame keeps its
// reserve without ever clearing it.
var never = false

//go:noinline
func keep([]byte) {}
