package mcpvalidate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// frontFuzzSearch is the one tool the targets call, its schema inline: a
// libFuzzer binary runs from no particular directory and this file is
// compiled alone with the package, so neither schema files nor embedded
// test data reach it.
const frontFuzzSearch = `{"type":"object","properties":{"projectId":{"type":"string","pattern":"^[a-z][a-z0-9-]{0,63}$"},"query":{"type":"string","minLength":1,"maxLength":4096}},"required":["projectId","query"],"additionalProperties":false}`

// sdkSaw is what the go-sdk decoded of one request, recorded by a receiving
// middleware outside everything else.
type sdkSaw struct {
	mu      sync.Mutex
	reached bool
	method  string
	tool    string
	args    []byte
}

// differential is a go-sdk server (stateless, JSON answers) whose outermost
// middleware records what the SDK decoded and answers every call itself, so
// no tool runs, and a front gate in front of nothing that reads the same
// bodies.
type differential struct {
	fg  *frontGate
	sdk http.Handler
	saw *sdkSaw
}

// newDifferential takes an interface where a test would take testing.TB, and
// names the published schemas itself rather than through the package's
// published: OSS-Fuzz's builder (go-118-fuzz-build) compiles the file holding
// a target alone with the package's non-test files, and its stand-in for
// package testing has no TB.
func newDifferential(t interface{ Fatal(args ...any) }) *differential {
	v, err := New(Tools(&mcp.Tool{Name: "knowledge.search", InputSchema: json.RawMessage(frontFuzzSearch)}), nil)
	if err != nil {
		t.Fatal(err)
	}
	fg, err := v.frontGate(http.NotFoundHandler(), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := &differential{fg: fg, saw: &sdkSaw{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "differential", Version: "v0"}, nil)
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			d.saw.mu.Lock()
			d.saw.reached, d.saw.method = true, method
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
				d.saw.tool = call.Params.Name
				d.saw.args = append([]byte(nil), call.Params.Arguments...)
			}
			d.saw.mu.Unlock()
			if method == "tools/call" {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "seen"}}}, nil
			}
			return next(ctx, method, req)
		}
	})
	d.sdk = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: v.MaxBodyBytes()})
	return d
}

// FuzzFrontGateAgreesWithSDK: for every body the front gate admits, the
// go-sdk decodes the same method, id, tool name and arguments bytes the gate
// read. A refused body's answer is bounded and holds no byte of the body
// beyond a checked id and escaped, cut member names.
func FuzzFrontGateAgreesWithSDK(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"knowledge.search","arguments":{"projectId":"demo","query":"x"}}}`,
		`{"params":{"arguments":{"a":[1,{"b":null}]},"name":"t\u00e9","_meta":{"k":1}},"method":"tools/call","id":"id\n1","jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":-9007199254740991,"m\u0065thod":"tools\/call","params":{"name":"\ud83d\ude00","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{},"requestState":"s","inputResponses":{}},"extra":[1]}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t"}}`,
		` {"jsonrpc" : "2.0" , "id" : 0 , "method" : "tools/call" , "params" : { "name" : "" , "arguments" : { } } } `,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"t","arguments":{"x":"\u0000\u001f\"\\"}}}`,
		// Found by the residuals lab: params the SDK failed to decode, and echoed.
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{},"inputResponses":{"k":1}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"n":1e400}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":1}}`,
		`{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}`,
	} {
		f.Add([]byte(seed))
	}
	// Built once per process, as go test builds it: OSS-Fuzz's builder calls
	// the target once per input, and building it was most of an input's time.
	differentialOnce.Do(func() { fuzzDifferential = newDifferential(f) })
	d := fuzzDifferential
	f.Fuzz(func(t *testing.T, body []byte) {
		e, err := d.fg.check(body)
		if err != nil {
			var r *requestRefusal
			if !errors.As(err, &r) {
				t.Fatalf("refusal of type %T", err)
			}
			if out := r.AppendJSON(nil); len(out) > MaxRefusalBytes() || !json.Valid(out) {
				t.Fatalf("answer of %d bytes (ceiling %d), valid JSON %v: %s", len(out), MaxRefusalBytes(), json.Valid(out), out)
			}
			return
		}
		d.saw.mu.Lock()
		d.saw.reached, d.saw.method, d.saw.tool, d.saw.args = false, "", "", nil
		d.saw.mu.Unlock()
		rec := serveMCP(d.sdk, body)

		if bytes.Contains(rec.Body.Bytes(), []byte("unmarshaling")) {
			// The SDK's echo: params it could not decode, quoted whole.
			t.Fatalf("the gate admitted params the SDK failed to decode: HTTP %d %.300s", rec.Code, rec.Body.Bytes())
		}
		d.saw.mu.Lock()
		saw := struct {
			reached      bool
			method, tool string
			args         []byte
		}{d.saw.reached, d.saw.method, d.saw.tool, d.saw.args}
		d.saw.mu.Unlock()
		if saw.reached {
			if saw.method != e.Method() {
				t.Fatalf("method: gate %q, SDK %q", e.Method(), saw.method)
			}
			if e.IsToolCall() {
				if saw.tool != e.Tool() {
					t.Fatalf("tool: gate %q, SDK %q", e.Tool(), saw.tool)
				}
				if !bytes.Equal(saw.args, e.Arguments()) {
					t.Fatalf("arguments: gate %q, SDK %q", e.Arguments(), saw.args)
				}
				// The verdict the front gate hands the middleware (charged.go)
				// is the middleware's own gate's on these bytes.
				if e.arguments.ok() {
					if msg := chargedAgrees(d.fg.v, e); msg != "" {
						t.Fatal(msg)
					}
				}
			}
		} else if e.IsToolCall() && rec.Code == http.StatusOK {
			t.Fatalf("the gate read a tools/call the SDK answered without decoding it: %.300s", rec.Body.Bytes())
		}
		if e.ID() != "" && rec.Code == http.StatusOK && rec.Body.Len() > 0 {
			var answer struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &answer); err == nil && !sameID(e.ID(), answer.ID) {
				t.Fatalf("id: gate %s, SDK answered %s", e.ID(), answer.ID)
			}
		}
	})
}

// chargedAgrees says how the verdict the front gate hands over for e's
// arguments differs from the middleware's own gate, or "".
func chargedAgrees(v *Validator, e envelope) string {
	rep, err := v.gate.Check(e.Arguments())
	switch {
	case err != nil:
		return "the front gate admitted arguments the middleware's gate refuses: " + err.Error()
	case rep.Nodes != e.argsRep.Nodes:
		return "nodes: front gate " + strconv.Itoa(e.argsRep.Nodes) + ", middleware's gate " + strconv.Itoa(rep.Nodes)
	}
	return ""
}

// serveMCP posts body to h in process, with the headers an MCP client
// sends, and returns the answer. (Here, not in a helpers file: OSS-Fuzz's
// builder compiles this file alone with the package.)
func serveMCP(h http.Handler, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var (
	differentialOnce sync.Once
	fuzzDifferential *differential // FuzzFrontGateAgreesWithSDK's
)

// sameID compares two JSON id tokens by value: the SDK re-encodes the id it
// decoded (a string's escapes may differ; a number is an integer).
func sameID(a string, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	switch xv := x.(type) {
	case float64:
		yv, ok := y.(float64)
		return ok && strconv.FormatFloat(xv, 'f', -1, 64) == strconv.FormatFloat(yv, 'f', -1, 64)
	case string:
		yv, ok := y.(string)
		return ok && xv == yv
	}
	return false
}

// check is the front gate's scan of one message alone, for the tests: the
// envelope it read and nil, or its refusal.
func (fg *frontGate) check(body []byte) (envelope, error) {
	e, err := scanEnvelope(body, fg.env, fg.v.gate)
	if err != nil {
		return e, frontRefusal(err, &e)
	}
	return e, nil
}

// The differential's SDK side really decodes what it is handed (a control:
// were the middleware never reached, FuzzFrontGateAgreesWithSDK would compare
// nothing).
func TestDifferentialReachesTheSDK(t *testing.T) {
	d := newDifferential(t)
	body := `{"jsonrpc":"2.0","id":"q\u0031","method":"tools/call","params":{"name":"t\u00e9","arguments":{"k" : [1]}}}`
	rec := serveMCP(d.sdk, []byte(body))
	if !d.saw.reached || d.saw.method != "tools/call" || d.saw.tool != "té" || string(d.saw.args) != `{"k" : [1]}` {
		t.Fatalf("the SDK side saw %+v; answer HTTP %d %s", d.saw, rec.Code, rec.Body.Bytes())
	}
	if !sameID(`"q1"`, json.RawMessage(`"q\u0031"`)) || sameID(`1`, json.RawMessage(`"1"`)) || !bytes.Contains(rec.Body.Bytes(), []byte(`"id":"q1"`)) {
		t.Fatalf("ids: answer %s", rec.Body.Bytes())
	}
}
