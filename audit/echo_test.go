package audit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/theurian/boundlab/audit"
)

// TestEchoesOfRealServers: the places issue 25 measured on real servers,
// each found with its ratio and the filler that draws it: mcp-go quotes
// an unknown tool name and the method (Go's encoder writes '<' as \u003c:
// 6.0x), and the bare go-sdk quotes an over-long value of the wrong type
// in its schema error and an unknown member's name (6.0x for '<'). mcp-go also writes an over-long id wider than
// sent.
func TestEchoesOfRealServers(t *testing.T) {
	for _, c := range []struct {
		name   string
		places []string
		filler string
		target func(t *testing.T) audit.Target
		call   []string
	}{
		{"mcp-go", []string{"tools/call name (a tool no tool has)", "method"}, "less-than <",
			func(*testing.T) audit.Target { return audit.Handler("mark3labs", mark3labsServer(), "/mcp") }, nil},
		{"go-sdk", []string{`member "limit" (a string for integer)`, "tools/call unknown arguments member name"}, "less-than <",
			func(t *testing.T) audit.Target { return audit.Handler("go-sdk bare", bareSDK(t), "/mcp") }, calls},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := audit.DefaultLimits()
			l.BodyCeiling = 1 << 20 // mcp-go has no cap: the echoes are what is measured here
			rep, err := audit.Run(context.Background(), audit.Config{Target: c.target(t), Call: c.call, Seed: 7, Limits: l})
			if err != nil {
				t.Fatal(err)
			}
			for _, place := range c.places {
				e := echoAt(rep, place)
				if e == nil || !e.Echoed || e.Filler != c.filler || e.Form != "Go encoding/json" || e.Ratio < 5.9 || e.Ratio > 6.1 {
					t.Fatalf("%s: %+v; want echoed whole, %s as Go's \\u escape, ~6.0x", place, e, c.filler)
				}
				found := false
				for _, f := range rep.Findings {
					found = found || (f.Rule == audit.RuleEcho && strings.Contains(f.Message, place))
				}
				if !found {
					t.Errorf("no BLA001 names %s", place)
				}
				t.Logf("%s: %.3f (%s, %d of %d units back as %s)", place, e.Ratio, e.Filler, e.UnitsBack, e.Units, e.Form)
			}
			if c.name == "mcp-go" {
				// JSON-RPC answers with the id; mcp-go writes an over-long
				// id of '<' six times wider: a finding past the slack
				id := echoAt(rep, audit.PlaceID)
				if id == nil || !id.Echoed || id.Ratio <= audit.IDEchoSlack {
					t.Fatalf("the id place: %+v", id)
				}
				found := false
				for _, f := range rep.Findings {
					found = found || (f.Rule == audit.RuleEcho && strings.Contains(f.Message, "in the id"))
				}
				if !found {
					t.Errorf("no BLA001 for the id echoed %.3fx", id.Ratio)
				}
			}
		})
	}
}
