package census

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/internal/child"
	"github.com/theurian/boundlab/internal/strangers"
)

// The direct instrument: a raw MCP client over streamable HTTP (a session
// opened by hand, as package strangers' Session) or stdio (a process it starts itself, its RSS
// watched), sharing no code with package audit, to hold the census's
// figures against.

// rawConn is one session opened by hand.
type rawConn interface {
	// post sends one message and returns its answer, or nil when none
	// came within wait (or the transport ended).
	post(body []byte, id int, wait time.Duration) []byte
	close()
}

// RSSGuard is the resident set a direct stdio child may reach before it is
// killed: the largest body sent is the audit's 64 MiB ceiling, which a
// server may hold a few times over; past 1 GiB it hurts the machine.
const RSSGuard = strangers.RSSGuard

// httpRaw is an HTTP session opened by hand; each post waits as long as
// it is told to (a 64 MiB body takes a loaded machine past a fixed
// timeout).
type httpRaw struct {
	url, id string
}

func (h *httpRaw) post(body []byte, _ int, wait time.Duration) []byte {
	req, err := http.NewRequest(http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.id != "" {
		req.Header.Set("Mcp-Session-Id", h.id)
	}
	resp, err := (&http.Client{Timeout: max(wait, 30*time.Second)}).Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && h.id == "" {
		h.id = id
	}
	return raw
}

func (*httpRaw) close() {}

// stdioRaw is a server process the direct instrument started.
type stdioRaw struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	exited chan struct{}
	killed atomic.Int64
}

// dial opens a session on the target: a new process over stdio, a new
// session over HTTP; initialize and notifications/initialized sent.
func dial(t audit.Target) (rawConn, error) {
	switch t := t.(type) {
	case *audit.HTTP:
		h := &httpRaw{url: t.URL}
		h.post([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"direct","version":"0"}}}`), 1, time.Minute)
		h.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), 0, time.Minute)
		return h, nil
	case *audit.Stdio:
		c, err := startRaw(t)
		if err != nil {
			return nil, err
		}
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"direct","version":"0"}}}`
		if ans := c.post([]byte(init), 1, time.Minute); !isResult(ans) {
			c.close()
			return nil, fmt.Errorf("initialize not answered with a result: %.200q", ans)
		}
		c.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), 0, 0)
		return c, nil
	}
	return nil, fmt.Errorf("no direct instrument for a %T target", t)
}

func startRaw(t *audit.Stdio) (*stdioRaw, error) {
	cmd := exec.Command(t.Command, t.Args...)
	cmd.Dir, cmd.Env = t.Dir, t.Env
	in, out, err := child.Start(cmd)
	if err != nil {
		return nil, err
	}
	c := &stdioRaw{cmd: cmd, in: in, lines: make(chan []byte, 64), exited: make(chan struct{})}
	go func() {
		defer close(c.lines)
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			// an answer is kept up to 16 MiB; the rest of its line is read
			// and dropped (the ratio counts the line's full length)
			var kept []byte
			n := 0
			for {
				chunk, err := r.ReadSlice('\n')
				n += len(chunk)
				if len(kept) < 16<<20 {
					kept = append(kept, chunk[:min(len(chunk), 16<<20-len(kept))]...)
				}
				if err == bufio.ErrBufferFull {
					continue
				}
				if err != nil {
					return
				}
				break
			}
			c.lines <- padTo(kept, n)
		}
	}()
	go func() { _ = cmd.Wait(); close(c.exited) }()
	go c.watch()
	return c, nil
}

// padTo marks a line cut at 16 MiB with its length: the kept bytes and a
// length the ratio reads (lineLen).
func padTo(kept []byte, n int) []byte {
	if n == len(kept) {
		return kept
	}
	return append(kept[:len(kept):len(kept)], []byte("\x00len="+strconv.Itoa(n))...)
}

// lineLen is an answer line's length on the wire.
func lineLen(b []byte) int {
	if i := bytes.LastIndex(b, []byte("\x00len=")); i >= 0 {
		n, _ := strconv.Atoi(string(b[i+5:]))
		return n
	}
	return len(b)
}

// watch kills the process past RSSGuard.
func (c *stdioRaw) watch() {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		if rss, err := c.status("VmRSS:"); err == nil && rss > RSSGuard {
			c.killed.Store(rss)
			_ = c.cmd.Process.Kill()
			return
		}
		select {
		case <-c.exited:
			return
		case <-t.C:
		}
	}
}

// status reads one "Name: N kB" field of the process's /proc status.
func (c *stdioRaw) status(field string) (int64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, field); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				n, err := strconv.ParseInt(f[0], 10, 64)
				return n * 1024, err
			}
		}
	}
	return 0, errors.New("no " + field + " in the process's status")
}

func (c *stdioRaw) post(body []byte, id int, wait time.Duration) []byte {
	for drained := false; !drained; {
		select {
		case <-c.lines:
		default:
			drained = true
		}
	}
	if _, err := c.in.Write(append(bytes.TrimRight(body, "\n"), '\n')); err != nil || id == 0 {
		return nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	want := strconv.Itoa(id)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return nil
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			msg := l
			if i := bytes.LastIndex(l, []byte("\x00len=")); i >= 0 {
				msg = l[:i]
			}
			if json.Unmarshal(bytes.TrimSpace(msg), &m) == nil && m.Method == "" && string(m.ID) == want {
				return l
			}
			if lineLen(l) > len(msg) && bytes.Contains(msg[:min(len(msg), 64)], []byte(`"id":`+want)) {
				return l // a line past what is kept, answering this id
			}
		case <-timer.C:
			return nil
		}
	}
}

func (c *stdioRaw) close() {
	_ = c.in.Close()
	select {
	case <-c.exited:
	case <-time.After(2 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// isResult reports whether raw (a JSON-RPC message, or one SSE event) is a
// JSON-RPC result.
func isResult(raw []byte) bool {
	msg := raw
	if i := bytes.LastIndex(msg, []byte("\x00len=")); i >= 0 {
		msg = msg[:i]
	}
	if i := bytes.Index(msg, []byte("data:")); i >= 0 {
		msg = bytes.TrimSpace(bytes.SplitN(msg[i+5:], []byte("\n"), 2)[0])
	}
	var m struct {
		Result json.RawMessage `json:"result"`
	}
	return json.Unmarshal(bytes.TrimSpace(msg), &m) == nil && m.Result != nil
}

func ping(n int64, id int) []byte {
	head, tail := `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"ping"`, `}`
	return []byte(head + strings.Repeat(" ", int(n)-len(head)-len(tail)) + tail)
}

// nest is depth levels of {"a":…{}}.
func nest(depth int) string {
	return strings.Repeat(`{"a":`, depth-1) + "{}" + strings.Repeat("}", depth-1)
}

// bodyWait is how long a direct n-byte ping is awaited: the auditor's
// allowance (audit.BodyRate) and a generous floor, so a slow parse is not
// taken for a refusal.
func bodyWait(n int64) time.Duration {
	return 15*time.Second + time.Duration(n/audit.BodyRate)*time.Second
}

// Direct is what the direct instrument measured on one server.
type Direct struct {
	// AtCap and PastCap: the reported cap (or the ceiling) answered with
	// a result, and one byte past it (nil when no cap was reported).
	AtCap   bool
	PastCap *bool
	// Fuzzy: one byte past the reported cap was answered and two past was
	// not: the cap holds to within a byte (a reader whose limit depends on
	// how the pipe delivers the line).
	Fuzzy bool
	// AtDepth and PastDepth: the nesting at the reported depth (or the
	// ceiling) answered as depth 2, and one deeper (nil: no depth).
	AtDepth   bool
	PastDepth *bool
	// Params and UnknownTool are the two envelope echoes, worst filler.
	Params, UnknownTool strangers.Echo
	// Memory is the peak resident growth per request byte at the cap over
	// stdio (nil over HTTP or when the report has none).
	Memory *float64
}

// Measure takes the direct measurements the report's figures are held to,
// each on a session (a process, over stdio) of its own.
func Measure(ctx context.Context, t audit.Target, rep *audit.Report) (*Direct, error) {
	b := rep.Boundary
	if b == nil {
		return nil, errors.New("the report has no boundary")
	}
	d := &Direct{}
	answered := func(n int64) (bool, error) {
		c, err := dial(t)
		if err != nil {
			return false, err
		}
		defer c.close()
		return isResult(c.post(ping(n, 5), 5, bodyWait(n))), nil
	}
	var err error
	if b.BodyCap != nil {
		if d.AtCap, err = answered(*b.BodyCap); err != nil {
			return nil, err
		}
		past, err := answered(*b.BodyCap + 1)
		if err != nil {
			return nil, err
		}
		if past {
			// a reader whose limit depends on how the pipe delivers the
			// line answers one byte past it some of the time: one more
			if d.Fuzzy, err = answered(*b.BodyCap + 2); err != nil {
				return nil, err
			}
			d.Fuzzy = !d.Fuzzy
			past = !d.Fuzzy
		}
		d.PastCap = &past
	} else if d.AtCap, err = answered(b.BodyCeiling); err != nil {
		return nil, err
	}
	// the depth, in the placement the report names, against depth 2
	carrier, _ := json.Marshal(b.Carrier)
	shape := func(depth int) (string, error) {
		params := `"arguments":` + nest(depth)
		if b.DepthPlacement == "params._meta" {
			params = `"arguments":{},"_meta":` + nest(depth)
		}
		c, err := dial(t)
		if err != nil {
			return "", err
		}
		defer c.close()
		ans := c.post([]byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":`+string(carrier)+`,`+params+`}}`), 9, time.Minute)
		return answerShape(ans), nil
	}
	shallow, err := shape(2)
	if err != nil {
		return nil, err
	}
	depth := b.DepthCeiling
	if b.MaxDepth != nil {
		depth = *b.MaxDepth
	}
	at, err := shape(depth)
	if err != nil {
		return nil, err
	}
	d.AtDepth = at == shallow
	if b.MaxDepth != nil {
		past, err := shape(depth + 1)
		if err != nil {
			return nil, err
		}
		p := past == shallow
		d.PastDepth = &p
	}
	if d.Params, err = worstEcho(t, `tools/call params {"name":1,"x":...}`, func(unit string, n, id int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":1,"x":"` + strings.Repeat(unit, n) + `"}}`)
	}); err != nil {
		return nil, err
	}
	if d.UnknownTool, err = worstEcho(t, "tools/call of an unknown tool name", func(unit string, n, id int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + strings.Repeat(unit, n) + `","arguments":{}}}`)
	}); err != nil {
		return nil, err
	}
	if s, ok := t.(*audit.Stdio); ok && b.Memory != nil {
		m, err := peakPerByte(s, b.Memory.RequestBytes)
		if err != nil {
			return nil, err
		}
		d.Memory = &m
	}
	return d, ctx.Err()
}

// answerShape is what tells two answers apart for the depth: a result, a
// JSON-RPC error with its code, a tool error, or none.
func answerShape(raw []byte) string {
	if raw == nil {
		return "none"
	}
	msg := raw
	if i := bytes.LastIndex(msg, []byte("\x00len=")); i >= 0 {
		msg = msg[:i]
	}
	if i := bytes.Index(msg, []byte("data:")); i >= 0 {
		msg = bytes.TrimSpace(bytes.SplitN(msg[i+5:], []byte("\n"), 2)[0])
	}
	var m struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	switch {
	case json.Unmarshal(bytes.TrimSpace(msg), &m) != nil:
		return "not-json"
	case m.Result != nil && m.Result.IsError:
		return "tool-error"
	case m.Result != nil:
		return "result"
	case m.Error != nil:
		return "rpc-error " + strconv.Itoa(m.Error.Code)
	}
	return "other"
}

// fillers are the direct echo's units: ASCII, '<' (six bytes from Go's
// JSON encoder), a lone 0xFF (three as U+FFFD), DEL (four in Go's %q).
var fillers = []struct{ name, unit string }{{"a", "a"}, {"<", "<"}, {"0xFF", "\xff"}, {"DEL U+007F", "\x7f"}}

// worstEcho sends body for each filler at strangers.DirectEchoBytes, each
// on its own session, and keeps the largest answer per request byte.
func worstEcho(t audit.Target, what string, body func(unit string, n, id int) []byte) (strangers.Echo, error) {
	var e strangers.Echo
	for i, f := range fillers {
		c, err := dial(t)
		if err != nil {
			return e, err
		}
		id := 20 + i
		b := body(f.unit, strangers.DirectEchoBytes/len(f.unit), id)
		ans := c.post(b, id, time.Minute)
		c.close()
		if r := float64(lineLen(ans)) / float64(len(b)); r > e.Ratio {
			e = strangers.Echo{Ratio: r, Instance: fmt.Sprintf("%s: the worst of %d-byte values of each filler", what, strangers.DirectEchoBytes)}
		}
	}
	return e, nil
}

// peakPerByte starts a fresh process, pings it small, reads its VmHWM,
// sends one n-byte ping and reads VmHWM again: the growth per request byte.
func peakPerByte(t *audit.Stdio, n int64) (float64, error) {
	c, err := dial(t)
	if err != nil {
		return 0, err
	}
	defer c.close()
	s := c.(*stdioRaw)
	if !isResult(s.post(ping(64, 3), 3, time.Minute)) {
		return 0, errors.New("direct memory: a small ping was not answered")
	}
	before, err := s.status("VmHWM:")
	if err != nil {
		return 0, err
	}
	if !isResult(s.post(ping(n, 4), 4, bodyWait(n))) {
		if rss := s.killed.Load(); rss > 0 {
			return 0, fmt.Errorf("direct memory: killed by the RSS guard at %d bytes", rss)
		}
		return 0, fmt.Errorf("direct memory: the %d-byte ping was not answered", n)
	}
	after, err := s.status("VmHWM:")
	if err != nil {
		return 0, err
	}
	return float64(max(after-before, 0)) / float64(n), nil
}
