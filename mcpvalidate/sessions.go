package mcpvalidate

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

// What a request leaves behind: the front gate's session table.
//
// A stateful go-sdk handler keeps a session per initialize until the client
// deletes it or SessionTimeout passes, and each session may hold GET (SSE)
// streams open. The table weighs them in the same currency as the in-flight
// budget, bytes: a session bounds.SessionCost plus its first stream
// (bounds.StreamCost, the go-sdk's clients open one at once), each
// further stream StreamCost more. When an initialize does not fit, the least
// recently used idle session is closed to admit it — closed as a client
// closes one, a DELETE the gate sends the SDK, so the SDK frees it — and
// only when no session is idle is the initialize refused (503, Retry-After).
// A session is idle when no request of it is in flight and none of its
// streams has written for StreamIdle; it is closed the same way after
// SessionIdle without activity. Requests naming a session the table does not
// hold are answered 404 without reaching the SDK.

// sessionHeader is the streamable HTTP transport's session header.
const sessionHeader = "Mcp-Session-Id"

// codeSessionUnknown is the JSON-RPC code of the 404 for a session the table
// does not hold: an implementation-defined server error, the one the
// TypeScript SDK answers "Session not found" with.
const codeSessionUnknown = -32001

// closeAttempts bounds how many sessions one admission tries to close when
// the SDK refuses the gate's DELETE (an authentication layer between the
// gate and the SDK does: put the gate inside it).
const closeAttempts = 3

// session is one entry of the table.
type session struct {
	id      string
	busy    int   // requests of it in flight (POST, DELETE)
	streams int   // open GET streams
	used    int64 // last activity, unix nanoseconds: a request's start or end, a stream's open or end
	wrote   atomic.Int64
	closing bool // the gate is closing it: requests naming it are answered 404
	// ctx holds the initialize request's context values (an authenticated
	// user, the local address the SDK checks) for the DELETE that closes it;
	// end cancels it, which ends its streams.
	ctx        context.Context
	end        context.CancelFunc
	host       string
	path       string
	list       *sessionList
	prev, next *session
}

// active is when the session last did anything: stream writes included.
func (s *session) active() int64 { return max(s.used, s.wrote.Load()) }

// sessionList is an intrusive doubly linked list, least recently used first.
type sessionList struct {
	head, tail *session
	n          int
}

func (l *sessionList) push(s *session) {
	s.list, s.prev, s.next = l, l.tail, nil
	if l.tail != nil {
		l.tail.next = s
	} else {
		l.head = s
	}
	l.tail = s
	l.n++
}

func (l *sessionList) remove(s *session) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		l.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		l.tail = s.prev
	}
	s.list, s.prev, s.next = nil, nil, nil
	l.n--
}

// sessionTable is the front gate's table of the SDK's sessions.
type sessionTable struct {
	fg         *frontGate
	max        int64 // bytes
	unit       int64 // a session with its first stream
	perSession int
	idle       time.Duration // <0: never
	streamIdle time.Duration

	mu    sync.Mutex
	used  int64
	byID  map[string]*session
	quiet sessionList // nothing in flight, no stream
	held  sessionList // nothing in flight, streams open
	timer *time.Timer
	at    int64 // when timer fires, 0: not armed
}

func newSessionTable(fg *frontGate, o *frontGateOptions) (*sessionTable, error) {
	t := &sessionTable{fg: fg, max: o.SessionBytes, unit: bounds.SessionCost + bounds.StreamCost,
		perSession: o.StreamsPerSession, idle: o.SessionIdle, streamIdle: o.StreamIdle, byID: map[string]*session{}}
	if t.max == 0 {
		t.max = bounds.DefaultSessionBytes
	}
	if t.max < t.unit {
		return nil, errors.New("mcpvalidate: front gate: SessionBytes (" + strconv.FormatInt(t.max, 10) +
			") cannot admit one session, which weighs " + strconv.FormatInt(t.unit, 10) + " bytes with its first stream")
	}
	if t.perSession < 0 {
		return nil, errors.New("mcpvalidate: front gate: StreamsPerSession must not be negative")
	}
	if t.perSession == 0 {
		t.perSession = bounds.DefaultStreamsPerSession
	}
	if t.idle == 0 {
		t.idle = bounds.DefaultSessionIdle
	}
	if t.streamIdle <= 0 {
		t.streamIdle = bounds.DefaultStreamIdle
	}
	return t, nil
}

// pass hands an admitted request to the SDK: through the session table when
// the gate keeps one. e is the envelope of a POST, nil for other methods.
func (fg *frontGate) pass(w http.ResponseWriter, r *http.Request, e *envelope) {
	if fg.sessions == nil {
		fg.next.ServeHTTP(w, r)
		return
	}
	fg.sessions.serve(w, r, e)
}

// refuseUnknown answers 404 for a request naming a session the table does
// not hold, before the gate weighs or reads anything of it.
func (t *sessionTable) refuseUnknown(w http.ResponseWriter, r *http.Request) bool {
	id := r.Header.Get(sessionHeader)
	if id == "" {
		return false
	}
	// A session being closed is answered when the request reaches the
	// table (serve), after the same wait any request of it has.
	t.mu.Lock()
	known := t.byID[id] != nil
	t.mu.Unlock()
	if known {
		return false
	}
	t.fg.write(w, r, &requestRefusal{Status: http.StatusNotFound, Code: codeSessionUnknown, Bound: "unknown-session", Offset: -1}, nil)
	return true
}

func (t *sessionTable) serve(w http.ResponseWriter, r *http.Request, e *envelope) {
	id := r.Header.Get(sessionHeader)
	if id == "" {
		if e != nil && e.methodIs("initialize") {
			t.initialize(w, r, e)
			return
		}
		// Any other request without a session: the SDK answers it with an
		// error or a session closed when the request ends, weighed in flight.
		t.fg.next.ServeHTTP(w, r)
		return
	}
	stream := r.Method == http.MethodGet
	t.mu.Lock()
	s := t.byID[id]
	if s == nil || s.closing {
		t.mu.Unlock()
		t.fg.write(w, r, &requestRefusal{Status: http.StatusNotFound, Code: codeSessionUnknown, Bound: "unknown-session", Offset: -1}, nil)
		return
	}
	extra := false
	if stream {
		if s.streams >= t.perSession {
			t.mu.Unlock()
			t.refuseBusy(w, r, e, &requestRefusal{Status: http.StatusTooManyRequests, Code: codeServerBusy,
				Bound: "streams-per-session", Limit: int64(t.perSession), Unit: "streams", Offset: -1})
			return
		}
		s.streams++
		extra = s.streams > 1 // the first stream is weighed with the session
	} else {
		s.busy++
	}
	t.relist(s, time.Now().UnixNano())
	t.mu.Unlock()
	if extra && !t.reserve(bounds.StreamCost, s) {
		t.leave(s, stream, false, false)
		t.refuseBusy(w, r, e, &requestRefusal{Status: http.StatusServiceUnavailable, Code: codeServerBusy, Bound: "session-table", Offset: -1})
		return
	}
	sw := &sessionWriter{ResponseWriter: w}
	if stream {
		// The stream ends when its session leaves the table.
		sw.s = s
		ctx, cancel := context.WithCancel(r.Context())
		stop := context.AfterFunc(s.ctx, cancel)
		defer func() { stop(); cancel() }()
		r = r.WithContext(ctx)
	}
	// Deferred, so a handler's panic (which net/http recovers) leaves no
	// count behind. 404: the SDK no longer holds the session (its own
	// SessionTimeout closed it); a DELETE it answered 2xx closed it.
	defer func() {
		gone := sw.status == http.StatusNotFound || (r.Method == http.MethodDelete && sw.status >= 200 && sw.status < 300)
		t.leave(s, stream, extra, gone)
	}()
	t.fg.next.ServeHTTP(sw, r)
}

// initialize admits a new session: it reserves a session's weight (closing
// idle sessions to make room), passes the initialize, and enters the id the
// SDK answers with before the answer reaches the client.
func (t *sessionTable) initialize(w http.ResponseWriter, r *http.Request, e *envelope) {
	if !t.reserve(t.unit, nil) {
		t.refuseBusy(w, r, e, &requestRefusal{Status: http.StatusServiceUnavailable, Code: codeServerBusy, Bound: "session-table", Offset: -1})
		return
	}
	sw := &sessionWriter{ResponseWriter: w}
	var s *session
	sw.header = func() { s = t.enter(w.Header().Get(sessionHeader), r) }
	defer func() {
		if s == nil && sw.status == 0 {
			sw.header() // the handler wrote nothing: net/http answers with its header now
		}
		if s == nil {
			t.mu.Lock()
			t.used -= t.unit // no session: the reservation goes back
			t.mu.Unlock()
			return
		}
		t.leave(s, false, false, false)
	}()
	t.fg.next.ServeHTTP(sw, r)
}

// enter turns an initialize's reservation into the session the SDK answered
// with (nil, the reservation kept, when it answered none), in flight until the
// initialize ends.
func (t *sessionTable) enter(id string, r *http.Request) *session {
	if id == "" {
		return nil
	}
	ctx, end := context.WithCancel(context.WithoutCancel(r.Context()))
	s := &session{id: id, busy: 1, used: time.Now().UnixNano(), ctx: ctx, end: end, host: r.Host, path: r.URL.Path}
	t.mu.Lock()
	defer t.mu.Unlock()
	if old := t.byID[id]; old != nil {
		// The SDK reused an id (it does not): the reservation is not needed.
		end()
		t.used -= t.unit
		old.busy++
		t.relist(old, s.used)
		return old
	}
	t.byID[id] = s
	return s
}

// leave ends a request of s: a stream (and its extra weight) or a request in
// flight. gone: the SDK no longer holds the session, so the table drops it.
func (t *sessionTable) leave(s *session, stream, extra, gone bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if stream {
		s.streams--
	} else {
		s.busy--
	}
	if extra {
		t.used -= bounds.StreamCost
	}
	if gone && t.byID[s.id] == s && !s.closing {
		t.drop(s)
		return
	}
	t.relist(s, time.Now().UnixNano())
}

// drop removes s from the table and ends its streams. t.mu is held.
func (t *sessionTable) drop(s *session) {
	if s.list != nil {
		s.list.remove(s)
	}
	delete(t.byID, s.id)
	t.used -= t.unit
	s.end()
}

// relist puts s on the list its state belongs to, as most recently used at
// now, and arms the idle timer. t.mu is held.
func (t *sessionTable) relist(s *session, now int64) {
	if s.list != nil {
		s.list.remove(s)
	}
	s.used = max(s.used, now)
	if s.closing || t.byID[s.id] != s || s.busy > 0 {
		return
	}
	if s.streams > 0 {
		t.held.push(s)
	} else {
		t.quiet.push(s)
	}
	t.arm()
}

// reserve takes n bytes of the table, closing least recently used idle
// sessions (never keep) to make room. It reports whether n fits.
func (t *sessionTable) reserve(n int64, keep *session) bool {
	// skip: keep, and the sessions the SDK would not close, each tried once.
	var skip [closeAttempts + 1]*session
	skip[0] = keep
	failed := 0
	for {
		t.mu.Lock()
		if t.used+n <= t.max {
			t.used += n
			t.mu.Unlock()
			return true
		}
		v := t.victim(time.Now().UnixNano(), skip[:failed+1])
		if v == nil || failed == closeAttempts {
			t.mu.Unlock()
			return false
		}
		v.closing = true
		v.list.remove(v)
		t.mu.Unlock()
		if !t.close(v) {
			failed++
			skip[failed] = v
		}
	}
}

// victim is the least recently used idle session not in skip, nil when none
// is: a session with nothing in flight and no stream, or whose streams have
// written nothing for streamIdle. t.mu is held.
func (t *sessionTable) victim(now int64, skip []*session) *session {
	q := t.quiet.head
	for q != nil && slices.Contains(skip, q) {
		q = q.next
	}
	h := t.idleHeld(now, skip)
	if q == nil || (h != nil && h.used < q.used) {
		return h
	}
	return q
}

// idleHeld is the least recently active session of the held list if its
// streams have been silent for streamIdle. A stream write does not take the
// table's lock, so the list is ordered by what relist saw: an entry found to
// have written since moves to the back (so the order among sessions whose
// streams write is approximate: by when the table noticed). t.mu is held.
func (t *sessionTable) idleHeld(now int64, skip []*session) *session {
	h := t.held.head
	for steps := 2 * t.held.n; steps > 0 && h != nil; steps-- {
		if a := h.active(); a > h.used {
			next := h.next
			t.held.remove(h)
			h.used = a
			t.held.push(h)
			if next == nil {
				next = t.held.head // every entry moved: look again from the front
			}
			h = next
			continue
		}
		if slices.Contains(skip, h) {
			h = h.next
			continue
		}
		if now-h.used >= int64(t.streamIdle) {
			return h
		}
		return nil
	}
	return nil
}

// close sends the SDK a DELETE for v, as v's client would, and drops v when
// the SDK no longer holds it; otherwise v goes back to its list (as just
// used, so the next attempt picks another). It reports whether v is gone.
func (t *sessionTable) close(v *session) bool {
	req, err := http.NewRequestWithContext(context.WithoutCancel(v.ctx), http.MethodDelete, v.path, nil)
	status := http.StatusInternalServerError
	if err == nil {
		req.Host = v.host
		req.Header.Set(sessionHeader, v.id)
		rec := &statusRecorder{h: http.Header{}}
		t.fg.next.ServeHTTP(rec, req)
		status = rec.status
	}
	gone := (status >= 200 && status < 300) || status == http.StatusNotFound
	t.mu.Lock()
	defer t.mu.Unlock()
	v.closing = false
	if gone {
		t.drop(v)
	} else {
		t.relist(v, time.Now().UnixNano())
	}
	return gone
}

// arm sets the idle timer for the earliest expiry. t.mu is held.
func (t *sessionTable) arm() {
	if t.idle < 0 {
		return
	}
	next := int64(0)
	if q := t.quiet.head; q != nil {
		next = q.used + int64(t.idle)
	}
	if h := t.held.head; h != nil {
		at := h.used + int64(max(t.idle, t.streamIdle))
		if next == 0 || at < next {
			next = at
		}
	}
	if next == 0 || (t.at != 0 && t.at <= next) {
		return
	}
	t.at = next
	d := time.Duration(next - time.Now().UnixNano())
	if t.timer == nil {
		t.timer = time.AfterFunc(d, t.expire)
	} else {
		t.timer.Reset(d)
	}
}

// expire closes every session idle past its timeout, then re-arms.
func (t *sessionTable) expire() {
	now := time.Now().UnixNano()
	var due []*session
	t.mu.Lock()
	t.at = 0
	for q := t.quiet.head; q != nil && now-q.used >= int64(t.idle); q = t.quiet.head {
		q.closing = true
		t.quiet.remove(q)
		due = append(due, q)
	}
	for {
		h := t.idleHeld(now, nil)
		if h == nil || now-h.used < int64(max(t.idle, t.streamIdle)) {
			break
		}
		h.closing = true
		t.held.remove(h)
		due = append(due, h)
	}
	t.mu.Unlock()
	for _, s := range due {
		t.close(s) // a session the SDK keeps goes back on its list
	}
	t.mu.Lock()
	t.arm()
	t.mu.Unlock()
}

// refuseBusy answers a refusal the client may retry, with the request's id
// when the gate read one and the wait the in-flight refusal advises.
func (t *sessionTable) refuseBusy(w http.ResponseWriter, r *http.Request, e *envelope, f *requestRefusal) {
	if e != nil && e.id.ok() {
		f.id = e.body[e.id.at:e.id.end]
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(max(1, t.fg.maxWait/time.Second))))
	t.fg.write(w, r, f, e)
}

// sessionWriter passes the SDK's answer through, noting its status, a
// stream's writes, and (for an initialize) calling header just before the
// header goes out.
type sessionWriter struct {
	http.ResponseWriter
	s      *session
	header func()
	status int
}

func (w *sessionWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
		if w.header != nil {
			w.header()
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.s != nil {
		w.s.wrote.Store(time.Now().UnixNano())
	}
	return w.ResponseWriter.Write(b)
}

// FlushError lets http.NewResponseController flush through the wrapper
// (the SDK flushes every event) with the header noted first.
func (w *sessionWriter) FlushError() error {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *sessionWriter) Flush() { _ = w.FlushError() }

// Unwrap gives http.NewResponseController the connection's own writer (read
// deadlines).
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// statusRecorder is the answer to the gate's own DELETE: only its status.
type statusRecorder struct {
	h      http.Header
	status int
}

func (r *statusRecorder) Header() http.Header { return r.h }
func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *statusRecorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return len(b), nil
}

// StreamableHTTPOptions returns a copy of o (nil: the zero options) for the
// go-sdk handler the front gate wraps, with what the gate's defaults assume
// filled in where o leaves it zero: MaxRequestBodyBytes the derived body cap,
// and, for a stateful handler, SessionTimeout the gate's default SessionIdle
// — the SDK's own timeout is the backstop for a session the gate's table
// does not see (the gate closes idle sessions itself).
//
//	sdk := mcp.NewStreamableHTTPHandler(getServer, v.streamableHTTPOptions(nil))
//	front, err := v.frontGate(sdk, nil)
func (v *Validator) streamableHTTPOptions(o *mcp.StreamableHTTPOptions) *mcp.StreamableHTTPOptions {
	out := &mcp.StreamableHTTPOptions{}
	if o != nil {
		*out = *o
	}
	if out.MaxRequestBodyBytes == 0 {
		out.MaxRequestBodyBytes = v.MaxBodyBytes()
	}
	if out.SessionTimeout == 0 && !out.Stateless {
		out.SessionTimeout = bounds.DefaultSessionIdle
	}
	return out
}
