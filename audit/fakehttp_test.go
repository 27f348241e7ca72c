package audit_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/theurian/boundlab/audit"
)

// fakePy is a small in-process streamable-HTTP MCP server (stateless, one
// JSON answer a POST) that behaves as the Python SDK was measured to: an
// unknown tool is refused with "Unknown tool: NAME" quoting the name, the
// tool "echo" answers "got " and its argument q, and the answer is
// written as Python's json.dumps(ensure_ascii=False) writes it (raw UTF-8,
// only the quote, the backslash and controls escaped). Its decoding is Go's
// (invalid UTF-8 and a lone surrogate become U+FFFD, as the Python SDK's
// stdio transport decodes with errors="replace"), unless keep, when the
// strings are quoted back as their bytes arrived (as Python keeps a lone
// surrogate). quoteName and quoteArg switch the two quotings off, so each
// probe meets a server that echoes and one that does not.
type fakePy struct {
	quoteName, quoteArg, keep bool
	// strip drops what the decoder replaced (U+FFFD) before quoting
	strip bool
	// dropped, when set, counts the messages with an over-long method,
	// which the fake never answers (as server-everything drops a message
	// it cannot read)
	dropped *atomic.Int32
	// schema, when set, is the echo tool's published schema instead of
	// fakeEchoSchema
	schema string
}

const fakeEchoSchema = `{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}},"required":["q"]}`

func (f fakePy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      json.RawMessage `json:"name"`
			Arguments map[string]any  `json:"arguments"`
		} `json:"params"`
	}
	reply := func(member string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,%s}`, m.ID, member)
	}
	if err := json.Unmarshal(body, &m); err != nil {
		m.ID = json.RawMessage("null")
		w.WriteHeader(http.StatusBadRequest)
		msg := "Parse error"
		if n := rawNumber(body, "n"); f.quoteArg && n != nil {
			msg += ": n out of range: " + string(n) // as a validator quotes the input value
		}
		reply(`"error":{"code":-32700,"message":"` + msg + `"}`)
		return
	}
	if m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if f.dropped != nil && len(m.Method) > 1000 {
		f.dropped.Add(1)
		<-r.Context().Done()
		return
	}
	switch m.Method {
	case "initialize":
		reply(`"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fakepy","version":"0"}}`)
	case "ping":
		reply(`"result":{}`)
	case "tools/list":
		schema := fakeEchoSchema
		if f.schema != "" {
			schema = f.schema
		}
		reply(`"result":{"tools":[{"name":"echo","inputSchema":` + schema + `,"annotations":{"readOnlyHint":true}}]}`)
	case "tools/call":
		var name string
		json.Unmarshal(m.Params.Name, &name)
		if name != "echo" {
			msg := "Unknown tool"
			if f.quoteName {
				msg += ": " + f.str(name, rawMember(body, "name"))
			}
			reply(`"error":{"code":-32602,"message":"` + msg + `"}`)
			return
		}
		q, ok := m.Params.Arguments["q"].(string)
		if !ok {
			reply(`"result":{"isError":true,"content":[{"type":"text","text":"q: a string is wanted"}]}`)
			return
		}
		text := "got a query"
		if f.quoteArg {
			text = "got " + f.str(q, rawMember(body, "q"))
		}
		reply(`"result":{"content":[{"type":"text","text":"` + text + `"}]}`)
	default:
		reply(`"error":{"code":-32601,"message":"Method not found"}`)
	}
}

// str is s as the fake writes it inside a JSON string: Python's
// ensure_ascii=False, or, under keep, the bytes as they arrived.
func (f fakePy) str(s string, raw []byte) string {
	if f.keep && raw != nil {
		return string(raw)
	}
	if f.strip {
		s = strings.ReplaceAll(s, "\ufffd", "")
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// rawNumber is the raw number of the first member named k in body.
func rawNumber(body []byte, k string) []byte {
	i := bytes.Index(body, []byte(`"`+k+`":`))
	if i < 0 {
		return nil
	}
	rest := body[i+len(k)+3:]
	j := 0
	for j < len(rest) && strings.IndexByte("0123456789.eE+-", rest[j]) >= 0 {
		j++
	}
	if j == 0 {
		return nil
	}
	return rest[:j]
}

// rawMember is the raw content of the first string member named k in
// body, escapes as written; nil when there is none.
func rawMember(body []byte, k string) []byte {
	i := bytes.Index(body, []byte(`"`+k+`":"`))
	if i < 0 {
		return nil
	}
	rest := body[i+len(k)+4:]
	for j := 0; j < len(rest); j++ {
		switch rest[j] {
		case '\\':
			j++
		case '"':
			return rest[:j]
		}
	}
	return nil
}

// fakePyMode makes this test binary fakePy{quoteName: true, quoteArg:
// true} over stdio (TestMain): each line handed to its ServeHTTP, each
// answer written as a line.
const fakePyMode = "fakepy"

func fakePyStdio() {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	f := fakePy{quoteName: true, quoteArg: true}
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(line)))
		if rec.Code == http.StatusAccepted {
			continue // a notification
		}
		os.Stdout.Write(append(bytes.TrimSpace(rec.Body.Bytes()), '\n'))
	}
}

func fakeRun(t *testing.T, f fakePy) *audit.Report {
	t.Helper()
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.Timeout = 1<<20, 200, 5*time.Second
	rep, err := audit.Run(context.Background(), audit.Config{Target: audit.Handler("fakepy", f, "/mcp"), Seed: 7, Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func echoAt(r *audit.Report, place string) *audit.Echo {
	for _, e := range r.Boundary.Echoes {
		if e.Place == place {
			return e
		}
	}
	for _, tr := range r.Tools {
		for _, e := range tr.Echoes {
			if strings.HasSuffix(e.Place, place) {
				return e
			}
		}
	}
	return nil
}

// TestEchoOfAnUnknownToolName: the Python SDK quotes an unknown tool's
// name whole; its stdio decoding turns each 0xFF into a 3-byte U+FFFD, so
// the worst is 3.0x, found through that transformation. A server that
// does not quote the name draws no echo there.
func TestEchoOfAnUnknownToolName(t *testing.T) {
	const place = "tools/call name (a tool no tool has)"
	t.Run("quotes", func(t *testing.T) {
		rep := fakeRun(t, fakePy{quoteName: true})
		e := echoAt(rep, place)
		if e == nil || !e.Echoed || e.Filler != "lone byte 0xFF" || e.Form != "U+FFFD" || e.Ratio < 2.9 || e.Ratio > 3.1 {
			t.Fatalf("the name place: %+v; want echoed, 0xFF as U+FFFD, ~3.0x", e)
		}
		if rep.Boundary.EchoRatio != e.Ratio {
			t.Errorf("the headline echo is %.3f, the name's %.3f", rep.Boundary.EchoRatio, e.Ratio)
		}
		wantRule(t, rep, audit.RuleEcho, true)
	})
	t.Run("quotes_over_stdio", func(t *testing.T) {
		l := audit.DefaultLimits()
		l.BodyCeiling, l.DepthCeiling, l.Timeout = 256<<10, 200, 5*time.Second
		target := &audit.Stdio{Command: os.Args[0], Env: append(os.Environ(), fakeEnv+"="+fakePyMode)}
		rep, err := audit.Run(context.Background(), audit.Config{Target: target, Seed: 7, Limits: l})
		if err != nil {
			t.Fatal(err)
		}
		e := echoAt(rep, place)
		if e == nil || !e.Echoed || e.Filler != "lone byte 0xFF" || e.Form != "U+FFFD" || e.Ratio < 2.9 || e.Ratio > 3.1 {
			t.Fatalf("the name place over stdio: %+v; want echoed, 0xFF as U+FFFD, ~3.0x", e)
		}
		if echoAt(rep, audit.PlaceID) != nil || !notMeasured(rep, "echoes.id") {
			t.Errorf("over stdio the id place is not swept, and says so: %+v", rep.NotMeasured)
		}
	})
	t.Run("does_not", func(t *testing.T) {
		rep := fakeRun(t, fakePy{})
		if e := echoAt(rep, place); e == nil || e.Echoed || e.Ratio > 0.01 {
			t.Fatalf("the name place: %+v; want measured, no echo", e)
		}
		wantRule(t, rep, audit.RuleEcho, false)
	})
}

// TestDifferentialsTellNormalisedFromServed: the verdict of each placement
// comes from what the answer shows beside the baseline's, and the
// headline takes the most exact placement.
func TestDifferentialsTellNormalisedFromServed(t *testing.T) {
	for _, c := range []struct {
		name                string
		f                   fakePy
		utf8Name, utf8Args  string
		surrogate, headline string
	}{
		{"quotes both, normalises", fakePy{quoteName: true, quoteArg: true}, audit.VerdictNormalised, audit.VerdictNormalised, audit.VerdictNormalised, audit.VerdictNormalised},
		{"quotes both, keeps the bytes", fakePy{quoteName: true, quoteArg: true, keep: true}, audit.VerdictAccepted, audit.VerdictAccepted, audit.VerdictAccepted, audit.VerdictAccepted},
		{"quotes both, drops the bytes", fakePy{quoteName: true, quoteArg: true, strip: true}, audit.VerdictNormalised, audit.VerdictNormalised, audit.VerdictNormalised, audit.VerdictNormalised},
		{"quotes nothing", fakePy{}, audit.VerdictServed, audit.VerdictServed, audit.VerdictServed, audit.VerdictServed},
		{"quotes the name only", fakePy{quoteName: true}, audit.VerdictNormalised, audit.VerdictServed, audit.VerdictServed, audit.VerdictNormalised},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := fakeRun(t, c.f)
			b := rep.Boundary
			got := map[string]string{}
			for _, d := range b.Differentials {
				got[d.Probe+" "+d.Placement] = d.Verdict
			}
			if got["invalid_utf8 name"] != c.utf8Name || got["invalid_utf8 arguments"] != c.utf8Args || got["lone_surrogate arguments"] != c.surrogate {
				t.Errorf("placements %v; want invalid_utf8 %s (name) %s (arguments), lone_surrogate %s (arguments)", got, c.utf8Name, c.utf8Args, c.surrogate)
			}
			if b.InvalidUTF8 != c.headline {
				t.Errorf("headline invalid_utf8 %q, want %q", b.InvalidUTF8, c.headline)
			}
			if got["raw_control name"] != audit.VerdictRefused {
				t.Errorf("a raw control is invalid JSON, refused by the decoder: got %q", got["raw_control name"])
			}
		})
	}
}

// TestSilentPlaceStopsItsSweep: a place whose messages draw no answer is
// swept with MaxSilentFillers fillers, not every class, and says so.
func TestSilentPlaceStopsItsSweep(t *testing.T) {
	var dropped atomic.Int32
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.Timeout = 1<<20, 200, 300*time.Millisecond
	rep, err := audit.Run(context.Background(), audit.Config{Target: audit.Handler("fakepy", fakePy{dropped: &dropped}, "/mcp"), Seed: 7, Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	if n := dropped.Load(); n != audit.MaxSilentFillers {
		t.Errorf("%d over-long methods sent to a server that answers none, want %d", n, audit.MaxSilentFillers)
	}
	said := false
	for _, n := range rep.NotMeasured {
		said = said || (n.Probe == "echoes" && strings.HasPrefix(n.Why, "method:"))
	}
	if !said {
		t.Errorf("not measured does not name the method place: %+v", rep.NotMeasured)
	}
}

// TestBaselineNoValueNamesTheKeyword: a schema no value satisfies leaves
// the baseline unchecked, and not_measured names the keyword that
// stopped it.
func TestBaselineNoValueNamesTheKeyword(t *testing.T) {
	rep := fakeRun(t, fakePy{schema: `{"type":"object","properties":{"q":{"type":"string","pattern":"^q{9}$","maxLength":4}},"required":["q"]}`})
	if got := rep.Tools[0].BaselineFrom; got != audit.BaselineUnchecked {
		t.Errorf("baseline_from %q, want %q", got, audit.BaselineUnchecked)
	}
	for _, n := range rep.NotMeasured {
		if n.Probe == "baseline" && n.Tool == "echo" && strings.Contains(n.Why, "`pattern`") {
			return
		}
	}
	t.Errorf("not_measured does not name the pattern: %+v", rep.NotMeasured)
}

// cutter serves f on loopback, but cuts the connection (hijacked and
// closed, no answer) on each POST that cut says to.
func cutter(t *testing.T, f http.Handler, cut func(r *http.Request, body []byte) bool) *httptest.Server {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
		if r.Method == http.MethodPost && cut(r, body) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.Close()
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs
}

// TestHTTPConnectionCut: a server that cuts the connection on a raw
// control character does not end the audit: each probe that sent one is
// answered "closed", listed in session_ended as a cut, raised as BLA019
// once per probe, and the probes after it are measured on a new session.
func TestHTTPConnectionCut(t *testing.T) {
	var seen atomic.Int32
	hs := cutter(t, fakePy{quoteName: true, quoteArg: true}, func(_ *http.Request, body []byte) bool {
		if bytes.IndexByte(body, 0x01) >= 0 {
			seen.Add(1)
			return true
		}
		return false
	})
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = 1<<20, 200, 1<<10, 5*time.Second
	rep, err := audit.Run(context.Background(), audit.Config{Target: &audit.HTTP{URL: hs.URL}, Seed: 7, Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	var ends []string
	for _, e := range rep.SessionEnds {
		if !e.Cut {
			t.Errorf("session end %+v not said to be a cut", e)
		}
		ends = append(ends, e.Probe)
	}
	if len(ends) == 0 || len(ends) != int(seen.Load()) {
		t.Fatalf("session_ended %q; %d connections cut", ends, seen.Load())
	}
	found := 0
	for _, f := range rep.Findings {
		if f.Rule == audit.RuleSessionEnded {
			found++
			if !strings.HasPrefix(f.Message, "the server cut the connection without an answer on ") {
				t.Errorf("BLA019 message %q", f.Message)
			}
		}
	}
	if found != len(ends) {
		t.Errorf("%d BLA019 findings for %d probes cut (%q)", found, len(ends), ends)
	}
	b := rep.Boundary
	for _, d := range b.Differentials {
		if d.Probe == "raw_control" && d.Answer.Kind != audit.KindClosed {
			t.Errorf("raw_control in the %s answered %s, want closed", d.Placement, d.Answer)
		}
	}
	// measured after the cuts, on new sessions (the fake has no cap and
	// no depth bound: the ceilings are answered)
	if b.RawControls != audit.VerdictRefused || b.TrailingBytes == "" || b.AtCap == nil || b.BeforeInitialized == "" || b.AtDepth == nil {
		t.Errorf("raw controls %q, trailing %q, at cap %v, at depth %v, before initialized %q: want refused and the rest measured",
			b.RawControls, b.TrailingBytes, b.AtCap, b.AtDepth, b.BeforeInitialized)
	}
}

// TestHTTPCutRespawnBound: over HTTP too a run opens at most
// audit.MaxRespawns new sessions: a server that cuts every tools/call
// leaves the probes past them not measured, saying why, and still reports.
func TestHTTPCutRespawnBound(t *testing.T) {
	hs := cutter(t, fakePy{}, func(_ *http.Request, body []byte) bool { return bytes.Contains(body, []byte(`"method":"tools/call"`)) })
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = 64<<10, 64, 1<<10, 2*time.Second
	rep, err := audit.Run(context.Background(), audit.Config{Target: &audit.HTTP{URL: hs.URL}, Seed: 7, Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.SessionEnds) != audit.MaxRespawns+1 {
		t.Errorf("%d session ends, want %d", len(rep.SessionEnds), audit.MaxRespawns+1)
	}
	said := false
	for _, n := range rep.NotMeasured {
		said = said || strings.Contains(n.Why, "the server ended the session")
	}
	if !said || rep.Boundary.BodyCap != nil {
		t.Errorf("not measured %+v, body cap %v: want the probes past the bound not run", rep.NotMeasured, rep.Boundary.BodyCap)
	}
}

// TestHTTPCutOnOrigin: a server that cuts every request carrying an Origin
// or a foreign Host refuses it (the origin probes' answers are "closed", no BLA021),
// each cut is listed in session_ended, and the run goes on to the body cap.
func TestHTTPCutOnOrigin(t *testing.T) {
	hs := cutter(t, fakePy{}, func(r *http.Request, _ []byte) bool {
		return r.Header.Get("Origin") != "" || !strings.HasPrefix(r.Host, "127.0.0.1:")
	})
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = 64<<10, 64, 1<<10, 2*time.Second
	rep, err := audit.Run(context.Background(), audit.Config{Target: &audit.HTTP{URL: hs.URL}, Seed: 7, Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	closed := 0
	for _, o := range rep.Boundary.Origins {
		if o.Verdict != audit.VerdictRefused || o.Answer.Kind != audit.KindClosed {
			t.Errorf("%s %s on %s: %s (%s), want refused, closed", o.Header, o.Sent, o.Method, o.Verdict, o.Answer)
		}
		closed++
	}
	if closed == 0 || len(rep.SessionEnds) != closed || rep.Boundary.AtCap == nil {
		t.Errorf("%d origin probes closed, session ends %+v, at cap %v", closed, rep.SessionEnds, rep.Boundary.AtCap)
	}
	wantRule(t, rep, audit.RuleCrossOrigin, false)
}
