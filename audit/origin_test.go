package audit_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/theurian/boundlab/audit"
)

// TestOriginOverLoopback audits the bare go-sdk and the guarded demo on a
// loopback listener: the SDK serves every foreign Origin and refuses a
// foreign Host (its localhost protection); the guarded demo refuses both.
func TestOriginOverLoopback(t *testing.T) {
	guarded, _ := demoServer(t, true)
	small := audit.Limits{BodyCeiling: 64 << 10, DepthCeiling: 64, EchoBytes: 256, MaxAnswerBytes: 1 << 20,
		Timeout: 10 * time.Second, MaxRequests: 4000, MaxTools: 64, MaxPages: 4, MaxProbedTools: 1}
	for _, c := range []struct {
		name      string
		srv       *httptest.Server
		originsOK bool // the three foreign origins served
	}{
		{"go-sdk bare", httptest.NewServer(bareSDK(t)), true},
		{"guarded", httptest.NewServer(guarded), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer c.srv.Close()
			rep, err := audit.Run(context.Background(), audit.Config{Target: &audit.HTTP{URL: c.srv.URL + "/mcp"}, Call: calls, Seed: 7, Limits: small})
			if err != nil {
				t.Fatal(err)
			}
			probes := rep.Boundary.Origins
			if len(probes) != 8 {
				t.Fatalf("%d origin probes, want 8: %+v", len(probes), probes)
			}
			for _, o := range probes {
				want := audit.VerdictRefused
				if o.Header == "Origin" && c.originsOK {
					want = audit.VerdictServed
				}
				if o.Verdict != want || o.Loopback != (o.Header == "Host") {
					t.Errorf("%s %s, %s: %s (loopback %v), want %s", o.Header, o.Sent, o.Method, o.Verdict, o.Loopback, want)
				}
			}
			n := 0
			for _, f := range rep.Findings {
				if f.Rule == audit.RuleCrossOrigin {
					n++
					if f.Figure != 2 {
						t.Errorf("%s: figure %v, want both methods", f.Message, f.Figure)
					}
				}
			}
			if want := map[bool]int{true: 3, false: 0}[c.originsOK]; n != want {
				t.Errorf("%d BLA021 findings, want %d", n, want)
			}
		})
	}
}
