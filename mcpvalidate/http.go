package mcpvalidate

import (
	"errors"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

// HTTPOptions configure a protected streamable HTTP endpoint. A nil
// *HTTPOptions, and every zero field, means the default; the defaults are
// the constants of package bounds.
type HTTPOptions struct {
	// Stateless serves without sessions, as protocol 2026-07-28 needs over
	// HTTP. The SDK's handler and the gate are both set from it.
	Stateless bool
	// InFlightBytes is the memory requests being read and served may hold,
	// each weighed by its size before its body is read (default: one
	// request at the body cap plus bounds.DefaultSmallReserve for small
	// calls beside it). Past it a request waits, then gets 503.
	InFlightBytes int64
	// SessionBytes is the memory sessions and their GET streams may hold
	// (default bounds.DefaultSessionBytes; stateful only). Idle sessions are
	// closed, least recently used first, to admit new ones.
	SessionBytes int64
	// SessionIdle closes a session idle this long (default
	// bounds.DefaultSessionIdle; negative: never). The SDK's session timeout
	// is set from it.
	SessionIdle time.Duration
	// ConnBytes is the memory open connections may hold, each weighed at
	// bounds.ConnCost (default bounds.DefaultConnBytes). Idle connections
	// are closed first to admit new ones.
	ConnBytes int64
	// AllowedOrigins are the browser origins allowed to call, e.g.
	// "https://app.example" (scheme, host and port, no path). A request a
	// browser sends from any other origin is refused with 403 before it
	// is read: a page the user visits must not drive the server's tools.
	// Requests with no Origin header (clients that are not browsers) and
	// same-origin requests are served without being listed.
	AllowedOrigins []string
	// SDK holds the go-sdk handler's other options (an event store, a
	// logger, JSON responses). Its Stateless, SessionTimeout and
	// MaxRequestBodyBytes are overwritten from the fields above, so the SDK
	// and the gate cannot disagree. Protect ignores it.
	SDK *mcp.StreamableHTTPOptions
}

// Handler is a protected MCP endpoint: the front gate in front of the
// server's streamable HTTP handler. Mount it as any http.Handler, and serve
// it with ListenAndServe or on a server set up by Harden, which holds the
// connections to the weight the ceiling assumes.
type Handler struct {
	fg     *frontGate
	origin *http.CrossOriginProtection
	opts   HTTPOptions // defaults filled
}

// Handler builds the go-sdk's streamable HTTP handler for getServer, with
// the body cap, statelessness and session timeout the front gate assumes,
// and puts the front gate in front of it.
//
//	h, err := v.Handler(func(*http.Request) *mcp.Server { return server }, nil)
func (v *Validator) Handler(getServer func(*http.Request) *mcp.Server, o *HTTPOptions) (*Handler, error) {
	opts := v.httpDefaults(o)
	return v.protect(mcp.NewStreamableHTTPHandler(getServer, v.sdkOptions(opts)), opts)
}

// sdkOptions are the SDK handler's options under opts (defaults filled):
// its own, with what the gate assumes set from opts.
func (v *Validator) sdkOptions(opts HTTPOptions) *mcp.StreamableHTTPOptions {
	sdk := &mcp.StreamableHTTPOptions{}
	if opts.SDK != nil {
		*sdk = *opts.SDK
	}
	sdk.Stateless = opts.Stateless
	sdk.MaxRequestBodyBytes = v.body.Cap
	sdk.SessionTimeout = 0
	if !opts.Stateless && opts.SessionIdle > 0 {
		// The SDK's own timeout is the backstop for a session the gate's
		// table does not see; the gate closes idle sessions itself.
		sdk.SessionTimeout = opts.SessionIdle
	}
	return sdk
}

// Protect puts the front gate in front of next, an MCP streamable HTTP
// handler built elsewhere (mcp-go's, or the go-sdk's with options of your
// own): set its body cap to v.MaxBodyBytes() and its statelessness to
// o.Stateless yourself. Handler does both for the go-sdk.
func (v *Validator) Protect(next http.Handler, o *HTTPOptions) (*Handler, error) {
	return v.protect(next, v.httpDefaults(o))
}

func (v *Validator) protect(next http.Handler, opts HTTPOptions) (*Handler, error) {
	if opts.ConnBytes < bounds.ConnCost {
		return nil, errors.New("mcpvalidate: ConnBytes (" + strconv.FormatInt(opts.ConnBytes, 10) +
			") cannot admit one connection, which weighs " + strconv.FormatInt(bounds.ConnCost, 10) + " bytes")
	}
	origin := http.NewCrossOriginProtection()
	for _, o := range opts.AllowedOrigins {
		if err := origin.AddTrustedOrigin(o); err != nil {
			return nil, errors.New("mcpvalidate: AllowedOrigins: " + err.Error())
		}
	}
	budget, err := v.newInFlight(opts.InFlightBytes)
	if err != nil {
		return nil, err
	}
	fg, err := v.frontGate(next, &frontGateOptions{inFlight: budget, Stateless: opts.Stateless,
		SessionBytes: opts.SessionBytes, SessionIdle: opts.SessionIdle})
	if err != nil {
		return nil, err
	}
	return &Handler{fg: fg, origin: origin, opts: opts}, nil
}

// httpDefaults is o with every zero field its default.
func (v *Validator) httpDefaults(o *HTTPOptions) HTTPOptions {
	var opts HTTPOptions
	if o != nil {
		opts = *o
	}
	if opts.InFlightBytes == 0 {
		opts.InFlightBytes = v.defaultInFlightBytes()
	}
	if opts.Stateless {
		opts.SessionBytes, opts.SessionIdle = 0, 0
	} else {
		if opts.SessionBytes == 0 {
			opts.SessionBytes = bounds.DefaultSessionBytes
		}
		if opts.SessionIdle == 0 {
			opts.SessionIdle = bounds.DefaultSessionIdle
		}
	}
	if opts.ConnBytes == 0 {
		opts.ConnBytes = bounds.DefaultConnBytes
	}
	return opts
}

// ServeHTTP refuses a browser's cross-origin request, then bounds the
// request and hands it to the SDK's handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// First, before the session table or the in-flight budget is touched:
	// a page in a browser can reach a server on the user's machine, and
	// the MCP transport requires a foreign Origin be answered with 403.
	// The standard library's check passes GET, HEAD and OPTIONS, which
	// change nothing here: a GET stream needs a session id a foreign page
	// never sees.
	if h.origin.Check(r) != nil {
		h.fg.write(w, r, originRefusal(), nil)
		return
	}
	h.fg.ServeHTTP(w, r)
}

// Options are the options h was built with, every default filled in.
func (h *Handler) Options() HTTPOptions { return h.opts }

// Ceiling is the most memory a process serving h alone can state: what
// requests in flight, sessions with their streams, and open connections may
// hold, each admitted against its own budget, plus bounds.Baseline for the
// runtime, the SDK and the listener. It holds only when h is served on a
// server set up by Harden (or by ListenAndServe), which caps the header
// block a connection is weighed for.
func (h *Handler) Ceiling() int64 {
	conns := h.opts.ConnBytes / bounds.ConnCost * bounds.ConnCost
	return h.fg.budget.Total() + h.opts.SessionBytes + conns + bounds.Baseline
}

// Harden sets up hs to serve h within the ceiling, and wraps ln so hs serves
// at most ConnBytes/bounds.ConnCost connections from it (idle keep-alive
// connections, then the oldest silent new ones, closed first to admit
// another). Zero fields of hs get the bounds the connection weight assumes:
// MaxHeaderBytes bounds.MaxHeaderBytes, ReadHeaderTimeout
// bounds.ReadHeaderTimeout, IdleTimeout bounds.ConnIdleTimeout, Handler h.
// A MaxHeaderBytes above bounds.MaxHeaderBytes is refused: a connection
// reading such a header block costs more than it is weighed at. It also sets
// the Go runtime's soft memory limit to the ceiling less the executable's
// size (its pages count in RSS, not against the limit), unless GOMEMLIMIT
// set one: the limit bounds nothing by itself (the budgets do), but near the
// ceiling it makes the collector return freed memory, so that RSS follows
// the admitted bytes. Serve hs on the returned listener.
func (h *Handler) Harden(hs *http.Server, ln net.Listener) (net.Listener, error) {
	if hs.MaxHeaderBytes > bounds.MaxHeaderBytes {
		return nil, errors.New("mcpvalidate: http.Server.MaxHeaderBytes " + strconv.Itoa(hs.MaxHeaderBytes) +
			" is past the " + strconv.Itoa(bounds.MaxHeaderBytes) + " bytes a connection is weighed for (bounds.ConnCost)")
	}
	if hs.MaxHeaderBytes <= 0 {
		hs.MaxHeaderBytes = bounds.MaxHeaderBytes
	}
	if hs.ReadHeaderTimeout <= 0 {
		hs.ReadHeaderTimeout = bounds.ReadHeaderTimeout
	}
	if hs.IdleTimeout <= 0 {
		hs.IdleTimeout = bounds.ConnIdleTimeout
	}
	if hs.Handler == nil {
		hs.Handler = h
	}
	l, err := limitConns(hs, ln, h.opts.ConnBytes)
	if err != nil {
		return nil, err
	}
	if debug.SetMemoryLimit(-1) == maxMemoryLimit {
		debug.SetMemoryLimit(softLimit(h.Ceiling()))
	}
	return l, nil
}

// ListenAndServe serves h at addr (path /mcp, as MCP clients expect; every
// other path 404) on a server set up by Harden. It returns when the server
// fails.
func (h *Handler) ListenAndServe(addr string) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	limited, err := h.Harden(hs, ln)
	if err != nil {
		ln.Close()
		return err
	}
	return hs.Serve(limited)
}

// softLimit is the Go runtime's soft memory limit for a process whose
// resident set is to stay within ceiling: the ceiling less the executable's
// size, since the kernel counts the executable's pages in the resident set
// and the runtime does not count them against its limit. An executable it
// cannot size, or one of half the ceiling or more, leaves the ceiling.
func softLimit(ceiling int64) int64 {
	exe, err := os.Executable()
	if err != nil {
		return ceiling
	}
	st, err := os.Stat(exe)
	if err != nil || st.Size() >= ceiling/2 {
		return ceiling
	}
	return ceiling - st.Size()
}

// maxMemoryLimit is the runtime's limit when none is set.
const maxMemoryLimit = 1<<63 - 1
