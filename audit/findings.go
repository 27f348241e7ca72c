package audit

import (
	"fmt"
	"strings"

	"github.com/theurian/boundlab/charge"
)

// Rule is one kind of finding. IDs are stable: SARIF consumers key on them.
type Rule struct {
	ID       string
	Name     string
	Severity string // the default level
	Text     string
}

// Rule ids.
const (
	RuleEcho              = "BLA001"
	RuleNoBodyCap         = "BLA002"
	RuleDeepNesting       = "BLA003"
	RuleUnknownMember     = "BLA004"
	RuleTypeMismatch      = "BLA005"
	RuleDuplicateNames    = "BLA006"
	RuleInvalidUTF8       = "BLA007"
	RuleLoneSurrogate     = "BLA008"
	RuleRawControl        = "BLA009"
	RuleTrailingBytes     = "BLA010"
	RuleIntegralFloat     = "BLA011"
	RuleBeforeInitialized = "BLA012"
	RuleRefusalNoID       = "BLA013"
	RuleClosedPastCap     = "BLA014"
	RuleBeforeInitialize  = "BLA015"
	RuleSilentPastCap     = "BLA016"
	RuleBoundNotEnforced  = "BLA017"
	RuleTypedDecode       = "BLA018"
	RuleSessionEnded      = "BLA019"
	RuleAmplification     = "BLA020"
	RuleCrossOrigin       = "BLA021"
	RuleMemory            = "BLA022"
	RuleNoSchema          = "BLA101"
	RuleOpenSchema        = "BLA102"
	RuleClosurePitfall    = "BLA103"
	RuleUnbounded         = "BLA104"
	RuleBacktracking      = "BLA106"
)

// BLA105 (renders-instance) was a note on every schema holding a keyword
// whose error text renders the instance: nearly every schema, so every audit
// exited 1. What it reported is not a defect but a figure, and stays in each
// tool's schema audit (renders, worst_render, refusal_ceiling); the id is
// not reused.

// Rules returns every rule, in id order, in a fresh slice.
func Rules() []Rule {
	return []Rule{
		{RuleEcho, "echo", SeverityError, "an answer quotes the caller's bytes; the figure is the worst answer bytes per request byte"},
		{RuleNoBodyCap, "no-body-cap", SeverityWarning, "no body cap below the probe ceiling"},
		{RuleDeepNesting, "deep-nesting", SeverityWarning, "arguments nesting deeper than charge's default bound is answered as a shallow call"},
		{RuleUnknownMember, "unknown-member", SeverityWarning, "an unknown arguments member is admitted, or refused with its value echoed"},
		{RuleTypeMismatch, "type-mismatch", SeverityWarning, "a member of the wrong JSON type is admitted, or refused with its value echoed"},
		{RuleDuplicateNames, "duplicate-names", SeverityWarning, "a repeated member name is admitted: two parsers may keep different values"},
		{RuleInvalidUTF8, "invalid-utf8", SeverityWarning, "invalid UTF-8 inside a string is admitted or silently replaced"},
		{RuleLoneSurrogate, "lone-surrogate", SeverityWarning, "an escaped lone surrogate is admitted or silently replaced"},
		{RuleRawControl, "raw-control", SeverityWarning, "a raw control character inside a string (illegal JSON) is admitted"},
		{RuleTrailingBytes, "trailing-bytes", SeverityWarning, "bytes after the JSON-RPC message are ignored"},
		{RuleIntegralFloat, "integral-float-refused", SeverityNote, "5.0 for an integer is refused (JSON Schema admits it)"},
		{RuleBeforeInitialized, "served-before-initialized", SeverityNote, "a tools/call before notifications/initialized is served"},
		{RuleRefusalNoID, "refusal-without-id", SeverityNote, "a JSON-RPC error answer does not carry the request's id"},
		{RuleClosedPastCap, "closed-past-cap", SeverityWarning, "one byte past the body cap the transport ends (the process exits, the connection is cut): one oversized message ends the session"},
		{RuleBeforeInitialize, "served-before-initialize", SeverityNote, "a tools/call on a connection that never sent initialize is served (a stateless server does so by design)"},
		{RuleSilentPastCap, "silent-past-cap", SeverityWarning, "one byte past the body cap the message draws no answer (dropped, or the server answers nothing after it): the caller waits out its timeout"},
		{RuleBoundNotEnforced, "bound-not-enforced", SeverityWarning, "a value just past a bound the tool's schema publishes is answered as a valid one"},
		{RuleTypedDecode, "typed-decode", SeverityNote, "a number the tool's schema admits is refused: the handler's type holds less than the schema publishes (past int64, float32 or float64)"},
		{RuleSessionEnded, "session-ended", SeverityWarning, "the server ends the session on a probe's input (a stdio process exits or closes its stdout, an HTTP connection is cut without an answer) instead of refusing it: one such message ends a client's session"},
		{RuleAmplification, "amplification", SeverityWarning, "an input costs the server time out of proportion: its answer takes at least 10 times the baseline's and 100 ms more (a crafted string for a backtracking pattern, a long number, a wide array, many duplicate names)"},
		{RuleCrossOrigin, "cross-origin-served", SeverityWarning, "a request carrying a foreign Origin (or, on loopback, a foreign Host) is served: a page in the user's browser can drive the server's tools"},
		{RuleMemory, "memory-amplification", SeverityWarning, "over stdio, one message at the body cap raises the server process's peak resident set by at least 16 bytes per request byte: a few such messages at once hold many times their size"},
		{RuleNoSchema, "no-input-schema", SeverityWarning, "the tool publishes no input schema"},
		{RuleOpenSchema, "open-schema", SeverityWarning, "the input schema admits unknown members"},
		{RuleClosurePitfall, "closure-pitfall", SeverityError, "additionalProperties: false beside allOf/$ref refuses the composed members too"},
		{RuleUnbounded, "unbounded", SeverityNote, "strings, arrays or open objects without a bound"},
		{RuleBacktracking, "backtracking-pattern", SeverityWarning, "a pattern with nested or overlapping quantifiers: a backtracking engine (Python's re, JavaScript's RegExp) can take exponential or polynomial time on a crafted string"},
	}
}

func ruleSeverity(id string) string {
	for _, r := range Rules() {
		if r.ID == id {
			return r.Severity
		}
	}
	return SeverityNote
}

func finding(rule, tool, msg string, fig float64, unit string) Finding {
	return Finding{Rule: rule, Tool: tool, Severity: ruleSeverity(rule), Message: msg, Figure: fig, Unit: unit}
}

// PlaceID is the echo place of the JSON-RPC id, and IDEchoSlack the ratio
// an id echo may reach and raise nothing: JSON-RPC answers with the id, so
// an over-long id comes back whole from every server that does not bound
// it (1.0x); the finding is an answer wider than that (the id rewritten
// wider by the encoder, as Go's \u003c for '<', or quoted again).
const (
	PlaceID     = "id"
	IDEchoSlack = 1.1
)

func (r *Report) boundaryFindings() []Finding {
	b := r.Boundary
	if b == nil {
		return nil
	}
	var out []Finding
	for _, e := range b.Echoes {
		if !e.Echoed || (e.Place == PlaceID && e.Ratio <= IDEchoSlack) {
			continue
		}
		f := finding(RuleEcho, "", fmt.Sprintf("an over-long value in the %s is quoted back whole (%s): %.3g answer bytes per request byte (%s)", e.Place, e.Form, e.Ratio, e.Instance), round3(e.Ratio), "answer bytes / request byte")
		if e.Ratio < 1 {
			f.Severity = SeverityWarning
		}
		out = append(out, f)
	}
	if b.BodyCap == nil && b.AtCap != nil {
		out = append(out, finding(RuleNoBodyCap, "", fmt.Sprintf("a %d-byte body is answered (%s): no cap below the probe ceiling", b.BodyCeiling, b.AtCap), float64(b.BodyCeiling), "bytes"))
	}
	if b.PastCap != nil && b.PastCap.Kind == KindSilent {
		out = append(out, finding(RuleSilentPastCap, "", fmt.Sprintf("a %d-byte body is dropped without an answer, and the next message is answered", *b.BodyCap+1), float64(*b.BodyCap+1), "bytes"))
	}
	if b.PastCap != nil && b.PastCap.Kind == KindHung {
		out = append(out, finding(RuleSilentPastCap, "", fmt.Sprintf("a %d-byte body draws no answer, and the server answers nothing after it (the process lives): one oversized message wedges the session", *b.BodyCap+1), float64(*b.BodyCap+1), "bytes"))
	}
	if b.PastCap != nil && b.PastCap.Kind == KindClosed {
		out = append(out, finding(RuleClosedPastCap, "", fmt.Sprintf("a %d-byte body ends the transport instead of drawing a refusal", *b.BodyCap+1), float64(*b.BodyCap+1), "bytes"))
	}
	out = append(out, r.sessionEndFindings()...)
	out = append(out, b.originFindings()...)
	out = append(out, b.memoryFindings()...)
	limit := charge.DefaultLimits().MaxParamsNesting
	switch {
	case b.MaxDepth == nil && b.DepthCeiling > 0 && !r.unmeasured("max_depth", ""):
		out = append(out, finding(RuleDeepNesting, "", fmt.Sprintf("arguments nesting %d levels are answered as a shallow call: no depth bound below the probe ceiling", b.DepthCeiling), float64(b.DepthCeiling), "levels"))
	case b.MaxDepth != nil && *b.MaxDepth > limit:
		out = append(out, finding(RuleDeepNesting, "", fmt.Sprintf("arguments nesting %d levels are answered as a shallow call (charge's default bound is %d)", *b.MaxDepth, limit), float64(*b.MaxDepth), "levels"))
	}
	if v := b.DuplicateNamesEnvelope; v != "" && v != VerdictRefused {
		out = append(out, finding(RuleDuplicateNames, "", "params holding \"name\" twice is admitted: "+v, 1, "admitted"))
	}
	for _, d := range []struct {
		rule, v, what string
	}{
		{RuleInvalidUTF8, b.InvalidUTF8, "invalid UTF-8 (byte 0xFF) in a string"},
		{RuleLoneSurrogate, b.LoneSurrogates, "a lone surrogate \\ud800 in a string"},
		{RuleRawControl, b.RawControls, "a raw U+0001 in a string"},
		{RuleTrailingBytes, b.TrailingBytes, "bytes after the message"},
	} {
		if d.v != "" && d.v != VerdictRefused {
			v := d.v
			if v == VerdictServed {
				v = "served (unknown whether normalised)"
			}
			out = append(out, finding(d.rule, "", d.what+" is "+v, 1, "admitted"))
		}
	}
	if b.BeforeInitialize == VerdictServed {
		out = append(out, finding(RuleBeforeInitialize, "", "a tools/call on a connection that never sent initialize is answered as after it: "+b.BeforeInitializeAnswer.String(), 1, "served"))
	}
	if b.BeforeInitialized == VerdictServed {
		out = append(out, finding(RuleBeforeInitialized, "", "a tools/call after initialize and before notifications/initialized is answered as after it: "+b.BeforeInitializedAnswer.String(), 1, "served"))
	}
	if s := b.Refusal; s != nil && s.Kind == KindRPCError && !s.IDEchoed {
		out = append(out, finding(RuleRefusalNoID, "", "the refusal ("+s.String()+") does not carry the request's id", 0, "id echoed"))
	}
	return out
}

// sessionEndFindings raises one finding per probe the server ended the
// session on; the figure is how many times it did.
func (r *Report) sessionEndFindings() []Finding {
	var out []Finding
	at := map[SessionEnd]int{} // index in out
	for _, e := range r.SessionEnds {
		if i, ok := at[e]; ok {
			out[i].Figure++
			continue
		}
		at[e] = len(out)
		how := "the server ended the session (its process exited or closed its stdout) on "
		if e.Cut {
			how = "the server cut the connection without an answer on "
		}
		out = append(out, finding(RuleSessionEnded, e.Tool, how+e.Probe, 1, "sessions ended"))
	}
	return out
}

func toolFindings(t ToolReport) []Finding {
	var out []Finding
	echoes := t.Echoes
	if len(echoes) == 0 && t.Echo != nil {
		echoes = []*Echo{t.Echo}
	}
	for _, e := range echoes {
		if !e.Echoed {
			continue
		}
		f := finding(RuleEcho, t.Name, fmt.Sprintf("an over-long argument is quoted back whole (%s): %.3g answer bytes per request byte (%s)", e.Form, e.Ratio, e.Instance), round3(e.Ratio), "answer bytes / request byte")
		if e.Ratio < 1 {
			f.Severity = SeverityWarning
		}
		out = append(out, f)
	}
	for _, p := range []struct{ rule, v, what string }{
		{RuleUnknownMember, t.UnknownMember, "an unknown arguments member"},
		{RuleTypeMismatch, t.TypeMismatch, "a member of the wrong type"},
	} {
		if p.v == VerdictAccepted || p.v == VerdictEchoed {
			out = append(out, finding(p.rule, t.Name, p.what+" is "+p.v, 1, p.v))
		}
	}
	if v := t.Duplicates; v != "" && v != VerdictRefused {
		out = append(out, finding(RuleDuplicateNames, t.Name, "an arguments member named twice is admitted: "+v, 1, "admitted"))
	}
	for _, bv := range t.BoundaryValues {
		if bv.Verdict == VerdictAccepted {
			out = append(out, finding(RuleBoundNotEnforced, t.Name, fmt.Sprintf("member %q past its %s (%s) is answered as a valid value", bv.Member, bv.Keyword, bv.Sent), bv.Bound, bv.Keyword))
		}
	}
	for _, np := range t.Numbers {
		if np.Admitted && (np.Verdict == VerdictRefused || np.Verdict == VerdictEchoed) {
			out = append(out, finding(RuleTypedDecode, t.Name, fmt.Sprintf("member %q: %s, which its schema admits, is refused (%s)", np.Member, np.Sent, np.Answer), 1, np.Verdict))
		}
	}
	for _, am := range t.Amplification {
		if am.Hurt {
			what := am.Probe
			if am.Member != "" {
				what += fmt.Sprintf(" in member %q", am.Member)
			}
			out = append(out, finding(RuleAmplification, t.Name, fmt.Sprintf("%s (%s, %d bytes) is answered in %.3g s, %.3g times the baseline's %.3g s: %.3g s per request KiB",
				what, am.Sent, am.RequestBytes, am.Seconds, am.Ratio, am.Baseline, am.SecondsPerKiB), am.Ratio, "answer time / baseline time"))
		}
	}
	if t.IntegralFloat == VerdictRefused {
		out = append(out, finding(RuleIntegralFloat, t.Name, "an integer member sent as 5.0 is refused", 1, "refused"))
	}
	return append(out, schemaFindings(t)...)
}

func schemaFindings(t ToolReport) []Finding {
	sa := t.Schema
	if sa == nil {
		return nil
	}
	var out []Finding
	switch sa.Closure {
	case ClosureNone:
		out = append(out, finding(RuleNoSchema, t.Name, "no input schema is published", 0, "schemas"))
	case ClosureOpen:
		out = append(out, finding(RuleOpenSchema, t.Name, "neither additionalProperties nor unevaluatedProperties is false at the root", 1, "open"))
	case ClosurePitfall:
		out = append(out, finding(RuleClosurePitfall, t.Name, "additionalProperties: false sits beside allOf/$ref: the members they compose in are refused too (use unevaluatedProperties: false)", 1, "pitfall"))
	}
	for _, bt := range sa.Backtracking {
		kind := "polynomial"
		if bt.Exponential {
			kind = "exponential"
		}
		out = append(out, finding(RuleBacktracking, t.Name, fmt.Sprintf("pattern at %s (%s): %s, %s time on a backtracking engine", bt.At, cutPattern(bt.Pattern), bt.Why, kind), 1, "patterns"))
	}
	if len(sa.Unbounded) > 0 {
		out = append(out, finding(RuleUnbounded, t.Name, strings.Join(cut(sa.Unbounded, 5), "; "), float64(len(sa.Unbounded)), "unbounded places"))
	}
	return out
}

// cutPattern is a published pattern fit for a message: at most 80 bytes.
func cutPattern(p string) string {
	if len(p) > 80 {
		p = p[:80] + "..."
	}
	return fmt.Sprintf("%q", p)
}

func validatorName(d charge.Dialect) string {
	if d == charge.Go {
		return "jsonschema/v6"
	}
	return "Python jsonschema"
}

func cut(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

// Fails reports whether any finding is at least as severe as least
// ("error", "warning" or "note"; "" is DefaultFailOn; any other value fails
// nothing).
func Fails(fs []Finding, least string) bool {
	if least == "" {
		least = DefaultFailOn
	}
	order := map[string]int{SeverityNote: 1, SeverityWarning: 2, SeverityError: 3}
	for _, f := range fs {
		if order[least] > 0 && order[f.Severity] >= order[least] {
			return true
		}
	}
	return false
}
