package audit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/audit"
)

// TestBacktrackingPatterns: the static reading flags nested and
// overlapping quantifiers, and leaves linear patterns alone.
func TestBacktrackingPatterns(t *testing.T) {
	for _, c := range []struct {
		pattern, why string
	}{
		{"^(a+)+$", "nested quantifier"},
		{`^(\w+\s?)*$`, "nested quantifier"},
		{"^(a|a)*$", "overlapping alternation"},
		{`^(\d|\w)+$`, "overlapping alternation"},
		{`^\d+\d+$`, "adjacent quantifiers"},
		{`^[a-z]+[a-z0-9]*x$`, "adjacent quantifiers"},
		{"^item-[0-9]{1,9}$", ""},
		{"^[a-z][a-z0-9-]{0,62}$", ""},
		{"^(a+)+", ""}, // no end to fail at: the first match is found at once
		{"^(foo|bar)+$", ""},
	} {
		sa := audit.AuditSchemaForTest(fmt.Sprintf(`{"type":"object","properties":{"w":{"type":"string","pattern":%q}}}`, c.pattern))
		got := ""
		if len(sa.Backtracking) > 0 {
			got = sa.Backtracking[0].Why
		}
		if got != c.why {
			t.Errorf("%s: %q, want %q", c.pattern, got, c.why)
		}
	}
}

// pythonOrSkip is a Python 3 interpreter, or the test is skipped.
func pythonOrSkip(t *testing.T) string {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH: the ReDoS server is a Python script")
	}
	return py
}

// TestReDoSPythonServer: a Python server that checks a published
// ^(a+)+$ with re is found statically (BLA106) and measured dynamically
// (BLA020), and the audit's time at its last step is within 2x of the
// same request timed directly.
func TestReDoSPythonServer(t *testing.T) {
	py := pythonOrSkip(t)
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.Timeout, l.EchoBytes = 1<<20, 200, 10*time.Second, 4<<10
	rep, err := audit.Run(context.Background(), audit.Config{Target: &audit.Stdio{Command: py, Args: []string{"testdata/redos_server.py"}}, Seed: 7, Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Tools[0]
	if tr.Schema == nil || len(tr.Schema.Backtracking) != 1 {
		t.Fatalf("the pattern is not flagged: %+v", tr.Schema)
	}
	bt := tr.Schema.Backtracking[0]
	var am *audit.Amplification
	for i := range tr.Amplification {
		if tr.Amplification[i].Probe == "redos" {
			am = &tr.Amplification[i]
		}
	}
	if am == nil || !am.Hurt {
		t.Fatalf("the crafted string did not hurt: %+v", tr.Amplification)
	}
	rules := map[string]int{}
	for _, f := range rep.Findings {
		rules[f.Rule]++
	}
	if rules[audit.RuleBacktracking] != 1 || rules[audit.RuleAmplification] != 1 {
		t.Errorf("findings %v: want one %s and one %s", rules, audit.RuleBacktracking, audit.RuleAmplification)
	}
	word := bt.Prefix + strings.Repeat(bt.Pump, am.Count) + bt.Suffix
	// Readings of a few tens of milliseconds: a busy machine stretches any
	// one of them, so the audit's figure is held within 2x of the range the
	// direct readings span, not of one of them.
	fast, slow := timeDirect(t, py, word)
	t.Logf("%d pumps: the audit %.3f s (baseline %.4f s, %d steps), directly %.3f to %.3f s", am.Count, am.Seconds, am.Baseline, am.Steps, fast.Seconds(), slow.Seconds())
	if am.Seconds > 2*slow.Seconds() || am.Seconds < fast.Seconds()/2 {
		t.Errorf("the audit's %.3f s is not within 2x of the direct %.3f to %.3f s", am.Seconds, fast.Seconds(), slow.Seconds())
	}
}

// timeDirect starts the server, initializes it and times the call with
// word five times: the fastest and the slowest reading.
func timeDirect(t *testing.T, py, word string) (fast, slow time.Duration) {
	cmd := exec.Command(py, "testdata/redos_server.py")
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	r := bufio.NewReader(outp)
	send := func(msg string) {
		if _, err := in.Write([]byte(msg + "\n")); err != nil {
			t.Fatal(err)
		}
		if _, err := r.ReadBytes('\n'); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	w, _ := json.Marshal(word)
	var ds []time.Duration
	for i := range 5 {
		start := time.Now()
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"check","arguments":{"word":%s}}}`, i+1, w))
		ds = append(ds, time.Since(start))
	}
	return slices.Min(ds), slices.Max(ds)
}
