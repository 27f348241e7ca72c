package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeVerb runs the server the README's newcomer runs, drives it with a
// go-sdk client over streamable HTTP, and checks its logs carry no caller value;
// statelessly too, where the client speaks protocol 2026-07-28.
func TestServeVerb(t *testing.T) {
	for _, so := range []serveOptions{{}, {stateless: true, goClients: true, json: true}} {
		t.Run(fmt.Sprintf("stateless=%v", so.stateless), func(t *testing.T) { testServe(t, so) })
	}
}

func testServe(t *testing.T, so serveOptions) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuf
	done := make(chan error, 1)
	go func() { done <- serveOn(ctx, ln, so, &stdout, &stderr) }()
	url := "http://" + ln.Addr().String() + "/mcp"

	c := mcp.NewClient(&mcp.Implementation{Name: "newcomer", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[bool]string{false: "2025-11-25", true: "2026-07-28"}[so.stateless]; cs.InitializeResult().ProtocolVersion != want {
		t.Fatalf("negotiated %s, want %s", cs.InitializeResult().ProtocolVersion, want)
	}
	n := 0
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.InputSchema == nil {
			t.Errorf("%s lists no input schema", tool.Name)
		}
		n++
	}
	if n != 7 {
		t.Fatalf("listed %d tools, want 7", n)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "knowledge.get", Arguments: map[string]any{"projectId": "demo", "itemId": "item-1"}})
	if err != nil || res.IsError {
		t.Fatalf("valid call: %v %+v", err, res)
	}
	const value, name = "VALUE-in-a-log-is-a-leak", "NAME-in-a-log-is-a-leak"
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "knowledge.get", Arguments: map[string]any{"projectId": "demo", "itemId": value, "k": value}})
	if err != nil || !res.IsError {
		t.Fatalf("invalid call: %v %+v", err, res)
	}
	if res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}}); err != nil || !res.IsError {
		t.Fatalf("unpublished tool: %v %+v", err, res)
	}
	cs.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	logs := stderr.String()
	if so.json {
		var a serveAnnouncement
		if err := json.Unmarshal([]byte(stdout.String()), &a); err != nil || a.URL != url || len(a.Tools) != 7 || a.MaxRequestBodyBytes == 0 {
			t.Fatalf("--json announcement %+v (%v): %q", a, err, stdout.String())
		}
		for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
			if !json.Valid([]byte(line)) {
				t.Fatalf("--json log line is not JSON: %q", line)
			}
		}
	}
	if !strings.Contains(stdout.String(), url) || !strings.Contains(logs, "tools/call refused") || !strings.Contains(logs, "tools/call served") {
		t.Fatalf("stdout %q\nlogs %q", stdout.String(), logs)
	}
	if strings.Contains(logs, value) || strings.Contains(logs, name) {
		t.Fatalf("logs carry a caller value:\n%s", logs)
	}
}

func TestValidateVerb(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"projectId":"demo","query":"cap"}`), 0o644)
	if code, out, _ := runVerb(t, "", "validate", "--tool", "knowledge.search", good); code != 0 || out != "admit\n" {
		t.Fatalf("valid: exit %d %q", code, out)
	}
	code, out, _ := runVerb(t, `{"projectId":"demo","query":"cap","x":"`+strings.Repeat("v", 5000)+`"}`, "validate", "--tool", "knowledge.search", "-")
	if code != 1 || !strings.Contains(out, `"/x": unevaluatedProperties`) || len(out) > 300 {
		t.Fatalf("invalid: exit %d %q", code, out)
	}
	if code, out, _ := runVerb(t, `{}`, "validate", "--tool", "no.such.tool", "--json", "-"); code != 1 || !strings.Contains(out, `"stage": "unknown-tool"`) {
		t.Fatalf("unknown tool: exit %d %q", code, out)
	}
	if code, _, _ := runVerb(t, "", "validate", "-"); code != 2 {
		t.Fatalf("no --tool: exit %d", code)
	}
	if code, out, _ := runVerb(t, "", "validate", "--list"); code != 0 || strings.Count(out, "\n") != 7 {
		t.Fatalf("--list: exit %d %q", code, out)
	}
}
