package demo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/internal/residuals"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

// served is a demo server over real streamable HTTP.
type served struct {
	v   *mcpvalidate.Validator
	srv *httptest.Server
}

func serve(t testing.TB, o demo.Options, opts *mcpvalidate.Options) *served {
	t.Helper()
	v, err := mcpvalidate.New(published, opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := demo.NewServer(v, o)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(demo.Handler(v, s, nil))
	t.Cleanup(hs.Close)
	return &served{v: v, srv: hs}
}

func (s *served) url() string { return s.srv.URL + demo.Path }

// client connects a go-sdk client over streamable HTTP.
func (s *served) client(t testing.TB) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.url()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// raw is a session driven with hand-written HTTP bytes: initialize, the
// session id, the initialized notification, then calls.
type raw struct {
	t       testing.TB
	url     string
	session string
	id      *int // the last request id, shared by every view of the session
}

// on is the same session reporting to t: a subtest's view of its parent's
// session, so that a failure stops the subtest, not the parent.
func (r *raw) on(t testing.TB) *raw {
	v := *r
	v.t = t
	return &v
}

const rawVersion = "2025-11-25"

func (s *served) raw(t testing.TB) *raw {
	t.Helper()
	r := &raw{t: t, url: s.url(), id: new(int)}
	status, body, hdr := r.post([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + rawVersion + `","capabilities":{},"clientInfo":{"name":"raw","version":"v0"}}}`))
	if status != http.StatusOK {
		t.Fatalf("initialize: HTTP %d: %.200s", status, body)
	}
	r.session = hdr.Get("Mcp-Session-Id")
	if r.session == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	if status, body, _ := r.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); status != http.StatusAccepted {
		t.Fatalf("initialized: HTTP %d: %.200s", status, body)
	}
	return r
}

func (r *raw) post(body []byte) (int, []byte, http.Header) {
	r.t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if r.session != "" {
		req.Header.Set("Mcp-Session-Id", r.session)
		req.Header.Set("Mcp-Protocol-Version", rawVersion)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	return resp.StatusCode, out, resp.Header
}

// callBody is a tools/call whose arguments member is exactly args.
func (r *raw) callBody(name string, args []byte) []byte {
	*r.id++
	nb, _ := json.Marshal(name)
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s,"arguments":`, *r.id, nb)
	b.Write(args)
	b.WriteString(`}}`)
	return b.Bytes()
}

// message extracts the one JSON-RPC message of a response (JSON or SSE).
func message(t testing.TB, body []byte) map[string]json.RawMessage {
	t.Helper()
	m, err := residuals.Message(body)
	if err != nil {
		t.Fatalf("response is not one JSON-RPC message: %v: %.300q", err, body)
	}
	return m
}

// toolResult is the result of a tools/call the server answered with a result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (r *raw) call(name string, args []byte) (toolResult, map[string]json.RawMessage) {
	r.t.Helper()
	status, body, _ := r.post(r.callBody(name, args))
	if status != http.StatusOK {
		r.t.Fatalf("tools/call %s: HTTP %d: %.200q", name, status, body)
	}
	m := message(r.t, body)
	var tr toolResult
	if res, ok := m["result"]; ok {
		if err := json.Unmarshal(res, &tr); err != nil {
			r.t.Fatal(err)
		}
	}
	return tr, m
}

func (tr toolResult) text() string {
	var b strings.Builder
	for _, c := range tr.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

const secret = "s3cr3t-VALUE-must-not-echo"

func TestUnknownKeyRefusedNamingKeyNotValue(t *testing.T) {
	s := serve(t, demo.Options{}, nil)
	args := map[string]any{"projectId": "demo", "query": "body cap", "scopeOverride": secret}
	res := call(t, s.client(t), "knowledge.search", args)
	msg := text(res)
	if !res.IsError || !strings.Contains(msg, `"/scopeOverride"`) || !strings.Contains(msg, "unevaluatedProperties") {
		t.Fatalf("want a refusal naming /scopeOverride, got isError=%v %q", res.IsError, msg)
	}
	if strings.Contains(msg, secret) {
		t.Fatalf("refusal echoes the value: %q", msg)
	}
	// The same over hand-written bytes.
	tr, _ := s.raw(t).call("knowledge.search", []byte(`{"projectId":"demo","query":"body cap","scopeOverride":"`+secret+`"}`))
	if !tr.IsError || !strings.Contains(tr.text(), `"/scopeOverride"`) || strings.Contains(tr.text(), secret) {
		t.Fatalf("raw: got %+v", tr)
	}
}

// TestSeatIsLoadBearing: with the middleware lifted off, the same call with an
// unknown key (and a query past its published maxLength) is served, and
// answers exactly as the call without the key does.
func TestSeatIsLoadBearing(t *testing.T) {
	off := serve(t, demo.Options{NoMiddleware: true}, nil)
	on := serve(t, demo.Options{}, nil)
	withKey := map[string]any{"projectId": "demo", "query": "body cap", "scopeOverride": secret}
	without := map[string]any{"projectId": "demo", "query": "body cap"}
	long := map[string]any{"projectId": "demo", "query": strings.Repeat("cap ", 600)}

	co := off.client(t)
	a, b := call(t, co, "knowledge.search", withKey), call(t, co, "knowledge.search", without)
	if a.IsError || text(a) != text(b) {
		t.Fatalf("without the middleware the unknown key should be served identically: %v %q vs %q", a.IsError, text(a), text(b))
	}
	if r := call(t, co, "knowledge.search", long); r.IsError {
		t.Fatalf("without the middleware a 2400-character query should be served: %q", text(r))
	}
	cn := on.client(t)
	if r := call(t, cn, "knowledge.search", withKey); !r.IsError {
		t.Fatal("with the middleware the unknown key must be refused")
	}
	if r := call(t, cn, "knowledge.search", long); !r.IsError || !strings.Contains(text(r), "maxLength 2000") {
		t.Fatalf("with the middleware the long query must be refused by maxLength: %q", text(r))
	}
}

func TestValidCallServedUnchanged(t *testing.T) {
	off := serve(t, demo.Options{NoMiddleware: true}, nil)
	on := serve(t, demo.Options{}, nil)
	args := []byte(`{"projectId":"demo","query":"refusal","limit":5,"taskId":"t-1"}`)
	a, am := off.raw(t).call("knowledge.search", args)
	b, bm := on.raw(t).call("knowledge.search", args)
	if a.IsError || b.IsError || !strings.Contains(a.text(), "item-3") {
		t.Fatalf("valid call not served: %+v %+v", a, b)
	}
	if !bytes.Equal(am["result"], bm["result"]) {
		t.Fatalf("result differs through the middleware:\n%s\n%s", am["result"], bm["result"])
	}
	// Every tool, valid arguments, through the go-sdk client.
	cs := on.client(t)
	for name, args := range map[string]any{
		"knowledge.search":    map[string]any{"projectId": "demo", "query": "schema"},
		"knowledge.get":       map[string]any{"projectId": "demo", "itemId": "item-2"},
		"knowledge.status":    map[string]any{"projectId": "demo"},
		"review.search":       map[string]any{"projectId": "demo", "query": "transport"},
		"review.findings":     map[string]any{"projectId": "demo", "reviewId": "review-1", "severity": "high"},
		"project.list":        nil,
		"system.capabilities": map[string]any{},
	} {
		t.Run(name, func(t *testing.T) {
			if r := call(t, cs, name, args); r.IsError {
				t.Errorf("%s: refused: %q", name, text(r))
			}
		})
	}
}

// shape replaces every text value so two results compare by shape.
func shape(t testing.TB, m map[string]json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(m["result"], &v); err != nil {
		t.Fatal(err)
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, w := range x {
				if k == "text" {
					x[k] = "<text>"
				} else {
					x[k] = walk(w)
				}
			}
		case []any:
			for i, w := range x {
				x[i] = walk(w)
			}
		}
		return v
	}
	b, _ := json.Marshal(walk(v))
	return string(b)
}

// TestRefusalShapeEqualsHandlerRefusal: a caller cannot tell from the shape of
// the answer which tier refused, on both protocol eras.
func TestRefusalShapeEqualsHandlerRefusal(t *testing.T) {
	s := serve(t, demo.Options{}, nil)
	r := s.raw(t)
	_, handler := r.call("knowledge.status", []byte(`{"projectId":"unregistered"}`))
	_, schema := r.call("knowledge.status", []byte(`{"projectId":"demo","extra":1}`))
	if shape(t, handler) != shape(t, schema) {
		t.Fatalf("%s: handler refusal %s, middleware refusal %s", rawVersion, shape(t, handler), shape(t, schema))
	}
	// Protocol 2026-07-28 (go-sdk v1.8.0 serves it over HTTP only when
	// stateless): the SDK stamps resultType "complete" on a handler's answer,
	// and the middleware's refusal must carry it too.
	v, err := mcpvalidate.New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := demo.NewServer(v, demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(demo.Handler(v, srv, demo.Stateless()))
	t.Cleanup(hs.Close)
	cs := (&served{v: v, srv: hs}).client(t)
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Fatalf("premise: the go-sdk client negotiated %s, want 2026-07-28", got)
	}
	h := call(t, cs, "knowledge.status", map[string]any{"projectId": "unregistered"})
	m := call(t, cs, "knowledge.status", map[string]any{"projectId": "demo", "extra": 1})
	hb, _ := json.Marshal(h)
	mb, _ := json.Marshal(m)
	hs2 := shape(t, map[string]json.RawMessage{"result": hb})
	ms := shape(t, map[string]json.RawMessage{"result": mb})
	if !h.IsError || hs2 != ms || !strings.Contains(ms, `"resultType":"complete"`) {
		t.Fatalf("2026-07-28: handler refusal %s, middleware refusal %s", hs2, ms)
	}
}

func TestLongKeyAndToolNameGiveShortMessages(t *testing.T) {
	s := serve(t, demo.Options{}, nil)
	r := s.raw(t)
	key := strings.Repeat("k", 10_000)
	tr, _ := r.call("knowledge.search", []byte(`{"projectId":"demo","query":"x","`+key+`":1}`))
	if !tr.IsError || len(tr.text()) > 300 {
		t.Fatalf("10,000-character key: %d-byte message", len(tr.text()))
	}
	name := strings.Repeat("n", 10_000)
	tr, m := r.call(name, []byte(`{}`))
	if !tr.IsError || len(tr.text()) > 200 || !strings.Contains(tr.text(), "fail-closed") {
		t.Fatalf("10,000-character tool name: %d-byte message %.100q (%s)", len(tr.text()), tr.text(), m["error"])
	}
}

func TestNoCallerValueInAnyRefusal(t *testing.T) {
	s := serve(t, demo.Options{}, nil)
	r := s.raw(t)
	var controls strings.Builder
	for c := 0; c < 0x20; c++ {
		fmt.Fprintf(&controls, `\u%04x`, c)
	}
	ctl := controls.String() + "\u007f"
	cases := []struct{ name, tool, args string }{
		{"query_past_maxLength", "knowledge.search", `{"projectId":"demo","query":"` + strings.Repeat("q", 2001) + secret + `"}`},
		{"an_unknown_project", "knowledge.search", `{"projectId":"` + secret + `","query":"x"}`},
		{"limit_a_string", "knowledge.search", `{"projectId":"demo","query":"x","limit":"` + secret + `"}`},
		{"severity_outside_its_enum", "review.findings", `{"projectId":"demo","reviewId":"review-1","severity":"` + secret + `"}`},
		{"itemId_with_controls", "knowledge.get", `{"projectId":"demo","itemId":"` + secret + ctl + `"}`},
		{"a_key_of_controls", "knowledge.get", `{"projectId":"demo","itemId":"item-1","` + ctl + `":"` + secret + `"}`},
		{"an_argument_to_project.list", "project.list", `{"x":"` + secret + ctl + `"}`},
		{"query_with_an_escaped_NUL", "knowledge.search", `{"projectId":"demo","query":"` + secret + `\u0000"}`},
	}
	// A tool name is the caller's identifier, like a key: it appears escaped
	// and cut to bounds.ToolCut, never raw.
	tr, _ := r.call(strings.Repeat("T", 100)+"\u0007", []byte(`{}`))
	if !tr.IsError || strings.Contains(tr.text(), "\x07") || strings.Contains(tr.text(), strings.Repeat("T", bounds.ToolCut+1)) {
		t.Errorf("tool name not escaped and cut: %q", tr.text())
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, m := r.on(t).call(c.tool, []byte(c.args))
			all := string(m["result"]) + string(m["error"])
			if strings.Contains(all, "s3cr3t") {
				t.Errorf("%.60q: refusal echoes the value: %.300q", c.args, all)
			}
			for _, b := range []byte(tr.text()) {
				if b < 0x20 || b == 0x7f {
					t.Errorf("%.60q: refusal holds a raw control byte %#x", c.args, b)
				}
			}
			if c.tool != "knowledge.search" || !strings.Contains(c.args, `\u0000"}`) {
				if !tr.IsError {
					t.Errorf("%.60q: not refused", c.args)
				}
			}
		})
	}
}

// nested builds {"projectId":"demo","query":"x","n":[[...0...]]} whose deepest
// container sits at depth levels (the root object is depth 1).
func nested(levels int) []byte {
	inner := levels - 1
	return []byte(`{"projectId":"demo","query":"x","n":` + strings.Repeat("[", inner) + "0" + strings.Repeat("]", inner) + `}`)
}

// wide builds arguments holding exactly nodes nodes: the root object, three
// names, two strings and an array of nodes-7 zeros (the array counts itself).
func wide(nodes int) []byte {
	zeros := nodes - 7
	return []byte(`{"projectId":"demo","query":"x","n":[` + strings.TrimSuffix(strings.Repeat("0,", zeros), ",") + `]}`)
}

func TestNestingAndNodeBoundsOverHTTP(t *testing.T) {
	s := serve(t, demo.Options{}, nil)
	r := s.raw(t)
	l := charge.DefaultLimits() // serve with nil options: the defaults
	for _, c := range []struct {
		name  string
		args  []byte
		bound string
	}{
		{"nesting at the bound", nested(l.MaxParamsNesting), ""},
		{"nesting one past", nested(l.MaxParamsNesting + 1), "(bound nesting)"},
		{"nodes at the bound", wide(l.MaxParamsNodes), ""},
		{"nodes one past", wide(l.MaxParamsNodes + 1), "(bound nodes)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, _ := r.on(t).call("knowledge.search", c.args)
			msg := tr.text()
			if !tr.IsError {
				t.Fatalf("%s: the unknown key n must be refused", c.name)
			}
			if c.bound == "" {
				// At the bound the gate admits it; the schema answers, naming /n.
				if strings.Contains(msg, "(bound ") || !strings.Contains(msg, `"/n": unevaluatedProperties`) {
					t.Errorf("%s: want the schema's refusal of /n, got %q", c.name, msg)
				}
			} else if !strings.Contains(msg, c.bound) {
				t.Errorf("%s: want %s, got %q", c.name, c.bound, msg)
			}
		})
	}
	// The fixtures are what they claim.
	gate, _ := charge.NewGate(charge.Go, l)
	if rep, ref := gate.Check(nested(l.MaxParamsNesting)); ref != nil || rep.Depth != l.MaxParamsNesting {
		t.Fatalf("nested fixture: depth %d, %v", rep.Depth, ref)
	}
	if rep, ref := gate.Check(wide(l.MaxParamsNodes)); ref != nil || rep.Nodes != l.MaxParamsNodes {
		t.Fatalf("wide fixture: %d nodes, %v", rep.Nodes, ref)
	}
}

// TestStrictnessOverHTTP: what the SDK's envelope decoding tolerates, the
// arguments' own gate refuses with a bounded message, or the call is served
// exactly; after all of them the server still answers.
func TestStrictnessOverHTTP(t *testing.T) {
	s := serve(t, demo.Options{}, nil)
	r := s.raw(t)
	for _, c := range []struct {
		name, args, want string
	}{
		{"duplicate key", `{"projectId":"demo","query":"a","query":"` + secret + `"}`, "(bound duplicate-name)"},
		{"duplicate key escaped", `{"projectId":"demo","query":"a","\u0071uery":"b"}`, "(bound duplicate-name)"},
		{"invalid UTF-8", "{\"projectId\":\"demo\",\"query\":\"a\xff\xfe\"}", "(bound utf8)"},
		{"lone high surrogate", `{"projectId":"demo","query":"a\ud800"}`, "(bound surrogate)"},
		{"lone low surrogate", `{"projectId":"demo","query":"\udc00a"}`, "(bound surrogate)"},
		{"raw DEL is legal JSON and served", "{\"projectId\":\"demo\",\"query\":\"a\x7fb\"}", ""},
		{"huge exponent", `{"projectId":"demo","query":"a","limit":1e1000001}`, "(bound number-exponent)"},
		{"exponent at the bound against limit", `{"projectId":"demo","query":"a","limit":1e999}`, "maximum 100"},
		{"long number", `{"projectId":"demo","query":"a","limit":` + strings.Repeat("1", 65) + `}`, "(bound number-length)"},
		{"2pow53 plus 1 against limit", `{"projectId":"demo","query":"a","limit":9007199254740993}`, "maximum 100"},
		{"integral float 5.0 is an integer", `{"projectId":"demo","query":"refusal","limit":5.0}`, ""},
		{"null arguments", `null`, "type object (got null)"},
	} {
		t.Run(c.name, func(t *testing.T) { // t.Run writes the spaces as _
			tr, m := r.on(t).call("knowledge.search", []byte(c.args))
			msg := tr.text()
			if len(msg) > mcpvalidate.MaxRefusalBytes() || strings.Contains(msg, "s3cr3t") {
				t.Errorf("%s: unbounded or echoing message %.200q", c.name, msg)
			}
			if c.want == "" {
				if tr.IsError || m["error"] != nil {
					t.Errorf("%s: want served, got %q %s", c.name, msg, m["error"])
				}
				return
			}
			if !tr.IsError || !strings.Contains(msg, c.want) {
				t.Errorf("%s: want a refusal with %q, got %q %s", c.name, c.want, msg, m["error"])
			}
		})
	}
	// Absent arguments are validated as {}: required members are named.
	status, body, _ := r.post([]byte(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"knowledge.search"}}`))
	if status != 200 || !strings.Contains(string(body), "required projectId") {
		t.Errorf("absent arguments: HTTP %d %.200q", status, body)
	}
	status, body, _ = r.post([]byte(`{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"project.list"}}`))
	if status != 200 || strings.Contains(string(body), `"isError":true`) {
		t.Errorf("absent arguments to a no-argument tool: HTTP %d %.200q", status, body)
	}
	if tr, _ := r.call("knowledge.get", []byte(`{"projectId":"demo","itemId":"item-1"}`)); tr.IsError || !strings.Contains(tr.text(), "body cap") {
		t.Fatalf("server no longer answers: %+v", tr)
	}
}

// TestUnpublishedToolIsUnreachable: a tool registered on the server with no
// published schema is refused at dispatch; its handler never runs.
func TestUnpublishedToolIsUnreachable(t *testing.T) {
	v, err := mcpvalidate.New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := demo.NewServer(v, demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const unpublished = "knowledge.delete"
	if slices.Contains(v.ToolNames(), unpublished) {
		t.Fatalf("premise: %s must have no published schema", unpublished)
	}
	ran := 0
	srv.AddTool(&mcp.Tool{Name: unpublished, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran++
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil
		})
	hs := httptest.NewServer(demo.Handler(v, srv, nil))
	t.Cleanup(hs.Close) // after the client's own cleanup, which closes its stream
	s := &served{v: v, srv: hs}
	cs := s.client(t)
	res := call(t, cs, unpublished, map[string]any{})
	if !res.IsError || !strings.Contains(text(res), "fail-closed") || ran != 0 {
		t.Fatalf("unpublished tool: isError=%v %q, handler ran %d times", res.IsError, text(res), ran)
	}
	if res := call(t, cs, "project.list", nil); res.IsError {
		t.Fatalf("an ordinary tool on the same server must be served: %q", text(res))
	}
}

// TestSDKAnswersRawControlsBeforeMiddleware pins what the go-sdk does with a
// raw control character inside the envelope: it refuses the whole message
// with HTTP 400 before any middleware runs, so the gate's control-character
// bound is reached only offline (Check). The 400's own echo is a residual
// (mcpvalidate/residuals).
func TestSDKAnswersRawControlsBeforeMiddleware(t *testing.T) {
	s := serve(t, demo.Options{}, nil)
	r := s.raw(t)
	status, body, _ := r.post(r.callBody("knowledge.search", []byte("{\"projectId\":\"demo\",\"query\":\"a\x01"+strings.Repeat("b", 1000)+"\"}")))
	t.Logf("HTTP %d, %d-byte body: %.120q", status, len(body), body)
	if status != http.StatusBadRequest {
		t.Fatalf("want the SDK's 400, got HTTP %d", status)
	}
	if tr, _ := r.call("project.list", []byte(`{}`)); tr.IsError {
		t.Fatal("server no longer answers")
	}
}

// TestMiddlewareOrder pins the go-sdk's ordering across calls, which decides
// where the validator must be wired: each AddReceivingMiddleware call wraps the
// current handler, so a middleware added by a later call runs before the
// validator and sees calls it will refuse. demo.NewServer adds the validator
// last; its Inner middleware sees admitted calls only.
func TestMiddlewareOrder(t *testing.T) {
	v, err := mcpvalidate.New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	probe := func(seen *[]string) mcp.Middleware {
		return func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if c, ok := req.(*mcp.CallToolRequest); ok {
					*seen = append(*seen, string(c.Params.Arguments))
				}
				return next(ctx, method, req)
			}
		}
	}
	var inner, outer []string
	srv, err := demo.NewServer(v, demo.Options{Inner: []mcp.Middleware{probe(&inner)}})
	if err != nil {
		t.Fatal(err)
	}
	srv.AddReceivingMiddleware(probe(&outer)) // a later call: outside the validator
	hs := httptest.NewServer(demo.Handler(v, srv, nil))
	t.Cleanup(hs.Close)
	cs := (&served{v: v, srv: hs}).client(t)
	call(t, cs, "knowledge.status", map[string]any{"projectId": "demo", "extra": secret})
	call(t, cs, "knowledge.status", map[string]any{"projectId": "demo"})
	if len(outer) != 2 || len(inner) != 1 || strings.Contains(inner[0], secret) {
		t.Fatalf("outer saw %d calls, inner %d (%q): the later-added middleware must run first and the inner one see admitted calls only", len(outer), len(inner), inner)
	}
}
