package load

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/theurian/boundlab/internal/sessclient"
)

// attack is the all-budgets flood's last phase: every hostile shape of the
// attack mix at one byte under the body cap serve printed (node-chains at
// the node bound), Hostile of each, HostileInFlight at a time, with
// ValidClients sending valid 1 KB calls beside them until they are done —
// the stateless lab's attack (Execute), on sessions of the server's table,
// with every session, stream and connection the flood opened still held.
// Each request in flight has a session to itself: a stateful server answers
// a tools/call without a session before its handler reads the body, and
// one whose JSON-RPC id is already in flight on its session with a 400;
// with its own session the call goes the whole way (the front gate's budget
// and read, the SDK's decode, the middleware), as the stateless lab's do.
func (f *flood) attack() []ShapeResult {
	c := f.c
	opener := sessclient.NewHTTPClient(1)
	defer opener.CloseIdleConnections()
	n := c.HostileInFlight + c.ValidClients
	pool := make(chan string, n)
	// At the connection bound the opener's keep-alive connection, idle
	// between initialize and initialized, may be closed to admit another:
	// each session is tried a few times, each failure counted.
	for i := 0; i < attackOpenTries*n && len(pool) < n && f.ctx.Err() == nil; i++ {
		oc, cancel := context.WithTimeout(f.ctx, c.ProbeTimeout)
		sid, err := sessclient.Open(oc, opener, f.ch.URL)
		cancel()
		if err != nil {
			f.fail(PhaseHostile, err)
			continue
		}
		pool <- sid
	}
	if len(pool) < n {
		return nil // the server would not open them: the failures are counted
	}
	cl := newClient(n + 4)
	defer cl.CloseIdleConnections()
	cl.Transport = &inSession{base: cl.Transport, pool: pool}
	var shapes []Shape
	for _, sh := range Shapes() {
		if sh.Hostile || sh.Name == ValidShape {
			shapes = append(shapes, sh)
		}
	}
	left := time.Until(deadlineOf(f.ctx))
	if left <= 0 {
		return nil
	}
	cfg := Config{Requests: c.Hostile, Duration: left, Protocol: ProtocolNone, ValidClients: c.ValidClients}
	return attack(cfg, f.ch.URL, cl, shapes, int(f.ch.Cap-1), c.HostileInFlight)
}

// attackOpenTries bounds the tries per session the attack opens.
const attackOpenTries = 3

func deadlineOf(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(MaxDuration)
}

// inSession sends each request on a session no other request in flight
// holds: taken from pool, given back when its answer's body is closed.
type inSession struct {
	base http.RoundTripper
	pool chan string
}

func (t *inSession) RoundTrip(r *http.Request) (*http.Response, error) {
	var sid string
	select {
	case sid = <-t.pool:
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
	r = r.Clone(r.Context())
	r.Header.Set("Mcp-Session-Id", sid)
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		t.pool <- sid
		return nil, err
	}
	resp.Body = &giveBack{ReadCloser: resp.Body, give: func() { t.pool <- sid }}
	return resp, nil
}

// giveBack runs give once, when the body is first closed.
type giveBack struct {
	io.ReadCloser
	once sync.Once
	give func()
}

func (g *giveBack) Close() error {
	err := g.ReadCloser.Close()
	g.once.Do(g.give)
	return err
}
