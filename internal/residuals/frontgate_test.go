package residuals

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
	"github.com/theurian/boundlab/results"
)

// open starts a server (guarded or bare) with an initialized session.
func open(t *testing.T, guarded bool) (*Server, *Session) {
	t.Helper()
	s, err := newServer(guarded)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	se, err := s.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	return s, se
}

func gateRecords(t *testing.T) map[string]results.Record {
	t.Helper()
	if testing.Short() {
		t.Skip("measures over HTTP (~1 s); skipped in -short")
	}
	recs, err := FrontGateRecords()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]results.Record{}
	for _, r := range recs {
		if r.Method != results.Measured || r.Source == "" || r.Instance == "" || r.Unit == "" || !strings.HasPrefix(r.ID, "mcpvalidate.frontgate.") {
			t.Errorf("%s: not a complete measured front-gate record: %+v", r.ID, r)
		}
		if _, dup := byID[r.ID]; dup {
			t.Errorf("%s: twice", r.ID)
		}
		byID[strings.TrimPrefix(r.ID, "mcpvalidate.frontgate.")] = r
	}
	return byID
}

// worstEchoFiller is the bare SDK's worst params-echo class.
var worstEchoFiller = EchoFiller{"raw DEL U+007F", "\x7f"}

// TestFrontGateEchoBounded: the bare SDK's worst echo instance, sent
// directly, is an echo on the bare server and a bounded refusal holding no
// canary through the gate; the records agree with it.
func TestFrontGateEchoBounded(t *testing.T) {
	byID := gateRecords(t)
	_, bare := open(t, false)
	_, gated := open(t, true)
	body := EchoBody(worstEchoFiller, echoN)

	r, _, err := bare.Post(body)
	if err != nil {
		t.Fatal(err)
	}
	if ratio := float64(len(r.Body)) / float64(len(body)); ratio < 4.99 {
		t.Fatalf("the instance is no echo on the bare SDK (ratio %.3f): the control failed", ratio)
	}
	if r, _, err = bare.Post(CanaryEchoBody(worstEchoFiller, 4096)); err != nil || !EchoesCanary(r.Body) {
		t.Fatalf("the bare SDK's echo does not hold the canary: the detector is blind (%v)", err)
	}

	r, _, err = gated.Post(body)
	if err != nil {
		t.Fatal(err)
	}
	a := ReadAnswer(r)
	if !a.GateRefused() || a.Status != http.StatusBadRequest || a.Bound != "tool-name" {
		t.Errorf("the echo instance through the gate: %s", a)
	}
	if a.Bytes > mcpvalidate.MaxRefusalBytes() || float64(a.Bytes) > byID["params-echo.longest-answer-bytes"].Value {
		t.Errorf("answer %d bytes, the record's longest %v, MaxRefusalBytes %d", a.Bytes, byID["params-echo.longest-answer-bytes"].Value, mcpvalidate.MaxRefusalBytes())
	}
	if got := float64(a.Bytes) / float64(len(body)); got > byID["params-echo.worst-ratio"].Value {
		t.Errorf("ratio %v past the record's worst %v", got, byID["params-echo.worst-ratio"].Value)
	}
	if r, _, err = gated.Post(CanaryEchoBody(worstEchoFiller, 4096)); err != nil || EchoesCanary(r.Body) {
		t.Errorf("the gate echoed the canary (%v): %.200q", err, r.Body)
	}
	if v := byID["params-echo.canary-answers"].Value; v != 0 {
		t.Errorf("%v answers held the canary", v)
	}
	if v, lim := byID["refusal.longest-answer-bytes"].Value, float64(mcpvalidate.MaxRefusalBytes()); v > lim || v < byID["params-echo.longest-answer-bytes"].Value || v < byID["raw-control.longest-answer-bytes"].Value {
		t.Errorf("longest refusal %v: past MaxRefusalBytes %v or short of the figures it is the longest of", v, lim)
	}
}

// TestFrontGateProbes: each probe's record agrees with the gate's own
// in-process Check over the same bytes, and with the facts the docs state.
func TestFrontGateProbes(t *testing.T) {
	byID := gateRecords(t)
	s, _ := open(t, true)
	want := map[string]float64{"duplicate-params-name": 0, "invalid-utf8-tool-name": 0, "lone-surrogate-tool-name": 0, "trailing-bytes": 0,
		"arguments-bytes-intact": 0, "raw-control-in-string": 0, "unknown-params-member": 1, "arguments-sound-bytes-intact": 1}
	for _, p := range FrontGateProbes {
		t.Run(p.ID, func(t *testing.T) {
			rec, ok := byID["tolerates."+p.ID]
			if !ok {
				t.Fatalf("%s: no record", p.ID)
			}
			if w, ok := want[p.ID]; !ok || rec.Value != w {
				t.Errorf("%s: %v reaches middleware, the docs say %v", p.ID, rec.Value, w)
			}
			err := frontVerdict(s.Validator, []byte(p.Body))
			var f *mcpvalidate.Refusal
			if refused := errors.As(err, &f); refused != (rec.Value == 0) {
				t.Fatalf("%s: Check refuses %t, the record says reaches %v", p.ID, refused, rec.Value)
			}
			if f != nil && !strings.Contains(rec.Instance, f.Bound) {
				t.Errorf("%s: Check names bound %q, the record %q", p.ID, f.Bound, rec.Instance)
			}
		})
	}
}

// TestFrontGateDepthAndControls: the depth record is the arguments' own
// nesting limit, checked at and one past; raw controls get a JSON answer
// where the bare SDK gives text/plain.
func TestFrontGateDepthAndControls(t *testing.T) {
	byID := gateRecords(t)
	s, gated := open(t, true)
	limit := charge.DefaultLimits().MaxParamsNesting // newServer builds its validator with the defaults
	if v := byID["arguments-max-depth"].Value; v != float64(limit) {
		t.Errorf("arguments depth %v through the gate, the limit %d", v, limit)
	}
	for _, d := range []int{limit, limit + 1} {
		t.Run(fmt.Sprintf("depth_%d", d), func(t *testing.T) {
			s.Take()
			r, _, err := gated.Post(depthBody(d))
			if err != nil {
				t.Fatal(err)
			}
			if reached := len(s.Take()) > 0; reached != (d <= limit) {
				t.Errorf("depth %d reached middleware: %t", d, reached)
			}
			if d > limit && (!ReadAnswer(r).ProtocolForm("9") || len(r.Body) > mcpvalidate.MaxRefusalBytes()) {
				t.Errorf("depth %d: %s", d, ReadAnswer(r))
			}
		})
	}

	_, bare := open(t, false)
	body := []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"project.list\",\"arguments\":{\"a\":\"\x01" + strings.Repeat("b", echoN) + "\"}}}")
	rb, _, err := bare.Post(body)
	if err != nil {
		t.Fatal(err)
	}
	if rb.Status != http.StatusBadRequest || strings.HasPrefix(rb.ContentType, "application/json") || ReadAnswer(rb).ProtocolForm("1") {
		t.Errorf("the bare SDK's raw-control answer changed: %s", ReadAnswer(rb))
	}
	rg, _, err := gated.Post(body)
	if err != nil {
		t.Fatal(err)
	}
	if a := ReadAnswer(rg); !a.ProtocolForm("1") || float64(a.Bytes) > byID["raw-control.longest-answer-bytes"].Value || a.Bytes > mcpvalidate.MaxRefusalBytes() {
		t.Errorf("raw control through the gate: %s (record %v)", a, byID["raw-control.longest-answer-bytes"].Value)
	}
	if byID["raw-control.protocol-form"].Value != 1 {
		t.Error("a raw control answer is not in protocol form")
	}
}

// TestFrontGateStillPresent: what the gate does not judge is recorded as
// still there, and each bypass figure agrees with a direct measurement.
func TestFrontGateStillPresent(t *testing.T) {
	byID := gateRecords(t)
	if byID["init-gate.code"].Value != 0 || byID["init-gate.served-before-initialized-notification"].Value != 1 {
		t.Error("the protocol-order residuals moved: re-read the front gate and the docs")
	}
	_, gated := open(t, true)
	for _, sh := range GateEchoShapes {
		t.Run(sh.ID, func(t *testing.T) {
			body := sh.Shape(worstEchoFiller, echoN)
			r, _, err := gated.Post(body)
			if err != nil {
				t.Fatal(err)
			}
			got := float64(len(r.Body)) / float64(len(body))
			if rec := byID["params-echo."+sh.ID+".worst-ratio"]; math.Abs(got-rec.Value) > 0.01 {
				t.Errorf("%s: a direct measurement gives %.3f, the record %v", sh.ID, got, rec.Value)
			}
		})
	}
	if rec := byID["params-echo.other-method.longest-answer-bytes"]; rec.Value < 1 || rec.Value > 6*bounds.MaxOtherParamsBytes {
		t.Errorf("other-method echo %v bytes: outside what the gate's params bound allows", rec.Value)
	}
}

// TestFrontGateDocsQuoteEveryRecord: docs/mcpvalidate.md's table quotes
// every front-gate record by id, and no id that is not one.
func TestFrontGateDocsQuoteEveryRecord(t *testing.T) {
	byID := gateRecords(t)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "mcpvalidate.md"))
	if err != nil {
		t.Fatal(err)
	}
	quoted := map[string]bool{}
	for _, m := range regexp.MustCompile("`mcpvalidate\\.frontgate\\.([a-z0-9.-]+)`").FindAllSubmatch(doc, -1) {
		quoted[string(m[1])] = true
		if _, ok := byID[string(m[1])]; !ok {
			t.Errorf("the docs quote mcpvalidate.frontgate.%s, which no record is", m[1])
		}
	}
	for id := range byID {
		t.Run("quoted_"+id, func(t *testing.T) {
			if !quoted[id] {
				t.Errorf("mcpvalidate.frontgate.%s is not in the docs' table", id)
			}
		})
	}
}

// frontVerdict is the front gate's verdict on body alone, read through the
// product's public CheckRequest: a refusal at the request or of the
// arguments' charge (the stages the front gate answers), else nil.
func frontVerdict(v *mcpvalidate.Validator, body []byte) error {
	var r *mcpvalidate.Refusal
	if err := v.CheckRequest(context.Background(), body); errors.As(err, &r) && (r.Stage == mcpvalidate.StageRequest || r.Stage == mcpvalidate.StageGate) {
		return r
	}
	return nil
}
