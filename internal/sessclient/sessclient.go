// Package sessclient is the labs' MCP client for the stateful streamable-HTTP
// transport (go-sdk v1.8.0's default): it opens sessions (initialize, then
// notifications/initialized), holds standalone GET streams and idle
// keep-alive connections, and times a new client's whole conversation. The
// memory lab (memmodel's state rows) and the load lab (package load's floods)
// drive a server under test with it, from another process than the server's
// so that nothing it holds is counted against the server.
//
// # What it promises
//
//   - Loopback only: every function refuses a URL whose host is not
//     127.0.0.1 (ErrNotLoopback) before it dials.
//   - Bounded: every answer is read through a limit (MaxAnswer) and never
//     held past what classifying it needs; every call takes a context, and a
//     held stream or connection is one file descriptor and a small buffer.
//   - A failure is data (*Failure): the step that failed, the HTTP status,
//     whether a Retry-After came with it, a JSON-RPC error's code, or the
//     transport error, so a flood can count refusals by kind.
//
// # Where it ends
//
// It speaks the 2025-06-18 revision (protocol header and initialize's
// protocolVersion), which a stateful go-sdk server serves; it is not a
// general MCP client: no server-to-client requests, no resumption (Last-Event-ID),
// no notifications read off a stream. It is a lab package: production code
// does not import it.
package sessclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ProtocolVersion is the revision the client speaks: the newest one go-sdk
// v1.8.0 serves statefully (2026-07-28 needs a stateless server).
const ProtocolVersion = "2025-06-18"

// MaxAnswer bounds how much of one answer is read; the rest is a failure
// (the lab's answers are a few hundred bytes).
const MaxAnswer = 1 << 20

// ErrNotLoopback is returned for any URL whose host is not 127.0.0.1.
var ErrNotLoopback = errors.New("sessclient: the labs drive http://127.0.0.1 only")

// Steps a Failure names.
const (
	StepInitialize  = "initialize"
	StepInitialized = "notifications/initialized"
	StepCall        = "tools/call"
	StepDelete      = "delete"
	StepStream      = "get-stream"
	StepConn        = "idle-conn"
	StepHeader      = "header-block"
)

// Failure is why a step did not succeed.
type Failure struct {
	Step       string
	Status     int  // HTTP status; 0: no answer
	RetryAfter bool // the answer carried a Retry-After header
	RPCCode    int  // a JSON-RPC error's code; 0: none
	Err        error
}

func (f *Failure) Error() string {
	switch {
	case f.Err != nil:
		return fmt.Sprintf("%s: %v", f.Step, f.Err)
	case f.RPCCode != 0:
		return fmt.Sprintf("%s: HTTP %d, JSON-RPC error %d", f.Step, f.Status, f.RPCCode)
	}
	return fmt.Sprintf("%s: HTTP %d", f.Step, f.Status)
}

func (f *Failure) Unwrap() error { return f.Err }

// Kind names the failure for counting: "http-NNN" (with "+retry-after"
// when the answer carried one), "jsonrpc-error" (a 2xx answer holding a
// JSON-RPC error), "bad-answer" (a 2xx answer that is no result), or
// "transport" (no answer).
func (f *Failure) Kind() string {
	switch {
	case f.Status != 0 && f.Status/100 != 2:
		return "http-" + strconv.Itoa(f.Status) + retry(f.RetryAfter)
	case f.RPCCode != 0:
		return "jsonrpc-error"
	case f.Status != 0:
		return "bad-answer"
	}
	return "transport"
}

func retry(b bool) string {
	if b {
		return "+retry-after"
	}
	return ""
}

// CheckURL refuses anything but http://127.0.0.1:PORT/...
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" {
		return nil, ErrNotLoopback
	}
	return u, nil
}

// NewHTTPClient is an HTTP client for loopback with up to conns keep-alive
// connections to the server (no more are opened: a flood's connections are
// its concurrency, not one per request).
func NewHTTPClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		DisableCompression:  true,
	}}
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + ProtocolVersion +
	`","capabilities":{},"clientInfo":{"name":"boundlab-lab","version":"0"}}}`

const initializedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// CallBody is the tools/call a conversation ends with: a valid project.list
// call, which every demo server serves.
const CallBody = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"project.list","arguments":{}}}`

// Open opens a session: initialize, then notifications/initialized. It
// returns the Mcp-Session-Id the server assigned.
func Open(ctx context.Context, cl *http.Client, rawURL string) (string, error) {
	if _, err := CheckURL(rawURL); err != nil {
		return "", err
	}
	a, err := post(ctx, cl, rawURL, "", StepInitialize, initializeBody)
	if err != nil {
		return "", err
	}
	sid := a.header.Get("Mcp-Session-Id")
	if sid == "" {
		return "", &Failure{Step: StepInitialize, Status: a.status, Err: errors.New("no Mcp-Session-Id in the answer")}
	}
	if _, err := post(ctx, cl, rawURL, sid, StepInitialized, initializedBody); err != nil {
		return sid, err
	}
	return sid, nil
}

// Call sends body (a JSON-RPC request) on the session and fails unless it is
// answered with a result that is not a tool error.
func Call(ctx context.Context, cl *http.Client, rawURL, sid, body string) error {
	if _, err := CheckURL(rawURL); err != nil {
		return err
	}
	_, err := post(ctx, cl, rawURL, sid, StepCall, body)
	return err
}

// Close ends the session with DELETE.
func Close(ctx context.Context, cl *http.Client, rawURL, sid string) error {
	if _, err := CheckURL(rawURL); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, rawURL, nil)
	if err != nil {
		return &Failure{Step: StepDelete, Err: err}
	}
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", ProtocolVersion)
	resp, err := cl.Do(req)
	if err != nil {
		return &Failure{Step: StepDelete, Err: err}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxAnswer))
	if resp.StatusCode/100 != 2 {
		return &Failure{Step: StepDelete, Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After") != ""}
	}
	return nil
}

// Conversation is a new client's whole conversation on a connection of its
// own: initialize, notifications/initialized, a tools/call, timed from the
// first byte sent to the call's answer; the session is then closed with
// DELETE, untimed, so that probing leaves no session behind. The returned
// failure is the first step's that failed.
func Conversation(ctx context.Context, rawURL string) (time.Duration, error) {
	cl := NewHTTPClient(1)
	defer cl.CloseIdleConnections()
	start := time.Now()
	sid, err := Open(ctx, cl, rawURL)
	if err == nil {
		err = Call(ctx, cl, rawURL, sid, CallBody)
	}
	took := time.Since(start)
	if sid != "" {
		_ = Close(ctx, cl, rawURL, sid)
	}
	return took, err
}

type answer struct {
	status int
	header http.Header
}

// post sends one JSON-RPC message and reads its whole answer: 202 for a
// notification, else a JSON or SSE message that must be a result (not a
// JSON-RPC error, not a tool error).
func post(ctx context.Context, cl *http.Client, rawURL, sid, step, body string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader([]byte(body)))
	if err != nil {
		return answer{}, &Failure{Step: step, Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", ProtocolVersion)
	}
	resp, err := cl.Do(req)
	if err != nil {
		return answer{}, &Failure{Step: step, Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer+1))
	a := answer{status: resp.StatusCode, header: resp.Header}
	f := &Failure{Step: step, Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After") != ""}
	switch {
	case err != nil:
		f.Err = err
		return a, f
	case len(data) > MaxAnswer:
		f.Err = fmt.Errorf("an answer past %d bytes", MaxAnswer)
		return a, f
	}
	f.RPCCode = rpcErrorCode(data)
	if resp.StatusCode/100 != 2 || f.RPCCode != 0 {
		return a, f
	}
	if step == StepInitialized {
		return a, nil // a notification's answer is 202 and no body
	}
	if !isResult(data) {
		f.Err = errors.New("the answer is no JSON-RPC result")
		return a, f
	}
	return a, nil
}

// message is the JSON-RPC message in an answer: the body itself, or an SSE
// answer's first data line.
func message(data []byte) []byte {
	if i := bytes.Index(data, []byte("data: ")); i >= 0 && (i == 0 || data[i-1] == '\n') {
		line, _, _ := bytes.Cut(data[i+len("data: "):], []byte("\n"))
		return line
	}
	return data
}

func rpcErrorCode(data []byte) int {
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(message(data), &m) != nil || m.Error == nil {
		return 0
	}
	if m.Error.Code == 0 {
		return -1 // an error object without a code is still an error
	}
	return m.Error.Code
}

func isResult(data []byte) bool {
	var m struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	return json.Unmarshal(message(data), &m) == nil && m.Result != nil && !m.Result.IsError
}

// Held is a connection the client holds open: a standalone GET stream or an
// idle keep-alive connection.
type Held struct {
	Stream bool // a GET stream; false: an idle connection
	conn   net.Conn
	br     *bufio.Reader
	// A stream's chunked body, followed across reads that time out (net/http's
	// chunked reader keeps its first error): the current chunk-size line,
	// the bytes left of the current chunk, whether the last chunk came.
	chunked bool
	line    []byte
	left    int64
	ended   bool
}

// heldBuffer is each held connection's read buffer: the answer's header and
// the stream's first comment fit, and thousands of held connections cost the
// lab little.
const heldBuffer = 1024

// HoldStream opens a connection of its own, sends a standalone GET for the
// session and returns once the server has answered 200 with an event
// stream, holding the connection open.
func HoldStream(ctx context.Context, rawURL, sid string) (*Held, error) {
	return hold(ctx, rawURL, StepStream, sid, true)
}

// HoldIdle opens a connection of its own, sends one GET without a session
// (which a stateful server answers 400 and keeps the connection alive), reads
// the whole answer and returns the connection, idle.
func HoldIdle(ctx context.Context, rawURL string) (*Held, error) {
	return hold(ctx, rawURL, StepConn, "", false)
}

// HoldHeader opens a connection of its own and sends the head of a GET
// whose header block is at most n bytes and within one line's framing of it
// (the request line, Host, then X-Pad lines of at most a kilobyte), without
// the blank line that ends it: the server holds
// what it has read while it waits for the rest. Nothing is answered, so it
// returns as soon as the bytes are written.
func HoldHeader(ctx context.Context, rawURL string, n int) (*Held, error) {
	u, err := CheckURL(rawURL)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: 5 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, &Failure{Step: StepHeader, Err: err}
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if _, err := conn.Write(HeaderBlock(u, n)); err != nil {
		conn.Close()
		return nil, &Failure{Step: StepHeader, Err: err}
	}
	_ = conn.SetDeadline(time.Time{})
	return &Held{conn: conn, br: bufio.NewReaderSize(conn, heldBuffer)}, nil
}

// HeaderBlock is the unfinished head HoldHeader sends: at most n bytes, at
// least n less one line's framing, or the request line and Host alone when n
// is smaller.
func HeaderBlock(u *url.URL, n int) []byte {
	b := []byte("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\n")
	for i := 0; len(b) < n; i++ {
		line := "X-Pad-" + strconv.Itoa(i) + ": "
		pad := min(1024, n-len(b)-len(line)-2)
		if pad < 1 {
			break
		}
		b = append(b, line...)
		for range pad {
			b = append(b, 'a')
		}
		b = append(b, "\r\n"...)
	}
	return b
}

func hold(ctx context.Context, rawURL, step, sid string, stream bool) (*Held, error) {
	u, err := CheckURL(rawURL)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: 5 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, &Failure{Step: step, Err: err}
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nAccept: text/event-stream\r\n"
	if sid != "" {
		req += "Mcp-Session-Id: " + sid + "\r\nMcp-Protocol-Version: " + ProtocolVersion + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		conn.Close()
		return nil, &Failure{Step: step, Err: err}
	}
	h := &Held{Stream: stream, conn: conn, br: bufio.NewReaderSize(conn, heldBuffer)}
	resp, err := http.ReadResponse(h.br, nil)
	if err != nil {
		conn.Close()
		return nil, &Failure{Step: step, Err: err}
	}
	f := &Failure{Step: step, Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After") != ""}
	if stream {
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
			resp.Body.Close()
			conn.Close()
			return nil, f
		}
		if len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" {
			conn.Close()
			f.Err = errors.New("the stream's answer is not chunked")
			return nil, f
		}
		h.chunked = true
	} else {
		// The answer is read whole, so the connection is idle between
		// requests, as a keep-alive connection is.
		_, err := io.Copy(io.Discard, io.LimitReader(resp.Body, MaxAnswer))
		resp.Body.Close()
		if err != nil || resp.Close {
			conn.Close()
			if err == nil {
				err = errors.New("the server closed the connection after its answer")
			}
			f.Err = err
			return nil, f
		}
	}
	_ = conn.SetDeadline(time.Time{})
	return h, nil
}

// Alive reports whether the server still holds the stream or connection
// open: a read that waits wait without an end or an error. A stream ends
// with its response's last chunk (a server that ends a stream may keep the
// connection alive for the next request); an idle connection ends when the
// server closes it. Bytes the server sent meanwhile (a stream's comments)
// are consumed.
func (h *Held) Alive(wait time.Duration) bool {
	if h.ended {
		return false
	}
	_ = h.conn.SetReadDeadline(time.Now().Add(wait))
	defer h.conn.SetReadDeadline(time.Time{})
	for {
		c, err := h.br.ReadByte()
		if err != nil {
			var ne net.Error
			return errors.As(err, &ne) && ne.Timeout()
		}
		if !h.chunked {
			continue
		}
		if h.left > 0 { // a chunk's data and its CRLF
			h.left--
			continue
		}
		if c != '\n' {
			if len(h.line) < 64 {
				h.line = append(h.line, c)
			}
			continue
		}
		hex, _, _ := strings.Cut(strings.TrimSpace(string(h.line)), ";")
		h.line = h.line[:0]
		n, err := strconv.ParseInt(hex, 16, 64)
		if err != nil || n < 0 {
			h.ended = true // not the chunked framing the stream began with
			return false
		}
		if n == 0 {
			h.ended = true
			return false
		}
		h.left = n + 2
	}
}

// Close closes the connection.
func (h *Held) Close() error { return h.conn.Close() }
