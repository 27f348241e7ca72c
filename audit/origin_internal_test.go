package audit

import (
	"strings"
	"testing"
)

// A foreign Host served raises BLA021 only on loopback; a foreign Origin
// served always does, once per value, its figure the methods served.
func TestOriginFindings(t *testing.T) {
	b := &Boundary{Origins: []OriginProbe{
		{Header: "Origin", Sent: "null", Method: "initialize", Verdict: VerdictServed},
		{Header: "Origin", Sent: "null", Method: "tools/call", Verdict: VerdictServed},
		{Header: "Origin", Sent: originForeign, Method: "initialize", Verdict: VerdictRefused},
		{Header: "Origin", Sent: originForeign, Method: "tools/call", Verdict: VerdictServed},
		{Header: "Host", Sent: "foreign.example:1", Method: "initialize", Verdict: VerdictServed},
		{Header: "Host", Sent: "foreign.example:2", Method: "initialize", Verdict: VerdictServed, Loopback: true},
		{Header: "Host", Sent: "foreign.example:3", Method: "tools/call", Verdict: VerdictRefused, Loopback: true},
	}}
	fs := b.originFindings()
	want := []struct {
		fig  float64
		text string
	}{{2, "Origin: null"}, {1, "Origin: " + originForeign}, {1, "Host: foreign.example:2"}}
	if len(fs) != len(want) {
		t.Fatalf("%d findings: %+v", len(fs), fs)
	}
	for i, w := range want {
		if fs[i].Rule != RuleCrossOrigin || fs[i].Figure != w.fig || !strings.Contains(fs[i].Message, w.text) {
			t.Errorf("finding %d: %+v, want figure %v naming %q", i, fs[i], w.fig, w.text)
		}
	}
}

func TestLoopback(t *testing.T) {
	for u, want := range map[string]bool{
		"http://127.0.0.1:8080/mcp": true, "http://[::1]:1/mcp": true, "http://localhost:3/mcp": true, "http://127.9.9.9/mcp": true,
		"http://in-process/mcp": false, "http://10.0.0.1:8080/mcp": false, "http://localhost.example/mcp": false, "%": false,
	} {
		if got := loopback(u); got != want {
			t.Errorf("loopback(%q) = %v, want %v", u, got, want)
		}
	}
}

// The look-alike origin begins with the target's own host and keeps its
// port; the foreign Host keeps the port too.
func TestOriginHeaders(t *testing.T) {
	got := originHeaders("http://127.0.0.1:8080/mcp")
	want := [][3]string{{"foreign", "Origin", originForeign}, {"null", "Origin", "null"},
		{"look-alike", "Origin", "http://127.0.0.1.foreign.example:8080"}, {"foreign-host", "Host", "foreign.example:8080"}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("header %d: %v, want %v", i, got[i], want[i])
		}
	}
	if h := originHeaders("http://in-process/mcp"); h[2][2] != "http://in-process.foreign.example" || h[3][2] != "foreign.example" {
		t.Errorf("no port: %v", h)
	}
}
