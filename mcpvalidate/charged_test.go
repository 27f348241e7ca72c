package mcpvalidate

import (
	"bytes"
	"context"
	"encoding/json"
	"hash/maphash"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A lookup finds only bytes equal to a registered entry's, and nothing once
// the entry is removed.
func TestChargedArgsLookup(t *testing.T) {
	c := newChargedArgs()
	a := []byte(`{"q":"x"}`)
	if _, ok := c.nodes(a); ok {
		t.Fatal("found before anything was registered")
	}
	remove := c.add(a, 3)
	if n, ok := c.nodes(append([]byte(nil), a...)); !ok || n != 3 {
		t.Fatalf("equal bytes: nodes %d, found %v; want 3, true", n, ok)
	}
	if _, ok := c.nodes([]byte(`{"q":"y"}`)); ok {
		t.Fatal("found other bytes")
	}
	remove()
	if _, ok := c.nodes(a); ok {
		t.Fatal("found after removal")
	}
	if c.live.Load() != 0 || len(c.m) != 0 {
		t.Fatalf("after removal: live %d, %d hashes kept", c.live.Load(), len(c.m))
	}
}

// Two bytes strings under one hash (a collision, forced): each finds only its
// own verdict, so a collision can never hand one value's verdict to another.
func TestChargedArgsCollisionComparesBytes(t *testing.T) {
	c := newChargedArgs()
	a, b := []byte(`[1]`), []byte(`[1,2,3]`)
	h := maphash.Bytes(c.seed, b)
	c.m[h] = []*chargedEntry{{args: a, nodes: 2}}
	c.live.Add(1)
	if n, ok := c.nodes(b); ok {
		t.Fatalf("another value's verdict (nodes %d) handed over under a shared hash", n)
	}
	remove := c.add(b, 4)
	defer remove()
	if n, ok := c.nodes(b); !ok || n != 4 {
		t.Fatalf("own verdict beside a collision: nodes %d, found %v; want 4, true", n, ok)
	}
}

// Concurrent requests with the same arguments each register and remove their
// own entry.
func TestChargedArgsSameBytesTwice(t *testing.T) {
	c := newChargedArgs()
	a := []byte(`{}`)
	r1, r2 := c.add(a, 1), c.add(append([]byte(nil), a...), 1)
	r1()
	if _, ok := c.nodes(a); !ok {
		t.Fatal("the second request's entry went with the first's")
	}
	r2()
	if _, ok := c.nodes(a); ok || c.live.Load() != 0 {
		t.Fatalf("left behind: live %d", c.live.Load())
	}
}

// The handoff is the gate's own verdict: for bodies the front gate admits,
// v.gate.Check over the arguments the SDK hands the middleware admits them
// with the node count the front gate registered. (The differential fuzz
// target in frontgate_fuzz_test.go holds the same over fuzzed bodies.)
func TestChargedVerdictIsTheGates(t *testing.T) {
	fg := newDifferential(t).fg
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"knowledge.search","arguments":{"projectId":"demo","query":"x"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments" : { "k" : [ 1 , {"a":[null,true,"\u00e9"]} ] } ,"name":"t"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"s":"` + strings.Repeat(`\"x`, 300) + `"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":{"d":` + strings.Repeat(`[`, 60) + strings.Repeat(`]`, 60) + `}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t","arguments":{"n":-1.5e3,"m":{}}}}`,
	} {
		e, err := fg.check([]byte(body))
		if err != nil {
			t.Fatalf("%.60s: refused: %v", body, err)
		}
		if !e.arguments.ok() {
			t.Fatalf("%.60s: no arguments read", body)
		}
		if err := chargedAgrees(fg.v, e); err != "" {
			t.Errorf("%.60s: %s", body, err)
		}
	}
}

// Served: while the middleware runs, the front gate's verdict on exactly the
// arguments it hands over is registered, so the middleware does not charge
// them again; once the request is answered nothing is left registered.
func TestFrontGateHandsItsVerdictToTheMiddleware(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "charged", Version: "v0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	var v *Validator
	type seen struct {
		args  []byte
		found bool
		nodes int
	}
	var inside []seen
	// Added before Install, so it runs inside the validator's middleware.
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if call, ok := req.(*mcp.CallToolRequest); ok {
				n, found := v.charged.nodes(call.Params.Arguments)
				inside = append(inside, seen{append([]byte(nil), call.Params.Arguments...), found, n})
			}
			return next(ctx, method, req)
		}
	})
	v, err := Install(srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: v.MaxBodyBytes()})
	fg, err := v.frontGate(sdk, &frontGateOptions{Stateless: true})
	if err != nil {
		t.Fatal(err)
	}
	post := func(h http.Handler, body string) *httptest.ResponseRecorder { return serveMCP(h, []byte(body)) }
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"q":"hello"}}}`
	if rec := post(fg, call); rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"ok"`)) {
		t.Fatalf("through the front gate: HTTP %d %s", rec.Code, rec.Body.Bytes())
	}
	if len(inside) != 1 || !inside[0].found || string(inside[0].args) != `{"q":"hello"}` || inside[0].nodes != 3 {
		t.Fatalf("through the front gate, the middleware saw %+v; want the verdict on {\"q\":\"hello\"} (3 nodes) registered", inside)
	}
	if n := v.charged.live.Load(); n != 0 {
		t.Fatalf("%d verdicts left registered after the answer", n)
	}
	// Without the front gate the middleware finds nothing and charges itself:
	// a call the gate refuses is still refused.
	inside = nil
	if rec := post(sdk, call); rec.Code != http.StatusOK || len(inside) != 1 || inside[0].found {
		t.Fatalf("SDK alone: HTTP %d, the middleware saw %+v; want nothing registered", rec.Code, inside)
	}
	deep := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"q":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}}}`
	if rec := post(sdk, deep); !bytes.Contains(rec.Body.Bytes(), []byte(`"isError":true`)) || !bytes.Contains(rec.Body.Bytes(), []byte("nesting")) {
		t.Fatalf("SDK alone, arguments past the nesting bound: %s", rec.Body.Bytes())
	}
}
