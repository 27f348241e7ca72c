package mcpvalidate

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deadlineRecorder is a ResponseWriter that supports read deadlines the way
// net/http's does (http.ResponseController finds SetReadDeadline on it) and
// records each one set, so a test reads the deadline without waiting for it.
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	deadlines []time.Time
}

func (d *deadlineRecorder) SetReadDeadline(t time.Time) error {
	d.deadlines = append(d.deadlines, t)
	return nil
}

// failingBody gives its bytes, then fails with err: a body cut by its read
// deadline (os.ErrDeadlineExceeded, what net/http's reads return), by a
// MaxBytesReader, or by a client gone away.
type failingBody struct {
	data []byte
	err  error
}

func (b *failingBody) Read(p []byte) (int, error) {
	if len(b.data) == 0 {
		return 0, b.err
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	return n, nil
}

// deadlineGate is edgeGate's gate with a body-read deadline of base plus one
// second per rate bytes.
func deadlineGate(t *testing.T, base time.Duration, rate int64) (*frontGate, *inFlight, int64) {
	t.Helper()
	v, err := New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	const small = 1 << 20
	b, err := newInFlight(requestWeight(v.MaxBodyBytes(), v.cfg.limits)+small, small, small)
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	fg, err := v.frontGate(ok, &frontGateOptions{inFlight: b, BodyReadBase: base, MinBodyRate: rate})
	if err != nil {
		t.Fatal(err)
	}
	return fg, b, v.MaxBodyBytes()
}

// The body read's deadline is BodyReadBase plus one second per MinBodyRate
// bytes of the declared length (whole seconds), or of the cap when the
// length is unknown; it is cleared when the read ends.
func TestFrontGateReadDeadline(t *testing.T) {
	const base, rate = 10 * time.Second, 1000
	fg, _, limit := deadlineGate(t, base, rate)
	msg := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	for _, c := range []struct {
		name     string
		body     string
		declared int64
		allow    time.Duration // what the length adds to base
	}{
		{"declared 4,999 bytes", msg + strings.Repeat(" ", 4999-len(msg)), 4999, 4 * time.Second},
		{"declared 5,000 bytes", msg + strings.Repeat(" ", 5000-len(msg)), 5000, 5 * time.Second},
		{"unknown length (weighed and timed at the cap)", msg, -1, time.Duration(limit/rate) * time.Second},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(c.body))
			req.ContentLength = c.declared
			rec := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
			before := time.Now()
			fg.ServeHTTP(rec, req)
			after := time.Now()
			if rec.Code != http.StatusOK {
				t.Fatalf("%s: HTTP %d %.200s", c.name, rec.Code, rec.Body)
			}
			if len(rec.deadlines) != 2 || !rec.deadlines[1].IsZero() {
				t.Fatalf("%s: deadlines set %v, want the read's then none", c.name, rec.deadlines)
			}
			want := base + c.allow
			if d := rec.deadlines[0]; d.Before(before.Add(want)) || d.After(after.Add(want)) {
				t.Errorf("%s: read deadline %v after the request, want %v", c.name, d.Sub(before), want)
			}
		})
	}
}

// A body read that fails answers by the failure: past its deadline 408
// (body-read-deadline), past a MaxBytesReader 413 (body-bytes), each naming
// the cap with no offset (nothing was scanned) and closing the connection;
// any other failure (the client gone) answers nothing. The weight goes back
// every time.
func TestFrontGateReadFailures(t *testing.T) {
	fg, b, limit := deadlineGate(t, 0, 0)
	for _, c := range []struct {
		name   string
		err    error
		status int
		bound  string
	}{
		{"read deadline", os.ErrDeadlineExceeded, http.StatusRequestTimeout, "body-read-deadline"},
		{"read deadline, wrapped", &os.PathError{Op: "read", Path: "conn", Err: os.ErrDeadlineExceeded}, http.StatusRequestTimeout, "body-read-deadline"},
		{"MaxBytesReader", &http.MaxBytesError{Limit: 10}, http.StatusRequestEntityTooLarge, "body-bytes"},
		{"client gone", io.ErrUnexpectedEOF, 0, ""},
		{"connection reset", errors.New("connection reset by peer"), 0, ""},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			for _, declared := range []int64{100, -1} {
				req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
				req.Body = io.NopCloser(&failingBody{data: []byte(`{"jsonrpc":"2.0",`), err: c.err})
				req.ContentLength = declared
				rec := httptest.NewRecorder()
				fg.ServeHTTP(rec, req)
				if got := b.InUse(); got != 0 {
					t.Fatalf("%s: %d bytes of budget held after the answer", c.name, got)
				}
				if c.status == 0 {
					if rec.Body.Len() != 0 || rec.Header().Get("Content-Type") != "" {
						t.Errorf("%s (declared %d): answered a client that is gone: HTTP %d %s", c.name, declared, rec.Code, rec.Body)
					}
					continue
				}
				var m struct {
					Error struct {
						Message string
						Data    map[string]json.RawMessage
					}
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil || rec.Code != c.status {
					t.Fatalf("%s (declared %d): HTTP %d %s", c.name, declared, rec.Code, rec.Body)
				}
				if _, has := m.Error.Data["offset"]; has || strings.Contains(m.Error.Message, "byte ") ||
					string(m.Error.Data["bound"]) != strconv.Quote(c.bound) || string(m.Error.Data["limit"]) != strconv.FormatInt(limit, 10) {
					t.Errorf("%s (declared %d): %s", c.name, declared, rec.Body)
				}
				if rec.Header().Get("Connection") != "close" {
					t.Errorf("%s (declared %d): the connection is kept: %v", c.name, declared, rec.Header())
				}
			}
		})
	}
}
