package sessclient

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statefulServer is a go-sdk server with project.list, served statefully
// (the SDK's default) on 127.0.0.1.
func statefulServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "sessclient-test", Version: "0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "project.list", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "[]"}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// A session opens, serves a call and closes; after DELETE the server no
// longer knows it (404).
func TestSessionLifecycle(t *testing.T) {
	ts := statefulServer(t)
	cl := NewHTTPClient(2)
	sid, err := Open(ctx(t), cl, ts.URL)
	if err != nil || sid == "" {
		t.Fatalf("open: %q, %v", sid, err)
	}
	if err := Call(ctx(t), cl, ts.URL, sid, CallBody); err != nil {
		t.Fatalf("call: %v", err)
	}
	if err := Close(ctx(t), cl, ts.URL, sid); err != nil {
		t.Fatalf("close: %v", err)
	}
	err = Call(ctx(t), cl, ts.URL, sid, CallBody)
	var f *Failure
	if !errors.As(err, &f) || f.Status != http.StatusNotFound || f.Step != StepCall || f.Kind() != "http-404" {
		t.Fatalf("call on a closed session: %v", err)
	}
	if took, err := Conversation(ctx(t), ts.URL); err != nil || took <= 0 {
		t.Fatalf("conversation: %v, %v", took, err)
	}
}

// A tools/call the server answers with a JSON-RPC error (an unknown tool)
// or a tool error fails the call.
func TestCallFailures(t *testing.T) {
	ts := statefulServer(t)
	cl := NewHTTPClient(1)
	sid, err := Open(ctx(t), cl, ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	err = Call(ctx(t), cl, ts.URL, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no.such","arguments":{}}}`)
	var f *Failure
	if !errors.As(err, &f) || f.Status != http.StatusOK || f.Kind() == "transport" {
		t.Fatalf("unknown tool: %v", err)
	}
}

// One standalone stream per session: the SDK holds the first and answers
// the second 409; the held stream reads alive until the server closes it.
func TestHoldStream(t *testing.T) {
	ts := statefulServer(t)
	cl := NewHTTPClient(1)
	sid, err := Open(ctx(t), cl, ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	s, err := HoldStream(ctx(t), ts.URL, sid)
	if err != nil || !s.Stream {
		t.Fatalf("first stream: %v", err)
	}
	defer s.Close()
	_, err = HoldStream(ctx(t), ts.URL, sid)
	var f *Failure
	if !errors.As(err, &f) || f.Status != http.StatusConflict || f.Kind() != "http-409" {
		t.Fatalf("second stream: %v", err)
	}
	if _, err := HoldStream(ctx(t), ts.URL, "no-such-session"); !errors.As(err, &f) || f.Status != http.StatusNotFound {
		t.Fatalf("unknown session: %v", err)
	}
	if !s.Alive(20 * time.Millisecond) {
		t.Fatal("the held stream reads closed")
	}
	if err := Close(ctx(t), cl, ts.URL, sid); err != nil { // the session's end ends its stream
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.Alive(20*time.Millisecond) && time.Now().Before(deadline) {
	}
	if s.Alive(20 * time.Millisecond) {
		t.Fatal("the stream reads alive after its session was closed")
	}
}

// An idle connection is held after its answer is read whole, and reads
// closed once the server closes it.
func TestHoldIdle(t *testing.T) {
	ts := statefulServer(t)
	h, err := HoldIdle(ctx(t), ts.URL)
	if err != nil || h.Stream {
		t.Fatalf("idle: %v", err)
	}
	defer h.Close()
	if !h.Alive(20 * time.Millisecond) {
		t.Fatal("the idle connection reads closed")
	}
	ts.CloseClientConnections()
	if h.Alive(time.Second) {
		t.Fatal("the idle connection reads alive after the server closed it")
	}
}

// A full server's refusal is counted by its status and Retry-After.
func TestFailureKinds(t *testing.T) {
	for _, c := range []struct {
		name string
		f    Failure
		want string
	}{
		{"busy", Failure{Status: 503, RetryAfter: true}, "http-503+retry-after"},
		{"busy-bare", Failure{Status: 503}, "http-503"},
		{"error-status-with-rpc-body", Failure{Status: 503, RPCCode: -32000, RetryAfter: true}, "http-503+retry-after"},
		{"rpc-error", Failure{Status: 200, RPCCode: -32602}, "jsonrpc-error"},
		{"bad-answer", Failure{Status: 200, Err: errors.New("x")}, "bad-answer"},
		{"transport", Failure{Err: errors.New("reset")}, "transport"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.f.Kind(); got != c.want {
				t.Errorf("%+v: %s, want %s", c.f, got, c.want)
			}
		})
	}
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"server busy"}}`))
	}))
	defer busy.Close()
	_, err := Open(ctx(t), NewHTTPClient(1), busy.URL)
	var f *Failure
	if !errors.As(err, &f) || f.Step != StepInitialize || f.Kind() != "http-503+retry-after" || f.RPCCode != -32000 {
		t.Fatalf("busy server: %v", err)
	}
}

// Nothing but http://127.0.0.1:PORT is dialled.
func TestLoopbackOnly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	for _, u := range []string{"http://localhost:80/mcp", "http://127.0.0.2:80/mcp", "https://127.0.0.1:443/mcp", "http://10.0.0.1:80/", "http://127.0.0.1/mcp", "::"} {
		t.Run(u, func(t *testing.T) {
			if _, err := Open(ctx(t), NewHTTPClient(1), u); !errors.Is(err, ErrNotLoopback) {
				t.Errorf("Open: %v", err)
			}
			if _, err := HoldStream(ctx(t), u, "x"); !errors.Is(err, ErrNotLoopback) {
				t.Errorf("HoldStream: %v", err)
			}
			if _, err := HoldIdle(ctx(t), u); !errors.Is(err, ErrNotLoopback) {
				t.Errorf("HoldIdle: %v", err)
			}
			if _, err := Conversation(ctx(t), u); !errors.Is(err, ErrNotLoopback) {
				t.Errorf("Conversation: %v", err)
			}
		})
	}
	if _, err := CheckURL("http://" + ln.Addr().String() + "/mcp"); err != nil {
		t.Errorf("loopback refused: %v", err)
	}
}

// A stream's chunks are followed across reads that time out mid-chunk and
// mid-size-line; the last chunk ends it though the connection stays open.
func TestStreamChunksAcrossTimeouts(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	step := make(chan string)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 4096)
		c.Read(buf) // the request
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"))
		for s := range step {
			c.Write([]byte(s))
		}
		time.Sleep(time.Second) // the connection outlives the stream
	}()
	h, err := HoldStream(ctx(t), "http://"+ln.Addr().String()+"/mcp", "sid")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for i, piece := range []string{"", "6\r\n: o", "k\n\n", "\r\n", "a\r\n0123", "456789\r\n", "0\r"} {
		if piece != "" {
			step <- piece
		}
		if !h.Alive(50 * time.Millisecond) {
			t.Fatalf("piece %d (%q): the stream reads ended", i, piece)
		}
	}
	step <- "\n\r\n"
	close(step)
	if h.Alive(200 * time.Millisecond) {
		t.Fatal("the stream reads alive after its last chunk")
	}
}

// An unfinished header block is held until the server gives up on it
// (ReadHeaderTimeout); its size is n within one line's framing.
func TestHoldHeader(t *testing.T) {
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.Config.ReadHeaderTimeout = 300 * time.Millisecond
	ts.Start()
	defer ts.Close()
	h, err := HoldHeader(ctx(t), ts.URL+"/mcp", 15<<10)
	if err != nil || h.Stream {
		t.Fatalf("header: %v", err)
	}
	defer h.Close()
	if !h.Alive(100 * time.Millisecond) {
		t.Fatal("the unfinished header reads closed at once")
	}
	if h.Alive(time.Second) {
		t.Fatal("the connection reads alive past the server's ReadHeaderTimeout")
	}
	u, _ := CheckURL(ts.URL + "/mcp")
	for _, n := range []int{0, 100, 1100, 15 << 10, 64 << 10} {
		b := HeaderBlock(u, n)
		head := len("GET /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\n")
		if n > head && (len(b) > n || len(b) < n-len("X-Pad-99: \r\n")) || n <= head && len(b) != head {
			t.Errorf("%d asked: %d bytes", n, len(b))
		}
		if bytes.Contains(b, []byte("\r\n\r\n")) {
			t.Errorf("%d asked: the block is finished", n)
		}
	}
}
