// Package residuals measures what github.com/modelcontextprotocol/go-sdk does
// with a request before any receiving middleware runs — the part of the
// request path no MCP middleware can bound — and registers the figures as
// measured results records, three producers:
//
//   - "mcpvalidate-residuals" (ids mcpvalidate.residual.*): an audit of the
//     bare go-sdk (package audit, audit.GoSDK in process): every figure is
//     read from the audit's report, its black-box findings beside what the
//     observing middleware saw reach the SDK's middleware tier;
//   - "audit" (ids audit.*): the headline figures of the audit reports of
//     the in-process real servers (auditrecords.go);
//   - "frontgate-residuals" (ids mcpvalidate.frontgate.*): the front gate's
//     own regression measurement (frontgate.go, on the instrument in
//     probe.go): the bypass shapes its envelope check is held against.
//
// This is a lab package: production code (mcpvalidate) does not import it.
package residuals

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/results"
)

// Producer is the name the bare SDK's records are registered and pinned
// under.
const Producer = "mcpvalidate-residuals"

const sdkModule = "github.com/modelcontextprotocol/go-sdk"

func init() {
	// A whole audit of the bare go-sdk, in process, takes seconds: it runs
	// only when asked (the audit producer shares the same run).
	results.Register(results.Producer{Name: Producer, Records: Records,
		Remeasures: "audits the bare go-sdk in process (go-sdk-bare, the report the audit producer shares)"})
}

var bare struct {
	sync.Mutex
	rep *audit.Report
}

// BareReport is the audit of the bare go-sdk (BareSDKTarget, Calls, Seed,
// the default limits), run once per process: both producers read it.
func BareReport() (*audit.Report, error) {
	bare.Lock()
	defer bare.Unlock()
	if bare.rep != nil {
		return bare.rep, nil
	}
	t, err := BareSDKTarget()
	if err != nil {
		return nil, err
	}
	rep, err := audit.Run(context.Background(), audit.Config{Target: t, Call: Calls, Seed: Seed})
	if err != nil {
		return nil, err
	}
	if rep.Boundary == nil || rep.Boundary.Observed == nil {
		return nil, fmt.Errorf("the audit of the bare go-sdk observed nothing: the observing target is broken")
	}
	bare.rep = rep
	return rep, nil
}

const instrument = "internal/residuals.Records: audit.Run (seed 7, default limits, tools project.list and knowledge.search called) on the bare go-sdk in process: " +
	"audit.GoSDK, the demo's tools typed, the SDK's default streamable handler, an observing receiving middleware outermost (protocol 2025-11-25)"

func reached(s *audit.Shape) bool { return s != nil && s.Reached != nil && *s.Reached }

// differential is the report's differential probe in one placement.
func differential(b *audit.Boundary, probe, placement string) (audit.Differential, error) {
	for _, d := range b.Differentials {
		if d.Probe == probe && d.Placement == placement {
			return d, nil
		}
	}
	return audit.Differential{}, fmt.Errorf("the audit ran no %s probe in the %s", probe, placement)
}

// Records reads every residual from the audit of the bare go-sdk. Each keeps
// the meaning it had when a hand-written probe measured it: what the SDK
// does before any receiving middleware runs.
func Records() ([]results.Record, error) {
	rep, err := BareReport()
	if err != nil {
		return nil, err
	}
	b, o := rep.Boundary, rep.Boundary.Observed
	build := results.CurrentBuild(sdkModule)
	var out []results.Record
	rec := func(id, title string, v float64, unit, instance string, tol float64) {
		out = append(out, results.Record{ID: "mcpvalidate.residual." + id, Title: title, Value: v, Unit: unit, Instance: instance,
			Method: results.Measured, Source: instrument, Tolerance: tol, Build: build})
	}

	e := b.EnvelopeEcho
	if e == nil || !e.Echoed || reached(&e.Answer) {
		return nil, fmt.Errorf("the params echo's premise (echoed before middleware) no longer holds: %+v", e)
	}
	rec("params-echo.worst-ratio",
		"the go-sdk's answer to params that do not fit CallToolParamsRaw echoes them (%q, then JSON) before any middleware runs: answer bytes per request byte, worst instance",
		round(e.Ratio, 3), "answer bytes / request bytes",
		fmt.Sprintf("%s (a %d-byte request), worst over the audit's %d filler classes (audit.Fillers; a lone byte 0x80-0xFF ties DEL: %%q writes \\xNN, JSON escapes its backslash); the answer did not reach middleware", e.Instance, e.RequestBytes, len(audit.Fillers())),
		0.002)

	gate := b.BeforeInitializeAnswer
	if gate == nil || gate.Code == nil {
		return nil, fmt.Errorf("a tools/call before initialize drew no JSON-RPC error: %v", gate)
	}
	rec("init-gate.code", "the JSON-RPC error code the go-sdk's initialization gate answers with (a plain error: code 0, not a JSON-RPC code)",
		float64(*gate.Code), "JSON-RPC error code", fmt.Sprintf("tools/call %s POSTed with no session and no initialize (%s)", b.Carrier, gate), 0)
	rec("init-gate.served-before-initialized-notification", "a tools/call after initialize and before notifications/initialized is served (1) or refused (0)",
		b2f(b.BeforeInitialized == audit.VerdictServed), "1 = served",
		fmt.Sprintf("initialize, then tools/call %s without notifications/initialized: %s, as after it", b.Carrier, b.BeforeInitializedAnswer), 0)

	if o.ArgumentsMaxDepth == nil {
		return nil, fmt.Errorf("arguments nesting %d levels still reach middleware", b.DepthCeiling)
	}
	rec("sdk.arguments-max-depth", "the deepest arguments nesting the go-sdk's envelope decoding lets through to middleware (the arguments object is level 1; the gate's own bound is 64)",
		float64(*o.ArgumentsMaxDepth), "levels", fmt.Sprintf("tools/call %s with arguments {\"a\":{\"a\":...{}}}, bisected over 1..%d on what reached the observing middleware", b.Carrier, b.DepthCeiling), 0)

	tolerates := func(id, name string, s *audit.Shape, what string) {
		rec("sdk.tolerates."+id, "the go-sdk lets this envelope through to middleware (1) or refuses it first (0): "+name, b2f(reached(s)), "1 = reaches middleware", what, 0)
	}
	dup := b.DuplicateNamesEnvelopeAnswers
	if len(dup) != 2 {
		return nil, fmt.Errorf("the envelope duplicate probe drew %d answers", len(dup))
	}
	kept := "neither"
	switch {
	case dup[0].ReachedAs == b.Carrier && dup[1].ReachedAs != b.Carrier:
		kept = "first wins"
	case dup[1].ReachedAs == b.Carrier && dup[0].ReachedAs != b.Carrier:
		kept = "last wins"
	}
	both := &audit.Shape{Reached: new(bool)}
	*both.Reached = reached(&dup[0]) && reached(&dup[1])
	tolerates("duplicate-params-name", "params holds \"name\" twice", both,
		fmt.Sprintf("params {\"name\":%q,\"name\":<a tool no server has>} and the reverse: both reached middleware, as the name sent last (%s)", b.Carrier, kept))
	for _, p := range []struct{ id, probe, name string }{
		{"invalid-utf8-tool-name", "invalid_utf8", "the tool name holds the byte 0xFF"},
		{"lone-surrogate-tool-name", "lone_surrogate", "the tool name escapes a lone surrogate \\ud800"},
	} {
		d, err := differential(b, p.probe, "name")
		if err != nil {
			return nil, err
		}
		what := fmt.Sprintf("refused before middleware: %s", d.Answer)
		if reached(&d.Answer) {
			what = fmt.Sprintf("reached middleware as %q (%s)", d.Answer.ReachedAs, d.Verdict)
		}
		tolerates(p.id, p.name, &d.Answer, what)
	}
	what := func(s *audit.Shape, yes string) string {
		if reached(s) {
			return yes
		}
		return "refused before middleware: " + s.String()
	}
	tolerates("trailing-bytes", "bytes after the JSON-RPC message", b.TrailingAnswer, what(b.TrailingAnswer, "reached middleware; the trailing bytes were ignored"))
	tolerates("unknown-params-member", "params holds a member CallToolParamsRaw does not name", b.UnknownParamsAnswer,
		what(b.UnknownParamsAnswer, "reached middleware; the member was dropped, invisible to it"))

	var args []audit.Shape
	for _, t := range rep.Tools {
		args = append(args, t.DuplicateAnswers...)
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("no called tool had a member for the arguments duplicate probe")
	}
	all := &audit.Shape{Reached: new(bool)}
	*all.Reached = true
	for i := range args {
		*all.Reached = *all.Reached && reached(&args[i])
	}
	intact := fmt.Sprintf("%d of %d tools/calls that reached middleware arrived with their arguments altered", o.ArgumentsAltered, o.Calls)
	if o.ArgumentsAltered == 0 {
		intact = fmt.Sprintf("arguments reached middleware byte for byte, in each of the %d tools/calls that reached it (mcpvalidate's middleware refuses the duplicate)", o.Calls)
	}
	tolerates("arguments-bytes-intact", "arguments hold a duplicate key and an escaped name", all,
		fmt.Sprintf("the key member twice, the second spelled with its first character escaped, both orders, %d calls: %s", len(args), intact))

	rc, err := differential(b, "raw_control", "arguments")
	if err != nil {
		return nil, err
	}
	tolerates("raw-control-in-string", "a raw U+0001 inside a string in arguments", &rc.Answer, what(&rc.Answer, "reached middleware"))

	worst400, seen := 0, []string{}
	for _, d := range b.Differentials {
		if d.Probe != "raw_control" {
			continue
		}
		for _, s := range []audit.Shape{d.Answer, d.Long} {
			if s.Status != 400 || reached(&s) {
				return nil, fmt.Errorf("raw control in the %s: %s, want the SDK's 400 before middleware", d.Placement, s)
			}
			worst400 = max(worst400, s.Bytes)
		}
		seen = append(seen, fmt.Sprintf("%s: %d and %d bytes", d.Placement, d.Answer.Bytes, d.Long.Bytes))
	}
	rec("sdk.malformed-400-answer-bytes", "the go-sdk's HTTP 400 for a message its decoder refuses quotes a fragment of the body: the longest answer, which stays flat as the body grows",
		float64(worst400), "bytes", fmt.Sprintf("a raw U+0001 in the tool name and in an arguments string, each alone and followed by %d bytes of b (%s)", audit.DefaultLimits().EchoBytes, strings.Join(seen, "; ")), 0)
	return out, nil
}
