package demo_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/mcpvalidate"
)

// guarded is the demo server behind the front gate, over real HTTP.
func guarded(t testing.TB, o *mcpvalidate.HTTPOptions, hopts *mcp.StreamableHTTPOptions) (*httptest.Server, *mcpvalidate.Handler) {
	t.Helper()
	v, err := mcpvalidate.New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := demo.NewServer(v, demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, fg, err := demo.Guarded(v, s, o, hopts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs, fg
}

// post sends body as a stateless 2025-11-25 call and returns the answer.
func post(t testing.TB, url string, body []byte) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+demo.Path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, out
}

// The go-sdk client and its conventions work unchanged through the gate:
// initialize, a session, SSE answers, tools/list, calls admitted and refused.
func TestFrontGateCarriesTheSDKsClient(t *testing.T) {
	for _, c := range []struct {
		name  string
		hopts *mcp.StreamableHTTPOptions
	}{{"stateful", nil}, {"stateless", demo.Stateless()}} {
		t.Run(c.name, func(t *testing.T) {
			stateless := c.hopts != nil
			hs, _ := guarded(t, nil, c.hopts)
			cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			cs, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL + demo.Path}, nil)
			if err != nil {
				t.Fatalf("stateless=%v: connect: %v", stateless, err)
			}
			var n int
			for _, err := range cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if n != 7 {
				t.Fatalf("stateless=%v: %d tools listed", stateless, n)
			}
			ok := call(t, cs, "knowledge.search", map[string]any{"projectId": "demo", "query": "x"})
			bad := call(t, cs, "knowledge.search", map[string]any{"projectId": "demo", "query": "x", "force": canary})
			if ok.IsError || !bad.IsError || strings.Contains(text(bad), canary) {
				t.Fatalf("stateless=%v: admitted isError %v, refused isError %v: %s", stateless, ok.IsError, bad.IsError, text(bad))
			}
			cs.Close()
			// The server may still be returning from the session's last
			// request when Close returns: the weight goes back when it has.
		})
	}
}

// hostile are the shapes of issue 9 the gate refuses, as whole bodies, with
// the canary in caller values (caller keys may appear in a refusal's
// pointer, escaped and cut, as the middleware's do).
func hostile() []struct{ name, body string } {
	return []struct{ name, body string }{
		{"echo-shaped params", toolCall("11", `5`, `{"q":"`+canary+strings.Repeat("\x7f", 4096)+`"}`)},
		{"duplicate in the envelope", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"knowledge.search","name":"` + canary + `"}}`},
		{"duplicate in the arguments", toolCall("13", `"knowledge.search"`, `{"projectId":"demo","query":"a","query":"`+canary+`"}`)},
		{"deep nesting", toolCall("14", `"knowledge.search"`, strings.Repeat(`{"a":`, 200)+`"`+canary+`"`+strings.Repeat(`}`, 200))},
		{"invalid UTF-8", toolCall("15", `"knowledge.search"`, "{\"query\":\""+canary+"\xc0\"}")},
		{"lone surrogate", toolCall("16", `"knowledge.search"`, `{"query":"`+canary+`\udc00"}`)},
		{"trailing bytes", toolCall("17", `"knowledge.search"`, `{}`) + `{"` + canary + `":1}`},
		{"raw control", toolCall("18", `"knowledge.search"`, "{\"query\":\""+canary+"\x01\"}")},
		{"batch", `[` + toolCall("19", `"knowledge.search"`, `{"query":"`+canary+`"}`) + `]`},
	}
}

// Every hostile shape is refused over HTTP with a bounded JSON answer that
// holds no caller byte but a checked id; the server serves afterwards.
func TestFrontGateRefusesHostileShapesOverHTTP(t *testing.T) {
	hs, _ := guarded(t, nil, demo.Stateless())
	for _, c := range hostile() {
		t.Run(c.name, func(t *testing.T) { // t.Run writes the spaces as _
			status, hdr, body := post(t, hs.URL, []byte(c.body))
			if status == http.StatusOK && !strings.Contains(string(body), `"isError":true`) {
				t.Errorf("%s: HTTP 200 without a refusal: %.300s", c.name, body)
			}
			if status != http.StatusOK && status != http.StatusBadRequest {
				t.Errorf("%s: HTTP %d", c.name, status)
			}
			if ct := hdr.Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s: Content-Type %q", c.name, ct)
			}
			if bytes.Contains(body, []byte(canary)) || len(body) > mcpvalidate.MaxRefusalBytes() {
				t.Errorf("%s: %d-byte answer (ceiling %d) or echo: %.300s", c.name, len(body), mcpvalidate.MaxRefusalBytes(), body)
			}
			var msg struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(body, &msg); err != nil {
				t.Errorf("%s: answer is not JSON: %v", c.name, err)
			}
			if c.name != "batch" && !strings.HasPrefix(string(msg.ID), "1") {
				t.Errorf("%s: id %s not echoed", c.name, msg.ID)
			}
		})
	}
	status, _, body := post(t, hs.URL, []byte(toolCall("99", `"knowledge.search"`, `{"projectId":"demo","query":"x"}`)))
	if status != http.StatusOK || bytes.Contains(body, []byte(`"isError":true`)) || !bytes.Contains(body, []byte(`"id":99`)) {
		t.Fatalf("a valid call after the hostile set: HTTP %d %.300s", status, body)
	}
}

// rawPost writes a request by hand: headers with contentLength, then body,
// and returns the status line and how long the answer took.
func rawPost(t *testing.T, addr string, contentLength int64, body io.Reader) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n", demo.Path, addr)
	if contentLength >= 0 {
		fmt.Fprintf(conn, "Content-Length: %d\r\n", contentLength)
	} else {
		fmt.Fprint(conn, "Transfer-Encoding: chunked\r\n")
	}
	fmt.Fprint(conn, "\r\n")
	go io.Copy(conn, body)
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the status line: %v", err)
	}
	return strings.TrimSpace(line)
}

// A Content-Length over the cap is refused before a body byte is read; one
// at the cap is read (and then judged by its content).
func TestFrontGateBodyCap(t *testing.T) {
	hs, _ := guarded(t, nil, demo.Stateless())
	limit := int64(26_214_400) // the default cap, charge.BodyCap at charge.DefaultLimits (TestBodyCapIsDerived)
	addr := strings.TrimPrefix(hs.URL, "http://")
	if got := rawPost(t, addr, limit+1, strings.NewReader("{")); !strings.Contains(got, "413") {
		t.Fatalf("one byte past the cap: %q", got)
	}
	// At the cap: the body is read whole and judged (here: not JSON past
	// its first bytes, so 400 in protocol form).
	body := bytes.Repeat([]byte(" "), int(limit))
	body[0] = '{'
	if got := rawPost(t, addr, limit, bytes.NewReader(body)); !strings.Contains(got, "400") {
		t.Fatalf("at the cap: %q", got)
	}
	// No Content-Length: read through the limit.
	if got := rawPost(t, addr, -1, chunked(int(limit)+1)); !strings.Contains(got, "413") {
		t.Fatalf("a chunked body past the cap: %q", got)
	}
}

// chunked is n spaces in HTTP/1.1 chunked encoding (never terminated: the
// gate must stop at the cap on its own).
func chunked(n int) io.Reader {
	var b bytes.Buffer
	const chunk = 1 << 16
	for n > 0 {
		k := min(n, chunk)
		fmt.Fprintf(&b, "%x\r\n%s\r\n", k, strings.Repeat(" ", k))
		n -= k
	}
	return &b
}

// The weight goes back when the handler behind the gate panics, when the
// client goes away mid-call, and a request that cannot get budget in time
// gets 503 with Retry-After.
// A budget that cannot admit one at-cap request is a construction error.
// bounds.Request: a fixed cost, a cost per byte and per node the body can
// hold (one per two bytes, up to the node bounds).

// toolCall is a tools/call message with the raw id, name and arguments tokens.
func toolCall(id, name, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":` + name + `,"arguments":` + args + `}}`
}

// canary marks caller bytes: no answer may hold it.
const canary = "CANARY-c4n4ry"
