package mark3labs

import (
	"context"
	"io"
	"os"
	"runtime"

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
	ahead := readAhead(r)
	defer ahead.stop()
	return srv.Listen(ctx, ahead, w)
}

// aheadReader reads the gate on a goroutine of its own, one chunk ahead of
// mcp-go. mcp-go reads each line on a new goroutine
// (StdioServer.readNextLine). Were that goroutine to read the gate itself,
// its small new stack would be grown for the gate's scan on every line,
// and it would wait for the next line in a read of the input. Here the
// scan runs on a stack grown once for the session, and mcp-go's goroutine
// waits on a channel: over stdio, the patched mcp-grafana then spends less
// CPU a call than the unpatched one (docs/adopters.md, "The cost").
type aheadReader struct {
	chunks  chan chunk
	done    chan struct{} // closed when the session is over
	pending []byte        // what is left of the chunk being read
	err     error         // the gate's error, returned once pending is read
}

// chunk is one Read of the gate: its bytes, and its error.
type chunk struct {
	b   []byte
	err error
}

// aheadChunk is the most one Read of the gate gives: mcp-go's own read
// buffer is as large (bufio's default), so a line that fits it is one
// hand-over.
const aheadChunk = 4096

func readAhead(r io.Reader) *aheadReader {
	a := &aheadReader{chunks: make(chan chunk), done: make(chan struct{})}
	go a.run(r)
	return a
}

// run reads r into two buffers in turn. The chunk in one is handed over
// while the next Read fills the other; a buffer is filled again only once
// the chunk after it has been handed over, and mcp-go takes a chunk only
// when it has read all of the one before, so it is never written while
// mcp-go reads it.
func (a *aheadReader) run(r io.Reader) {
	defer close(a.chunks)
	var bufs [2][aheadChunk]byte
	for k := 0; ; k ^= 1 {
		n, err := r.Read(bufs[k][:])
		select {
		case a.chunks <- chunk{bufs[k][:n], err}:
		case <-a.done:
			return
		}
		if err != nil {
			return
		}
		select {
		case <-a.done: // stopped as the chunk was taken: no further Read of the input
			return
		default:
		}
		// mcp-go's goroutine, woken by the hand-over, runs on this thread
		// before the next Read waits for input; without the yield it is
		// left for another thread to take up, which measured dearer than
		// the stack growth this reader saves (docs/adopters.md).
		runtime.Gosched()
	}
}

// Read gives mcp-go what the gate admitted, in order.
func (a *aheadReader) Read(p []byte) (int, error) {
	for len(a.pending) == 0 {
		if a.err != nil {
			return 0, a.err
		}
		c, ok := <-a.chunks
		if !ok {
			a.err = io.EOF // the session is over
			continue
		}
		a.pending, a.err = c.b, c.err
	}
	n := copy(p, a.pending)
	a.pending = a.pending[n:]
	return n, nil
}

// stop ends the reading goroutine once its Read of the gate returns: at
// once when it waits to hand a chunk over, else when the input next gives
// a line or ends (a Read of the input cannot be interrupted, as mcp-go's
// own is not). A goroutine of mcp-go's still waiting in Read then sees
// io.EOF.
func (a *aheadReader) stop() { close(a.done) }
