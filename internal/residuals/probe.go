package residuals

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/mcpvalidate"
)

// This file is the front-gate records' instrument (frontgate.go): the demo
// served on net/http/httptest with a probe middleware outside the validator,
// driven by hand-written HTTP bytes. The bare SDK's records come from an
// audit instead (residuals.go).

// Server is a demo server under measurement with a probe that records what
// reached the middleware tier.
type Server struct {
	hs *httptest.Server
	// FrontGate is the gate in front of the SDK, nil for the bare server.
	FrontGate *mcpvalidate.Handler
	// Validator is the validator the server (and its gate) was built with.
	Validator *mcpvalidate.Validator

	mu      sync.Mutex
	reached []Reached
}

// Reached is one tools/call that reached receiving middleware (inside the
// validator: the validator's own refusals are not counted as reaching it; the
// probe sits outermost for that reason — see NewServer).
type Reached struct {
	Name      string
	Arguments []byte
}

// NewServer serves the demo with the validator, and a probe middleware
// OUTSIDE it (added by a later AddReceivingMiddleware call, so it runs first):
// the probe sees every tools/call the SDK lets through to middleware at all.
// It is the bare SDK: no front gate (demo.Handler).
func NewServer() (*Server, error) { return newServer(false) }

// NewGuardedServer is NewServer behind mcpvalidate's front gate with its
// default options (demo.Guarded): what `boundlab serve` runs.
func NewGuardedServer() (*Server, error) { return newServer(true) }

func newServer(guarded bool) (*Server, error) {
	v, err := demo.NewValidator(nil)
	if err != nil {
		return nil, err
	}
	srv, err := demo.NewServer(v, demo.Options{})
	if err != nil {
		return nil, err
	}
	s := &Server{Validator: v}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if c, ok := req.(*mcp.CallToolRequest); ok {
				s.mu.Lock()
				s.reached = append(s.reached, Reached{c.Params.Name, append([]byte(nil), c.Params.Arguments...)})
				s.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	h := demo.Handler(v, srv, nil)
	if guarded {
		if h, s.FrontGate, err = demo.Guarded(v, srv, nil, nil); err != nil {
			return nil, err
		}
	}
	s.hs = httptest.NewServer(h)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.hs.Close() }

// Take returns and clears what reached middleware.
func (s *Server) Take() []Reached {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.reached
	s.reached = nil
	return r
}

// Session is a raw streamable-HTTP session (protocol 2025-11-25).
type Session struct {
	s  *Server
	ID string
}

// Version is the protocol the raw sessions speak.
const Version = "2025-11-25"

// Response is one HTTP answer.
type Response struct {
	Status      int
	ContentType string
	Body        []byte
}

// Post sends body on the session (no session header when ID is empty).
func (se *Session) Post(body []byte) (Response, http.Header, error) {
	req, err := http.NewRequest(http.MethodPost, se.s.hs.URL+demo.Path, bytes.NewReader(body))
	if err != nil {
		return Response{}, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if se.ID != "" {
		req.Header.Set("Mcp-Session-Id", se.ID)
		req.Header.Set("Mcp-Protocol-Version", Version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Response{}, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return Response{resp.StatusCode, resp.Header.Get("Content-Type"), b}, resp.Header, err
}

// Open initializes a session; when notify is false the initialized
// notification is not sent.
func (s *Server) Open(notify bool) (*Session, error) {
	se := &Session{s: s}
	r, hdr, err := se.Post([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + Version + `","capabilities":{},"clientInfo":{"name":"residuals","version":"v0"}}}`))
	if err != nil {
		return nil, err
	}
	if r.Status != http.StatusOK || hdr.Get("Mcp-Session-Id") == "" {
		return nil, fmt.Errorf("initialize: HTTP %d", r.Status)
	}
	se.ID = hdr.Get("Mcp-Session-Id")
	if notify {
		if r, _, err := se.Post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil || r.Status != http.StatusAccepted {
			return nil, fmt.Errorf("initialized: HTTP %d %v", r.Status, err)
		}
	}
	return se, nil
}

// Message extracts the JSON-RPC message from a JSON or SSE answer.
func Message(body []byte) (map[string]json.RawMessage, error) {
	payload := body
	if t := bytes.TrimSpace(body); bytes.HasPrefix(t, []byte("event:")) || bytes.HasPrefix(t, []byte("data:")) || bytes.HasPrefix(t, []byte("id:")) {
		payload = nil
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
				payload = append(payload, bytes.TrimSpace(d)...)
			}
		}
	}
	var m map[string]json.RawMessage
	err := json.Unmarshal(payload, &m)
	return m, err
}

// ErrorCode is the JSON-RPC error code of an answer, or ok=false.
func ErrorCode(body []byte) (int, bool) {
	m, err := Message(body)
	if err != nil || m["error"] == nil {
		return 0, false
	}
	var e struct {
		Code int `json:"code"`
	}
	if json.Unmarshal(m["error"], &e) != nil {
		return 0, false
	}
	return e.Code, true
}

// EchoFiller is one instance family for the params echo: a string member of
// params filled with Count copies of Unit (raw JSON string content).
type EchoFiller struct {
	Name string
	Unit string // raw bytes inside a JSON string
}

// EchoFillers are the instances the params-echo ratio is taken over: one per
// way %q and the JSON encoder of the error message can widen a wire byte.
var EchoFillers = []EchoFiller{
	{"ASCII letter", "a"},
	{`escaped quote \"`, `\"`},
	{`escaped backslash \\`, `\\`},
	{"raw DEL U+007F", "\x7f"},
	{"invalid UTF-8 byte 0xFF", "\xff"},
	{"raw non-printable 2-byte U+0600", "\u0600"},
	{"raw non-printable 3-byte U+200B", "\u200b"},
	{"raw non-printable astral U+E0001", "\U000e0001"},
	{"raw printable 3-byte U+4E2D", "\u4e2d"},
	{"escaped \\u0600", `\u0600`},
}

// EchoBody is a tools/call whose params do not fit CallToolParamsRaw (name is
// a number), with a filler member of n copies of f.Unit.
func EchoBody(f EchoFiller, n int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":1,"x":"` + strings.Repeat(f.Unit, n) + `"}}`)
}

// EchoShape builds one echo instance: a request whose params the SDK cannot
// decode into its method's type, with a string member of about n copies of
// f.Unit (a shape may hold fewer, to stay under a bound it is probing).
type EchoShape func(f EchoFiller, n int) []byte

// EchoRatio posts shape(f, n) and returns the answer's bytes over the
// request's, the answer, and whether it reached middleware.
func (se *Session) EchoRatio(shape EchoShape, f EchoFiller, n int) (ratio float64, r Response, reached bool, err error) {
	body := shape(f, n)
	se.s.Take()
	r, _, err = se.Post(body)
	if err != nil {
		return 0, r, false, err
	}
	return float64(len(r.Body)) / float64(len(body)), r, len(se.s.Take()) > 0, nil
}

// MaxArgumentsDepth is the deepest arguments nesting (the arguments object
// itself is level 1) that reaches middleware, found by bisection.
func (se *Session) MaxArgumentsDepth() (int, error) {
	reaches := func(d int) (bool, error) {
		se.s.Take()
		_, _, err := se.Post(depthBody(d))
		return len(se.s.Take()) > 0, err
	}
	lo, hi := 1, 4096 // reaches(lo), !reaches(hi)
	if ok, err := reaches(hi); err != nil || ok {
		return 0, fmt.Errorf("depth %d still reaches middleware (%v)", hi, err)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		ok, err := reaches(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// depthBody is a tools/call whose arguments nest d levels.
func depthBody(d int) []byte {
	args := strings.Repeat(`{"a":`, d-1) + "{}" + strings.Repeat("}", d-1)
	return []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"project.list","arguments":` + args + `}}`)
}

// Probe is one envelope the SDK might tolerate or refuse before middleware.
type Probe struct {
	ID, Name string
	Body     string
	// Check reads what reached middleware (nil when nothing did) and says
	// what the SDK made of it, for the record's instance.
	Check func(r []Reached) string
}

// Probes are the strictness cases measured at the SDK's envelope.
var Probes = []Probe{
	{"duplicate-params-name", "params holds \"name\" twice",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"knowledge.get","name":"project.list","arguments":{}}}`,
		func(r []Reached) string {
			return "reached middleware as " + strings.Join(names(r), ",") + " (last wins)"
		}},
	{"invalid-utf8-tool-name", "the tool name holds the byte 0xFF",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"project.list\xff\",\"arguments\":{}}}",
		func(r []Reached) string { return fmt.Sprintf("reached middleware as %q", strings.Join(names(r), ",")) }},
	{"lone-surrogate-tool-name", "the tool name escapes a lone surrogate \\ud800",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"project.list\ud800","arguments":{}}}`,
		func(r []Reached) string { return fmt.Sprintf("reached middleware as %q", strings.Join(names(r), ",")) }},
	{"trailing-bytes", "bytes after the JSON-RPC message",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"project.list","arguments":{}}} trailing`,
		func([]Reached) string { return "reached middleware; the trailing bytes were ignored" }},
	{"unknown-params-member", "params holds a member CallToolParamsRaw does not name",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"project.list","arguments":{},"override":true}}`,
		func([]Reached) string { return "reached middleware; the member was dropped, invisible to it" }},
	{"arguments-bytes-intact", "arguments hold a duplicate key and an escaped name",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"project.list","arguments":{"a":1,"\u0061":2}}}`,
		func(r []Reached) string {
			if len(r) == 1 && string(r[0].Arguments) == `{"a":1,"\u0061":2}` {
				return "arguments reached middleware byte for byte (the gate refuses the duplicate)"
			}
			return "arguments reached middleware altered"
		}},
	{"raw-control-in-string", "a raw U+0001 inside a string in arguments",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"project.list\",\"arguments\":{\"a\":\"\x01\"}}}",
		nil},
}

func names(r []Reached) []string {
	var out []string
	for _, x := range r {
		out = append(out, x.Name)
	}
	return out
}

// RunProbe sends p and reports whether it reached middleware, the HTTP status
// and the instance text.
func (se *Session) RunProbe(p Probe) (reached bool, status int, what string, err error) {
	se.s.Take()
	r, _, err := se.Post([]byte(p.Body))
	if err != nil {
		return false, 0, "", err
	}
	got := se.s.Take()
	if len(got) == 0 {
		return false, r.Status, fmt.Sprintf("refused before middleware: HTTP %d, a %d-byte answer", r.Status, len(r.Body)), nil
	}
	return true, r.Status, p.Check(got), nil
}

// InitGateCode is the JSON-RPC code of the SDK's initialization gate: its
// answer to a tools/call that reaches a session before initialize (a POST with
// no session id and no initialize). The gate keys on initialize, not on
// notifications/initialized (see ServedBeforeInitialized).
func (s *Server) InitGateCode() (code int, instance string, err error) {
	se := &Session{s: s}
	r, _, err := se.Post([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"project.list","arguments":{}}}`))
	if err != nil {
		return 0, "", err
	}
	c, ok := ErrorCode(r.Body)
	if !ok {
		return 0, "", fmt.Errorf("no JSON-RPC error: HTTP %d %.120q", r.Status, r.Body)
	}
	return c, fmt.Sprintf("tools/call POSTed with no session and no initialize (HTTP %d)", r.Status), nil
}

// ServedBeforeInitialized reports whether a tools/call on a session that sent
// initialize but not notifications/initialized is served.
func (s *Server) ServedBeforeInitialized() (bool, error) {
	se, err := s.Open(false)
	if err != nil {
		return false, err
	}
	r, _, err := se.Post([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"project.list","arguments":{}}}`))
	if err != nil {
		return false, err
	}
	m, err := Message(r.Body)
	return err == nil && m["result"] != nil, nil
}

// echoN is the filler count the echo ratio is measured at: large enough that
// the envelope's fixed bytes move the ratio by under 0.1%.
const echoN = 1 << 16

// SweepFillers are EchoFillers and every single byte 0x20..0xFF that may
// stand raw in a JSON string: the instances an echo is worst over.
func SweepFillers() []EchoFiller {
	fillers := append([]EchoFiller(nil), EchoFillers...)
	for b := 0x20; b < 0x100; b++ {
		if b == '"' || b == '\\' {
			continue
		}
		fillers = append(fillers, EchoFiller{fmt.Sprintf("raw byte %#02x", b), string([]byte{byte(b)})})
	}
	return fillers
}

// EchoSweep is one echo shape measured over SweepFillers.
type EchoSweep struct {
	Ratio   float64  // the worst answer bytes per request byte, re-measured at n
	Worst   string   // its filler
	At      Response // its answer
	Req     int      // its request's bytes
	Longest int      // the longest answer over every instance sent
	Reached bool     // some instance reached middleware
}

// SweepEcho measures shape over SweepFillers: the named fillers at n, the
// raw bytes at 4096 (the sweep only has to find the class), then the worst
// class re-measured at n.
func (se *Session) SweepEcho(shape EchoShape, n int) (EchoSweep, error) {
	var sw EchoSweep
	fillers := SweepFillers()
	for _, f := range fillers {
		m := n
		if strings.HasPrefix(f.Name, "raw byte") {
			m = 4096
		}
		r, ans, reached, err := se.EchoRatio(shape, f, m)
		if err != nil {
			return sw, err
		}
		sw.Reached = sw.Reached || reached
		sw.Longest = max(sw.Longest, len(ans.Body))
		if r > sw.Ratio+1e-9 {
			sw.Ratio, sw.Worst = r, f.Name
		}
	}
	for _, f := range fillers { // the winner's class, re-measured at n
		if f.Name == sw.Worst {
			r, ans, reached, err := se.EchoRatio(shape, f, n)
			if err != nil {
				return sw, err
			}
			sw.Ratio, sw.At, sw.Req = r, ans, len(shape(f, n))
			sw.Reached = sw.Reached || reached
			sw.Longest = max(sw.Longest, len(ans.Body))
		}
	}
	return sw, nil
}

// WorstEcho measures the params-echo ratio of EchoBody over SweepFillers at
// echoN, and returns the worst, its instance, and whether any instance
// reached middleware.
func (se *Session) WorstEcho() (worst float64, instance string, reachedAny bool, err error) {
	sw, err := se.SweepEcho(EchoBody, echoN)
	return sw.Ratio, sw.Worst, sw.Reached, err
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func round(x float64, places int) float64 {
	p := 1.0
	for range places {
		p *= 10
	}
	return float64(int64(x*p+0.5)) / p
}
