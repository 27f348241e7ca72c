package audit_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

// cappedServer is typedSDK's server behind mcpvalidate's front gate with a
// session table that holds n sessions with their first stream, and idle
// sessions closed after idle.
func cappedServer(t *testing.T, n int64, idle time.Duration) http.Handler {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "capped", Version: "v0"}, nil)
	mcpvalidate.AddTool(srv, &mcp.Tool{Name: "typed", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, typedIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	v, err := mcpvalidate.Install(srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	front, err := v.Handler(func(*http.Request) *mcp.Server { return srv },
		&mcpvalidate.HTTPOptions{SessionBytes: n * (bounds.SessionCost + bounds.StreamCost), SessionIdle: idle})
	if err != nil {
		t.Fatal(err)
	}
	return front
}

// fakeSessions is fakePy with a session table: at most n live sessions
// (initialize past them is refused with 503 and Retry-After: 7), a
// session left unused while the server answers idle requests expires
// (404; idle counts requests, not time, so a fast run cannot outrun it),
// DELETE ends one.
type fakeSessions struct {
	fakePy
	n    int
	idle int
	mu   sync.Mutex
	next int
	seen int
	live map[string]int
}

func (f *fakeSessions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.seen++
	now := f.seen
	for id, used := range f.live {
		if now-used > f.idle {
			delete(f.live, id)
		}
	}
	id := r.Header.Get("Mcp-Session-Id")
	_, known := f.live[id]
	switch {
	case r.Method == http.MethodDelete:
		delete(f.live, id)
		f.mu.Unlock()
		return
	case id == "":
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"method":"initialize"`)) {
			if len(f.live) >= f.n {
				f.mu.Unlock()
				w.Header().Set("Retry-After", "7")
				http.Error(w, `{"jsonrpc":"2.0","id":0,"error":{"code":-32000,"message":"too many sessions"}}`, http.StatusServiceUnavailable)
				return
			}
			f.next++
			id = "s" + strconv.Itoa(f.next)
			f.live[id] = now
			w.Header().Set("Mcp-Session-Id", id)
		}
	case !known:
		f.mu.Unlock()
		http.Error(w, "no such session", http.StatusNotFound)
		return
	default:
		f.live[id] = now
	}
	f.mu.Unlock()
	f.fakePy.ServeHTTP(w, r)
}

func TestSessionCap(t *testing.T) {
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = 64<<10, 100, 1<<10, 5*time.Second
	for _, c := range []struct {
		name string
		h    func(t *testing.T) http.Handler
		ask  int
		want audit.SessionCap // the fields compared: Opened, RefusedAt, RetryAfter, IdleExpired, Alive
	}{
		{"refuses past 4", func(*testing.T) http.Handler {
			return &fakeSessions{n: 4, idle: 1 << 30, live: map[string]int{}}
		}, 8,
			// the audit's own session and the idle one hold two of the four
			audit.SessionCap{Opened: 2, RefusedAt: 3, RetryAfter: "7", Alive: 2}},
		{"at the bound", func(*testing.T) http.Handler {
			return &fakeSessions{n: 4, idle: 1 << 30, live: map[string]int{}}
		}, 2,
			audit.SessionCap{Opened: 2, Alive: 2}},
		{"idle expires", func(*testing.T) http.Handler {
			return &fakeSessions{n: 100, idle: 50, live: map[string]int{}}
		}, 3,
			audit.SessionCap{Opened: 3, IdleExpired: true, Alive: 3}},
		{"front gate evicts the least recently used", func(t *testing.T) http.Handler { return cappedServer(t, 4, time.Hour) }, 8,
			audit.SessionCap{Opened: 8, IdleExpired: false, Alive: 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := audit.Run(context.Background(), audit.Config{Target: audit.Handler(c.name, c.h(t), "/mcp"), Seed: 7, Limits: l, Sessions: c.ask})
			if err != nil {
				t.Fatal(err)
			}
			sc := rep.Boundary.Sessions
			if sc == nil {
				t.Fatal("no session-cap answer")
			}
			if sc.Opened != c.want.Opened || sc.RefusedAt != c.want.RefusedAt || sc.RetryAfter != c.want.RetryAfter ||
				sc.IdleExpired != c.want.IdleExpired || sc.Alive != c.want.Alive {
				t.Errorf("%s; want opened %d, refused at %d (Retry-After %q), idle expired %v, alive %d", sc,
					c.want.Opened, c.want.RefusedAt, c.want.RetryAfter, c.want.IdleExpired, c.want.Alive)
			}
			if c.want.RefusedAt > 0 && (sc.Refusal == nil || sc.Refusal.Status != http.StatusServiceUnavailable) {
				t.Errorf("the refusal: %v, want HTTP 503", sc.Refusal)
			}
			if sc.Closed < sc.Alive {
				t.Errorf("%d sessions closed with DELETE, %d alive", sc.Closed, sc.Alive)
			}
		})
	}
}

// TestSessionCapIsOptIn: without Config.Sessions no session is held, and
// over stdio the probe says it did not run.
func TestSessionCapIsOptIn(t *testing.T) {
	rep := fakeRun(t, fakePy{})
	if rep.Boundary.Sessions != nil {
		t.Errorf("the session probe ran unasked: %+v", rep.Boundary.Sessions)
	}
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = 16<<10, 16, 1<<10, 500*time.Millisecond
	target := &audit.Stdio{Command: os.Args[0], Env: append(os.Environ(), fakeEnv+"=pages")}
	rep, err := audit.Run(context.Background(), audit.Config{Target: target, Seed: 7, Limits: l, Sessions: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Boundary.Sessions != nil || !notMeasured(rep, "sessions") {
		t.Errorf("over stdio: sessions %+v, not measured %+v", rep.Boundary.Sessions, rep.NotMeasured)
	}
}
