package mark3labs_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	m3 "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/mark3labs"
)

// stdioKey is the context key of the value the server's own StdioServer
// puts in every request's context.
type stdioKey struct{}

// Over stdio the gate answers the lines it refuses, without the caller's
// bytes, and mcp-go serves the next request; admitted calls reach the
// handler, in the context the server's own StdioServer gives them.
func TestListenStdio(t *testing.T) {
	var h handled
	var fromServer atomic.Int64
	s := m3server.NewMCPServer("m3", "0")
	s.AddTool(m3.NewToolWithRawSchema("item.put", "", json.RawMessage(itemSchema)), func(ctx context.Context, req m3.CallToolRequest) (*m3.CallToolResult, error) {
		if ctx.Value(stdioKey{}) == "set by the server" {
			fromServer.Add(1)
		}
		return h.m3Handler(ctx, req)
	})
	v, err := mark3labs.Install(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := m3server.NewStdioServer(s)
	srv.SetContextFunc(func(ctx context.Context) context.Context {
		return context.WithValue(ctx, stdioKey{}, "set by the server")
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mark3labs.ListenStdio(ctx, srv, v, inR, outW) }()
	defer func() { cancel(); inW.Close(); outR.Close() }()
	out := bufio.NewReader(outR)
	exchange := func(line string) string {
		t.Helper()
		go func() { _, _ = io.WriteString(inW, line+"\n") }()
		got := make(chan string, 1)
		go func() { l, _ := out.ReadString('\n'); got <- l }()
		select {
		case l := <-got:
			return l
		case err := <-done:
			t.Fatalf("the server ended: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("no answer in 10 s")
		}
		return ""
	}
	if a := exchange(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`); !strings.Contains(a, `"result"`) {
		t.Fatalf("initialize: %.300s", a)
	}
	for _, c := range []struct{ name, line, bound string }{
		{"raw control", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"item.put","arguments":{"name":"a` + "\x01" + canary + `"}}}`, "control-character"},
		{"duplicate member", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"item.put","arguments":{"name":"a","name":"` + canary + `"}}}`, "duplicate-name"},
		{"trailing bytes", `{"jsonrpc":"2.0","id":3,"method":"ping"}` + canary, "trailing"},
	} {
		a := exchange(c.line)
		if !strings.Contains(a, c.bound) || strings.Contains(a, canary) || len(a) > mcpvalidate.MaxRefusalBytes()+1 {
			t.Errorf("%s: %.300s", c.name, a)
		}
		if a := exchange(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"item.put","arguments":{"name":"ok"}}}`); !strings.Contains(a, `"id":9`) || !strings.Contains(a, `ok`) {
			t.Fatalf("%s: the next call: %.300s", c.name, a)
		}
	}
	if n := h.n.Load(); n != 3 {
		t.Errorf("the handler ran %d times, want 3 (the valid calls only)", n)
	}
	if n := fromServer.Load(); n != 3 {
		t.Errorf("%d of 3 calls carried the StdioServer's context value", n)
	}
}

// ListenStdio leaves no goroutine of its own behind: once it has returned
// (its context ended while mcp-go waited for a line) and the input ends,
// every goroutine it started has ended, the one that reads the gated lines
// included.
func TestListenStdioEndsItsGoroutines(t *testing.T) {
	s := m3server.NewMCPServer("m3", "0")
	s.AddTool(m3.NewToolWithRawSchema("item.put", "", json.RawMessage(itemSchema)), (&handled{}).m3Handler)
	v, err := mark3labs.Install(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	inR, inW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mark3labs.ListenStdio(ctx, m3server.NewStdioServer(s), v, inR, io.Discard) }()
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ListenStdio did not return in 10 s after its context ended")
	}
	inW.Close()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines 10 s after the input ended, %d before ListenStdio", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
