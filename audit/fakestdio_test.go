package audit_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/audit"
)

// fakeEnv makes this test binary a stdio MCP server (TestMain) that answers
// every message, except a ping longer than fakeCap, which it drops
// ("drop"), after which it answers nothing ("wedge"), or on which it exits
// ("exit"). In mode "exit-control" it exits on a line holding a raw U+0001
// (the go-sdk's stdio transport ends the session there); in "exit-calls"
// it exits on a tools/call until fakeExitsEnv's file has counted
// fakeCountEnv exits. Its tools/list is empty, or two pages ("pages": tools a, then
// b), or two pages listing a twice ("pages-twice"), or a JSON-RPC error
// ("list-error").
const (
	fakeEnv = "BOUNDLAB_AUDIT_FAKE_STDIO"
	fakeCap = 20000

	fakeExitsEnv = "BOUNDLAB_AUDIT_FAKE_EXITS_FILE"
	fakeCountEnv = "BOUNDLAB_AUDIT_FAKE_EXITS"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		if mode == gosdkMode {
			gosdkStdio()
			os.Exit(0)
		}
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
	var late []string
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		if mode == "exit-control" && bytes.IndexByte(line, 0x01) >= 0 {
			os.Exit(1)
		}
		if mode == "exit-calls" && bytes.Contains(line, []byte(`"method":"tools/call"`)) && countExit() {
			os.Exit(1)
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
		for _, l := range late {
			out.WriteString(l)
		}
		late = late[:0]
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
			if mode == "hoard" {
				hoard(line) // memory_test.go: holds copies of the line, answers every size
			} else if len(line) > fakeCap && mode == "late" {
				// answered only when the next message comes: a server
				// slower than the auditor's wait, answering in order
				late = append(late, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`+"\n")
				continue
			} else if len(line) > fakeCap {
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

// countExit reports whether the "exit-calls" fake exits on this call: the
// exits so far (bytes in fakeExitsEnv's file, one a process) are under
// fakeCountEnv's number; it counts this one.
func countExit() bool {
	n, _ := strconv.Atoi(os.Getenv(fakeCountEnv))
	path := os.Getenv(fakeExitsEnv)
	b, _ := os.ReadFile(path)
	if len(b) >= n {
		return false
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.Write([]byte{'x'})
	return err == nil
}

// TestStdioSessionEnded: a stdio server that exits on a raw control
// character is a finding, not a failed run: each probe that sent one is
// listed in session_ended (answered "closed"), BLA019 is raised once per
// probe, and the probes after it are measured on a new process.
func TestStdioSessionEnded(t *testing.T) {
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = 64<<10, 64, 1<<10, 500*time.Millisecond
	target := &audit.Stdio{Command: os.Args[0], Env: append(os.Environ(), fakeEnv+"=exit-control")}
	rep, err := audit.Run(context.Background(), audit.Config{Target: target, Seed: 7, Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	// no tool is called (the fake lists none): the differentials go in a
	// tool name no tool has, with and without a long string after them
	want := []string{"envelope: raw_control in the name", "envelope: raw_control in the name, followed by a long string"}
	var got []string
	for _, e := range rep.SessionEnds {
		got = append(got, e.Probe)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("session_ended %q, want %q", got, want)
	}
	var ended []string
	for _, f := range rep.Findings {
		if f.Rule == audit.RuleSessionEnded {
			ended = append(ended, f.Message)
		}
	}
	if len(ended) != len(want) || !strings.HasSuffix(ended[0], want[0]) {
		t.Errorf("BLA019 findings %q, want one per probe in %q", ended, want)
	}
	b := rep.Boundary
	for _, d := range b.Differentials {
		if d.Probe == "raw_control" && d.Answer.Kind != audit.KindClosed {
			t.Errorf("raw_control answered %s, want closed", d.Answer)
		}
	}
	// measured after the ends, on new processes
	if b.RawControls != audit.VerdictRefused || b.TrailingBytes == "" || b.BodyCap == nil || *b.BodyCap != fakeCap-1 || b.BeforeInitialized == "" {
		t.Errorf("raw controls %q, trailing %q, cap %v, before initialized %q: want refused and the rest measured",
			b.RawControls, b.TrailingBytes, b.BodyCap, b.BeforeInitialized)
	}
}

// TestStdioRespawnBound: a run replaces at most audit.MaxRespawns ended
// sessions: a server that ends exactly that many is measured to the end;
// one that ends one more leaves the remaining probes not measured, saying
// why, and the run still reports.
func TestStdioRespawnBound(t *testing.T) {
	for _, c := range []struct {
		name  string
		exits int
		cut   bool
	}{
		{"at", audit.MaxRespawns, false},
		{"past", audit.MaxRespawns + 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := audit.DefaultLimits()
			l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = 64<<10, 64, 1<<10, 500*time.Millisecond
			env := append(os.Environ(), fakeEnv+"=exit-calls", fakeExitsEnv+"="+filepath.Join(t.TempDir(), "exits"), fakeCountEnv+"="+strconv.Itoa(c.exits))
			rep, err := audit.Run(context.Background(), audit.Config{Target: &audit.Stdio{Command: os.Args[0], Env: env}, Seed: 7, Limits: l})
			if err != nil {
				t.Fatal(err)
			}
			cut := false
			for _, n := range rep.NotMeasured {
				cut = cut || strings.Contains(n.Why, "the server ended the session")
			}
			if cut != c.cut || (rep.Boundary.BodyCap != nil) == c.cut {
				t.Errorf("%d ends: remaining probes cut %v (not measured %+v), body cap %v; want cut %v",
					len(rep.SessionEnds), cut, rep.NotMeasured, rep.Boundary.BodyCap, c.cut)
			}
			if want := min(c.exits, audit.MaxRespawns+1); len(rep.SessionEnds) != want {
				t.Errorf("%d session ends, want %d", len(rep.SessionEnds), want)
			}
		})
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

// TestStdioSlowNotDropped: a server that answers a large body after the
// auditor's wait, in order, before the small ping sent to see whether it
// dropped the body, answered it: the body is not refused, and no cap is
// found below the ceiling.
func TestStdioSlowNotDropped(t *testing.T) {
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = 64<<10, 64, 1<<10, 500*time.Millisecond
	target := &audit.Stdio{Command: os.Args[0], Env: append(os.Environ(), fakeEnv+"=late")}
	rep, err := audit.Run(context.Background(), audit.Config{Target: target, Seed: 7, Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	if b := rep.Boundary; b.BodyCap != nil || b.AtCap == nil || b.AtCap.Kind != audit.KindResult {
		t.Fatalf("cap %v at %+v: want the ceiling answered", b.BodyCap, b.AtCap)
	}
	wantRule(t, rep, audit.RuleSilentPastCap, false)
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
