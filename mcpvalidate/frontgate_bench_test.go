package mcpvalidate

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/charge"
)

// frontBodies are the bodies the front gate is benchmarked on: a typical
// 1 KB call; an at-cap call of printable ASCII (refused by the charge at
// the render budget, 12 MiB in: both gates scan the same prefix); an at-cap
// call of ensure_ascii-escaped é (\u00e9: 6 wire bytes, 2 rendered), which
// both admit.
func frontBodies(b *testing.B, limit int64) map[string][]byte {
	small := toolCall("1", `"knowledge.search"`, `{"projectId":"demo","query":"`+strings.Repeat("find the bounded refusal ", 38)+`","limit":10}`)
	atCap := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"knowledge.search","arguments":{"projectId":"demo","query":"`
	tail := `"}}}`
	fill := int(limit) - len(atCap) - len(tail)
	return map[string][]byte{
		"call-1KB":       []byte(small),
		"at-cap-ascii":   []byte(atCap + strings.Repeat("a", fill) + tail),
		"at-cap-escaped": []byte(atCap + strings.Repeat(`\u00e9`, fill/6) + strings.Repeat(" ", fill%6) + tail),
	}
}

// BenchmarkFrontGate: impl=front-gate is the gate's scan of the whole body
// (frontGate.Check); impl=core-gate is charge's gate over the arguments
// bytes alone; impl=serve is frontGate.ServeHTTP in front of a handler that
// reads the body and answers nothing (budget, pooled read, scan). The ratio
// front-gate/core-gate is the envelope's cost over the core's.
func BenchmarkFrontGate(b *testing.B) {
	v, err := New(published, nil)
	if err != nil {
		b.Fatal(err)
	}
	sink := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) })
	fg, err := v.frontGate(sink, nil)
	if err != nil {
		b.Fatal(err)
	}
	core, err := charge.NewGate(charge.Go, v.cfg.limits)
	if err != nil {
		b.Fatal(err)
	}
	bodies := frontBodies(b, v.MaxBodyBytes())
	for _, name := range []string{"call-1KB", "at-cap-ascii", "at-cap-escaped"} {
		body := bodies[name]
		if int64(len(body)) > v.MaxBodyBytes() {
			b.Fatalf("%s: %d bytes, past the cap", name, len(body))
		}
		args := argumentsOf(b, body)
		b.Run("shape="+name+"/impl=front-gate", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				fg.check(body)
			}
		})
		b.Run("shape="+name+"/impl=core-gate", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				core.Check(args)
			}
		})
		b.Run("shape="+name+"/impl=serve", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			rd := bytes.NewReader(body)
			req := httptest.NewRequest(http.MethodPost, "/mcp", rd)
			w := httptest.NewRecorder()
			for b.Loop() {
				rd.Reset(body)
				req.Body, req.ContentLength = io.NopCloser(rd), int64(len(body))
				fg.ServeHTTP(w, req)
			}
		})
	}
}

// argumentsOf cuts the arguments object out of a body built by frontBodies.
func argumentsOf(b *testing.B, body []byte) []byte {
	at := bytes.Index(body, []byte(`"arguments":`))
	if at < 0 {
		b.Fatal("no arguments")
	}
	return body[at+len(`"arguments":`) : len(body)-2]
}

// BenchmarkChargeHandoff: one tools/call served in process (no network) by a
// go-sdk server behind frontGate + Install, stateless with JSON answers, to a
// tool that answers at once: impl=charged-once hands the front gate's verdict
// on the arguments to the middleware (charged.go); impl=charged-twice is the
// same server with the handoff off, so the middleware charges the arguments
// again. The difference is the second charge; at 1 KB it is lost in the
// SDK's own work, at 1 MiB it is a pass over the arguments.
func BenchmarkChargeHandoff(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"1KB", 1 << 10}, {"1MiB", 1 << 20}} {
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"q":"` +
			strings.Repeat("find the bounded refusal; ", size.n/26) + `"}}}`)
		for _, impl := range []string{"charged-once", "charged-twice"} {
			b.Run("size="+size.name+"/impl="+impl, func(b *testing.B) {
				srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v0"}, nil)
				srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}`)},
					func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
					})
				v, err := Install(srv, nil)
				if err != nil {
					b.Fatal(err)
				}
				if impl == "charged-twice" {
					v.charged = nil
				}
				sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
					&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: v.MaxBodyBytes()})
				fg, err := v.frontGate(sdk, &frontGateOptions{Stateless: true})
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					rec := serveMCP(fg, body)
					if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"ok"`)) {
						b.Fatalf("HTTP %d %.200s", rec.Code, rec.Body.Bytes())
					}
				}
			})
		}
	}
}
