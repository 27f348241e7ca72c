package mcpvalidate

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

// connLimit is a net.Listener that bounds the open connections of one
// http.Server by memory: each weighs ConnCost (a connection reading a header
// block of bounds.MaxHeaderBytes, measured), so the bytes given admit
// bytes/ConnCost connections. At the bound, a new connection is admitted by
// closing the least recently used idle keep-alive connection idle for at
// least bounds.ConnIdleGrace (net/http's StateIdle: between requests, which
// HTTP lets a server close at any time; younger, it is likely a client
// between two requests of one conversation), or else the oldest connection
// that has held its slot for
// bounds.ConnHeaderGrace without completing its first request's header
// block (StateNew: silent, or trickling its headers); when every open
// connection is active — serving a request, holding a stream — or new within
// the grace, it waits up to bounds.ConnWait for one to close, or to outlive
// its idle or header grace, and is closed unanswered past it.
//
// What one client alone can take: every connection. Idle and slow new ones
// are taken back at once; active ones only as their own bounds end them — a
// request's body by the front gate's read deadline, a call by the in-flight
// budget, a stream by the session table. Per-client shares belong in front
// of the process (a proxy's limit_conn).
type connLimit struct {
	net.Listener
	max  int
	wait time.Duration

	grace     time.Duration // bounds.ConnHeaderGrace; tests shorten it
	idleGrace time.Duration // bounds.ConnIdleGrace; tests shorten it

	mu     sync.Mutex
	open   int
	idle   connList // StateIdle, least recently idle first
	fresh  connList // StateNew, oldest first
	freed  chan struct{}
	closed chan struct{}
	once   sync.Once
}

// limitConns wraps ln so hs serves at most bytes/ConnCost connections from it
// (bytes 0: bounds.DefaultConnBytes), and sets hs.ConnState
// (calling the one it had) so the limit sees which connections are idle.
// Serve hs on the returned listener.
func limitConns(hs *http.Server, ln net.Listener, bytes int64) (*connLimit, error) {
	if bytes == 0 {
		bytes = bounds.DefaultConnBytes
	}
	n := bytes / bounds.ConnCost
	if n < 1 {
		return nil, errors.New("mcpvalidate: limitConns: " + strconv.FormatInt(bytes, 10) +
			" bytes cannot admit one connection, which weighs " + strconv.Itoa(bounds.ConnCost))
	}
	l := &connLimit{Listener: ln, max: int(n), wait: bounds.ConnWait, grace: bounds.ConnHeaderGrace,
		idleGrace: bounds.ConnIdleGrace, freed: make(chan struct{}, 1), closed: make(chan struct{})}
	prev := hs.ConnState
	hs.ConnState = func(c net.Conn, s http.ConnState) {
		under := c
		if tc, ok := c.(interface{ NetConn() net.Conn }); ok {
			under = tc.NetConn() // served over TLS: the limit counts the TCP connection under it
		}
		if lc, ok := under.(*limitedConn); ok && lc.l == l {
			l.state(lc, s)
		}
		if prev != nil {
			prev(c, s)
		}
	}
	return l, nil
}

// Max is how many connections the limit admits.
func (l *connLimit) Max() int { return l.max }

// Open is how many connections are open.
func (l *connLimit) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// Accept admits the next connection within the limit.
func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.admit(c); lc != nil {
			return lc, nil
		}
		_ = c.Close() // every connection stayed active for ConnWait
	}
}

// admit counts c in, closing the least recently used idle connection past
// its idle grace, or the oldest new one past its header grace, when the
// limit is reached, or waiting for a slot; nil when none came.
func (l *connLimit) admit(c net.Conn) *limitedConn {
	var timer *time.Timer
	deadline := time.Now().Add(l.wait)
	for {
		now := time.Now()
		l.mu.Lock()
		if l.open < l.max {
			l.open++
			l.mu.Unlock()
			if timer != nil {
				timer.Stop()
			}
			return &limitedConn{Conn: c, l: l, since: now}
		}
		// The least recently idle connection, once idle past its grace;
		// else the oldest new one still without a request, once past its
		// header grace; else the wait ends when the first of them ripens.
		var v *limitedConn
		next := deadline
		if h := l.idle.head; h != nil {
			if ripe := h.idleSince.Add(l.idleGrace); !ripe.After(now) {
				v = h
			} else if ripe.Before(next) {
				next = ripe
			}
		}
		if v == nil && l.fresh.head != nil {
			if ripe := l.fresh.head.since.Add(l.grace); !ripe.After(now) {
				v = l.fresh.head
			} else if ripe.Before(next) {
				next = ripe
			}
		}
		if v != nil {
			v.list.remove(v)
		}
		l.mu.Unlock()
		if v != nil {
			_ = v.Close() // frees its slot
			continue
		}
		if !now.Before(deadline) {
			return nil
		}
		if timer == nil {
			timer = time.NewTimer(next.Sub(now))
		} else {
			timer.Reset(next.Sub(now))
		}
		select {
		case <-l.freed:
		case <-timer.C:
		case <-l.closed:
			timer.Stop()
			return nil
		}
	}
}

// Close closes the listener and ends any wait for a slot.
func (l *connLimit) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// signal wakes a waiting Accept.
func (l *connLimit) signal() {
	select {
	case l.freed <- struct{}{}:
	default:
	}
}

func (l *connLimit) state(c *limitedConn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.gone {
		return
	}
	if c.list != nil {
		c.list.remove(c)
	}
	switch s {
	case http.StateIdle:
		c.idleSince = time.Now()
		l.idle.push(c)
		l.signal()
	case http.StateNew:
		// Admitted in order, so pushed in the order of since.
		l.fresh.push(c)
	}
}

// limitedConn is a connection the limit counts until it is closed.
type limitedConn struct {
	net.Conn
	l          *connLimit
	since      time.Time // admitted at
	idleSince  time.Time // last went idle at
	gone       bool
	list       *connList
	prev, next *limitedConn
}

func (c *limitedConn) Close() error {
	l := c.l
	l.mu.Lock()
	if !c.gone {
		c.gone = true
		if c.list != nil {
			c.list.remove(c)
		}
		l.open--
		l.signal()
	}
	l.mu.Unlock()
	return c.Conn.Close()
}

// connList is an intrusive doubly linked list, oldest first.
type connList struct {
	head, tail *limitedConn
}

func (q *connList) push(c *limitedConn) {
	c.list, c.prev, c.next = q, q.tail, nil
	if q.tail != nil {
		q.tail.next = c
	} else {
		q.head = c
	}
	q.tail = c
}

func (q *connList) remove(c *limitedConn) {
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		q.head = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else {
		q.tail = c.prev
	}
	c.list, c.prev, c.next = nil, nil, nil
}
