package mcpvalidate

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/theurian/boundlab/charge"
)

// defaultInFlightBytes is the in-flight budget a front gate builds when it is
// given none: one request at the body cap, plus defaultSmallReserve for
// small calls beside it.
func (v *Validator) defaultInFlightBytes() int64 {
	return requestWeight(v.body.Cap, v.cfg.limits) + defaultSmallReserve
}

// newInFlight builds a budget of total bytes with the default small lane (a
// defaultSmallReserve reserve for bodies up to defaultSmallBody), weighed
// under v's limits.
func (v *Validator) newInFlight(total int64) (*inFlight, error) {
	return newInFlight(total, defaultSmallReserve, requestWeight(defaultSmallBody, v.cfg.limits))
}

// frontGateOptions configure frontGate. The zero value is the defaults.
type frontGateOptions struct {
	// inFlight is the process's in-flight memory budget, shared by every
	// front gate of the process; nil builds one of v.defaultInFlightBytes()
	// for this gate.
	inFlight *inFlight
	// MaxWait is how long a request waits for in-flight room before a 503
	// with Retry-After (0: 5 s).
	MaxWait time.Duration
	// BodyReadBase and MinBodyRate set a body read's deadline, BodyReadBase
	// + length / MinBodyRate (0: 10 s and 1 MiB/s), so a client trickling
	// its body holds its weight for a bounded time.
	BodyReadBase time.Duration
	MinBodyRate  int64

	// What requests leave behind (stateful mode; see "Sessions" in the
	// package doc).
	//
	// Stateless says next serves statelessly (StreamableHTTPOptions.Stateless):
	// the gate keeps no session table and passes Mcp-Session-Id through.
	Stateless bool
	// SessionBytes is the memory the session table holds: a session weighs
	// a measured cost with its first GET stream, each further open stream a
	// measured cost more (the weights and defaults of these fields: the
	// package's docs, "What a request leaves behind"). 0: the default.
	SessionBytes int64
	// SessionIdle closes a session after this long without a request or a
	// stream write (0: the default; negative: never). Set the SDK's
	// StreamableHTTPOptions.SessionTimeout to it too (v.StreamableHTTPOptions).
	SessionIdle time.Duration
	// StreamsPerSession bounds one session's open GET streams (0: the
	// default).
	StreamsPerSession int
	// StreamIdle is how long a stream that writes nothing keeps its session
	// from being closed to admit another (0: the default).
	StreamIdle time.Duration
}

// frontGate is the HTTP handler in front of an MCP server's streamable HTTP
// handler: it bounds the whole request before the SDK decodes a byte.
type frontGate struct {
	v        *Validator
	next     http.Handler
	budget   *inFlight
	env      *charge.Gate
	maxWait  time.Duration
	base     time.Duration
	rate     int64
	bufs     sync.Pool     // *pooledBody
	sessions *sessionTable // nil: stateless
}

// pooledBody is a body buffer and the reader the SDK reads it through,
// reused across requests so a gated request allocates neither.
type pooledBody struct {
	buf []byte
	rd  bytes.Reader
}

func (p *pooledBody) Read(b []byte) (int, error) { return p.rd.Read(b) }
func (p *pooledBody) Close() error               { return nil }

// frontGate wraps next, the go-sdk's streamable HTTP handler (or any MCP
// HTTP handler), in the front gate (see the package doc, "The front gate").
// It fails when the budget cannot admit one request at the body cap.
//
//	h, err := v.frontGate(mcp.NewStreamableHTTPHandler(getServer, opts), nil)
func (v *Validator) frontGate(next http.Handler, o *frontGateOptions) (*frontGate, error) {
	if o == nil {
		o = &frontGateOptions{}
	}
	env, err := v.envelopeGate()
	if err != nil {
		return nil, err
	}
	fg := &frontGate{v: v, next: next, budget: o.inFlight, env: env,
		maxWait: o.MaxWait, base: o.BodyReadBase, rate: o.MinBodyRate}
	if fg.budget == nil {
		if fg.budget, err = v.newInFlight(v.defaultInFlightBytes()); err != nil {
			return nil, err
		}
	}
	if w := fg.weight(v.body.Cap); w > fg.budget.General() {
		return nil, errors.New("mcpvalidate: front gate: the in-flight budget (" + strconv.FormatInt(fg.budget.General(), 10) +
			" bytes beyond the small reserve) cannot admit one request at the body cap, which weighs " + strconv.FormatInt(w, 10))
	}
	if fg.maxWait <= 0 {
		fg.maxWait = defaultMaxWait
	}
	if fg.base <= 0 {
		fg.base = defaultBodyReadBase
	}
	if fg.rate <= 0 {
		fg.rate = defaultMinBodyRate
	}
	if !o.Stateless {
		if fg.sessions, err = newSessionTable(fg, o); err != nil {
			return nil, err
		}
	}
	return fg, nil
}

// inFlight is the in-flight memory budget the gate admits against.
func (fg *frontGate) inFlight() *inFlight { return fg.budget }

// weight is what a request with a body of n bytes is weighed at under the
// validator's limits.
func (fg *frontGate) weight(n int64) int64 { return requestWeight(n, fg.v.cfg.limits) }

// CheckRequest answers one JSON-RPC message (an HTTP POST body, or a line
// over stdio) as a protected server would, without HTTP or the SDK: nil when
// it would reach the SDK (and, for a tools/call, the handler), else a
// *Refusal — by the front gate (the body cap, the envelope, the arguments'
// charge) or by the middleware (the schema). The refusal hook sees it as it
// would served. What it cannot see is what depends on the process: the
// in-flight budget, the read deadline, sessions.
func (v *Validator) CheckRequest(ctx context.Context, body []byte) error {
	if err := v.checkRequest(ctx, body); err != nil {
		switch r := err.(type) {
		case *requestRefusal:
			return r.public()
		case *callRefusal:
			return r.public()
		}
		return err
	}
	return nil
}

// checkRequest is CheckRequest with the refusals' own types.
func (v *Validator) checkRequest(ctx context.Context, body []byte) error {
	if int64(len(body)) > v.body.Cap {
		f := &requestRefusal{Status: http.StatusRequestEntityTooLarge, Code: codeInvalidRequest,
			Bound: "body-bytes", Limit: v.body.Cap, Unit: "bytes", Offset: -1}
		v.noteFront(ctx, f, nil)
		return f
	}
	env, err := v.envelopeGate()
	if err != nil {
		return err
	}
	e, serr := scanEnvelope(body, env, v.gate)
	if serr != nil {
		f := frontRefusal(serr, &e)
		v.noteFront(ctx, f, &e)
		return f
	}
	if !e.IsToolCall() {
		return nil
	}
	if r := v.refusal(ctx, e.Tool(), e.Arguments()); r != nil {
		return r
	}
	return nil
}

// envelopeGate is the gate the front gate reads a message's frame with.
func (v *Validator) envelopeGate() (*charge.Gate, error) {
	return charge.NewGate(charge.Go, envelopeLimits(v.cfg.limits))
}

// ServeHTTP gates POST requests; every other method passes through (they
// carry no body the SDK reads), past the session table.
func (fg *frontGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if fg.sessions != nil && fg.sessions.refuseUnknown(w, r) {
		return
	}
	if r.Method != http.MethodPost {
		fg.pass(w, r, nil)
		return
	}
	limit := fg.v.body.Cap
	if r.ContentLength > limit {
		fg.write(w, r, &requestRefusal{Status: http.StatusRequestEntityTooLarge, Code: codeInvalidRequest,
			Bound: "body-bytes", Limit: limit, Unit: "bytes", Offset: -1}, nil)
		return
	}
	declared := r.ContentLength
	if declared < 0 {
		declared = limit // unknown length: weighed at the cap
	}
	grant, ok := fg.budget.tryAcquire(fg.weight(declared))
	if !ok {
		ctx, cancel := context.WithTimeout(r.Context(), fg.maxWait)
		var err error
		grant, err = fg.budget.acquire(ctx, fg.weight(declared))
		cancel()
		if err != nil {
			w.Header().Set("Retry-After", strconv.Itoa(int(max(1, fg.maxWait/time.Second))))
			fg.write(w, r, &requestRefusal{Status: http.StatusServiceUnavailable, Code: codeServerBusy,
				Bound: "in-flight-budget", Limit: fg.budget.Total(), Unit: "bytes", Offset: -1}, nil)
			return
		}
	}
	defer grant.Release() // also when next panics or the client goes away

	body, status := fg.read(w, r, declared, limit)
	if body == nil {
		if status != 0 {
			fg.write(w, r, &requestRefusal{Status: status, Code: codeInvalidRequest, Bound: boundOf(status), Limit: limit, Unit: "bytes", Offset: -1}, nil)
		}
		return
	}
	defer fg.bufs.Put(body)
	e, gerr := scanEnvelope(body.buf, fg.env, fg.v.gate)
	if gerr != nil {
		fg.write(w, r, frontRefusal(gerr, &e), &e)
		return
	}
	if e.IsToolCall() && e.arguments.ok() {
		// The middleware of this request finds the gate's verdict on these
		// bytes instead of charging them again (charged.go). Deferred after
		// the buffer's Put, so it runs before it.
		defer fg.v.charged.add(e.Arguments(), e.argsRep.Nodes)()
	}
	// The same bytes, not a copy: the SDK reads them from the pooled buffer,
	// which goes back to the pool only after it returns.
	body.rd.Reset(body.buf)
	r.Body, r.ContentLength = body, int64(len(body.buf))
	fg.pass(w, r, &e)
}

func boundOf(status int) string {
	if status == http.StatusRequestTimeout {
		return "body-read-deadline"
	}
	return "body-bytes"
}

// unknownLengthStart is the first buffer a body of unknown length gets.
const unknownLengthStart = 64 << 10

// read reads the body into a pooled buffer under a deadline. It returns nil
// and the status to refuse with (0: the client is gone, answer nothing).
func (fg *frontGate) read(w http.ResponseWriter, r *http.Request, declared, limit int64) (*pooledBody, int) {
	rc := http.NewResponseController(w)
	deadline := fg.base + time.Duration(declared/fg.rate)*time.Second
	_ = rc.SetReadDeadline(time.Now().Add(deadline)) // unsupported writers keep the server's timeouts
	defer rc.SetReadDeadline(time.Time{})

	bp, _ := fg.bufs.Get().(*pooledBody)
	if bp == nil {
		bp = new(pooledBody)
	}
	buf := bp.buf[:0]
	// A declared length is allocated once; a body of unknown length (weighed
	// at the cap) starts small and grows as it arrives, so a short chunked
	// body does not cost a cap-sized buffer.
	want := declared + 1
	if r.ContentLength < 0 {
		want = min(want, unknownLengthStart)
	}
	if int64(cap(buf)) < want {
		buf = make([]byte, 0, want)
	}
	for {
		if int64(len(buf)) > limit {
			bp.buf = buf[:0]
			fg.bufs.Put(bp)
			return nil, http.StatusRequestEntityTooLarge
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grow: only a body without Content-Length
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			bp.buf = buf[:0]
			fg.bufs.Put(bp)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return nil, http.StatusRequestTimeout
			}
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, http.StatusRequestEntityTooLarge
			}
			return nil, 0
		}
	}
	bp.buf = buf
	return bp, 0
}
