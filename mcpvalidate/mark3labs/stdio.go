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
	lines := newLongLivedReader(r)
	defer lines.stop()
	return srv.Listen(ctx, lines, w)
}

// longLivedReader runs every Read of r on one goroutine that lives as long as
// the connection. mcp-go reads each line on a goroutine of its own
// (StdioServer.readNextLine), whose stack starts small; the gate's scan of
// the line needs a larger one, and growing a new goroutine's stack for
// every line (copying it twice) cost more CPU than the scan itself. The
// goroutine here grows its stack once.
type longLivedReader struct {
	reads   chan []byte
	results chan readResult
	done    chan struct{}
}

type readResult struct {
	n   int
	err error
}

func newLongLivedReader(r io.Reader) *longLivedReader {
	g := &longLivedReader{reads: make(chan []byte), results: make(chan readResult, 1), done: make(chan struct{})}
	go func() {
		for {
			select {
			case p := <-g.reads:
				n, err := r.Read(p)
				g.results <- readResult{n, err}
			case <-g.done:
				return
			}
		}
	}()
	return g
}

// Read hands p to the reading goroutine and waits for its result: once
// taken, p is written until the result comes, so the wait is unconditional.
func (g *longLivedReader) Read(p []byte) (int, error) {
	select {
	case g.reads <- p:
	case <-g.done:
		return 0, io.ErrClosedPipe
	}
	res := <-g.results
	return res.n, res.err
}

// stop ends the reading goroutine once it is not reading (a read under way
// ends with the input).
func (g *longLivedReader) stop() { close(g.done) }
