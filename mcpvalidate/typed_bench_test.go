package mcpvalidate

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkTypedCheck is Check on admitted calls to typed tools: a type the
// schema says all of (issue: no run-time check), one whose opaque and
// untyped members are decoded after the schema (opaque), and a tool with a
// schema of its own (own: its domain and the SDK's whole path as well),
// beside the same issue call on a plain mcp.AddTool registration.
func BenchmarkTypedCheck(b *testing.B) {
	typed := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	plain := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	for _, c := range typedCases {
		c.add(typed, false, (&sentinel{}).handle)
	}
	typedCaseOf[issueIn]("issue", nil).add(plain, true, (&sentinel{}).handle)
	vt, err := New(ServerTools(typed), &Options{OpenTools: openTypedTools})
	if err != nil {
		b.Fatal(err)
	}
	vp, err := New(ServerTools(plain), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, tool, args string
		v                *Validator
	}{
		{"issue-plain", "issue", `{"query":"find the thing","limit":20,"page":3,"level":2,"ratio":0.5}`, vp},
		{"issue", "issue", `{"query":"find the thing","limit":20,"page":3,"level":2,"ratio":0.5}`, vt},
		{"opaque", "opaque", `{"when":"2024-01-01T00:00:00Z","level":"INFO","big":12,"ok":42,"code":"ab","raw":{"x":[1,2,3]},"any":[1,"x"],"meta":{"k":{"j":1}}}`, vt},
		{"own", "own", `{"n":1,"d8":1,"w":"2024-01-01T00:00:00Z"}`, vt},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			args := []byte(c.args)
			if err := c.v.Check(ctx, c.tool, args); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(args)))
			for b.Loop() {
				if err := c.v.Check(ctx, c.tool, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
