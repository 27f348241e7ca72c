package mcpvalidate

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// edgeGate is a front gate in front of a handler that answers 200, over a
// budget of exactly one at-cap request plus a reserve of small.
func edgeGate(t *testing.T, maxWait time.Duration) (*frontGate, *inFlight, int64) {
	fg, b, limit, _ := edgeGateLimits(t, maxWait)
	return fg, b, limit
}

func edgeGateLimits(t *testing.T, maxWait time.Duration) (*frontGate, *inFlight, int64, *Validator) {
	t.Helper()
	v, err := New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	const small = 1 << 20
	w := requestWeight(v.MaxBodyBytes(), v.cfg.limits)
	b, err := newInFlight(w+small, small, small)
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	fg, err := v.frontGate(ok, &frontGateOptions{inFlight: b, MaxWait: maxWait})
	if err != nil {
		t.Fatal(err)
	}
	return fg, b, v.MaxBodyBytes(), v
}

func serveOne(fg http.Handler, body string, contentLength int64) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.ContentLength = contentLength
	rec := httptest.NewRecorder()
	fg.ServeHTTP(rec, req)
	return rec
}

// A declared length past the cap is answered 413 before any read, naming the
// cap, with no offset (nothing was scanned).
func TestFrontGate413BeforeTheRead(t *testing.T) {
	fg, b, limit := edgeGate(t, 0)
	rec := serveOne(fg, "{}", limit+1)
	var m struct {
		Error struct {
			Message string
			Data    map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil || rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("HTTP %d %s", rec.Code, rec.Body)
	}
	if _, has := m.Error.Data["offset"]; has || strings.Contains(m.Error.Message, "byte ") ||
		string(m.Error.Data["bound"]) != `"body-bytes"` || string(m.Error.Data["limit"]) != strconv.FormatInt(limit, 10) {
		t.Fatalf("a 413 before the read: %s", rec.Body)
	}
	if b.Peak() != 0 {
		t.Fatalf("a refused-before-read request was weighed: peak %d", b.Peak())
	}
	if rec := serveOne(fg, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, limit); rec.Code != http.StatusOK {
		t.Fatalf("a declared length of exactly the cap: HTTP %d %s", rec.Code, rec.Body)
	}
}

// An empty body (Content-Length 0) is weighed as an empty body, not at the
// cap (which is what an unknown length is weighed at).
func TestFrontGateWeighsAnEmptyBodyAsEmpty(t *testing.T) {
	fg, b, limit, v := edgeGateLimits(t, 0)
	serveOne(fg, "", 0)
	if got, want := b.Peak(), requestWeight(0, v.cfg.limits); got != want {
		t.Fatalf("an empty body weighed %d, want %d", got, want)
	}
	serveOne(fg, "{}", -1)
	if got, want := b.Peak(), requestWeight(limit, v.cfg.limits); got != want {
		t.Fatalf("an unknown length weighed %d, want the cap's %d", got, want)
	}
}

// MaxWait: 0 waits defaultMaxWait for budget (a request behind a full budget
// is served once it frees); a MaxWait given is kept (a shorter wait ends in
// a 503 whose Retry-After is at least 1 s).
func TestFrontGateMaxWait(t *testing.T) {
	body := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	for _, c := range []struct {
		name    string
		maxWait time.Duration
		status  int
	}{{"MaxWait=0", 0, http.StatusOK}, {"MaxWait=50ms", 50 * time.Millisecond, http.StatusServiceUnavailable}} {
		t.Run(c.name, func(t *testing.T) {
			fg, b, _ := edgeGate(t, c.maxWait)
			g1, _ := b.tryAcquire(b.General())
			g2, _ := b.tryAcquire(b.SmallWeight())
			done := make(chan *httptest.ResponseRecorder)
			go func() { done <- serveOne(fg, body, int64(len(body))) }()
			time.Sleep(300 * time.Millisecond)
			g1.Release()
			g2.Release()
			rec := <-done
			if rec.Code != c.status {
				t.Errorf("MaxWait %v, budget freed after 300 ms: HTTP %d, want %d", c.maxWait, rec.Code, c.status)
			}
			if c.status == http.StatusServiceUnavailable && rec.Header().Get("Retry-After") != "1" {
				t.Errorf("MaxWait %v: Retry-After %q", c.maxWait, rec.Header().Get("Retry-After"))
			}
		})
	}
}

// The message and data of a front refusal carry where, offset and limit
// exactly when they are known: an offset of 0 is a place, a limit of 0 is
// none, an empty where is nowhere.
func TestFrontRefusalFieldsWhenKnown(t *testing.T) {
	for _, c := range []struct {
		name    string
		f       requestRefusal
		has     []string
		hasNot  []string
		jsonHas []string
		jsonNot []string
	}{
		{"offset=0_no_where_no_limit", requestRefusal{Bound: "b", Offset: 0}, []string{", byte 0"}, []string{" at ", ", limit"},
			[]string{`"offset":0`}, []string{`"where"`, `"limit"`, `"unit"`}},
		{"where_and_limit_no_offset", requestRefusal{Bound: "b", Where: "/x", Offset: -1, Limit: 5, Unit: "u"}, []string{" at /x", ", limit 5 u"}, []string{", byte"},
			[]string{`"where":"/x"`, `"limit":5`, `"unit":"u"`}, []string{`"offset"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg, js := c.f.Error(), string(c.f.AppendJSON(nil))
			for _, s := range c.has {
				if !strings.Contains(msg, s) {
					t.Errorf("%+v: message %q lacks %q", c.f, msg, s)
				}
			}
			for _, s := range c.hasNot {
				if strings.Contains(msg, s) {
					t.Errorf("%+v: message %q holds %q", c.f, msg, s)
				}
			}
			for _, s := range c.jsonHas {
				if !strings.Contains(js, s) {
					t.Errorf("%+v: answer %s lacks %s", c.f, js, s)
				}
			}
			for _, s := range c.jsonNot {
				if strings.Contains(js, s) {
					t.Errorf("%+v: answer %s holds %s", c.f, js, s)
				}
			}
		})
	}
	// A refusal of the frame, not of a scanned value, has no offset.
	fg, _, _ := edgeGate(t, 0)
	_, err := fg.check([]byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`))
	if f, ok := err.(*requestRefusal); !ok || f.Offset != -1 || strings.Contains(f.Error(), "byte") {
		t.Fatalf("a batch: %v", err)
	}
}

// The tool-result shape stamps resultType "complete" from protocol
// 2026-07-28 on, as the go-sdk does, and not before; a 413 closes the
// connection (the rest of the body is not read), a 400 does not.
func TestFrontRefusalShapeByProtocol(t *testing.T) {
	fg, _, limit := edgeGate(t, 0)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"knowledge.search","arguments":{"query":"a","query":"b"}}}`
	for _, c := range []struct {
		name, version string
		want          bool
	}{
		{"2026-07-28", "2026-07-28", true},
		{"2026-07-29", "2026-07-29", true},
		{"2025-11-25", "2025-11-25", false},
		{"empty_version", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
			req.Header.Set("Mcp-Protocol-Version", c.version)
			rec := httptest.NewRecorder()
			fg.ServeHTTP(rec, req)
			if got := strings.Contains(rec.Body.String(), `"resultType":"complete"`); got != c.want || !strings.Contains(rec.Body.String(), `"isError":true`) {
				t.Errorf("version %q: %s (want resultType %v)", c.version, rec.Body, c.want)
			}
			if rec.Header().Get("Connection") == "close" {
				t.Errorf("version %q: a scan refusal closes the connection", c.version)
			}
		})
	}
	if rec := serveOne(fg, "{}", limit+1); rec.Header().Get("Connection") != "close" {
		t.Errorf("a 413 keeps the connection: %v", rec.Header())
	}
}

// The read path: a body of unknown length of exactly the cap is read whole; one
// byte more is a 413 naming body-bytes (not the read deadline); a 503 has no
// offset.
func TestFrontGateReadPathAtTheCap(t *testing.T) {
	fg, _, limit := edgeGate(t, 10*time.Millisecond)
	msg := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	at := msg + strings.Repeat(" ", int(limit)-len(msg))
	if rec := serveOne(fg, at, -1); rec.Code != http.StatusOK {
		t.Fatalf("an unknown-length body of exactly the cap: HTTP %d %.200s", rec.Code, rec.Body)
	}
	rec := serveOne(fg, at+" ", -1)
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), `"bound":"body-bytes"`) {
		t.Fatalf("an unknown-length body one past the cap: HTTP %d %.300s", rec.Code, rec.Body)
	}
	g, _ := fg.inFlight().tryAcquire(fg.inFlight().General())
	s, _ := fg.inFlight().tryAcquire(fg.inFlight().SmallWeight())
	rec = serveOne(fg, msg, int64(len(msg)))
	g.Release()
	s.Release()
	if rec.Code != http.StatusServiceUnavailable || strings.Contains(rec.Body.String(), `"offset"`) || !strings.Contains(rec.Body.String(), `"bound":"in-flight-budget"`) {
		t.Fatalf("a 503: HTTP %d %.300s", rec.Code, rec.Body)
	}
}
