package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

// TestServeBoundsWhatRequestsLeave: serve's front gate keeps the session
// table and the connection bound it announces, the ceiling it prints is the
// sum of its budgets and the baseline, and its http.Server refuses a header
// block past bounds.MaxHeaderBytes.
func TestServeBoundsWhatRequestsLeave(t *testing.T) {
	const unit = bounds.SessionCost + bounds.StreamCost
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuf
	done := make(chan error, 1)
	go func() {
		done <- serveOn(ctx, ln, serveOptions{json: true, frontGate: true, sessionBytes: unit, connBytes: 8*bounds.ConnCost + 1}, &stdout, &stderr)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(stdout.String(), "ceiling_bytes") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	var a serveAnnouncement
	if err := json.Unmarshal([]byte(stdout.String()), &a); err != nil {
		t.Fatalf("%v: %q", err, stdout.String())
	}
	if a.SessionBytes != unit || a.ConnBytes != 8*bounds.ConnCost || a.BaselineBytes != bounds.Baseline ||
		a.CeilingBytes != a.BudgetBytes+a.SessionBytes+a.ConnBytes+a.BaselineBytes {
		t.Fatalf("announced %+v: the ceiling is not in-flight + sessions + connections + baseline", a)
	}

	// One session, held active by the client's young standalone stream: the
	// table of one refuses the next initialize.
	c := mcp.NewClient(&mcp.Implementation{Name: "first", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: a.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	post := func(hdr map[string]string) (int, http.Header) {
		req, err := http.NewRequest(http.MethodPost, a.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"second","version":"v0"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header
	}
	if status, h := post(nil); status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" {
		t.Errorf("a second session past a table of one: HTTP %d, Retry-After %q", status, h.Get("Retry-After"))
	}
	// net/http admits bounds.MaxHeaderBytes plus 4096 bytes of its own slack, so
	// the bound is held from each side rather than at the byte.
	for _, c := range []struct {
		name  string
		bytes int
		want  int
	}{
		{"under", bounds.MaxHeaderBytes / 2, http.StatusServiceUnavailable}, // reaches the gate
		{"past", 2 * bounds.MaxHeaderBytes, http.StatusRequestHeaderFieldsTooLarge},
	} {
		if status, _ := post(map[string]string{"X-Pad": strings.Repeat("a", c.bytes)}); status != c.want {
			t.Errorf("a header block %s bounds.MaxHeaderBytes: HTTP %d, want %d", c.name, status, c.want)
		}
	}
}

// TestServeBoundsFlags: a bad size for either bound is a usage error that does
// not echo it.
func TestServeBoundsFlags(t *testing.T) {
	for _, flag := range []string{"--session-bytes", "--conn-bytes"} {
		if code, _, errOut := runVerb(t, "", "serve", flag, "lots"); code != exitUsage || strings.Contains(errOut, "lots") || !strings.Contains(errOut, flag) {
			t.Errorf("a bad %s: exit %d, %s", flag, code, errOut)
		}
	}
}
