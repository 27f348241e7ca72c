package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/audit"
)

// TestProgressLines: nothing before progressAfter; then one line each time
// the phase or, in the per-tool phases, the tool changes, saying the time,
// the requests and where the run is, and nothing of the step's text.
func TestProgressLines(t *testing.T) {
	var out bytes.Buffer
	at := time.Unix(0, 0)
	clock := at
	p := newProgressLines(&out, func() time.Time { return clock })
	steps := []struct {
		after time.Duration
		p     audit.Progress
	}{
		{0, audit.Progress{Phase: audit.PhaseList, Step: "initialize and tools/list"}},
		{time.Second, audit.Progress{Phase: audit.PhaseBaselines, Tool: 1, Tools: 2, Requests: 2, Step: "baseline of \x1b[2J"}},
		{4 * time.Second, audit.Progress{Phase: audit.PhaseTools, Tool: 1, Tools: 2, Requests: 40, Step: "tool \x1b[2J"}},
		{5 * time.Second, audit.Progress{Phase: audit.PhaseTools, Tool: 1, Tools: 2, Requests: 52, Step: "amplification \x1b[2J"}},
		{7 * time.Second, audit.Progress{Phase: audit.PhaseTools, Tool: 2, Tools: 2, Requests: 96, Step: "tool b"}},
		{9 * time.Second, audit.Progress{Phase: audit.PhaseEnvelope, Requests: 150, Step: "envelope"}},
		{10 * time.Second, audit.Progress{Phase: audit.PhaseEnvelope, Requests: 170, Step: "before initialized"}},
		{12500 * time.Millisecond, audit.Progress{Phase: audit.PhaseBodyCap, Requests: 300, Step: "body cap"}},
	}
	for _, s := range steps {
		clock = at.Add(s.after)
		p.tell(s.p)
	}
	want := "boundlab audit: 4 s, 40 requests: per-tool probes, tool 1 of 2\n" +
		"boundlab audit: 7 s, 96 requests: per-tool probes, tool 2 of 2\n" +
		"boundlab audit: 9 s, 150 requests: envelope\n" +
		"boundlab audit: 12 s, 300 requests: body cap\n"
	if out.String() != want {
		t.Errorf("progress:\n%s\nwant:\n%s", out.String(), want)
	}
}

// hostileTools answers initialize and tools/list, listing one read-only
// tool whose name holds a terminal escape, and answers ping; it refuses everything else.
func hostileTools(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch m.Method {
	case "initialize":
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"h","version":"0"}}}`)
	case "tools/list":
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"tools":[{"name":"x\u001b[2Jy","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}}`)
	case "ping":
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`)
	default:
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32601,"message":"no"}}`)
	}
}

// TestAuditProgressFlags: --verbose names each probe with the tool's name
// quoted (its escape never reaches stderr raw); --quiet and a short run
// print nothing on stderr; the two flags together are a usage error.
func TestAuditProgressFlags(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(hostileTools))
	defer hs.Close()
	small := []string{"audit", "--url", hs.URL, "--body-ceiling", "4096", "--depth-ceiling", "8", "--echo-bytes", "16", "--timeout", "2s", "--format", "json"}
	code, _, errOut := runVerb(t, "", append(small, "--verbose")...)
	if code == exitUsage || !strings.Contains(errOut, `boundlab audit: "tool x\x1b[2Jy"`) || strings.Contains(errOut, "\x1b") {
		t.Errorf("--verbose: exit %d, stderr %q: want each probe named, the tool quoted", code, errOut)
	}
	for _, extra := range []string{"--quiet", "--seed=1"} {
		code, out, errOut := runVerb(t, "", append(small, extra)...)
		if code == exitUsage || errOut != "" || !strings.HasPrefix(out, "{") {
			t.Errorf("%s: exit %d, stderr %q: want the report alone", extra, code, errOut)
		}
	}
	if code, _, _ := runVerb(t, "", append(small, "--quiet", "--verbose")...); code != exitUsage {
		t.Errorf("--quiet --verbose: exit %d, want %d", code, exitUsage)
	}
}
