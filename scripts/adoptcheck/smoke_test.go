package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// post reads an answer as JSON or as one server-sent event, keeps the
// session the server names, and refuses an answer past maxAnswer bytes.
func TestPost(t *testing.T) {
	for _, c := range []struct {
		name, contentType, body string
		result, err             string
	}{
		{"JSON", "application/json", `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`, `{"ok":true}`, ""},
		{"one event", "text/event-stream", "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":1}}\r\n\r\n", `{"ok":1}`, ""},
		{"a JSON-RPC error", "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`, "", ""},
		{"no answer", "application/json", `{"jsonrpc":"2.0"}`, "", "no JSON-RPC answer"},
		{"an answer at the bound", "application/json", `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("a", maxAnswer-36) + `"}`, `"` + strings.Repeat("a", maxAnswer-36) + `"`, ""},
		{"an answer one past it", "application/json", `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("a", maxAnswer-35) + `"}`, "", "more than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", c.contentType)
				w.Header().Set("Mcp-Session-Id", "s1")
				w.Write([]byte(c.body))
			}))
			defer srv.Close()
			cl := &mcpClient{url: srv.URL, http: srv.Client(), pid: os.Getpid(), rssGuard: 1 << 40}
			_, res, rpcErr, err := cl.post(context.Background(), `{"jsonrpc":"2.0","id":1,"method":"x"}`)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(res) != c.result || (c.result == "") != (rpcErr != nil) {
				t.Errorf("result %.80q, error %v", res, rpcErr)
			}
			if cl.session != "s1" {
				t.Errorf("session %q, want the server's", cl.session)
			}
		})
	}
}

// The RSS guard fails a request once the child's resident size is past it.
func TestCheckRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: the guard checks nothing here")
	}
	for _, c := range []struct {
		name  string
		guard int64
		fail  bool
	}{{"well within", 1 << 40, false}, {"past it", 1, true}} {
		t.Run(c.name, func(t *testing.T) {
			cl := &mcpClient{pid: os.Getpid(), rssGuard: c.guard}
			if err := cl.checkRSS(); (err != nil) != c.fail {
				t.Errorf("guard %d: %v", c.guard, err)
			}
		})
	}
}
