package mcpvalidate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const originInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

// originRig is a protected go-sdk endpoint whose SDK handler counts the
// requests that reach it, and the refusals the hook saw.
type originRig struct {
	h       *Handler
	reached atomic.Int64
	refused []*Refusal
}

func newOriginRig(t *testing.T, o *HTTPOptions) *originRig {
	t.Helper()
	rig := &originRig{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "origin", Version: "v0"}, nil)
	v, err := New(published, &Options{OnRefusal: func(_ context.Context, r *Refusal) { rig.refused = append(rig.refused, r) }})
	if err != nil {
		t.Fatal(err)
	}
	opts := v.httpDefaults(o)
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, v.sdkOptions(opts))
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rig.reached.Add(1)
		sdk.ServeHTTP(w, r)
	})
	if rig.h, err = v.Protect(counted, o); err != nil {
		t.Fatal(err)
	}
	return rig
}

// post sends initialize to the rig as a request to http://mcp.local/mcp,
// with the headers given as name, value pairs.
func (rig *originRig) post(hdr ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "http://mcp.local/mcp", strings.NewReader(originInitialize))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	rig.h.ServeHTTP(w, r)
	return w
}

func (rig *originRig) sessions() int {
	t := rig.h.fg.sessions
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

// A browser's request from a foreign origin is refused with 403 before
// anything of the server sees it; same-origin, allowed and Origin-less
// requests are served.
func TestCrossOriginRefusedBeforeTheServer(t *testing.T) {
	const foreign = "http://evil.example"
	for _, c := range []struct {
		name  string
		hdr   []string
		serve bool
	}{
		{"no Origin", nil, true},
		{"same origin", []string{"Origin", "http://mcp.local"}, true},
		{"allowed origin", []string{"Origin", "https://app.example"}, true},
		{"allowed origin, cross-site fetch", []string{"Origin", "https://app.example", "Sec-Fetch-Site", "cross-site"}, true},
		{"same-origin fetch", []string{"Origin", foreign, "Sec-Fetch-Site", "same-origin"}, true},
		{"a fetch of the user's own", []string{"Sec-Fetch-Site", "none"}, true},
		{"foreign origin", []string{"Origin", foreign}, false},
		{"null origin", []string{"Origin", "null"}, false},
		{"look-alike of the host", []string{"Origin", "http://mcp.local.evil.example"}, false},
		{"allowed origin on another port", []string{"Origin", "https://app.example:8443"}, false},
		{"allowed host, other scheme", []string{"Origin", "http://app.example"}, false},
		{"cross-site fetch, no Origin", []string{"Sec-Fetch-Site", "cross-site"}, false},
		{"same-site fetch", []string{"Origin", "http://sub.mcp.local", "Sec-Fetch-Site", "same-site"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rig := newOriginRig(t, &HTTPOptions{AllowedOrigins: []string{"https://app.example"}})
			w := rig.post(c.hdr...)
			if c.serve {
				if w.Code != http.StatusOK || rig.reached.Load() != 1 || rig.sessions() != 1 || len(rig.refused) != 0 {
					t.Fatalf("served: status %d, reached %d, sessions %d, refusals %d: %s", w.Code, rig.reached.Load(), rig.sessions(), len(rig.refused), w.Body)
				}
				return
			}
			if w.Code != http.StatusForbidden {
				t.Fatalf("status %d, want 403: %s", w.Code, w.Body)
			}
			if n := rig.reached.Load(); n != 0 {
				t.Errorf("the server saw %d requests", n)
			}
			if n := rig.sessions(); n != 0 || w.Header().Get("Mcp-Session-Id") != "" {
				t.Errorf("%d sessions opened", n)
			}
			if p := rig.h.fg.budget.Peak(); p != 0 {
				t.Errorf("the in-flight budget held %d bytes", p)
			}
			const want = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request refused by the front gate: bound origin","data":{"bound":"origin"}}}`
			if got := w.Body.String(); got != want {
				t.Errorf("answer %s\nwant   %s", got, want)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if len(rig.refused) != 1 || rig.refused[0].Stage != StageRequest || rig.refused[0].Bound != "origin" || rig.refused[0].Status != http.StatusForbidden {
				t.Errorf("the hook saw %+v", rig.refused)
			}
		})
	}
}

// The refusal holds no byte of the Origin sent, however long or strange.
func TestCrossOriginRefusalUnechoed(t *testing.T) {
	rig := newOriginRig(t, nil)
	canary := "http://" + strings.Repeat("c4n4ry", 1000) + ".example"
	w := rig.post("Origin", canary)
	if w.Code != http.StatusForbidden || strings.Contains(w.Body.String(), "c4n4ry") {
		t.Fatalf("status %d, answer %s", w.Code, w.Body)
	}
	if w.Body.Len() > MaxRefusalBytes() {
		t.Errorf("answer %d bytes, past MaxRefusalBytes %d", w.Body.Len(), MaxRefusalBytes())
	}
}

// A foreign origin is refused before the in-flight budget and the session
// table: with both full it still gets 403 at once, never their 503, and a
// foreign request naming a session is not answered by the table's 404.
func TestCrossOriginRefusedBeforeTheBudgets(t *testing.T) {
	rig := newOriginRig(t, nil)
	b := rig.h.fg.budget
	g, ok := b.tryAcquire(b.General())
	for ok {
		defer g.Release()
		g, ok = b.tryAcquire(b.SmallWeight())
	}
	if b.InUse() < b.Total()-b.SmallWeight() {
		t.Fatalf("took %d of the budget's %d bytes", b.InUse(), b.Total())
	}
	if w := rig.post("Origin", "http://evil.example"); w.Code != http.StatusForbidden {
		t.Errorf("budget full: status %d, want 403", w.Code)
	}
	if w := rig.post("Origin", "http://evil.example", "Mcp-Session-Id", "no-such-session"); w.Code != http.StatusForbidden {
		t.Errorf("unknown session: status %d, want 403", w.Code)
	}
}

// A malformed allowed origin fails the call that would serve it, naming the
// field; so does Handler.
func TestAllowedOriginsChecked(t *testing.T) {
	v := httpValidator(t)
	for _, bad := range []string{"app.example", "https://app.example/mcp", "https://", "https://app.example?x=1", "%"} {
		_, err := v.Protect(http.NotFoundHandler(), &HTTPOptions{AllowedOrigins: []string{"https://ok.example", bad}})
		if err == nil || !strings.Contains(err.Error(), "AllowedOrigins") {
			t.Errorf("Protect with %q: %v", bad, err)
		}
		_, err = v.Handler(func(*http.Request) *mcp.Server { return nil }, &HTTPOptions{AllowedOrigins: []string{bad}})
		if err == nil {
			t.Errorf("Handler with %q: no error", bad)
		}
	}
	if _, err := v.Protect(http.NotFoundHandler(), &HTTPOptions{AllowedOrigins: []string{"https://app.example", "http://127.0.0.1:8080"}}); err != nil {
		t.Error(err)
	}
}
