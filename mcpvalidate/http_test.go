package mcpvalidate

import (
	"net"
	"net/http"
	"os"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

func httpValidator(t *testing.T) *Validator {
	t.Helper()
	v, err := New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Every zero field of HTTPOptions is its default, field by field; a
// stateless endpoint keeps no session budget.
func TestHTTPOptionsDefaults(t *testing.T) {
	v := httpValidator(t)
	got := v.httpDefaults(nil)
	want := HTTPOptions{InFlightBytes: v.defaultInFlightBytes(), SessionBytes: bounds.DefaultSessionBytes,
		SessionIdle: bounds.DefaultSessionIdle, ConnBytes: bounds.DefaultConnBytes}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("defaults %+v, want %+v", got, want)
	}
	got = v.httpDefaults(&HTTPOptions{SessionIdle: time.Minute, ConnBytes: 1 << 20})
	want.SessionIdle, want.ConnBytes = time.Minute, 1<<20
	if !reflect.DeepEqual(got, want) {
		t.Errorf("partly set %+v, want %+v", got, want)
	}
	got = v.httpDefaults(&HTTPOptions{Stateless: true, SessionBytes: 1 << 30})
	if got.SessionBytes != 0 || got.SessionIdle != 0 || got.InFlightBytes != want.InFlightBytes {
		t.Errorf("stateless %+v: want no session budget", got)
	}
}

// The SDK's handler and the gate read one setting each: the body cap,
// statelessness and the session timeout come from the same options,
// whatever the SDK options given say.
func TestHandlerSDKOptionsAgree(t *testing.T) {
	v := httpValidator(t)
	own := &mcp.StreamableHTTPOptions{JSONResponse: true, Stateless: true, MaxRequestBodyBytes: 1, SessionTimeout: time.Hour}
	sdk := v.sdkOptions(v.httpDefaults(&HTTPOptions{SDK: own}))
	if sdk.Stateless || sdk.MaxRequestBodyBytes != v.MaxBodyBytes() || sdk.SessionTimeout != bounds.DefaultSessionIdle || !sdk.JSONResponse {
		t.Errorf("stateful: %+v", sdk)
	}
	sdk = v.sdkOptions(v.httpDefaults(&HTTPOptions{Stateless: true}))
	if !sdk.Stateless || sdk.SessionTimeout != 0 || sdk.MaxRequestBodyBytes != v.MaxBodyBytes() {
		t.Errorf("stateless: %+v", sdk)
	}
	sdk = v.sdkOptions(v.httpDefaults(&HTTPOptions{SessionIdle: -1}))
	if sdk.SessionTimeout != 0 {
		t.Errorf("never idle: SDK timeout %v, want none", sdk.SessionTimeout)
	}
	if own.MaxRequestBodyBytes != 1 {
		t.Error("the caller's SDK options were written to")
	}
}

// The ceiling is the sum of the budgets at the weights they admit, plus
// the baseline.
func TestCeiling(t *testing.T) {
	v := httpValidator(t)
	inflight := v.defaultInFlightBytes() + 1<<20
	h, err := v.Protect(http.NotFoundHandler(), &HTTPOptions{InFlightBytes: inflight, SessionBytes: 1 << 20, ConnBytes: 3*bounds.ConnCost + 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := inflight + 1<<20 + 3*bounds.ConnCost + bounds.Baseline; h.Ceiling() != want {
		t.Errorf("ceiling %d, want %d", h.Ceiling(), want)
	}
	s, err := v.Protect(http.NotFoundHandler(), &HTTPOptions{Stateless: true, InFlightBytes: inflight, SessionBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if want := inflight + bounds.DefaultConnBytes + bounds.Baseline; s.Ceiling() != want {
		t.Errorf("stateless ceiling %d, want %d", s.Ceiling(), want)
	}
}

// ConnBytes must admit one connection: at one weight it does, one byte
// under it is refused, naming the weight.
func TestConnBytesAdmitsOne(t *testing.T) {
	v := httpValidator(t)
	if _, err := v.Protect(http.NotFoundHandler(), &HTTPOptions{ConnBytes: bounds.ConnCost}); err != nil {
		t.Errorf("at one connection's weight: %v", err)
	}
	_, err := v.Protect(http.NotFoundHandler(), &HTTPOptions{ConnBytes: bounds.ConnCost - 1})
	if err == nil || !strings.Contains(err.Error(), "49152") {
		t.Errorf("one byte under: %v", err)
	}
}

// Harden sets the header cap the connection weight assumes and the
// timeouts; a cap at the weight's is kept, one byte past it refused.
func TestHardenHeaderBound(t *testing.T) {
	v := httpValidator(t)
	h, err := v.Protect(http.NotFoundHandler(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	harden := func(hs *http.Server) error {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		_, err = h.Harden(hs, ln)
		return err
	}
	hs := &http.Server{}
	if err := harden(hs); err != nil {
		t.Fatal(err)
	}
	if hs.MaxHeaderBytes != bounds.MaxHeaderBytes || hs.ReadHeaderTimeout != bounds.ReadHeaderTimeout ||
		hs.IdleTimeout != bounds.ConnIdleTimeout || hs.Handler != http.Handler(h) {
		t.Errorf("zero server hardened to %+v", hs)
	}
	at := &http.Server{MaxHeaderBytes: bounds.MaxHeaderBytes, ReadHeaderTimeout: time.Second}
	if err := harden(at); err != nil || at.MaxHeaderBytes != bounds.MaxHeaderBytes || at.ReadHeaderTimeout != time.Second {
		t.Errorf("at the cap: %v, %+v", err, at)
	}
	past := &http.Server{MaxHeaderBytes: bounds.MaxHeaderBytes + 1}
	if err := harden(past); err == nil || !strings.Contains(err.Error(), "16385") {
		t.Errorf("one past the cap: %v", err)
	}
}

// Harden sets the runtime's soft memory limit to the ceiling, unless one
// was set.
func TestHardenSetsTheMemoryLimit(t *testing.T) {
	v := httpValidator(t)
	h, err := v.Protect(http.NotFoundHandler(), nil)
	if err != nil {
		t.Fatal(err)
	}
	prev := debug.SetMemoryLimit(maxMemoryLimit)
	defer debug.SetMemoryLimit(prev)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := h.Harden(&http.Server{}, ln); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := debug.SetMemoryLimit(-1), h.Ceiling()-st.Size(); got != want {
		t.Errorf("memory limit %d, want the ceiling %d less the executable's %d bytes", got, h.Ceiling(), st.Size())
	}
	debug.SetMemoryLimit(1 << 40)
	if _, err := h.Harden(&http.Server{}, ln); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("a limit already set was replaced: %d", got)
	}
}
