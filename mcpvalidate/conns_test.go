package mcpvalidate

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

// connRig is an http.Server on 127.0.0.1 behind limitConns. /block holds
// its request until released, so a test can keep a connection active.
type connRig struct {
	t       *testing.T
	addr    string
	l       *connLimit
	entered chan struct{}
	release chan struct{}
	states  chan http.ConnState // every state the previous ConnState hook saw
}

func newConnRig(t *testing.T, bytes int64, wait time.Duration) *connRig {
	t.Helper()
	r := &connRig{t: t, entered: make(chan struct{}, 8), release: make(chan struct{}, 8), states: make(chan http.ConnState, 64)}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/block" {
			r.entered <- struct{}{}
			<-r.release
		}
		_, _ = io.WriteString(w, "ok")
	}), ConnState: func(_ net.Conn, s http.ConnState) {
		select {
		case r.states <- s:
		default:
		}
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if r.l, err = limitConns(hs, ln, bytes); err != nil {
		t.Fatal(err)
	}
	r.l.SetWait(wait)
	r.l.SetIdleGrace(0) // the tests of the idle grace set their own
	go func() { _ = hs.Serve(r.l) }()
	t.Cleanup(func() {
		close(r.release)
		_ = hs.Close()
	})
	r.addr = ln.Addr().String()
	return r
}

// conn is a raw client connection.
type conn struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

func (r *connRig) dial() *conn {
	r.t.Helper()
	c, err := net.Dial("tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.Close() })
	return &conn{t: r.t, c: c, br: bufio.NewReader(c)}
}

// send writes a keep-alive GET of path.
func (c *conn) send(path string) {
	c.t.Helper()
	if _, err := io.WriteString(c.c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		c.t.Fatal(err)
	}
}

// answer reads one HTTP answer: its status, or an error when the server
// closed the connection instead.
func (c *conn) answer(within time.Duration) (int, error) {
	_ = c.c.SetReadDeadline(time.Now().Add(within))
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// closed reports whether the server closed the connection within d.
func (c *conn) closed(d time.Duration) bool {
	_ = c.c.SetReadDeadline(time.Now().Add(d))
	_, err := c.br.ReadByte()
	var ne net.Error
	return err != nil && !(errorsAs(err, &ne) && ne.Timeout())
}

// waitIdle waits until n connections are idle in the limit's list.
func (r *connRig) waitIdle(n int) {
	r.t.Helper()
	count := func() int {
		r.l.mu.Lock()
		defer r.l.mu.Unlock()
		k := 0
		for c := r.l.idle.head; c != nil; c = c.next {
			k++
		}
		return k
	}
	deadline := time.Now().Add(5 * time.Second)
	for count() != n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := count(); got != n {
		r.t.Fatalf("%d connections idle, want %d", got, n)
	}
}

func (r *connRig) waitOpen(n int) {
	r.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for r.l.Open() != n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := r.l.Open(); got != n {
		r.t.Fatalf("%d connections open, want %d", got, n)
	}
}

// TestLimitConnsAtAndPastTheBound: the limit admits as many connections as
// its bytes hold at ConnCost (the count derived: a byte short of one more
// admits none more); past it a new connection is admitted by closing the
// least recently used idle one; with every connection active it waits for
// one and is closed unanswered when none comes, and admitted when one does.
func TestLimitConnsAtAndPastTheBound(t *testing.T) {
	const wait = 300 * time.Millisecond
	r := newConnRig(t, 2*bounds.ConnCost+bounds.ConnCost-1, wait)
	if r.l.Max() != 2 {
		t.Fatalf("Max %d, want 2", r.l.Max())
	}
	// At the bound: two connections, both served, both idle after, a
	// before b (each waited idle before the next is used, so the order is
	// the test's, not the scheduler's).
	a, b := r.dial(), r.dial()
	for i, c := range []*conn{a, b} {
		c.send("/")
		if s, err := c.answer(5 * time.Second); s != http.StatusOK {
			t.Fatalf("at the bound: %d %v", s, err)
		}
		r.waitIdle(i + 1)
	}
	r.waitOpen(2)
	// One past: a third closes a (the least recently idle) and is served.
	c := r.dial()
	c.send("/")
	if s, err := c.answer(5 * time.Second); s != http.StatusOK {
		t.Fatalf("one past, with idle connections: %d %v", s, err)
	}
	if !a.closed(5 * time.Second) {
		t.Fatal("the least recently idle connection was not closed")
	}
	if b.closed(50 * time.Millisecond) {
		t.Fatal("the more recently idle connection was closed")
	}
	r.waitOpen(2)
	// Every connection active: the next waits and is closed unanswered.
	for _, x := range []*conn{b, c} {
		x.send("/block")
		<-r.entered
	}
	d := r.dial()
	d.send("/")
	start := time.Now()
	if s, err := d.answer(5 * time.Second); err == nil {
		t.Fatalf("every connection active: answered %d", s)
	}
	if since := time.Since(start); since < wait/2 {
		t.Errorf("closed after %v, before waiting %v for a slot", since, wait)
	}
	// A connection waiting is admitted when one goes idle.
	e := r.dial()
	e.send("/")
	time.Sleep(wait / 3)
	r.release <- struct{}{} // b or c answers and goes idle: e takes its place
	if s, err := e.answer(5 * time.Second); s != http.StatusOK {
		t.Fatalf("waiting for a slot that came: %d %v", s, err)
	}
	if r.l.Open() > r.l.Max() {
		t.Errorf("%d open past the bound %d", r.l.Open(), r.l.Max())
	}
}

// TestLimitConnsKeepsTheServersHook: the server's own ConnState hook still
// sees every state, and the limit's count goes back to zero as connections
// close.
func TestLimitConnsKeepsTheServersHook(t *testing.T) {
	r := newConnRig(t, bounds.ConnCost, time.Second)
	a := r.dial()
	a.send("/")
	if s, err := a.answer(5 * time.Second); s != http.StatusOK {
		t.Fatalf("%d %v", s, err)
	}
	a.c.Close()
	r.waitOpen(0)
	var seen []string
	for len(r.states) > 0 {
		seen = append(seen, (<-r.states).String())
	}
	if got := strings.Join(seen, ","); !strings.Contains(got, "new") || !strings.Contains(got, "idle") {
		t.Errorf("the server's hook saw %s", got)
	}
}

// TestLimitConnsChecked: bytes that cannot admit one connection fail,
// naming the weight; 0 is the default.
func TestLimitConnsChecked(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := limitConns(&http.Server{}, ln, bounds.ConnCost-1); err == nil || !strings.Contains(err.Error(), "cannot admit one connection") {
		t.Errorf("under one connection: %v", err)
	}
	l, err := limitConns(&http.Server{}, ln, 0)
	if err != nil || l.Max() != int(bounds.DefaultConnBytes/bounds.ConnCost) {
		t.Errorf("default: %v", err)
	}
}

// TestLimitConnsSlowNewConnections: at the bound, a connection that has held
// its slot past the header grace without a complete request (silent, or
// trickling its header block) is closed, oldest first, to admit a new one;
// within the grace it is kept, and the new connection waits for the grace
// to end (or is closed unanswered when its own wait ends first).
func TestLimitConnsSlowNewConnections(t *testing.T) {
	const grace = 400 * time.Millisecond
	t.Run("past_the_grace", func(t *testing.T) {
		r := newConnRig(t, 2*bounds.ConnCost, 5*time.Second)
		r.l.grace = grace
		silent := r.dial()
		r.waitOpen(1)
		trickle := r.dial()
		if _, err := io.WriteString(trickle.c, "GET / HTTP/1.1\r\nHo"); err != nil {
			t.Fatal(err)
		}
		r.waitOpen(2)
		start := time.Now()
		c := r.dial()
		c.send("/")
		if s, err := c.answer(5 * time.Second); s != http.StatusOK {
			t.Fatalf("at the bound, two slow new connections: %d %v", s, err)
		}
		if since := time.Since(start); since < grace/2 {
			t.Errorf("admitted after %v: a slow connection was closed within its grace (%v)", since, grace)
		}
		if !silent.closed(5 * time.Second) {
			t.Fatal("the oldest slow connection was not closed")
		}
		if trickle.closed(50 * time.Millisecond) {
			t.Fatal("the younger slow connection was closed too")
		}
		// An idle connection goes before a slow new one: c, served and
		// idle, makes room for d, which then stays active.
		r.waitIdle(1)
		d := r.dial()
		d.send("/block")
		<-r.entered
		if !c.closed(5 * time.Second) {
			t.Fatal("the idle connection was not closed before the slow one")
		}
		if trickle.closed(50 * time.Millisecond) {
			t.Fatal("the slow connection was closed while an idle one was there")
		}
		// Then the trickling connection, long past its grace, makes room.
		e := r.dial()
		e.send("/")
		if s, err := e.answer(5 * time.Second); s != http.StatusOK {
			t.Fatalf("fourth: %d %v", s, err)
		}
		if !trickle.closed(5 * time.Second) {
			t.Fatal("the trickling connection was not closed")
		}
	})
	t.Run("within_the_grace", func(t *testing.T) {
		const wait = 300 * time.Millisecond
		r := newConnRig(t, bounds.ConnCost, wait)
		r.l.grace = 10 * time.Second
		silent := r.dial()
		r.waitOpen(1)
		c := r.dial()
		c.send("/")
		if s, err := c.answer(5 * time.Second); err == nil {
			t.Fatalf("a slow connection within its grace was closed to answer another: %d", s)
		}
		if silent.closed(50 * time.Millisecond) {
			t.Fatal("the slow connection within its grace was closed")
		}
	})
}

// TestLimitConnsIdleGrace: at the bound, a connection idle for less than
// the idle grace is not closed for a new one (a client between two
// requests of one conversation); the new one waits until it has been idle
// that long, then takes its place.
func TestLimitConnsIdleGrace(t *testing.T) {
	const grace = 400 * time.Millisecond
	r := newConnRig(t, bounds.ConnCost, 5*time.Second)
	r.l.SetIdleGrace(grace)
	a := r.dial()
	a.send("/")
	if s, err := a.answer(5 * time.Second); s != http.StatusOK {
		t.Fatalf("at the bound: %d %v", s, err)
	}
	r.waitIdle(1)
	// Within the grace: a reuses its connection, and is served.
	b := r.dial()
	time.Sleep(grace / 4)
	a.send("/")
	if s, err := a.answer(5 * time.Second); s != http.StatusOK {
		t.Fatalf("a connection idle within its grace was closed for another: %d %v", s, err)
	}
	// Past the grace, the waiting connection takes its place.
	start := time.Now()
	b.send("/")
	if s, err := b.answer(5 * time.Second); s != http.StatusOK {
		t.Fatalf("the new connection, once the idle one ripened: %d %v", s, err)
	}
	if since := time.Since(start); since < grace/2 {
		t.Errorf("admitted after %v: an idle connection was closed within its %v grace", since, grace)
	}
	if !a.closed(5 * time.Second) {
		t.Fatal("the idle connection was not closed past its grace")
	}
}
