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

// What the front gate weighs a request at before reading it: the most
// memory one request through the guarded path (front gate, go-sdk streamable
// HTTP handler, middleware) holds at once, as a fixed cost, a cost per wire
// byte and a cost per JSON node. They are boundlab's measured figures rounded
// up, not derivations: the memory lab's guarded rows (records
// memmodel.go.guarded.*) are re-checked against RequestWeight by `boundlab
// verify`, which fails when a measured row peaks above the weight.
const (
	// RequestPeakFactor is the cost per wire byte. The worst measured
	// single-leaf row peaks under 8x (record memmodel.go.guarded.peak-factor)
	// and the same row has measured up to 10x across fresh processes.
	RequestPeakFactor = 11
	// RequestFixedCost is what a request costs whatever its size: the go-sdk
	// builds a session per stateless request (record
	// memmodel.go.guarded.fixed-cost: under 300 KiB for a 1 KB call).
	RequestFixedCost = 512 << 10
	// RequestNodeCost is the cost per JSON node the SDK and the middleware
	// decode, priced from the costliest node kind measured: a chain of
	// one-member objects at the node bound, about 186 bytes a node, its
	// whole peak counted (record memmodel.go.guarded.node-cost, row
	// chains-at-bound; zeros cost about 50). It keeps at least the margin
	// RequestPeakFactor keeps over its row (TestNodeCostKeepsThePeakFactorsMargin);
	// 288 was the smallest multiple of 32 that did when it was priced.
	RequestNodeCost = 288
)

// RequestWeight is what a request with a body of n bytes is weighed at under
// limits l: RequestFixedCost + RequestPeakFactor×n + RequestNodeCost × the
// most nodes such a body can hold (one per two bytes, at most the arguments'
// node bound plus MaxEnvelopeNodes).
func RequestWeight(n int64, l charge.Limits) int64 {
	n = max(n, 0)
	nodes := min(n/2+1, int64(l.MaxParamsNodes)+MaxEnvelopeNodes)
	return RequestFixedCost + RequestPeakFactor*n + RequestNodeCost*nodes
}

// Front gate defaults.
const (
	// DefaultSmallReserve is the small lane's share of a default budget.
	DefaultSmallReserve = 32 << 20
	// DefaultSmallBody is the largest body the small lane takes.
	DefaultSmallBody = 64 << 10
	// DefaultMaxWait is how long a request waits for budget before a 503.
	DefaultMaxWait = 5 * time.Second
	// DefaultBodyReadBase and DefaultMinBodyRate give a body read its
	// deadline: base + length / rate, so a client trickling its body holds
	// its weight for a bounded time.
	DefaultBodyReadBase = 10 * time.Second
	DefaultMinBodyRate  = 1 << 20 // bytes per second
)

// DefaultBudgetBytes is the in-flight budget a front gate builds when it is
// given none: one request at the body cap, plus DefaultSmallReserve for
// small calls beside it.
func (v *Validator) DefaultBudgetBytes() int64 {
	return RequestWeight(v.body.Cap, v.cfg.limits) + DefaultSmallReserve
}

// NewBudget builds a budget of total bytes with the default small lane (a
// DefaultSmallReserve reserve for bodies up to DefaultSmallBody), weighed
// under v's limits.
func (v *Validator) NewBudget(total int64) (*Budget, error) {
	return NewBudget(total, DefaultSmallReserve, RequestWeight(DefaultSmallBody, v.cfg.limits))
}

// FrontGateOptions configure FrontGate. The zero value is the defaults.
type FrontGateOptions struct {
	// Budget is the process's in-flight budget, shared by every front gate
	// of the process; nil builds one of v.DefaultBudgetBytes() for this gate.
	Budget *Budget
	// MaxWait is how long a request waits for budget (0: DefaultMaxWait).
	MaxWait time.Duration
	// BodyReadBase and MinBodyRate set a body read's deadline (0: defaults).
	BodyReadBase time.Duration
	MinBodyRate  int64
	// RefusalHook is called for every refusal the gate answers, with the
	// request's context. The refusal holds no caller value.
	RefusalHook func(context.Context, *FrontRefusal)
}

// FrontGate is the HTTP handler in front of an MCP server's streamable HTTP
// handler: it bounds the whole request before the SDK decodes a byte.
type FrontGate struct {
	v       *Validator
	next    http.Handler
	budget  *Budget
	env     *charge.Gate
	maxWait time.Duration
	base    time.Duration
	rate    int64
	hook    func(context.Context, *FrontRefusal)
	bufs    sync.Pool // *pooledBody
}

// pooledBody is a body buffer and the reader the SDK reads it through,
// reused across requests so a gated request allocates neither.
type pooledBody struct {
	buf []byte
	rd  bytes.Reader
}

func (p *pooledBody) Read(b []byte) (int, error) { return p.rd.Read(b) }
func (p *pooledBody) Close() error               { return nil }

// FrontGate wraps next, the go-sdk's streamable HTTP handler (or any MCP
// HTTP handler), in the front gate (see the package doc, "The front gate").
// It fails when the budget cannot admit one request at the body cap.
//
//	h, err := v.FrontGate(mcp.NewStreamableHTTPHandler(getServer, opts), nil)
func (v *Validator) FrontGate(next http.Handler, o *FrontGateOptions) (*FrontGate, error) {
	if o == nil {
		o = &FrontGateOptions{}
	}
	env, err := charge.NewGate(charge.Go, envelopeLimits(v.cfg.limits))
	if err != nil {
		return nil, err
	}
	fg := &FrontGate{v: v, next: next, budget: o.Budget, env: env,
		maxWait: o.MaxWait, base: o.BodyReadBase, rate: o.MinBodyRate, hook: o.RefusalHook}
	if fg.budget == nil {
		if fg.budget, err = v.NewBudget(v.DefaultBudgetBytes()); err != nil {
			return nil, err
		}
	}
	if w := fg.Weight(v.body.Cap); w > fg.budget.General() {
		return nil, errors.New("mcpvalidate: front gate: the in-flight budget (" + strconv.FormatInt(fg.budget.General(), 10) +
			" bytes beyond the small reserve) cannot admit one request at the body cap, which weighs " + strconv.FormatInt(w, 10))
	}
	if fg.maxWait <= 0 {
		fg.maxWait = DefaultMaxWait
	}
	if fg.base <= 0 {
		fg.base = DefaultBodyReadBase
	}
	if fg.rate <= 0 {
		fg.rate = DefaultMinBodyRate
	}
	return fg, nil
}

// Budget is the in-flight budget the gate admits against.
func (fg *FrontGate) Budget() *Budget { return fg.budget }

// Weight is what a request with a body of n bytes is weighed at
// (RequestWeight under the validator's limits).
func (fg *FrontGate) Weight(n int64) int64 { return RequestWeight(n, fg.v.cfg.limits) }

// Check reads one JSON-RPC message as the front gate does, without HTTP: the
// envelope it admitted, or the refusal (a *FrontRefusal) it answers with.
func (fg *FrontGate) Check(body []byte) (Envelope, error) {
	e, err := scanEnvelope(body, fg.env, fg.v.gate)
	if err != nil {
		return e, fg.refusal(err, &e)
	}
	return e, nil
}

// ServeHTTP gates POST requests; every other method passes through (they
// carry no body the SDK reads).
func (fg *FrontGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		fg.next.ServeHTTP(w, r)
		return
	}
	limit := fg.v.body.Cap
	if r.ContentLength > limit {
		fg.write(w, r, &FrontRefusal{Status: http.StatusRequestEntityTooLarge, Code: codeInvalidRequest,
			Bound: "body-bytes", Limit: limit, Unit: "bytes", Offset: -1})
		return
	}
	declared := r.ContentLength
	if declared < 0 {
		declared = limit // unknown length: weighed at the cap
	}
	grant, ok := fg.budget.TryAcquire(fg.Weight(declared))
	if !ok {
		ctx, cancel := context.WithTimeout(r.Context(), fg.maxWait)
		var err error
		grant, err = fg.budget.Acquire(ctx, fg.Weight(declared))
		cancel()
		if err != nil {
			w.Header().Set("Retry-After", strconv.Itoa(int(max(1, fg.maxWait/time.Second))))
			fg.write(w, r, &FrontRefusal{Status: http.StatusServiceUnavailable, Code: codeServerBusy,
				Bound: "in-flight-budget", Limit: fg.budget.Total(), Unit: "bytes", Offset: -1})
			return
		}
	}
	defer grant.Release() // also when next panics or the client goes away

	body, status := fg.read(w, r, declared, limit)
	if body == nil {
		if status != 0 {
			fg.write(w, r, &FrontRefusal{Status: status, Code: codeInvalidRequest, Bound: boundOf(status), Limit: limit, Unit: "bytes", Offset: -1})
		}
		return
	}
	defer fg.bufs.Put(body)
	e, gerr := scanEnvelope(body.buf, fg.env, fg.v.gate)
	if gerr != nil {
		fg.write(w, r, fg.refusal(gerr, &e))
		return
	}
	// The same bytes, not a copy: the SDK reads them from the pooled buffer,
	// which goes back to the pool only after it returns.
	body.rd.Reset(body.buf)
	r.Body, r.ContentLength = body, int64(len(body.buf))
	fg.next.ServeHTTP(w, r)
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
func (fg *FrontGate) read(w http.ResponseWriter, r *http.Request, declared, limit int64) (*pooledBody, int) {
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
