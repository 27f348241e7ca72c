package audit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/audit"
)

// fakeEnv makes this test binary a stdio MCP server (TestMain) that answers
// every message, except a ping longer than fakeCap, which it drops
// ("drop"), after which it answers nothing ("wedge"), or on which it exits
// ("exit"). Its tools/list is empty, or two pages ("pages": tools a, then
// b), or two pages listing a twice ("pages-twice"), or a JSON-RPC error
// ("list-error").
const (
	fakeEnv = "BOUNDLAB_AUDIT_FAKE_STDIO"
	fakeCap = 20000
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		if mode == fakePyMode {
			fakePyStdio() // fakehttp_test.go: fakePy over stdio
			os.Exit(0)
		}
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeServer(mode string) {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriter(os.Stdout)
	wedged := false
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil || wedged {
			continue
		}
		var result string
		switch m.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"0"}}`
		case "tools/list":
			result = `{"tools":[]}`
			switch {
			case mode == "list-error":
			case (mode == "pages" || mode == "pages-twice") && m.Params.Cursor == "":
				result = `{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"2"}`
			case mode == "pages":
				result = `{"tools":[{"name":"b","inputSchema":{"type":"object"}}]}`
			case mode == "pages-twice":
				result = `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`
			}
			if mode == "list-error" {
				result = ""
			}
		case "ping":
			if len(line) > fakeCap {
				switch mode {
				case "exit":
					os.Exit(1)
				case "wedge":
					wedged = true
				}
				continue
			}
			result = `{}`
		}
		if result == "" {
			out.WriteString(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32602,"message":"unknown tool"}}` + "\n")
		} else {
			out.WriteString(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + "}\n")
		}
		out.Flush()
	}
}

// TestStdioPastTheCap: a stdio server that drops, wedges on, or exits on a
// line past its cap is found to the byte, and one byte past is classified
// silent, hung or closed, each with its finding.
func TestStdioPastTheCap(t *testing.T) {
	for _, c := range []struct {
		mode, kind, rule string
	}{
		{"drop", audit.KindSilent, audit.RuleSilentPastCap},
		{"wedge", audit.KindHung, audit.RuleSilentPastCap},
		{"exit", audit.KindClosed, audit.RuleClosedPastCap},
	} {
		t.Run(c.mode, func(t *testing.T) {
			l := audit.DefaultLimits()
			l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = 64<<10, 64, 1<<10, 500*time.Millisecond
			target := &audit.Stdio{Command: os.Args[0], Env: append(os.Environ(), fakeEnv+"="+c.mode)}
			rep, err := audit.Run(context.Background(), audit.Config{Target: target, Seed: 7, Limits: l})
			if err != nil {
				t.Fatal(err)
			}
			b := rep.Boundary
			// the line is the body and its newline: the cap is one under
			if b.BodyCap == nil || *b.BodyCap != fakeCap-1 || b.PastCap == nil || b.PastCap.Kind != c.kind {
				t.Fatalf("cap %v, one past %+v; want %d, %s", b.BodyCap, b.PastCap, fakeCap-1, c.kind)
			}
			wantRule(t, rep, c.rule, true)
		})
	}
}

// TestStdioToolsList: a probe follows tools/list's pages through the one
// tools/list parser, and a list that repeats a tool across pages, or a
// JSON-RPC error for an answer, is a target error.
func TestStdioToolsList(t *testing.T) {
	for _, c := range []struct {
		mode   string
		tools  []string
		refuse string
	}{
		{"pages", []string{"a", "b"}, ""},
		{"pages-twice", nil, "tools/list page 2: tools[0] has the name of a tool an earlier page listed"},
		{"list-error", nil, "tools/list page 1: the answer is a JSON-RPC error, not a tools list (code -32602)"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			l := audit.DefaultLimits()
			l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = 16<<10, 16, 1<<10, 2*time.Second
			target := &audit.Stdio{Command: os.Args[0], Env: append(os.Environ(), fakeEnv+"="+c.mode)}
			rep, err := audit.Run(context.Background(), audit.Config{Target: target, Seed: 7, Limits: l})
			if c.tools == nil {
				if !errors.Is(err, audit.ErrTarget) || !strings.Contains(err.Error(), c.refuse) {
					t.Fatalf("got %v, want a target error saying %q", err, c.refuse)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tr := range rep.Tools {
				names = append(names, tr.Name)
			}
			if !slices.Equal(names, c.tools) {
				t.Errorf("the report lists %v, want %v", names, c.tools)
			}
		})
	}
}
