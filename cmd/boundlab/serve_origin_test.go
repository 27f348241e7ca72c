package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeRefusesAForeignOrigin: `boundlab serve` answers a browser's
// initialize from a foreign origin with 403 and opens no session, and serves
// the same request without an Origin header; with --front-gate=false (the
// bare SDK with the middleware) the foreign origin gets 200 and a session.
func TestServeRefusesAForeignOrigin(t *testing.T) {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	for _, c := range []struct {
		name    string
		so      serveOptions
		foreign int // the foreign origin's status
	}{
		{"guarded", serveOptions{frontGate: true}, http.StatusForbidden},
		{"guarded stateless", serveOptions{frontGate: true, stateless: true}, http.StatusForbidden},
		{"middleware only", serveOptions{}, http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			var stdout, stderr syncBuf
			done := make(chan error, 1)
			go func() { done <- serveOn(ctx, ln, c.so, &stdout, &stderr) }()
			defer func() {
				cancel()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Error("serve did not stop")
				}
			}()
			url := "http://" + ln.Addr().String() + "/mcp"
			post := func(origin string) (int, string, string) {
				r, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
				if err != nil {
					t.Fatal(err)
				}
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				if origin != "" {
					r.Header.Set("Origin", origin)
				}
				res, err := http.DefaultClient.Do(r)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<16))
				return res.StatusCode, res.Header.Get("Mcp-Session-Id"), string(body)
			}
			status, session, body := post("http://evil.example")
			if status != c.foreign {
				t.Fatalf("foreign origin: status %d, want %d: %s", status, c.foreign, body)
			}
			if status == http.StatusForbidden {
				if session != "" || strings.Contains(body, "evil") || !strings.Contains(body, `"bound":"origin"`) {
					t.Errorf("foreign origin: session %q, answer %s", session, body)
				}
				if !strings.Contains(stderr.String(), "bound=origin") {
					t.Errorf("the refusal is not logged: %s", stderr.String())
				}
			} else if session == "" && !c.so.stateless {
				t.Errorf("middleware only: no session opened")
			}
			if status, session, body = post(""); status != http.StatusOK || (session == "") != c.so.stateless {
				t.Errorf("no Origin: status %d, session %q: %s", status, session, body)
			}
		})
	}
}
