package mcpvalidate

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/charge"
)

type stdioSearchIn struct {
	Query string `json:"query"`
}

// stdioServer is a go-sdk server with one typed tool run over the gated
// stdio transport on pipes; lines writes a line to it, answer reads the
// next answer line. A small file cap keeps the frame cap small.
type stdioServer struct {
	v      *Validator
	in     *io.PipeWriter
	out    *bufio.Reader
	done   chan error
	called int
}

func startStdio(t *testing.T) *stdioServer {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "stdio", Version: "v0"}, nil)
	s := &stdioServer{done: make(chan error, 1)}
	AddTool(srv, &mcp.Tool{Name: "search"}, func(_ context.Context, _ *mcp.CallToolRequest, in stdioSearchIn) (*mcp.CallToolResult, any, error) {
		s.called++
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d bytes", len(in.Query))}}}, nil, nil
	})
	v, err := Install(srv, &Options{MaxFileBytes: 64 << 10, Limits: &charge.Limits{EnvelopeAllowance: 4 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	s.v = v
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { s.done <- srv.Run(ctx, v.StdioTransport(inR, outW)); outW.Close() }()
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close() })
	s.in, s.out = inW, bufio.NewReaderSize(outR, 1<<20)
	s.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if a := s.answer(t); !strings.Contains(a, `"id":0`) || !strings.Contains(a, `"result"`) {
		t.Fatalf("initialize: %.300s", a)
	}
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *stdioServer) send(t *testing.T, line string) {
	t.Helper()
	go func() { _, _ = io.WriteString(s.in, line+"\n") }()
}

// answer is the next line the server writes, within a few seconds.
func (s *stdioServer) answer(t *testing.T) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		l, err := s.out.ReadString('\n')
		if err != nil {
			l = "read: " + err.Error()
		}
		got <- l
	}()
	select {
	case l := <-got:
		return l
	case err := <-s.done:
		t.Fatalf("the server ended: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no answer in 10 s")
	}
	return ""
}

// alive: a valid call after the probe is served.
func (s *stdioServer) alive(t *testing.T, id int) {
	t.Helper()
	s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"ok"}}}`, id))
	if a := s.answer(t); !strings.Contains(a, fmt.Sprintf(`"id":%d`, id)) || !strings.Contains(a, "2 bytes") {
		t.Fatalf("after the probe, a valid call: %.300s", a)
	}
}

// Each line that ends a bare go-sdk stdio server is answered by the gate,
// bounded and without the caller's bytes, and the next request is served.
func TestStdioGateSurvives(t *testing.T) {
	s := startStdio(t)
	deep := strings.Repeat(`[`, 10_000) + strings.Repeat(`]`, 10_000)
	canary := "CANARY"
	for i, c := range []struct {
		name, line, bound string
		id                string // the id the answer carries
	}{
		{"raw control in a string", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"a` + "\x01" + canary + `"}}}`, "control-character", `1`},
		{"bytes after a message", `{"jsonrpc":"2.0","id":2,"method":"ping"}x` + canary, "trailing", `2`},
		{"id 1e400", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, "id", `null`},
		{"nesting 10,000 deep", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"query":` + deep + `}}}`, "nesting", `4`},
		{"invalid UTF-8", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search","arguments":{"query":"` + "\xff\xfe" + canary + `"}}}`, "utf8", `5`},
		{"unknown member, 64 KiB name", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search","arguments":{"query":"q","` + strings.Repeat("k", 64<<10) + canary + `":1}}}`, "additionalProperties", `6`},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			s.send(t, c.line)
			a := s.answer(t)
			if len(a) > MaxRefusalBytes()+1 || len(a) > 1<<10 {
				t.Errorf("a %d-byte answer, past %d or 1 KiB", len(a), MaxRefusalBytes())
			}
			if strings.Contains(a, canary) || strings.Contains(a, strings.Repeat("k", charge.KeyCut+1)) {
				t.Errorf("the answer echoes the caller: %.300s", a)
			}
			if !strings.Contains(a, c.bound) || !strings.Contains(a, `"id":`+c.id) {
				t.Errorf("want bound %s and id %s: %.300s", c.bound, c.id, a)
			}
			s.alive(t, 100+i)
		})
	}
	if s.called != 6 {
		t.Errorf("the handler ran %d times, want 6 (the valid calls only)", s.called)
	}
}

// The frame cap: a line of exactly MaxBodyBytes reaches the SDK (answered
// by its schema), one byte more is refused by the gate with the bound and
// a null id, and the session goes on.
func TestStdioFrameCap(t *testing.T) {
	s := startStdio(t)
	limit := int(s.v.MaxBodyBytes())
	call := func(id, pad int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"%s"}}}`, id, strings.Repeat("q", pad))
	}
	short := len(call(1, 0))
	atCap := call(1, limit-short)
	if len(atCap) != limit {
		t.Fatalf("premise: %d bytes, want %d", len(atCap), limit)
	}
	s.send(t, atCap)
	if a := s.answer(t); !strings.Contains(a, `"id":1`) || !strings.Contains(a, fmt.Sprintf("%d bytes", limit-short)) {
		t.Fatalf("at the cap: %.300s", a)
	}
	s.send(t, call(2, limit-short+1))
	a := s.answer(t)
	if !strings.Contains(a, `"id":null`) || !strings.Contains(a, "body-bytes") || !strings.Contains(a, fmt.Sprint(limit)) {
		t.Fatalf("one past the cap: %.300s", a)
	}
	s.alive(t, 3)
	// A CRLF ending is not part of the frame.
	s.send(t, call(4, limit-short)+"\r")
	if a := s.answer(t); !strings.Contains(a, `"id":4`) || strings.Contains(a, "body-bytes") {
		t.Fatalf("at the cap with CRLF: %.300s", a)
	}
}

// A line far past the cap is skipped a chunk at a time: reading it
// allocates a few times the frame cap at most (the buffer doubling up to
// the cap), not its length, ten times the cap.
func TestStdioLongLineNotHeld(t *testing.T) {
	v, err := New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	const long = 256 << 20
	in := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`),
		io.LimitReader(repeatReader('a'), long), strings.NewReader("\"}}\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n"))
	var out strings.Builder
	r, _, err := v.stdioGate(in, &out, 0)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := io.ReadAll(r)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n" {
		t.Errorf("the SDK read %.200q", got)
	}
	if !strings.Contains(out.String(), "body-bytes") {
		t.Errorf("answer %.300s", out.String())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(3*v.MaxBodyBytes()) {
		t.Errorf("a %d-byte line allocated %d bytes, past three times the %d-byte frame cap", long, alloc, v.MaxBodyBytes())
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// What the gate admits reaches the SDK byte for byte, blank lines and an
// unterminated last line included; the refusal hook sees each refusal.
func TestStdioAdmittedBytesIntact(t *testing.T) {
	var seen []*Refusal
	v, err := New(published, &Options{OnRefusal: func(_ context.Context, r *Refusal) { seen = append(seen, r) }})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		"  \r\n",
		`{"jsonrpc":"2.0","id":"a\u00e9","method":"tools/call","params":{"name":"project.list","arguments":{}}}` + "\r\n",
		`{"jsonrpc":"2.0","id":3,"method":"ping","id":4}` + "\n",
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`,
	}
	var out strings.Builder
	r, _, err := v.stdioGate(strings.NewReader(strings.Join(lines, "")), &out, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := lines[0] + lines[1] + lines[2] + lines[4]; string(got) != want {
		t.Errorf("the SDK read %q, want %q", got, want)
	}
	var answer struct {
		ID    json.RawMessage
		Error struct{ Code int }
	}
	if err := json.Unmarshal([]byte(out.String()), &answer); err != nil || answer.Error.Code != -32700 {
		t.Errorf("the duplicate id's answer %q: %v", out.String(), err)
	}
	if len(seen) != 1 || seen[0].Stage != StageRequest || seen[0].Bound != "duplicate-name" {
		t.Errorf("hook saw %+v", seen)
	}
}

// JSON whitespace after a message is valid JSON, but the go-sdk's stdio
// reader takes a space or tab after the message for trailing data and ends
// the session: the gate hands the SDK the message without it, and the
// session goes on.
func TestStdioTrailingWhitespace(t *testing.T) {
	s := startStdio(t)
	for i, tail := range []string{" ", "\t", " \t \r", "\r"} {
		s.send(t, fmt.Sprintf(`  {"jsonrpc":"2.0","id":%d,"method":"ping"}%s`, i+1, tail))
		if a := s.answer(t); !strings.Contains(a, fmt.Sprintf(`"id":%d`, i+1)) || !strings.Contains(a, `"result"`) {
			t.Fatalf("a ping followed by %q: %.300s", tail, a)
		}
		s.alive(t, 100+i)
	}
}
