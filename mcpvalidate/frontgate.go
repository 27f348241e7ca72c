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

// RequestPeakFactor is what the front gate weighs a request at, per wire
// byte: the most memory one request through the guarded path (front gate,
// go-sdk streamable HTTP handler, middleware) holds at once, over its body's
// size. It is boundlab's measured figure rounded up, not a derivation: the
// lab's record memmodel.go.guarded.peak-factor re-measures it and fails when
// a measured row exceeds it.
const RequestPeakFactor = 7

// Front gate defaults.
const (
	// DefaultBudgetBytes is the in-flight budget a front gate builds when it
	// is given none: two at-cap requests at the default limits and
	// RequestPeakFactor, plus the small lane's reserve.
	DefaultBudgetBytes = 2*26_214_400*RequestPeakFactor + DefaultSmallReserve
	// DefaultSmallReserve is the small lane's share of the default budget.
	DefaultSmallReserve = 32 << 20
	// DefaultSmallWeight is the most a request may weigh to use the small
	// lane: a 64 KiB body at RequestPeakFactor.
	DefaultSmallWeight = (64 << 10) * RequestPeakFactor
	// DefaultMaxWait is how long a request waits for budget before a 503.
	DefaultMaxWait = 5 * time.Second
	// DefaultBodyReadBase and DefaultMinBodyRate give a body read its
	// deadline: base + length / rate, so a client trickling its body holds
	// its weight for a bounded time.
	DefaultBodyReadBase = 10 * time.Second
	DefaultMinBodyRate  = 1 << 20 // bytes per second
)

// FrontGateOptions configure FrontGate. The zero value is the defaults.
type FrontGateOptions struct {
	// Budget is the process's in-flight budget, shared by every front gate
	// of the process; nil builds one of DefaultBudgetBytes for this gate.
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
		if fg.budget, err = NewBudget(DefaultBudgetBytes, DefaultSmallReserve, DefaultSmallWeight); err != nil {
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

// Weight is what a request with a body of n bytes is weighed at.
func (fg *FrontGate) Weight(n int64) int64 { return max(n, 1) * RequestPeakFactor }

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
	if int64(cap(buf)) < declared+1 {
		buf = make([]byte, 0, declared+1)
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
