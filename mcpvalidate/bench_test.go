package mcpvalidate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
	"github.com/theurian/boundlab/charge"
)

// benchCase is one arguments document for knowledge.search.
type benchCase struct {
	name  string
	args  []byte
	valid bool
}

// benchCases: a typical ~1 KB valid call, and two at-cap failing calls whose
// query lands at MaxSourceFileBytes (8 MiB): raw ASCII (8 MiB on the wire) and
// U+00E9 ensure_ascii-escaped (24 MiB on the wire, inside the 26,214,400-byte
// body cap). Both pass the gate and fail the published maxLength.
func benchCases() []benchCase {
	words := strings.Repeat("schema refusal body cap transport ", 28) // 952 bytes
	typical := []byte(`{"projectId":"demo","query":"` + words + `","limit":10,"taskId":"task-42"}`)
	n := int(charge.DefaultLimits().MaxSourceFileBytes)
	ascii := []byte(`{"projectId":"demo","query":"` + strings.Repeat("a", n) + `"}`)
	escaped := []byte(`{"projectId":"demo","query":"` + string(ensureASCII(strings.Repeat("é", n/2))) + `"}`)
	return []benchCase{
		{"typical-1KB", typical, true},
		{"atcap-maxlength-ascii", ascii, false},
		{"atcap-maxlength-u00e9-escaped", escaped, false},
	}
}

// searchIn is knowledge.search's typed input.
type searchIn struct {
	ProjectID string `json:"projectId"`
	Query     string `json:"query"`
	Limit     int    `json:"limit,omitempty"`
	TaskID    string `json:"taskId,omitempty"`
}

// sdkTypedCheck is what go-sdk v1.8.0 runs for a tool registered typed
// (mcp/tool.go applySchema, then the handler wrapper in mcp/server.go),
// step for step through the same public libraries: the SDK's internal/json
// (segmentio/encoding/json, its decoder options) into map[string]any,
// ApplyDefaults, google/jsonschema-go Validate, and on failure the text
// SetError puts in the result (fmt "validating \"arguments\": %v"); on
// success the decode into the typed input. It returns the refusal text.
func sdkTypedCheck(resolved *jsonschema.Resolved, args []byte) string {
	var v any = map[string]any{}
	dec := segjson.NewDecoder(bytes.NewReader(args))
	dec.DontMatchCaseInsensitiveStructFields()
	if err := dec.Decode(&v); err != nil {
		return err.Error()
	}
	if err := resolved.ApplyDefaults(&v); err != nil {
		return err.Error()
	}
	if err := resolved.Validate(&v); err != nil {
		return fmt.Errorf("validating \"arguments\": %v", err).Error()
	}
	var in searchIn
	dec = segjson.NewDecoder(bytes.NewReader(args))
	dec.DontMatchCaseInsensitiveStructFields()
	if err := dec.Decode(&in); err != nil {
		return err.Error()
	}
	return ""
}

// publishedResolved is the published knowledge.search schema as the SDK
// resolves a typed tool's InputSchema (ValidateDefaults, as mcp/server.go).
func publishedResolved(tb testing.TB, v *Validator) *jsonschema.Resolved {
	published, _ := v.InputSchema("knowledge.search")
	var s jsonschema.Schema
	if err := json.Unmarshal(published, &s); err != nil {
		tb.Fatal(err)
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// BenchmarkCheck is validation alone, in process, on the same arguments
// bytes: impl=mcpvalidate is Check (the work the middleware adds to a call);
// impl=go-sdk-typed is the SDK's typed-tool path (sdkTypedCheck) holding the
// same published schema. heap/wire is the bytes allocated per call over the
// arguments' wire bytes; refusal-bytes is the refusal text's size.
func BenchmarkCheck(b *testing.B) {
	v, err := New(published, nil)
	if err != nil {
		b.Fatal(err)
	}
	resolved := publishedResolved(b, v)
	for _, c := range benchCases() {
		impls := []struct {
			name  string
			check func([]byte) string
		}{
			{"mcpvalidate", func(a []byte) string {
				if r := v.Check(context.Background(), "knowledge.search", a); r != nil {
					return r.Error()
				}
				return ""
			}},
			{"go-sdk-typed", func(a []byte) string { return sdkTypedCheck(resolved, a) }},
		}
		for _, impl := range impls {
			if got := impl.check(c.args) == ""; got != c.valid {
				b.Fatalf("%s %s: admitted=%v", c.name, impl.name, got)
			}
			b.Run("case="+c.name+"/impl="+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(c.args)))
				b.ReportAllocs()
				var msg int
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				n := 0
				for b.Loop() {
					msg = len(impl.check(c.args))
					n++
				}
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(msg), "refusal-bytes")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/float64(len(c.args)), "heap/wire")
			})
		}
	}
}

// inMemory is a go-sdk server and client connected in process: the SDK's real
// request path without HTTP.
type inMemory struct {
	cs *mcp.ClientSession
}

func newInMemory(tb testing.TB, impl string) *inMemory {
	tb.Helper()
	v, err := New(published, nil)
	if err != nil {
		tb.Fatal(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v0"}, nil)
	answer := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
	published, _ := v.InputSchema("knowledge.search")
	switch impl {
	case "none", "mcpvalidate":
		srv.AddTool(&mcp.Tool{Name: "knowledge.search", InputSchema: published},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return answer, nil })
		if impl == "mcpvalidate" {
			srv.AddReceivingMiddleware(v.Middleware())
		}
	case "go-sdk-typed":
		// The same published schema, enforced by the SDK's own typed path
		// (google/jsonschema-go), so both refuse the same calls.
		var s jsonschema.Schema
		if err := json.Unmarshal(published, &s); err != nil {
			tb.Fatal(err)
		}
		mcp.AddTool(srv, &mcp.Tool{Name: "knowledge.search", InputSchema: &s},
			func(context.Context, *mcp.CallToolRequest, searchIn) (*mcp.CallToolResult, any, error) {
				return answer, nil, nil
			})
	default:
		tb.Fatalf("unknown impl %s", impl)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close(); ss.Close() })
	return &inMemory{cs: cs}
}

func (m *inMemory) call(tb testing.TB, args []byte) *mcp.CallToolResult {
	res, err := m.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "knowledge.search", Arguments: json.RawMessage(args)})
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// BenchmarkInMemory is one tools/call through the go-sdk's real request path
// (in-memory transports, no HTTP): impl=none (no validation) is the baseline
// the middleware's overhead is read against; impl=go-sdk-typed is the SDK's
// own validation of the same published schema. refusal-bytes is the size of
// the refusal text the caller gets.
//
// The in-memory (and stdio) transports cap one message at the go-sdk's
// DefaultMaxLineLength, 16 MiB, and answer a longer one by closing the
// connection (EOF): the 24 MiB escaped case runs in BenchmarkCheck only.
func BenchmarkInMemory(b *testing.B) {
	for _, c := range benchCases() {
		if len(c.args) > mcp.DefaultMaxLineLength-4096 {
			continue
		}
		for _, impl := range []string{"none", "mcpvalidate", "go-sdk-typed"} {
			b.Run("case="+c.name+"/impl="+impl, func(b *testing.B) {
				m := newInMemory(b, impl)
				res := m.call(b, c.args)
				if wantErr := !c.valid && impl != "none"; res.IsError != wantErr {
					b.Fatalf("isError=%v: %.200s", res.IsError, fmt.Sprint(res.Content))
				}
				refusal := 0
				if res.IsError {
					refusal = len(text(res))
				}
				b.SetBytes(int64(len(c.args)))
				b.ReportAllocs()
				for b.Loop() {
					m.call(b, c.args)
				}
				b.ReportMetric(float64(refusal), "refusal-bytes")
			})
		}
	}
}
