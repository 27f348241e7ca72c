package mcpvalidate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
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
// A client may send requests without waiting for answers, so a connection
// admits them under an in-flight budget, as the HTTP front gate does: each
// request is weighed by its line's length (bounds.Request) and holds its
// weight until the server writes the answer with its id; one that finds no
// room within bounds.DefaultMaxWait is answered -32000 (bound
// in-flight-budget) and the connection goes on. The budget is one request at
// the frame cap and bounds.DefaultSmallReserve of small ones, so a
// connection holds at most bounds.Stdio(v.MaxBodyBytes(), limits) beside the
// process's own bounds.Baseline. Connect sets the Go runtime's soft memory
// limit to that sum, less the executable's size, unless GOMEMLIMIT (or an
// earlier call) set one, as Handler.Harden does.
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
	v    *Validator
	in   io.Reader
	out  io.Writer
	wait time.Duration // how long a request waits for room; 0: bounds.DefaultMaxWait
}

// Connect starts a connection over the transport's reader and writer.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	r, w, err := t.v.stdioGate(t.in, t.out, t.wait)
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
func (v *Validator) stdioGate(in io.Reader, out io.Writer, wait time.Duration) (io.ReadCloser, io.WriteCloser, error) {
	env, err := v.envelopeGate()
	if err != nil {
		return nil, nil, err
	}
	budget, err := v.newInFlight(v.defaultInFlightBytes())
	if err != nil {
		return nil, nil, err
	}
	if debug.SetMemoryLimit(-1) == maxMemoryLimit {
		debug.SetMemoryLimit(softLimit(v.stdioCeiling()))
	}
	if wait <= 0 {
		wait = defaultMaxWait
	}
	s := &stdioSession{budget: budget, wait: wait, held: map[requestID]heldGrants{}}
	w := &answerWriter{w: out, s: s}
	ctx, cancel := context.WithCancel(context.Background())
	g := &gatedLines{v: v, env: env, in: in, rd: bufio.NewReaderSize(in, stdioChunk), out: w, s: s, ctx: ctx, cancel: cancel}
	return g, w, nil
}

// stdioCeiling is the most a process serving one stdio connection holds:
// the connection's share and the process's baseline.
func (v *Validator) stdioCeiling() int64 {
	return bounds.Stdio(v.body.Cap, v.cfg.limits) + bounds.Baseline
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
	out     *answerWriter
	s       *stdioSession
	ctx     context.Context // ends when the connection closes: a wait for room ends with it
	cancel  context.CancelFunc
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
	g.cancel()
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
	if e.method.ok() && e.id.ok() && !g.admit(&e, len(msg)) {
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

// admit takes in-flight room for a request of n bytes, waiting up to
// bounds.DefaultMaxWait, and holds it until the server answers its id; with
// no room it answers the request itself.
func (g *gatedLines) admit(e *envelope, n int) bool {
	weight := requestWeight(int64(n), g.v.cfg.limits)
	key := idKey(e.body[e.id.at:e.id.end])
	initialize := e.methodIs("initialize")
	requested := ""
	if initialize {
		requested = requestedVersion(e.body[e.params.at:e.params.end])
	}
	if g.s.tryHold(key, initialize, requested, weight) {
		return true
	}
	ctx, cancel := context.WithTimeout(g.ctx, g.s.wait)
	grant, err := g.s.budget.acquire(ctx, weight)
	cancel()
	if err != nil {
		f := &requestRefusal{Status: http.StatusServiceUnavailable, Code: codeServerBusy,
			Bound: "in-flight-budget", Limit: g.s.budget.Total(), Unit: "bytes", Offset: -1}
		f.id = e.body[e.id.at:e.id.end]
		g.refuse(f, e)
		return false
	}
	g.s.hold(key, initialize, requested, grant)
	return true
}

// refuse answers f on the output, as the front gate answers over HTTP.
func (g *gatedLines) refuse(f *requestRefusal, e *envelope) {
	f.complete = g.s.stampsComplete()
	g.v.noteFront(context.Background(), f, e)
	g.out.writeRefusal(append(f.AppendJSON(nil), '\n'))
}

// shrink lets a buffer grown by one large line go before the next line, so
// that a session does not keep a frame's worth of memory for the rest of
// its life.
func (g *gatedLines) shrink() {
	if cap(g.line) > stdioChunk {
		g.line = nil
	}
}

// stdioSession is what a gated connection keeps between its lines and its
// answers: the in-flight room each request holds until its answer is
// written, and the protocol version the server negotiated.
//
// The budget's mutex guards the session too: a request takes its room and
// is recorded as held in one critical section, and its answer gives both
// back in one, so that the reading and the writing goroutine, usually on
// different threads, share one lock a request, not three.
type stdioSession struct {
	budget *inFlight
	wait   time.Duration // how long a request waits for room

	// guarded by budget.mu
	held      map[requestID]heldGrants // by id key
	initID    requestID                // the id key of an initialize awaiting its answer; zero: none
	requested string                   // the protocol version that initialize asked for
	version   string                   // the version asked for, once the server accepted it
}

// heldGrants are the grants of the requests in flight under one id, oldest
// first: one, unless a client reused an id before its answer.
type heldGrants struct {
	first inFlightGrant
	more  []inFlightGrant
}

// tryHold takes weight of the budget now, if it has room, and holds it
// until the answer to the request with id key is written.
func (s *stdioSession) tryHold(key requestID, initialize bool, requested string, weight int64) bool {
	b := s.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	grant := inFlightGrant{}
	if weight > 0 {
		fromRes, ok := b.tryLocked(weight)
		if !ok {
			return false
		}
		grant = inFlightGrant{b, weight, fromRes}
	}
	s.holdLocked(key, initialize, requested, grant)
	return true
}

// hold keeps grant until the answer to the request with id key is written.
func (s *stdioSession) hold(key requestID, initialize bool, requested string, grant inFlightGrant) {
	s.budget.mu.Lock()
	defer s.budget.mu.Unlock()
	s.holdLocked(key, initialize, requested, grant)
}

func (s *stdioSession) holdLocked(key requestID, initialize bool, requested string, grant inFlightGrant) {
	h, dup := s.held[key]
	if dup {
		h.more = append(h.more, grant)
	} else {
		h.first = grant
	}
	s.held[key] = h
	if initialize {
		s.initID, s.requested = key, requested
	}
}

// stampsComplete says whether a tool result answered now carries resultType
// "complete": the go-sdk stamps it when the version the client asked for in
// initialize has it (mcp/mrtr.go, clientSupportsMultiRoundTrip); before
// initialize is answered, not, as the HTTP front gate without a version
// header.
func (s *stdioSession) stampsComplete() bool {
	s.budget.mu.Lock()
	defer s.budget.mu.Unlock()
	return s.version >= multiRoundTripVersion
}

// answered releases what the request msg answers held. msg is one whole
// message the server wrote; the go-sdk and mcp-go write a response's id
// before its result or error, so only its first members are read.
func (s *stdioSession) answered(msg []byte) {
	id, result, ok := sdkResponseID(msg)
	if !ok {
		// Not a response as the SDKs write one: worth decoding only when
		// some request waits for its answer.
		s.budget.mu.Lock()
		waiting := len(s.held) > 0
		s.budget.mu.Unlock()
		if !waiting {
			return
		}
		if id, result, ok = decodedResponseID(msg); !ok {
			return
		}
	}
	key := idKey(id)
	s.budget.mu.Lock()
	defer s.budget.mu.Unlock()
	var grant inFlightGrant
	if h, ok := s.held[key]; ok {
		grant = h.first
		if len(h.more) == 0 {
			delete(s.held, key)
		} else {
			s.held[key] = heldGrants{first: h.more[0], more: h.more[1:]}
		}
	}
	if key == s.initID { // never the zero value: every id has a kind
		if result {
			s.version = s.requested
		}
		s.initID = requestID{}
	}
	grant.releaseLocked()
}

// requestedVersion is the protocolVersion an initialize's params ask for.
func requestedVersion(params []byte) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p)
	return p.ProtocolVersion
}

// decodedResponseID is the id of msg when msg is a response (an id, then a
// result or an error, before any method), and whether it is a result, for
// any spelling of it; read token by token so that a large result is not
// scanned. sdkResponseID reads the SDKs' own spelling without a decoder.
func decodedResponseID(msg []byte) (id json.RawMessage, result, ok bool) {
	// A notification the SDKs write (progress, logging, list changes) opens
	// with its method: not a response, and not worth a decoder.
	if bytes.HasPrefix(msg, []byte(`{"jsonrpc":"2.0","method":`)) {
		return nil, false, false
	}
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false, false
		}
		switch t {
		case "id":
			if dec.Decode(&id) != nil {
				return nil, false, false
			}
		case "result", "error":
			return id, t == "result", len(id) > 0
		case "method":
			return nil, false, false // a request or notification of the server's
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil, false, false
			}
		}
	}
	return nil, false, false
}

// sdkResponseID reads the id of a response written the way the go-sdk and
// mcp-go write one — `{"jsonrpc":"2.0","id":` an integer or a string
// without escapes, then `,"result"` or `,"error"` — without a decoder. Any
// other spelling is not ok, and decodedResponseID decodes it.
func sdkResponseID(msg []byte) (id []byte, result, ok bool) {
	const head = `{"jsonrpc":"2.0","id":`
	rest, found := bytes.CutPrefix(msg, []byte(head))
	if !found || len(rest) == 0 {
		return nil, false, false
	}
	n := 0
	if rest[0] == '"' {
		end := bytes.IndexByte(rest[1:], '"')
		if end < 0 || bytes.IndexByte(rest[1:1+end], '\\') >= 0 {
			return nil, false, false
		}
		n = end + 2
	} else {
		for n < len(rest) && (rest[n] == '-' || '0' <= rest[n] && rest[n] <= '9') {
			n++
		}
	}
	if n == 0 {
		return nil, false, false
	}
	switch after := rest[n:]; {
	case bytes.HasPrefix(after, []byte(`,"result":`)):
		return rest[:n], true, true
	case bytes.HasPrefix(after, []byte(`,"error":`)):
		return rest[:n], false, true
	}
	return nil, false, false
}

// requestID is an id's identity whatever its spelling: a number's value
// (kept as a number, so that the common id costs no allocation), a
// string's decoded text (the SDK writes the id back as it decoded it), or
// else the raw token.
type requestID struct {
	kind byte // 'n', 's' or 'r'; 0 in the zero value, which no id has
	n    int64
	s    string
}

// idKey is the identity of the id whose raw token is tok.
func idKey(tok []byte) requestID {
	if len(tok) > 0 && tok[0] == '"' {
		var s string
		if json.Unmarshal(tok, &s) == nil {
			return requestID{kind: 's', s: s}
		}
		return requestID{kind: 'r', s: string(tok)}
	}
	if n, err := strconv.ParseInt(string(tok), 10, 64); err == nil {
		return requestID{kind: 'n', n: n}
	}
	return requestID{kind: 'r', s: string(tok)}
}

// answerWriter makes each Write whole on a writer two goroutines share —
// the SDK writes a message a call, and so does the gate — and releases
// what a request held as the server's answer to it is written.
type answerWriter struct {
	mu sync.Mutex
	w  io.Writer
	s  *stdioSession
}

func (a *answerWriter) Write(p []byte) (int, error) {
	// Before the write: a client that reads this answer finds its request's
	// room, and the version initialize agreed, already taken into account.
	a.s.answered(p)
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.w.Write(p)
}

// writeRefusal writes the gate's own answer, which releases nothing: the
// request it answers was never admitted.
func (a *answerWriter) writeRefusal(p []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, _ = a.w.Write(p)
}

// Close leaves the output open: it is the process's, as the SDK's
// StdioTransport leaves os.Stdout.
func (a *answerWriter) Close() error { return nil }
