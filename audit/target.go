package audit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/internal/child"
)

// Target is a server under audit. Open starts a fresh connection: a new HTTP
// session (the session id is learnt from the answers), or a new process for
// stdio; the prober speaks initialize itself.
type Target interface {
	Name() string
	Open(ctx context.Context) (Conn, error)
}

// Conn carries raw bytes to one server session and brings back its answers.
type Conn interface {
	// Send delivers body as one message and waits for the answer to the
	// request with id (raw JSON); id nil is a notification, not waited for.
	// Over stdio an answer with a null id (a parse error) also counts. A transport failure (the connection
	// refused, the process gone) is an error; a silent server is an Answer
	// with Silent set.
	Send(ctx context.Context, body []byte, id json.RawMessage) (Answer, error)
	Close() error
}

// Answer is what came back for one message.
type Answer struct {
	Status      int    // HTTP status; 0 over stdio
	ContentType string // HTTP Content-Type; "" over stdio
	Raw         []byte // the answer as the transport delivered it (SSE framing included), at most Limits.MaxAnswerBytes
	Message     []byte // the JSON-RPC message in Raw, nil when there is none
	Truncated   bool   // the answer was longer than Limits.MaxAnswerBytes
	Silent      bool   // no answer arrived within the time limit
	// Closed says the transport ended on this message (a stdio process
	// exited or closed its stdout): the session was replaced by a new one
	// (Report.SessionEnds).
	Closed bool
	// Observed is set by an observing target (GoSDK): Reached then lists
	// what this message brought to the server's receiving middleware (nil:
	// nothing reached it). Other targets cannot see inside the server.
	Observed bool
	Reached  []Reached
}

// Reached is one request a go-sdk server's receiving middleware saw: what
// the SDK's decoding made of the message before any middleware ran.
type Reached struct {
	Method string `json:"method"`
	// Name and Arguments are a tools/call's, as the SDK decoded them
	// (CallToolParamsRaw: the name a Go string, the arguments raw bytes).
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// HTTP is a streamable-HTTP target at URL, with extra request headers.
// Client nil means a client with the Limits' per-request timeout.
type HTTP struct {
	URL    string
	Header http.Header
	Client *http.Client
	// Label names the target in the report; "" means URL.
	Label string

	maxAnswer int64
}

// Name is Label, or the URL.
func (h *HTTP) Name() string {
	if h.Label != "" {
		return h.Label
	}
	return h.URL
}

// Handler is an in-process target: h is served without a network, each
// request handed to h.ServeHTTP and recorded. path is where the MCP endpoint
// is mounted (e.g. "/mcp").
func Handler(name string, h http.Handler, path string) *HTTP {
	return &HTTP{URL: "http://in-process" + path, Label: name, Client: &http.Client{Transport: handlerTransport{h: h}}}
}

// GoSDK is an in-process target for a go-sdk server that also observes it:
// srv gets a receiving middleware, added last so it runs first (the go-sdk
// runs the middleware of the last AddReceivingMiddleware call outermost),
// that records every request the SDK hands to middleware; each Answer then
// says what its message brought there (Answer.Observed, Answer.Reached) —
// the white-box view beside the black-box one. srv is served by
// mcp.NewStreamableHTTPHandler with opts (nil: the SDK's defaults), wrapped
// by wrap when it is not nil (a front gate, a mux), at path.
//
// The observation is per message because the auditor sends one message at a
// time and the handler answers a request before ServeHTTP returns.
func GoSDK(name string, srv *mcp.Server, opts *mcp.StreamableHTTPOptions, wrap func(http.Handler) http.Handler, path string) *HTTP {
	o := &observer{}
	srv.AddReceivingMiddleware(o.middleware)
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)
	if wrap != nil {
		h = wrap(h)
	}
	return &HTTP{URL: "http://in-process" + path, Label: name, Client: &http.Client{Transport: handlerTransport{h: h, obs: o}}}
}

type observer struct {
	mu      sync.Mutex
	reached []Reached // since the current message was handed over
	last    []Reached // what the last message brought
}

func (o *observer) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		r := Reached{Method: method}
		if c, ok := req.(*mcp.CallToolRequest); ok && c.Params != nil {
			r.Name, r.Arguments = c.Params.Name, append(json.RawMessage(nil), c.Params.Arguments...)
		}
		o.mu.Lock()
		o.reached = append(o.reached, r)
		o.mu.Unlock()
		return next(ctx, method, req)
	}
}

func (o *observer) take() []Reached {
	o.mu.Lock()
	defer o.mu.Unlock()
	r := o.reached
	o.reached = nil
	return r
}

type handlerTransport struct {
	h   http.Handler
	obs *observer // nil: the handler is not observed
}

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	if t.obs != nil {
		t.obs.take()
	}
	t.h.ServeHTTP(rec, req)
	if t.obs != nil {
		t.obs.mu.Lock()
		t.obs.last, t.obs.reached = t.obs.reached, nil
		t.obs.mu.Unlock()
	}
	if err := req.Context().Err(); err != nil {
		return nil, err // the handler gave up with the request: no answer in time
	}
	return rec.Result(), nil
}

// observed is what the last message brought to the observed server's
// middleware, when the client is an observing target's.
func observed(c *http.Client) ([]Reached, bool) {
	t, ok := c.Transport.(handlerTransport)
	if !ok || t.obs == nil {
		return nil, false
	}
	t.obs.mu.Lock()
	defer t.obs.mu.Unlock()
	r := t.obs.last
	t.obs.last = nil
	return r, true
}

// Open starts a session; its id is taken from the first answer that sets
// Mcp-Session-Id.
func (h *HTTP) Open(context.Context) (Conn, error) {
	u, err := url.Parse(h.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("the target URL must be an absolute http:// or https:// URL")
	}
	c := h.Client
	if c == nil {
		c = http.DefaultClient
	}
	return &httpConn{t: h, client: c}, nil
}

type httpConn struct {
	t       *HTTP
	client  *http.Client
	session string
	version string
}

func (c *httpConn) Send(ctx context.Context, body []byte, id json.RawMessage) (Answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.t.URL, bytes.NewReader(body))
	if err != nil {
		return Answer{}, err
	}
	for k, vs := range c.t.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		req.Header.Set("Mcp-Protocol-Version", c.version)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return Answer{Silent: true}, nil // no answer within the request's time
		}
		if connCut(err) {
			return Answer{}, &endedError{cut: true, msg: "the server cut the connection without an answer"}
		}
		return Answer{}, fmt.Errorf("POST %s: %w", c.t.Name(), scrub(err))
	}
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && c.session == "" {
		c.session = id
	}
	max := c.t.maxAnswer
	if max <= 0 {
		max = DefaultLimits().MaxAnswerBytes
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	a := Answer{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Raw: raw}
	if int64(len(raw)) > max {
		a.Raw, a.Truncated = raw[:max], true
	}
	if err != nil && !a.Truncated {
		if errors.Is(err, context.DeadlineExceeded) {
			a.Silent = true
			return a, nil
		}
		if connCut(err) {
			return Answer{}, &endedError{cut: true, msg: "the server cut the connection in the middle of its answer"}
		}
		return a, fmt.Errorf("reading the answer from %s: %w", c.t.Name(), scrub(err))
	}
	a.Message = extractMessage(a.Raw)
	a.Reached, a.Observed = observed(c.client)
	return a, nil
}

func (c *httpConn) setVersion(v string) { c.version = v }

func (c *httpConn) Close() error {
	if c.session == "" {
		return nil
	}
	req, err := http.NewRequest(http.MethodDelete, c.t.URL, nil)
	if err != nil {
		return nil
	}
	req.Header.Set("Mcp-Session-Id", c.session)
	if resp, err := c.client.Do(req); err == nil {
		resp.Body.Close()
	}
	return nil
}

// connCut reports whether err is the connection ending under a request: the
// server closed or reset it instead of answering (a refused connection is
// not one: the server is not there to have read the message).
func connCut(err error) bool {
	for _, e := range []error{io.EOF, io.ErrUnexpectedEOF, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// scrub keeps a transport error's kind and drops the URL error's quoting of
// the request (the URL is the operator's, but nothing of a probe body may be
// printed).
func scrub(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// extractMessage finds the JSON-RPC message in an answer: the body itself,
// or the data lines of the first SSE event that carries one.
func extractMessage(raw []byte) []byte {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil
	}
	if t[0] == '{' || t[0] == '[' {
		return t
	}
	var data []byte
	for _, line := range bytes.Split(t, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimSpace(d)...)
			continue
		}
		if len(line) == 0 && len(data) > 0 {
			return data
		}
	}
	return data
}

// Stdio spawns Command with Args and speaks newline-delimited JSON-RPC on its
// stdin and stdout; each Open is a new process. Stderr is discarded past its
// first 4 KiB, which a start failure quotes.
type Stdio struct {
	Command string
	Args    []string
	Dir     string
	Env     []string

	maxAnswer int64
	wait      time.Duration
	// name, when set, is the command line the target is named by: the
	// census's, without the shell that bounds it
	name string
	// RSSLimit, when above 0, is the resident set a process may reach: a
	// watch samples it every RSSInterval and kills the process past it,
	// and the run ends with an error naming the bound.
	RSSLimit int64
}

// RSSInterval is how often a stdio process's resident set is sampled
// against Stdio.RSSLimit.
const RSSInterval = 50 * time.Millisecond

// Name is the command line.
func (s *Stdio) Name() string {
	if s.name != "" {
		return s.name
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

// Open starts the process.
func (s *Stdio) Open(ctx context.Context) (Conn, error) {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir, cmd.Env = s.Dir, s.Env
	stdin, stdout, err := child.Start(cmd)
	if err != nil {
		return nil, err
	}
	max := s.maxAnswer
	if max <= 0 {
		max = DefaultLimits().MaxAnswerBytes
	}
	wait := s.wait
	if wait <= 0 {
		wait = DefaultLimits().Timeout
	}
	c := &stdioConn{cmd: cmd, in: stdin, lines: make(chan line, 16), done: make(chan struct{}), wait: wait, rssLimit: s.RSSLimit}
	go c.read(bufio.NewReaderSize(stdout, 64<<10), max)
	go func() { _ = cmd.Wait(); c.exited = time.Now(); close(c.done) }()
	if s.RSSLimit > 0 {
		go c.watch()
	}
	return c, nil
}

type line struct {
	b         []byte
	truncated bool
}

type stdioConn struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan line
	done  chan struct{} // closed when the process is reaped
	// exited is when the process was reaped; read only after done closed
	exited time.Time
	wait   time.Duration
	once   sync.Once
	// rssLimit is Stdio.RSSLimit; killed the resident set the watch killed
	// the process at (0: not killed)
	rssLimit int64
	killed   atomic.Int64
	// late holds the small answers that came after their message's wait,
	// by id (at most maxLate): a message answered late was not dropped
	late map[string]Answer
}

// watch kills the process once its resident set passes rssLimit.
func (c *stdioConn) watch() {
	t := time.NewTicker(RSSInterval)
	defer t.Stop()
	status := "/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/status"
	for {
		if data, err := os.ReadFile(status); err == nil {
			if rss, err := vmField(data, "VmRSS:"); err == nil && rss > c.rssLimit {
				c.killed.Store(rss)
				_ = c.cmd.Process.Kill()
				return
			}
		}
		select {
		case <-c.done:
			return
		case <-t.C:
		}
	}
}

// endErr is e, unless the watch killed the process: then the run ends
// with the bound, not a session the server ended.
func (c *stdioConn) endErr(e *endedError) error {
	if rss := c.killed.Load(); rss > 0 {
		return &rssKilled{rss: rss, limit: c.rssLimit}
	}
	return e
}

// rssKilled is a process the watch killed: it ends the run, whatever
// probe was under way.
type rssKilled struct{ rss, limit int64 }

func (e *rssKilled) Error() string {
	return fmt.Sprintf("the server's process was killed at %d bytes resident, past its bound of %d", e.rss, e.limit)
}

// maxLate bounds the late answers a connection keeps, and maxLateBytes
// the size of one: the body-cap probe asks only after a ping's.
const (
	maxLate      = 16
	maxLateBytes = 64 << 10
)

// keepLate keeps l when it is a small answer (a result or an error with an
// id): the answer to a message whose wait ran out.
func (c *stdioConn) keepLate(l line) {
	if l.truncated || len(l.b) > maxLateBytes {
		return
	}
	var m struct {
		ID     json.RawMessage  `json:"id"`
		Result *json.RawMessage `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	t := bytes.TrimSpace(l.b)
	if json.Unmarshal(t, &m) != nil || (m.Result == nil && m.Error == nil) || len(m.ID) == 0 {
		return
	}
	if c.late == nil || len(c.late) >= maxLate {
		c.late = map[string]Answer{}
	}
	c.late[string(m.ID)] = Answer{Raw: l.b, Message: t}
}

// lateAnswer is the answer to id that came after its wait, if one came
// since.
func (c *stdioConn) lateAnswer(id json.RawMessage) (Answer, bool) {
	a, ok := c.late[string(id)]
	delete(c.late, string(id))
	return a, ok
}

// read splits stdout into lines, each kept up to max bytes.
func (c *stdioConn) read(r *bufio.Reader, max int64) {
	defer close(c.lines)
	for {
		var l line
		for {
			chunk, err := r.ReadSlice('\n')
			if int64(len(l.b)) < max {
				l.b = append(l.b, chunk[:min(int64(len(chunk)), max-int64(len(l.b)))]...)
			} else if len(chunk) > 0 {
				l.truncated = true
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				if len(l.b) > 0 {
					c.lines <- l
				}
				return
			}
			break
		}
		c.lines <- l
	}
}

func (c *stdioConn) Send(ctx context.Context, body []byte, id json.RawMessage) (Answer, error) {
	for drained := false; !drained; { // a late answer to an earlier message is not this one's
		select {
		case l, ok := <-c.lines:
			if !ok {
				return Answer{}, c.endErr(&endedError{before: true, msg: "the server's stdout is closed: the process exited"})
			}
			c.keepLate(l)
		default:
			drained = true
		}
	}
	select {
	case <-c.done:
		return Answer{}, c.endErr(&endedError{before: true, msg: "the server's process exited"})
	default:
	}
	msg := append(bytes.TrimRight(body, "\n"), '\n')
	wrote := time.Now()
	if _, err := c.in.Write(msg); err != nil {
		// a write of at most pipeAtomic bytes goes in whole or not at all:
		// its failure means the reading end closed before this message
		// came; a longer one may have been cut off by the message itself
		return Answer{}, c.endErr(&endedError{before: len(msg) <= pipeAtomic, msg: "the server's stdin is closed: the process exited"})
	}
	if id == nil {
		return Answer{}, nil
	}
	wait := c.wait
	if d, ok := ctx.Deadline(); ok {
		wait = time.Until(d) // the session's per-message wait
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return Answer{}, c.endErr(&endedError{before: c.exitedBefore(wrote), msg: "the server's stdout closed before it answered: the process exited"})
			}
			t := bytes.TrimSpace(l.b)
			if answers(t, id) || l.truncated {
				return Answer{Raw: l.b, Message: t, Truncated: l.truncated}, nil
			}
			// a notification, a server request, or a late answer to an
			// earlier message: not the answer
			c.keepLate(l)
		case <-timer.C:
			return Answer{Silent: true}, nil
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return Answer{Silent: true}, nil // the request's own time ran out
			}
			return Answer{}, ctx.Err()
		}
	}
}

// pipeAtomic is POSIX's PIPE_BUF floor: a pipe write of at most this many
// bytes is never split.
const pipeAtomic = 512

// endedError is a transport that ended: a stdio process exited, or closed
// its stdin or stdout; an HTTP connection was cut without an answer (cut).
// before says the end came before this message could have caused it (the
// previous message's doing; over HTTP each message has its own exchange,
// so never).
type endedError struct {
	before, cut bool
	msg         string
}

func (e *endedError) Error() string { return e.msg }

// exitedBefore reports whether the process had exited before t, waiting a
// little for it to be reaped once its stdout has closed (a process that
// closes stdout and lives on is this message's doing: Close kills it).
func (c *stdioConn) exitedBefore(t time.Time) bool {
	select {
	case <-c.done:
	case <-time.After(time.Second):
		return false
	}
	return c.exited.Before(t)
}

func (c *stdioConn) Close() error {
	c.once.Do(func() {
		_ = c.in.Close()
		select {
		case <-c.done:
		case <-time.After(2 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	})
	return nil
}

// newClient is the client of a URL target: the per-request timeout, and no
// redirects followed (a probe body is sent to the URL named, nowhere else).
func newClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}
