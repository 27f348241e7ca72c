package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/internal/residuals"
	"github.com/theurian/boundlab/sweeps"
)

// calls are the demo tools the audits may call: both only read the store.
var calls = residuals.Calls

// bareSDK is the go-sdk with nothing of boundlab (residuals.BareSDK) under
// the SDK's default streamable handler.
func bareSDK(t *testing.T) http.Handler {
	srv, err := residuals.BareSDK()
	if err != nil {
		t.Fatal(err)
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
}

// demoServer is the demo with mcpvalidate's middleware, behind the front
// gate or not (what serve runs).
func demoServer(t *testing.T, guarded bool) (http.Handler, int64) {
	h, capBytes, err := residuals.Demo(guarded)
	if err != nil {
		t.Fatal(err)
	}
	return h, capBytes
}

// mark3labsServer is residuals.Mark3labs: one read-only tool, one that
// panics if called.
func mark3labsServer() http.Handler { return residuals.Mark3labs() }

func run(t *testing.T, target audit.Target, call ...string) *audit.Report {
	t.Helper()
	rep, err := audit.Run(context.Background(), audit.Config{Target: target, Call: call, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// poster sends one body on a session directly, without the auditor.
type poster func(body []byte, session string) (status int, hdr http.Header, raw []byte)

func handlerPoster(h http.Handler, path string) poster {
	return func(body []byte, session string) (int, http.Header, []byte) {
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Header(), rec.Body.Bytes()
	}
}

func urlPoster(t *testing.T, url string) poster {
	return func(body []byte, session string) (int, http.Header, []byte) {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, resp.Header, b.Bytes()
	}
}

// direct is a session opened by hand.
type direct struct {
	post    poster
	session string
}

func open(t *testing.T, p poster) *direct {
	_, hdr, _ := p([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`), "")
	d := &direct{post: p, session: hdr.Get("Mcp-Session-Id")}
	d.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), d.session)
	return d
}

// answer is what a direct post drew: status, and the JSON-RPC message's
// kind ("result", "isError", "error <code>") or "" when there is none.
func (d *direct) answer(body []byte) (status int, kind string, size int) {
	status, _, raw := d.post(body, d.session)
	msg := raw
	if i := bytes.Index(raw, []byte("data:")); i >= 0 {
		msg, _, _ = bytes.Cut(bytes.TrimSpace(raw[i+5:]), []byte("\n"))
	}
	var m struct {
		Result *struct{ IsError bool } `json:"result"`
		Error  *struct{ Code int }     `json:"error"`
	}
	if json.Unmarshal(msg, &m) == nil {
		switch {
		case m.Error != nil:
			kind = "error " + strconv.Itoa(m.Error.Code)
		case m.Result != nil && m.Result.IsError:
			kind = "isError"
		case m.Result != nil:
			kind = "result"
		}
	}
	return status, kind, len(raw)
}

func padPing(n int64) []byte {
	head := `{"jsonrpc":"2.0","id":2,"method":"ping"`
	return []byte(head + strings.Repeat(" ", int(n)-len(head)-1) + "}")
}

func nest(d int) string { return strings.Repeat(`{"a":`, d-1) + "{}" + strings.Repeat("}", d-1) }

// checkDirect holds the report's body cap, depth and echo ratio to a direct
// measurement of each.
func checkDirect(t *testing.T, p poster, rep *audit.Report) {
	t.Helper()
	b := rep.Boundary
	d := open(t, p)
	if b.BodyCap != nil {
		if _, k, _ := d.answer(padPing(*b.BodyCap)); k != "result" {
			t.Errorf("a %d-byte ping (the reported cap) is answered %q", *b.BodyCap, k)
		}
		if _, k, _ := d.answer(padPing(*b.BodyCap + 1)); k == "result" {
			t.Errorf("a %d-byte ping (one past the reported cap) is answered with a result", *b.BodyCap+1)
		}
	} else if _, k, _ := d.answer(padPing(b.BodyCeiling)); k != "result" {
		t.Errorf("no cap reported, but a %d-byte ping is answered %q", b.BodyCeiling, k)
	}
	name := `"` + b.Carrier + `"`
	if b.MaxDepth != nil {
		call := func(depth int) string {
			params := `"arguments":` + nest(depth)
			if b.DepthPlacement == "params._meta" {
				params = `"arguments":{},"_meta":` + nest(depth)
			}
			s, k, _ := d.answer([]byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":` + name + `,` + params + `}}`))
			return strconv.Itoa(s) + " " + k
		}
		shallow := call(2)
		if got := call(*b.MaxDepth); got != shallow {
			t.Errorf("depth %d (the reported max) is answered %s, depth 2 %s", *b.MaxDepth, got, shallow)
		}
		if got := call(*b.MaxDepth + 1); got == shallow {
			t.Errorf("depth %d (one past the reported max) is answered as depth 2: %s", *b.MaxDepth+1, got)
		}
	}
	worst := 0.0
	for _, unit := range []string{"\x7f", "\xff", "a"} {
		body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":1,"x":"` + strings.Repeat(unit, 64<<10) + `"}}`)
		_, _, n := d.answer(body)
		worst = max(worst, float64(n)/float64(len(body)))
	}
	if e := b.EnvelopeEcho.Ratio; e < worst*0.99 || e > worst*1.01+0.01 {
		t.Errorf("the reported params echo is %.4f; measured directly %.4f", e, worst)
	}
}

func TestBareGoSDK(t *testing.T) {
	h := bareSDK(t)
	rep := run(t, audit.Handler("go-sdk bare", h, "/mcp"), calls...)
	checkDirect(t, handlerPoster(h, "/mcp"), rep)
	b := rep.Boundary
	if b.BodyCap == nil || *b.BodyCap != sweeps.SDKDefaultBodyBytes {
		t.Errorf("body cap %v, want the go-sdk's default %d", b.BodyCap, sweeps.SDKDefaultBodyBytes)
	}
	if !b.EnvelopeEcho.Echoed || b.EchoRatio < 4.9 {
		t.Errorf("the bare SDK's params echo: ratio %.3f, echoed %v; want ~5x, echoed", b.EchoRatio, b.EnvelopeEcho.Echoed)
	}
	wantRule(t, rep, audit.RuleEcho, true)
	wantRule(t, rep, audit.RuleTrailingBytes, true)
	wantRule(t, rep, audit.RuleCrossOrigin, true)
	t.Logf("%s", headline(rep))
}

func TestDemoMiddlewareOnlyAndGuarded(t *testing.T) {
	bare, capBytes := demoServer(t, false)
	guarded, _ := demoServer(t, true)
	rb := run(t, audit.Handler("demo middleware-only", bare, demo.Path), calls...)
	rg := run(t, audit.Handler("demo guarded", guarded, demo.Path), calls...)
	checkDirect(t, handlerPoster(bare, demo.Path), rb)
	checkDirect(t, handlerPoster(guarded, demo.Path), rg)
	both := []struct {
		name string
		r    *audit.Report
	}{{"middleware-only", rb}, {"guarded", rg}}
	for _, c := range both {
		t.Run("body_cap_"+c.name, func(t *testing.T) {
			r := c.r
			if r.Boundary.BodyCap == nil || *r.Boundary.BodyCap != capBytes {
				t.Errorf("%s: body cap %v, want the derived %d", r.Target, r.Boundary.BodyCap, capBytes)
			}
		})
	}
	// the middleware's gate sees only the arguments; a tool name reaches the
	// SDK's decoder, which replaces invalid UTF-8; the front gate refuses it
	if rb.Boundary.InvalidUTF8 == audit.VerdictRefused || rg.Boundary.InvalidUTF8 != audit.VerdictRefused {
		t.Errorf("invalid UTF-8: middleware-only %s, guarded %s", rb.Boundary.InvalidUTF8, rg.Boundary.InvalidUTF8)
	}
	// where the servers differ, the findings differ
	if rb.Boundary.EchoRatio < 4.9 || rg.Boundary.EchoRatio > 0.01 || rg.Boundary.EnvelopeEcho.Echoed {
		t.Errorf("params echo: middleware-only %.3f, guarded %.4f (echoed %v)", rb.Boundary.EchoRatio, rg.Boundary.EchoRatio, rg.Boundary.EnvelopeEcho.Echoed)
	}
	wantRule(t, rb, audit.RuleEcho, true)
	wantRule(t, rg, audit.RuleEcho, false)
	wantRule(t, rb, audit.RuleTrailingBytes, true)
	wantRule(t, rg, audit.RuleTrailingBytes, false)
	wantRule(t, rb, audit.RuleDuplicateNames, true)
	wantRule(t, rg, audit.RuleDuplicateNames, false)
	wantRule(t, rb, audit.RuleCrossOrigin, true)
	wantRule(t, rg, audit.RuleCrossOrigin, false)
	// mcpvalidate holds every published bound: nothing past one is served
	for _, c := range both {
		t.Run("bounds_held_"+c.name, func(t *testing.T) {
			r := c.r
			wantRule(t, r, audit.RuleBoundNotEnforced, false)
			n := 0
			for _, tr := range r.Tools {
				for _, bv := range tr.BoundaryValues {
					n++
					if bv.Verdict == audit.VerdictAccepted {
						t.Errorf("%s: %s %s past %s accepted", r.Target, tr.Name, bv.Member, bv.Keyword)
					}
				}
			}
			if n == 0 {
				t.Errorf("%s: no boundary value was sent", r.Target)
			}
		})
	}
	t.Logf("%s\n%s", headline(rb), headline(rg))
}

func TestMark3labs(t *testing.T) {
	h := mark3labsServer()
	rep := run(t, audit.Handler("mark3labs", h, "/mcp"))
	checkDirect(t, handlerPoster(h, "/mcp"), rep)
	for _, tr := range rep.Tools {
		if tr.Name == "delete" && (tr.Probed || tr.Skipped == "") {
			t.Errorf("delete is not annotated read-only and was not named: it must be skipped, with the reason")
		}
	}
	if rep.Boundary.BodyCap != nil {
		t.Errorf("mark3labs reads the body with no cap, the audit found %d", *rep.Boundary.BodyCap)
	}
	wantRule(t, rep, audit.RuleNoBodyCap, true)
	wantRule(t, rep, audit.RuleOpenSchema, true)
	// lookup publishes maxLength 64 on "key" and validates nothing: 65
	// characters are answered as 64, here and directly
	wantRule(t, rep, audit.RuleBoundNotEnforced, true)
	d := open(t, handlerPoster(h, "/mcp"))
	for _, n := range []int{64, 65} {
		t.Run("key_"+strconv.Itoa(n), func(t *testing.T) {
			if _, k, _ := d.answer([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"lookup","arguments":{"key":"` + strings.Repeat("k", n) + `"}}}`)); k != "result" {
				t.Errorf("lookup with a %d-character key is answered %q", n, k)
			}
		})
	}
	t.Logf("%s", headline(rep))
}

func wantRule(t *testing.T, rep *audit.Report, rule string, want bool) {
	t.Helper()
	got := false
	for _, f := range rep.Findings {
		got = got || f.Rule == rule
	}
	if got != want {
		t.Errorf("%s: finding %s present %v, want %v", rep.Target, rule, got, want)
	}
}

// ruleCounts is "BLA001 x1, ..." in rule order.
func ruleCounts(r *audit.Report) string {
	n := map[string]int{}
	for _, f := range r.Findings {
		n[f.Rule]++
	}
	var out []string
	for _, rule := range audit.Rules() {
		if n[rule.ID] > 0 {
			out = append(out, rule.ID+" x"+strconv.Itoa(n[rule.ID]))
		}
	}
	return strings.Join(out, ", ")
}

func headline(r *audit.Report) string {
	b := r.Boundary
	capText, depth := "none", "none"
	if b.BodyCap != nil {
		capText = strconv.FormatInt(*b.BodyCap, 10)
	}
	if b.MaxDepth != nil {
		depth = strconv.Itoa(*b.MaxDepth)
	}
	return r.Target + ": echo " + strconv.FormatFloat(b.EchoRatio, 'f', 3, 64) + ", cap " + capText + ", depth " + depth +
		", unknown " + b.UnknownKeys + ", dup " + b.DuplicateNames + "/" + b.DuplicateNamesEnvelope +
		", utf8 " + b.InvalidUTF8 + ", surrogate " + b.LoneSurrogates + ", control " + b.RawControls +
		", trailing " + b.TrailingBytes + ", float " + b.IntegralFloat + ", before-initialized " + b.BeforeInitialized +
		", before-initialize " + b.BeforeInitialize + ", unknown-params " + b.UnknownParamsMember +
		", requests " + strconv.Itoa(r.Requests) + ", findings " + strconv.Itoa(len(r.Findings)) + " (" + ruleCounts(r) + ")"
}

// dozen is a go-sdk server with twelve tools annotated readOnlyHint: true,
// each taking a required string and an integer.
func dozen() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "dozen", Version: "v0"}, nil)
	type in struct {
		Q string `json:"q"`
		N int    `json:"n,omitempty"`
	}
	for i := range 12 {
		mcp.AddTool(srv, &mcp.Tool{Name: "tool" + strconv.Itoa(i), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
			})
	}
	return srv
}

// TestDozenTools: twelve read-only tools over HTTP on 127.0.0.1 with the
// default limits: every tool is called, and the run's requests stay far
// inside the request budget. Its time ("within a minute") is
// BenchmarkDozenTools': a speed target is a figure, not a test that fails
// on a loaded machine.
func TestDozenTools(t *testing.T) {
	start := time.Now()
	rep := dozenAudit(t)
	probed := 0
	for _, tr := range rep.Tools {
		if tr.Probed {
			probed++
		}
	}
	if probed != 12 || rep.Requests > audit.DefaultLimits().MaxRequests/4 {
		t.Errorf("%d tools called, %d requests", probed, rep.Requests)
	}
	t.Logf("12 tools: %d requests in %s; %s", rep.Requests, time.Since(start).Round(time.Millisecond), headline(rep))
}

func dozenAudit(tb testing.TB) *audit.Report {
	srv := dozen()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	rep, err := audit.Run(context.Background(), audit.Config{Target: &audit.HTTP{URL: hs.URL}, Seed: 7})
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

// TestSlowBodyIsAnErrorNamingTheProbe: a server that neither answers nor
// refuses a large body within the time allowed stops the audit with an error
// naming the probe and the size; it is not reported as a body cap.
func TestSlowBodyIsAnErrorNamingTheProbe(t *testing.T) {
	h := bareSDK(t)
	const stall = 512 << 10
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > stall {
			<-r.Context().Done() // hold the body until the client gives up
			return
		}
		h.ServeHTTP(w, r)
	})
	l := audit.DefaultLimits()
	l.Timeout = 300 * time.Millisecond
	rep, err := audit.Run(context.Background(), audit.Config{Target: audit.Handler("slow", slow, "/mcp"), Call: calls, Seed: 7, Limits: l})
	if err == nil {
		t.Fatalf("no error; body cap %v", rep.Boundary.BodyCap)
	}
	if !errors.Is(err, audit.ErrTarget) || !strings.Contains(err.Error(), "body cap: a 1048576-byte ping drew no answer within 1.3s") {
		t.Errorf("error %q does not name the probe, the size and the wait", err)
	}
	if rep.Boundary != nil && rep.Boundary.BodyCap != nil {
		t.Errorf("a stalled body was reported as a cap of %d", *rep.Boundary.BodyCap)
	}
}

// TestDemoBaselinesWithoutCalls: the demo audited with every tool called
// and no call given: each baseline its schema admits, the ones its handler
// refuses (an unknown project) rebuilt from the others' answers, so every
// tool is answered with a result and nothing is left not measured.
func TestDemoBaselinesWithoutCalls(t *testing.T) {
	h, _ := demoServer(t, true)
	rep, err := audit.Run(context.Background(), audit.Config{Target: audit.Handler("demo guarded", h, demo.Path), AllTools: true, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	from := map[string]int{}
	for _, tr := range rep.Tools {
		from[tr.BaselineFrom]++
		if tr.Baseline == nil || tr.Baseline.Refused() {
			t.Errorf("%s: baseline %v (%s)", tr.Name, tr.Baseline, tr.BaselineFrom)
		}
	}
	if from[audit.BaselineHarvested] == 0 || from[audit.BaselineSchema]+from[audit.BaselineHarvested] != len(rep.Tools) {
		t.Errorf("baselines by origin: %v", from)
	}
	for _, n := range rep.NotMeasured {
		t.Errorf("not measured: %s %s: %s", n.Probe, n.Tool, n.Why)
	}
}
