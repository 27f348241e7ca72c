package mcpvalidate

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

// sessVersion is the protocol the rig's raw requests speak: the newest a
// stateful go-sdk handler serves.
const sessVersion = "2025-11-25"

// unit is what a session weighs in the table with its first stream.
const unit = bounds.SessionCost + bounds.StreamCost

// sessRig is the go-sdk's real streamable HTTP handler behind the front
// gate, over HTTP on 127.0.0.1, with every request that reaches the SDK
// counted. Its one tool, hold, blocks until its key is released, so a test
// can keep a session's request in flight.
type sessRig struct {
	t    *testing.T
	url  string
	fg   *frontGate
	http *http.Client
	srv  *mcp.Server

	mu      sync.Mutex
	calls   map[string]int // method -> requests that reached the SDK
	deletes []string       // session ids of the DELETEs that reached the SDK, in order
	holds   map[string]chan struct{}
	entered chan string

	// refuseDelete makes the layer before the SDK refuse every DELETE (as
	// an authentication layer between the gate and the SDK would).
	refuseDelete bool
}

func newSessRig(t *testing.T, fgo *frontGateOptions, hopts *mcp.StreamableHTTPOptions, sopts ...*mcp.ServerOptions) *sessRig {
	t.Helper()
	r := &sessRig{t: t, calls: map[string]int{}, holds: map[string]chan struct{}{}, entered: make(chan string, 16)}
	srv := mcp.NewServer(&mcp.Implementation{Name: "sessions", Version: "v0"}, append(sopts, nil)[0])
	tool := &mcp.Tool{Name: "hold", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}}, "additionalProperties": false}}
	srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ Key string }
		_ = json.Unmarshal(req.Params.Arguments, &args)
		r.mu.Lock()
		ch := r.holds[args.Key]
		r.mu.Unlock()
		r.entered <- args.Key
		if ch != nil {
			select {
			case <-ch:
			case <-ctx.Done():
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held " + args.Key}}}, nil
	})
	v, err := New(Tools(tool), nil)
	if err != nil {
		t.Fatal(err)
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, v.streamableHTTPOptions(hopts))
	counted := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.calls[req.Method]++
		if req.Method == http.MethodDelete {
			r.deletes = append(r.deletes, req.Header.Get("Mcp-Session-Id"))
		}
		refuse := r.refuseDelete && req.Method == http.MethodDelete
		r.mu.Unlock()
		if refuse {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		// A GET carrying X-Test-Hold is held here, as a stream the SDK would
		// not keep (it keeps one standalone stream a session), until the
		// request ends.
		if req.Method == http.MethodGet && req.Header.Get("X-Test-Hold") != "" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, ": held\n\n")
			_ = http.NewResponseController(w).Flush()
			<-req.Context().Done()
			return
		}
		sdk.ServeHTTP(w, req)
	})
	fg, err := v.frontGate(counted, fgo)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(fg)
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		hs.Close()
	})
	r.url, r.fg, r.http, r.srv = hs.URL, fg, &http.Client{Transport: tr}, srv
	return r
}

func (r *sessRig) count(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[method]
}

func (r *sessRig) deleted() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.deletes...)
}

// sessAnswer is an HTTP sessAnswer read whole.
type sessAnswer struct {
	status int
	header http.Header
	body   string
}

func (r *sessRig) do(ctx context.Context, method, session, body string, hdr ...string) sessAnswer {
	r.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.url, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", sessVersion)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := r.http.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	return sessAnswer{resp.StatusCode, resp.Header, string(b)}
}

const initializeBody = `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"` + sessVersion + `","capabilities":{},"clientInfo":{"name":"raw","version":"v0"}}}`

// open initializes a session and sends notifications/initialized.
func (r *sessRig) open() string {
	r.t.Helper()
	a := r.do(context.Background(), http.MethodPost, "", initializeBody)
	id := a.header.Get("Mcp-Session-Id")
	if a.status != http.StatusOK || id == "" {
		r.t.Fatalf("initialize: HTTP %d, session %q: %.300s", a.status, id, a.body)
	}
	if a := r.do(context.Background(), http.MethodPost, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); a.status != http.StatusAccepted {
		r.t.Fatalf("initialized: HTTP %d: %.300s", a.status, a.body)
	}
	return id
}

// use sends the session a request it answers at once.
func (r *sessRig) use(id string) sessAnswer {
	r.t.Helper()
	return r.do(context.Background(), http.MethodPost, id, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
}

// hold keeps a call of session id in flight until the returned release is
// called; it returns once the tool is running.
func (r *sessRig) hold(id, key string) (release func()) {
	r.t.Helper()
	ch := make(chan struct{})
	r.mu.Lock()
	r.holds[key] = ch
	r.mu.Unlock()
	done := make(chan sessAnswer, 1)
	go func() {
		done <- r.do(context.Background(), http.MethodPost, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{"key":"`+key+`"}}}`)
	}()
	select {
	case <-r.entered:
	case a := <-done:
		r.t.Fatalf("hold %s: answered HTTP %d before the tool ran: %.300s", key, a.status, a.body)
	case <-time.After(10 * time.Second):
		r.t.Fatalf("hold %s: the tool never ran", key)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			close(ch)
			if a := <-done; a.status != http.StatusOK {
				r.t.Errorf("hold %s: HTTP %d", key, a.status)
			}
		})
	}
	r.t.Cleanup(release)
	return release
}

// stream is an open GET stream.
type stream struct {
	status int
	header http.Header
	body   string        // a refusal's body
	ended  chan struct{} // closed when the server ends the stream
	cancel context.CancelFunc
}

// openStream opens a GET stream on session id and reads it in the
// background until the server ends it.
func (r *sessRig) openStream(id string, hdr ...string) *stream {
	r.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", sessVersion)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := r.http.Do(req)
	if err != nil {
		cancel()
		r.t.Fatal(err)
	}
	s := &stream{status: resp.StatusCode, header: resp.Header, ended: make(chan struct{}), cancel: cancel}
	r.t.Cleanup(cancel)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		s.body = string(b)
		close(s.ended)
		return s
	}
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil { // the SDK's ": ok" prime, or the rig's
		r.t.Fatalf("stream: %v", err)
	}
	go func() {
		_, _ = io.Copy(io.Discard, br)
		resp.Body.Close()
		close(s.ended)
	}()
	return s
}

func (s *stream) endsWithin(d time.Duration) bool {
	select {
	case <-s.ended:
		return true
	case <-time.After(d):
		return false
	}
}

// busyRefusal checks a refusal the client may retry: status, Retry-After,
// a bounded JSON-RPC error naming the bound and no count.
func busyRefusal(t *testing.T, a sessAnswer, status int, bound string) {
	t.Helper()
	if a.status != status || a.header.Get("Retry-After") == "" {
		t.Fatalf("HTTP %d Retry-After %q, want %d with Retry-After: %.300s", a.status, a.header.Get("Retry-After"), status, a.body)
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64          `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(a.body), &msg); err != nil || msg.JSONRPC != "2.0" || msg.Error.Code != -32000 {
		t.Fatalf("not a JSON-RPC error -32000 (%v): %s", err, a.body)
	}
	if len(a.body) > MaxRefusalBytes() {
		t.Errorf("refusal of %d bytes, past MaxRefusalBytes %d", len(a.body), MaxRefusalBytes())
	}
	if msg.Error.Data["bound"] != bound {
		t.Errorf("bound %v, want %s: %s", msg.Error.Data["bound"], bound, a.body)
	}
	if bound == "session-table" {
		// The count is not disclosed: no limit, nothing in the message
		// but the fixed text and the bound.
		if _, ok := msg.Error.Data["limit"]; ok || msg.Error.Message != "request refused by the front gate: bound session-table" {
			t.Errorf("the refusal discloses more than the bound: %s", a.body)
		}
	}
}

// TestSessionTableAtAndPastTheBound: the table admits as many sessions as
// its bytes hold at a session's weight (the count derived, a byte short of
// one more admits none more); with every one of them active an initialize
// is refused 503 with Retry-After before the SDK sees it; once one is idle
// the next initialize closes it (a DELETE the SDK receives) and is admitted.
func TestSessionTableAtAndPastTheBound(t *testing.T) {
	const admitted = 3
	r := newSessRig(t, &frontGateOptions{SessionBytes: admitted*unit + unit - 1}, nil)
	ids := make([]string, admitted)
	releases := make([]func(), admitted)
	for i := range ids {
		ids[i] = r.open()
		releases[i] = r.hold(ids[i], fmt.Sprint("k", i))
	}
	// Only an initialize asks the table for room: another request without a
	// session is the SDK's to sessAnswer.
	posts := r.count(http.MethodPost)
	if a := r.do(context.Background(), http.MethodPost, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); a.status == http.StatusServiceUnavailable || r.count(http.MethodPost) != posts+1 {
		t.Errorf("a request without a session past the bound: HTTP %d, reached the SDK %v", a.status, r.count(http.MethodPost) == posts+1)
	}
	inits := r.count(http.MethodPost)
	busyRefusal(t, r.do(context.Background(), http.MethodPost, "", initializeBody), http.StatusServiceUnavailable, "session-table")
	if a := r.do(context.Background(), http.MethodPost, "", initializeBody); a.status != http.StatusServiceUnavailable || !strings.Contains(a.body, `"id":7`) {
		t.Errorf("the refusal does not carry the initialize's id: %s", a.body)
	}
	if n := r.count(http.MethodPost); n != inits {
		t.Errorf("the SDK saw %d POSTs past the bound", n-inits)
	}
	if d := r.deleted(); len(d) != 0 {
		t.Fatalf("the gate closed active sessions %v", d)
	}
	for _, id := range ids {
		if a := r.use(id); a.status != http.StatusOK {
			t.Errorf("an active session was disturbed: HTTP %d", a.status)
		}
	}
	releases[1]()
	// ids[1] is the only idle session now (its call ended last, but the
	// others are in flight): the next initialize closes it.
	fresh := r.open()
	if d := r.deleted(); len(d) != 1 || d[0] != ids[1] {
		t.Fatalf("closed %v, want [%s]", d, ids[1])
	}
	if a := r.use(ids[1]); a.status != http.StatusNotFound {
		t.Errorf("the closed session answered HTTP %d", a.status)
	}
	if a := r.use(fresh); a.status != http.StatusOK {
		t.Errorf("the admitted session answered HTTP %d", a.status)
	}
}

// TestSessionEvictionLeastRecentlyUsedIdle: with the table full, each new
// session closes the least recently used idle one — ordered by last request
// — and never one with a request in flight.
func TestSessionEvictionLeastRecentlyUsedIdle(t *testing.T) {
	r := newSessRig(t, &frontGateOptions{SessionBytes: 3 * unit}, nil)
	a, b, c := r.open(), r.open(), r.open()
	r.use(a)       // LRU order now b, c, a
	r.hold(c, "c") // c is active: never closed
	d := r.open()  // closes b
	e := r.open()  // closes a
	f := r.open()  // closes d (c is still active)
	want := []string{b, a, d}
	if got := r.deleted(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("closed %v, want %v (b, a, d; never c)", got, want)
	}
	for _, id := range []string{c, e, f} {
		if ans := r.use(id); ans.status != http.StatusOK {
			t.Errorf("a kept session answered HTTP %d", ans.status)
		}
	}
}

// TestSilentStreamsSessionInLRUOrder: a session whose stream has been silent
// for StreamIdle is idle, and takes its place in the least-recently-used
// order with the sessions that hold no stream.
func TestSilentStreamsSessionInLRUOrder(t *testing.T) {
	const streamIdle = 200 * time.Millisecond
	r := newSessRig(t, &frontGateOptions{SessionBytes: 2 * unit, StreamIdle: streamIdle}, nil)
	a := r.open()
	s := r.openStream(a) // a: used at the stream's opening
	time.Sleep(50 * time.Millisecond)
	b := r.open() // b: used after a
	time.Sleep(streamIdle)
	r.open() // closes a, the least recently used, though it holds a stream
	r.open() // closes b
	if got, want := strings.Join(r.deleted(), ","), a+","+b; got != want {
		t.Fatalf("closed %s, want %s", got, want)
	}
	if !s.endsWithin(5 * time.Second) {
		t.Error("the closed session's stream is still open")
	}
}

// TestUnknownSessionNotFoundWithoutTheSDK: a request naming a session the
// table does not hold is answered 404 with a JSON-RPC error by the gate; the
// SDK sees none of them.
func TestUnknownSessionNotFoundWithoutTheSDK(t *testing.T) {
	r := newSessRig(t, nil, nil)
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		t.Run(m, func(t *testing.T) {
			body := ""
			if m == http.MethodPost {
				body = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
			}
			a := r.do(context.Background(), m, "no-such-session", body)
			if a.status != http.StatusNotFound || !strings.Contains(a.body, `"code":-32001`) || !strings.Contains(a.body, `"bound":"unknown-session"`) ||
				strings.Contains(a.body, "no-such-session") {
				t.Errorf("HTTP %d: %s", a.status, a.body)
			}
			if n := r.count(m); n != 0 {
				t.Errorf("the SDK saw %d %s requests", n, m)
			}
		})
	}
}

// TestDeleteHonoured: a client's DELETE reaches the SDK, which closes the
// session; the table drops it (its id is then unknown, answered by the gate)
// and its weight admits a new session without closing any other.
func TestDeleteHonoured(t *testing.T) {
	r := newSessRig(t, &frontGateOptions{SessionBytes: unit}, nil)
	a := r.open()
	if ans := r.do(context.Background(), http.MethodDelete, a, ""); ans.status != http.StatusNoContent {
		t.Fatalf("DELETE: HTTP %d: %s", ans.status, ans.body)
	}
	posts := r.count(http.MethodPost)
	if ans := r.use(a); ans.status != http.StatusNotFound || r.count(http.MethodPost) != posts {
		t.Errorf("the deleted session: HTTP %d, reached the SDK %v", ans.status, r.count(http.MethodPost) != posts)
	}
	r.open()
	if d := r.deleted(); len(d) != 1 || d[0] != a {
		t.Errorf("DELETEs %v: want only the client's own", d)
	}
	// A stream of a deleted session ends, whoever holds it: here one held
	// before the SDK, which the SDK's own close would not reach.
	b := r.open()
	s := r.openStream(b, "X-Test-Hold", "1")
	if s.status != http.StatusOK {
		t.Fatalf("stream: HTTP %d", s.status)
	}
	if ans := r.do(context.Background(), http.MethodDelete, b, ""); ans.status != http.StatusNoContent {
		t.Fatalf("DELETE: HTTP %d", ans.status)
	}
	if !s.endsWithin(5 * time.Second) {
		t.Error("the deleted session's stream is still open")
	}
}

// TestUndeletableSessionsStayWeighed: when the SDK refuses the gate's DELETE
// (a layer between them refuses it), the session stays in the table and
// keeps its weight: the initialize is refused rather than admitted over the
// bound, and the session still serves its client.
func TestUndeletableSessionsStayWeighed(t *testing.T) {
	t.Run("one", testUndeletableOne)
	t.Run("attempts-bounded", func(t *testing.T) {
		// More idle sessions than one admission tries: it gives up after
		// CloseAttempts refused DELETEs, each on another session.
		const n = CloseAttempts + 2
		r := newSessRig(t, &frontGateOptions{SessionBytes: n * unit}, nil)
		for i := 0; i < n; i++ {
			r.open()
		}
		r.mu.Lock()
		r.refuseDelete = true
		r.mu.Unlock()
		busyRefusal(t, r.do(context.Background(), http.MethodPost, "", initializeBody), http.StatusServiceUnavailable, "session-table")
		d := r.deleted()
		seen := map[string]bool{}
		for _, id := range d {
			seen[id] = true
		}
		if len(d) != CloseAttempts || len(seen) != len(d) {
			t.Errorf("DELETEs %v: want %d, each on another session", d, CloseAttempts)
		}
	})
}

func testUndeletableOne(t *testing.T) {
	r := newSessRig(t, &frontGateOptions{SessionBytes: unit}, nil)
	a := r.open()
	r.mu.Lock()
	r.refuseDelete = true
	r.mu.Unlock()
	busyRefusal(t, r.do(context.Background(), http.MethodPost, "", initializeBody), http.StatusServiceUnavailable, "session-table")
	if d := r.deleted(); len(d) != 1 || d[0] != a {
		t.Errorf("DELETEs %v, want one attempt on %s", d, a)
	}
	if ans := r.use(a); ans.status != http.StatusOK {
		t.Errorf("the session the SDK kept answered HTTP %d", ans.status)
	}
}

// TestStreamsPerSession: a session opens StreamsPerSession GET streams and
// the next is refused 429 with Retry-After by the gate; the first stream is
// weighed with the session, a further one takes StreamCost from the table,
// and with no room for it (no idle session to close) it is refused 503.
func TestStreamsPerSession(t *testing.T) {
	t.Run("per-session", func(t *testing.T) {
		r := newSessRig(t, &frontGateOptions{StreamsPerSession: 2}, nil)
		a := r.open()
		if s := r.openStream(a); s.status != http.StatusOK {
			t.Fatalf("the standalone stream: HTTP %d: %s", s.status, s.body)
		}
		// The SDK keeps one standalone stream a session; a second is held
		// before it (X-Test-Hold), as a resumed stream would be.
		if s := r.openStream(a, "X-Test-Hold", "1"); s.status != http.StatusOK {
			t.Fatalf("the second stream: HTTP %d: %s", s.status, s.body)
		}
		gets := r.count(http.MethodGet)
		s := r.openStream(a, "X-Test-Hold", "1")
		busyRefusal(t, sessAnswer{s.status, s.header, s.body}, http.StatusTooManyRequests, "streams-per-session")
		if r.count(http.MethodGet) != gets {
			t.Error("the refused stream reached the SDK")
		}
		// Another session is not limited by a's streams.
		if s := r.openStream(r.open()); s.status != http.StatusOK {
			t.Errorf("another session's stream: HTTP %d", s.status)
		}
	})
	t.Run("weight", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			bytes int64
			want  int
		}{
			{"at", unit + bounds.StreamCost, http.StatusOK},
			{"past", unit + bounds.StreamCost - 1, http.StatusServiceUnavailable},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := newSessRig(t, &frontGateOptions{SessionBytes: c.bytes}, nil)
				a := r.open()
				if s := r.openStream(a); s.status != http.StatusOK {
					t.Fatalf("the first stream (weighed with the session): HTTP %d", s.status)
				}
				s := r.openStream(a, "X-Test-Hold", "1")
				if c.want != http.StatusOK {
					busyRefusal(t, sessAnswer{s.status, s.header, s.body}, c.want, "session-table")
					return
				}
				if s.status != c.want {
					t.Fatalf("HTTP %d, want %d", s.status, c.want)
				}
				// Its weight comes back when it ends: another fits in its place.
				s.cancel()
				<-s.ended
				deadline := time.Now().Add(5 * time.Second)
				for {
					again := r.openStream(a, "X-Test-Hold", "1")
					if again.status == http.StatusOK {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("the ended stream's weight never came back: HTTP %d", again.status)
					}
					time.Sleep(10 * time.Millisecond)
				}
			})
		}
	})
}

// TestSilentStreamsSessionClosedAndItsStreamEnds: a session holding a stream
// is active while the stream is young — an initialize past the bound is
// refused — and once the stream has written nothing for StreamIdle its
// session is the one closed to admit the next, and its stream ends.
func TestSilentStreamsSessionClosedAndItsStreamEnds(t *testing.T) {
	const streamIdle = 300 * time.Millisecond
	r := newSessRig(t, &frontGateOptions{SessionBytes: unit, StreamIdle: streamIdle}, nil)
	a := r.open()
	start := time.Now()
	s := r.openStream(a)
	if s.status != http.StatusOK {
		t.Fatalf("stream: HTTP %d", s.status)
	}
	ans := r.do(context.Background(), http.MethodPost, "", initializeBody)
	if time.Since(start) < streamIdle {
		busyRefusal(t, ans, http.StatusServiceUnavailable, "session-table")
	} else {
		t.Log("the machine was too slow to see the young stream's session refused; the rest still holds")
	}
	time.Sleep(streamIdle - time.Since(start) + 50*time.Millisecond)
	r.open()
	if d := r.deleted(); len(d) != 1 || d[0] != a {
		t.Fatalf("closed %v, want [%s]", d, a)
	}
	if !s.endsWithin(5 * time.Second) {
		t.Fatal("the closed session's stream is still open")
	}
}

// TestIdleSessionsExpire: a session without activity for SessionIdle is
// closed by the gate (a DELETE the SDK receives), not before and not long
// after, and its id is then unknown; one in use is kept.
func TestIdleSessionsExpire(t *testing.T) {
	const idle = time.Second
	r := newSessRig(t, &frontGateOptions{SessionIdle: idle}, nil)
	a, b := r.open(), r.open()
	opened := time.Now()
	r.hold(b, "b")
	time.Sleep(idle / 2)
	if d := r.deleted(); len(d) != 0 {
		t.Fatalf("closed %v after %v, before SessionIdle %v", d, time.Since(opened), idle)
	}
	c := r.open() // idle half a SessionIdle when a expires: kept then
	for len(r.deleted()) == 0 && time.Since(opened) < 10*idle {
		time.Sleep(idle / 20)
	}
	// The slack covers a loaded machine's timer delays; a timer armed for a
	// multiple of SessionIdle would miss it.
	if since := time.Since(opened); since > 3*idle {
		t.Errorf("closed after %v, past SessionIdle %v by more than the slack", since, idle)
	}
	if d := r.deleted(); len(d) != 1 || d[0] != a {
		t.Fatalf("closed %v, want [%s] (not %s, idle half as long)", d, a, c)
	}
	if ans := r.use(a); ans.status != http.StatusNotFound {
		t.Errorf("the expired session answered HTTP %d", ans.status)
	}
	if ans := r.use(b); ans.status != http.StatusOK {
		t.Errorf("the session in use answered HTTP %d", ans.status)
	}
}

// TestStatelessUntouched: in front of a stateless handler the gate keeps no
// table: initializes past any session bound are served, a Mcp-Session-Id
// reaches the SDK (which ignores it), GET is the SDK's 405.
func TestStatelessUntouched(t *testing.T) {
	r := newSessRig(t, &frontGateOptions{Stateless: true, SessionBytes: unit}, &mcp.StreamableHTTPOptions{Stateless: true})
	for i := 0; i < 3; i++ {
		a := r.do(context.Background(), http.MethodPost, "", initializeBody)
		if a.status != http.StatusOK || a.header.Get("Mcp-Session-Id") != "" {
			t.Fatalf("initialize %d: HTTP %d session %q", i, a.status, a.header.Get("Mcp-Session-Id"))
		}
	}
	posts := r.count(http.MethodPost)
	if a := r.do(context.Background(), http.MethodPost, "made-up", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); a.status != http.StatusOK || r.count(http.MethodPost) != posts+1 {
		t.Errorf("a request with a session id: HTTP %d, reached the SDK %v", a.status, r.count(http.MethodPost) == posts+1)
	}
	if a := r.do(context.Background(), http.MethodGet, "", ""); a.status != http.StatusMethodNotAllowed {
		t.Errorf("GET: HTTP %d", a.status)
	}
}

// TestSessionOptionsChecked: options that cannot admit one session or one
// stream fail frontGate, naming the bound.
func TestSessionOptionsChecked(t *testing.T) {
	v, err := New(Tools(&mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object", "additionalProperties": false}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		o    frontGateOptions
		want string // "" : admitted
	}{
		{"one session", frontGateOptions{SessionBytes: unit}, ""},
		{"under one session", frontGateOptions{SessionBytes: unit - 1}, "SessionBytes"},
		{"negative streams", frontGateOptions{StreamsPerSession: -1}, "StreamsPerSession"},
		{"default streams", frontGateOptions{StreamsPerSession: 0}, ""},
		{"stateless ignores them", frontGateOptions{Stateless: true, SessionBytes: unit - 1}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := v.frontGate(http.NotFoundHandler(), &c.o)
			if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
				t.Errorf("got %v, want an error naming %q", err, c.want)
			}
		})
	}
}

// TestStreamableHTTPOptions: the helper fills the body cap and, for a
// stateful handler, the session timeout, and keeps what the caller set.
func TestStreamableHTTPOptions(t *testing.T) {
	v, err := New(Tools(&mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object", "additionalProperties": false}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := v.streamableHTTPOptions(nil)
	if o.MaxRequestBodyBytes != v.MaxBodyBytes() || o.SessionTimeout != bounds.DefaultSessionIdle {
		t.Errorf("defaults: %+v", o)
	}
	in := &mcp.StreamableHTTPOptions{MaxRequestBodyBytes: 10, SessionTimeout: time.Second}
	if o := v.streamableHTTPOptions(in); o.MaxRequestBodyBytes != 10 || o.SessionTimeout != time.Second || o == in {
		t.Errorf("kept: %+v", o)
	}
	if o := v.streamableHTTPOptions(&mcp.StreamableHTTPOptions{Stateless: true}); o.SessionTimeout != 0 {
		t.Errorf("stateless: %+v", o)
	}
}

// TestAStreamWritingKeepsItsSession: a stream the server writes on (here the
// SDK's tools/list_changed notification, sent when a tool is added) is
// activity: its session is not closed to admit another, however long ago it
// opened.
func TestAStreamWritingKeepsItsSession(t *testing.T) {
	const streamIdle = 300 * time.Millisecond
	r := newSessRig(t, &frontGateOptions{SessionBytes: unit, StreamIdle: streamIdle}, nil)
	a := r.open()
	s := r.openStream(a)
	if s.status != http.StatusOK {
		t.Fatalf("stream: HTTP %d", s.status)
	}
	for i := 0; i < 8; i++ {
		time.Sleep(streamIdle / 4)
		r.srv.AddTool(&mcp.Tool{Name: fmt.Sprint("added", i), InputSchema: map[string]any{"type": "object", "additionalProperties": false}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	// Twice StreamIdle since the stream opened, a quarter since it last wrote.
	busyRefusal(t, r.do(context.Background(), http.MethodPost, "", initializeBody), http.StatusServiceUnavailable, "session-table")
	if d := r.deleted(); len(d) != 0 {
		t.Errorf("closed %v: a session whose stream writes", d)
	}
}

// TestInitializeWithoutASessionGivesItsWeightBack: an initialize the SDK
// answers without a session (here: refused for its Accept header) gives its
// reservation back, so the table stays open to the next.
func TestInitializeWithoutASessionGivesItsWeightBack(t *testing.T) {
	r := newSessRig(t, &frontGateOptions{SessionBytes: unit}, nil)
	for i := 0; i < 3; i++ {
		if a := r.do(context.Background(), http.MethodPost, "", initializeBody, "Accept", "text/plain"); a.status != http.StatusBadRequest {
			t.Fatalf("initialize %d with a bad Accept: HTTP %d", i, a.status)
		}
	}
	r.open()
	if d := r.deleted(); len(d) != 0 {
		t.Errorf("closed %v: the refused initializes kept their weight", d)
	}
}

// TestSessionTheSDKTimedOutIsDropped: when the SDK has closed a session on
// its own (its SessionTimeout), the SDK's 404 drops it from the table: its
// id is then answered by the gate, and its weight admits another.
func TestSessionTheSDKTimedOutIsDropped(t *testing.T) {
	r := newSessRig(t, &frontGateOptions{SessionBytes: unit}, &mcp.StreamableHTTPOptions{SessionTimeout: 100 * time.Millisecond})
	a := r.open()
	time.Sleep(300 * time.Millisecond)
	posts := r.count(http.MethodPost)
	if ans := r.use(a); ans.status != http.StatusNotFound || r.count(http.MethodPost) != posts+1 {
		t.Fatalf("the SDK's closed session: HTTP %d, reached the SDK %v", ans.status, r.count(http.MethodPost) == posts+1)
	}
	if ans := r.use(a); ans.status != http.StatusNotFound || r.count(http.MethodPost) != posts+1 {
		t.Errorf("dropped: HTTP %d, reached the SDK again %v", ans.status, r.count(http.MethodPost) != posts+1)
	}
	r.open()
	if d := r.deleted(); len(d) != 0 {
		t.Errorf("closed %v: the dropped session kept its weight", d)
	}
}

// TestAnIDTheSDKReusesIsOneSession: a server whose GetSessionID repeats an
// id has one session under it in the SDK; the table holds one entry and one
// weight for it, so the next session fits without closing any.
func TestAnIDTheSDKReusesIsOneSession(t *testing.T) {
	ids := []string{"same", "same", "other"}
	var next atomic.Int32
	sopts := &mcp.ServerOptions{GetSessionID: func() string { return ids[min(int(next.Add(1)), len(ids))-1] }}
	r := newSessRig(t, &frontGateOptions{SessionBytes: 2 * unit}, nil, sopts)
	for _, want := range ids {
		if got := r.open(); got != want {
			t.Fatalf("session %q, want %q", got, want)
		}
	}
	if d := r.deleted(); len(d) != 0 {
		t.Errorf("closed %v: the repeated id was weighed twice", d)
	}
}
