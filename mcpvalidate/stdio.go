package mcpvalidate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/charge"
)

// StdioTransport is the go-sdk's transport over newline-delimited JSON-RPC
// on in and out (nil: os.Stdin and os.Stdout), with the front gate in front
// of it: each line is bounded by the frame cap (MaxBodyBytes, the same
// derivation as the HTTP body cap) and scanned once, as the front gate scans
// an HTTP body, before the SDK reads it. A line the gate refuses is answered
// on out by the gate — a JSON-RPC error (or, when only the arguments failed,
// the middleware's tool result), with the id when it was read and checked,
// never the caller's bytes — and the session goes on; a line past the cap is
// skipped to its newline without being held. What the SDK reads is, line for
// line, what the client sent, less any whitespace between a message and its
// line's end (which the go-sdk's reader would take for trailing data).
//
//	err := server.Run(ctx, v.StdioTransport(nil, nil))
func (v *Validator) StdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	return &stdioTransport{v: v, in: in, out: out}
}

type stdioTransport struct {
	v   *Validator
	in  io.Reader
	out io.Writer
}

// Connect starts a connection over the transport's reader and writer.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	r, w, err := t.v.stdioGate(t.in, t.out)
	if err != nil {
		return nil, err
	}
	// The SDK's own line bound sits past the gate's, so it never meets a
	// line the gate admitted: +2 for a CRLF.
	inner := &mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: int(t.v.body.Cap) + 2}
	return inner.Connect(ctx)
}

// stdioGate is the gated pair a stdio server reads and writes through: the
// lines the gate admits, and out shared by the gate's answers and the
// server's, one whole message a write.
func (v *Validator) stdioGate(in io.Reader, out io.Writer) (io.ReadCloser, io.WriteCloser, error) {
	env, err := v.envelopeGate()
	if err != nil {
		return nil, nil, err
	}
	w := &lockedWriter{w: out}
	return &gatedLines{v: v, env: env, in: in, rd: bufio.NewReaderSize(in, stdioChunk), out: w}, w, nil
}

// stdioChunk is how much of a line is read at once: a line longer than the
// frame cap is discarded a chunk at a time, never held whole.
const stdioChunk = 64 << 10

// gatedLines reads newline-delimited messages from in and hands the SDK the
// ones the gate admits, each with its newline, byte for byte.
type gatedLines struct {
	v       *Validator
	env     *charge.Gate
	in      io.Reader
	rd      *bufio.Reader
	out     *lockedWriter
	line    []byte // the line being read, then handed over
	pending []byte // what is left of an admitted line for the SDK to read
	err     error  // the input's end, returned once pending is read
}

// Read gives the SDK the admitted lines in order.
func (g *gatedLines) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.next()
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// Close closes the input when it can be closed.
func (g *gatedLines) Close() error {
	if c, ok := g.in.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// next reads one line and admits it to pending, answers it, or records
// the input's end.
func (g *gatedLines) next() {
	limit := g.v.body.Cap
	g.shrink()
	g.line = g.line[:0]
	over := false
	for {
		chunk, err := g.rd.ReadSlice('\n')
		if !over {
			if int64(len(g.line)+len(chunk)) > limit+int64(len(crlf(chunk))) {
				over = true
				g.line = g.line[:0]
			} else {
				g.line = grow(g.line, len(chunk), limit+2)
				g.line = append(g.line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			g.err = err
			if errors.Is(err, io.EOF) && len(g.line) == 0 && !over {
				return
			}
		}
		break
	}
	if over {
		g.refuse(&requestRefusal{Status: http.StatusRequestEntityTooLarge, Code: codeInvalidRequest,
			Bound: "body-bytes", Limit: limit, Unit: "bytes", Offset: -1}, nil)
		return
	}
	msg := bytes.TrimRight(g.line, "\r\n")
	if len(bytes.TrimLeft(msg, " \t\r")) == 0 {
		g.pending = g.line // a blank line: the SDK skips it as JSON whitespace
		return
	}
	e, serr := scanEnvelope(msg, g.env, g.v.gate)
	if serr != nil {
		g.refuse(frontRefusal(serr, &e), &e)
		return
	}
	g.pending = g.line
	if body := bytes.TrimRight(msg, " \t\r"); len(body) < len(msg) {
		// JSON whitespace after the message is valid, but the go-sdk's
		// reader takes a space or tab there for trailing data and ends the
		// session: the SDK gets the message and the line's ending alone.
		end := copy(g.line[len(body):], g.line[len(msg):])
		g.pending = g.line[:len(body)+end]
	}
}

// grow makes room for n more bytes in b, doubling, never past most: a line
// near the frame cap costs about twice the cap in allocations, not the five
// times append's slower growth of large slices would.
func grow(b []byte, n int, most int64) []byte {
	if len(b)+n <= cap(b) {
		return b
	}
	c := int64(max(2*cap(b), len(b)+n, stdioChunk))
	c = min(c, max(most, int64(len(b)+n)))
	nb := make([]byte, len(b), c)
	copy(nb, b)
	return nb
}

// crlf is the line ending chunk ends with, which the frame cap does not
// count.
func crlf(chunk []byte) []byte {
	n := len(chunk)
	switch {
	case n >= 2 && chunk[n-2] == '\r' && chunk[n-1] == '\n':
		return chunk[n-2:]
	case n >= 1 && chunk[n-1] == '\n':
		return chunk[n-1:]
	}
	return nil
}

// refuse answers f on the output, as the front gate answers over HTTP.
func (g *gatedLines) refuse(f *requestRefusal, e *envelope) {
	g.v.noteFront(context.Background(), f, e)
	_, _ = g.out.Write(append(f.AppendJSON(nil), '\n'))
}

// shrink lets a buffer grown by one large line go before the next line, so
// that a session does not keep a frame's worth of memory for the rest of
// its life.
func (g *gatedLines) shrink() {
	if cap(g.line) > stdioChunk {
		g.line = nil
	}
}

// lockedWriter makes each Write whole on a writer two goroutines share: the
// SDK writes a message a call, and so does the gate.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves the output open: it is the process's, as the SDK's
// StdioTransport leaves os.Stdout.
func (l *lockedWriter) Close() error { return nil }
