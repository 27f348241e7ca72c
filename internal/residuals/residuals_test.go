package residuals

import (
	"context"
	"strings"
	"testing"

	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/results"
)

func bareReport(t *testing.T) *audit.Report {
	t.Helper()
	if testing.Short() {
		t.Skip("audits the bare go-sdk in process (~5 s); skipped in -short")
	}
	rep, err := BareReport()
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestRecords reads every residual from the audit and holds the facts the
// package doc and mcpvalidate's doc state about them.
func TestRecords(t *testing.T) {
	bareReport(t)
	recs, err := Records()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]results.Record{}
	for _, r := range recs {
		id := strings.TrimPrefix(r.ID, "mcpvalidate.residual.")
		byID[id] = r
		t.Run("record_"+id, func(t *testing.T) {
			if r.Method != results.Measured || r.Source == "" || r.Instance == "" || r.Unit == "" {
				t.Errorf("%s: not a complete measured record: %+v", r.ID, r)
			}
		})
	}
	if len(byID) != 12 {
		t.Errorf("%d residual records, want the 12 the hand-written probes made", len(byID))
	}
	if v := byID["params-echo.worst-ratio"].Value; v < 4.99 || v > 5.01 {
		t.Errorf("params echo worst ratio %v", v)
	}
	if byID["init-gate.code"].Value != 0 || byID["init-gate.served-before-initialized-notification"].Value != 1 {
		t.Errorf("init gate: code %v, served %v", byID["init-gate.code"].Value, byID["init-gate.served-before-initialized-notification"].Value)
	}
	for id, want := range map[string]float64{"duplicate-params-name": 1, "invalid-utf8-tool-name": 1, "lone-surrogate-tool-name": 1,
		"trailing-bytes": 1, "unknown-params-member": 1, "arguments-bytes-intact": 1, "raw-control-in-string": 0} {
		t.Run("sdk.tolerates."+id, func(t *testing.T) {
			if got := byID["sdk.tolerates."+id].Value; got != want {
				t.Errorf("sdk.tolerates.%s = %v, want %v", id, got, want)
			}
		})
	}
	if v := byID["sdk.malformed-400-answer-bytes"].Value; v < 64 || v > 200 {
		t.Errorf("the SDK's 400 is %v bytes: grew with the body, or no longer quotes it", v)
	}
}

// TestBareSDKBlackBoxAgreesWithWhiteBox holds every black-box verdict of the
// audit of the bare go-sdk to what the observing middleware saw reach the
// SDK's middleware tier in the same run.
func TestBareSDKBlackBoxAgreesWithWhiteBox(t *testing.T) {
	rep := bareReport(t)
	b, o := rep.Boundary, rep.Boundary.Observed
	if e := b.EnvelopeEcho; !e.Echoed || reached(&e.Answer) {
		t.Errorf("params echo: echoed %v, reached middleware %v; want an echo the SDK writes before middleware", e.Echoed, reached(&e.Answer))
	}
	// the depth the answers show (params._meta) is the depth at which
	// arguments stop reaching middleware: one decoder bounds both
	if b.MaxDepth == nil || o.ArgumentsMaxDepth == nil || *b.MaxDepth != *o.ArgumentsMaxDepth {
		t.Errorf("max depth: answers %v, reached middleware %v", b.MaxDepth, o.ArgumentsMaxDepth)
	}
	if !reached(b.AtDepth) || reached(b.PastDepth) {
		t.Errorf("at the depth: reached %v; one past: reached %v", reached(b.AtDepth), reached(b.PastDepth))
	}
	if b.BodyCap == nil || !reached(b.AtCap) || reached(b.PastCap) || b.PastCap.Status != 413 {
		t.Errorf("body cap %v: at it %v, one past %v", b.BodyCap, b.AtCap, b.PastCap)
	}
	for _, d := range b.Differentials {
		t.Run(d.Probe+"_in_the_"+d.Placement, func(t *testing.T) {
			r := reached(&d.Answer)
			switch d.Verdict {
			case audit.VerdictRefused:
				if r {
					t.Errorf("%s in the %s: refused by its answer, yet it reached middleware", d.Probe, d.Placement)
				}
			case audit.VerdictNormalised:
				if !r || (d.Placement == "name" && !strings.Contains(d.Answer.ReachedAs, "\ufffd")) {
					t.Errorf("%s in the %s: normalised by its answer; reached %v as %q", d.Probe, d.Placement, r, d.Answer.ReachedAs)
				}
			case audit.VerdictAccepted:
				if !r {
					t.Errorf("%s in the %s: accepted by its answer, yet it did not reach middleware", d.Probe, d.Placement)
				}
			}
		})
	}
	for _, c := range []struct {
		what    string
		verdict string
		s       *audit.Shape
		yes     string
	}{
		{"trailing bytes", b.TrailingBytes, b.TrailingAnswer, audit.VerdictAccepted},
		{"unknown params member", b.UnknownParamsMember, b.UnknownParamsAnswer, audit.VerdictAccepted},
		{"before initialize", b.BeforeInitialize, b.BeforeInitializeAnswer, audit.VerdictServed},
		{"before initialized", b.BeforeInitialized, b.BeforeInitializedAnswer, audit.VerdictServed},
	} {
		t.Run(c.what, func(t *testing.T) { // t.Run writes the spaces as _
			if (c.verdict == c.yes) != reached(c.s) {
				t.Errorf("%s: the answers say %s, middleware reached: %v", c.what, c.verdict, reached(c.s))
			}
		})
	}
	dup := b.DuplicateNamesEnvelopeAnswers
	lastWins := len(dup) == 2 && dup[0].ReachedAs != b.Carrier && dup[1].ReachedAs == b.Carrier
	if (b.DuplicateNamesEnvelope == audit.VerdictLastWins) != lastWins {
		t.Errorf("duplicate name in params: the answers say %s; reached as %q then %q (carrier %s)", b.DuplicateNamesEnvelope, dup[0].ReachedAs, dup[1].ReachedAs, b.Carrier)
	}
	if o.Calls == 0 || o.ArgumentsAltered != 0 {
		t.Errorf("%d tools/calls reached middleware, %d with their arguments altered", o.Calls, o.ArgumentsAltered)
	}
}

// TestGuardedAuditAgreesWithFrontGateRecords: the front gate's records come
// from hand-written probes (frontgate.go); an observed audit of the same
// server must find the same: what reaches middleware through the gate, the
// arguments' depth bound, the initialization gate, no echo.
func TestGuardedAuditAgreesWithFrontGateRecords(t *testing.T) {
	recs := gateRecords(t)
	target, err := GuardedTarget()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := audit.Run(context.Background(), audit.Config{Target: target, Call: Calls, Seed: Seed})
	if err != nil {
		t.Fatal(err)
	}
	b, o := rep.Boundary, rep.Boundary.Observed
	if o == nil {
		t.Fatal("the guarded target observed nothing")
	}
	diff := func(probe string, placement string) *audit.Shape {
		for _, d := range b.Differentials {
			if d.Probe == probe && d.Placement == placement {
				return &d.Answer
			}
		}
		t.Fatalf("no %s differential in the %s", probe, placement)
		return nil
	}
	dup := b.DuplicateNamesEnvelopeAnswers
	for id, s := range map[string]*audit.Shape{
		"tolerates.duplicate-params-name":    &dup[0],
		"tolerates.invalid-utf8-tool-name":   diff("invalid_utf8", "name"),
		"tolerates.lone-surrogate-tool-name": diff("lone_surrogate", "name"),
		"tolerates.trailing-bytes":           b.TrailingAnswer,
		"tolerates.unknown-params-member":    b.UnknownParamsAnswer,
		"tolerates.raw-control-in-string":    diff("raw_control", "arguments"),
	} {
		t.Run(id, func(t *testing.T) {
			if got := b2f(reached(s)); got != recs[id].Value {
				t.Errorf("%s: the record says %v, the audit saw it reach middleware: %v (%s)", id, recs[id].Value, got, s)
			}
		})
	}
	if o.ArgumentsMaxDepth == nil || float64(*o.ArgumentsMaxDepth) != recs["arguments-max-depth"].Value {
		t.Errorf("arguments depth through the gate: audit %v, record %v", o.ArgumentsMaxDepth, recs["arguments-max-depth"].Value)
	}
	if c := b.BeforeInitializeAnswer.Code; c == nil || float64(*c) != recs["init-gate.code"].Value {
		t.Errorf("init gate code: audit %v, record %v", c, recs["init-gate.code"].Value)
	}
	if b2f(b.BeforeInitialized == audit.VerdictServed) != recs["init-gate.served-before-initialized-notification"].Value {
		t.Errorf("before initialized: audit %s, record %v", b.BeforeInitialized, recs["init-gate.served-before-initialized-notification"].Value)
	}
	if b.EnvelopeEcho.Echoed || recs["params-echo.canary-answers"].Value != 0 {
		t.Errorf("params echo through the gate: audit echoed %v, canary answers %v", b.EnvelopeEcho.Echoed, recs["params-echo.canary-answers"].Value)
	}
}
