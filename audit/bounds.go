package audit

import (
	"context"
	"math"
	"strconv"
	"strings"
)

// BoundaryValue is one value just past a bound the tool's schema publishes
// (Schemathesis' boundary values): the schema refuses it, so a server that
// validates against its own schema must too.
type BoundaryValue struct {
	Member  string  `json:"member"`
	Keyword string  `json:"keyword"` // maxLength, minLength, maximum, minimum, exclusiveMaximum, exclusiveMinimum, enum
	Bound   float64 `json:"bound"`   // the keyword's value (0 for enum)
	Sent    string  `json:"sent"`    // what was sent, in a few words
	// Verdict: "refused" (answered otherwise than the member at a valid
	// value), "accepted" (answered alike, with a result: the bound is not
	// enforced), null when the valid value is refused too.
	Verdict Verdict `json:"verdict"`
	Answer  Shape   `json:"answer"`
}

// MaxBoundaryValues bounds the boundary values sent to one tool.
const MaxBoundaryValues = 8

// pastValue is one value past a bound of a member's schema.
type pastValue struct {
	keyword string
	bound   float64
	sent    string
	raw     string // the value as raw JSON
}

// pastValues lists the values just past p's bounds: maxLength+1 and
// minLength-1 characters (maxLength+1 only up to maxBytes), maximum+1 and
// minimum-1 (an exclusive bound itself), and a string no enum member is.
func pastValues(p map[string]any, canary string, maxBytes int) []pastValue {
	var out []pastValue
	if hasType(p, "string") {
		if hi, ok := num(p["maxLength"]); ok && hi >= 0 && hi+1 <= float64(maxBytes) && hi == math.Trunc(hi) {
			n := int(hi) + 1
			out = append(out, pastValue{"maxLength", hi, strconv.Itoa(n) + " characters", marshal(lengthString(canary, n))})
		}
		if lo, ok := num(p["minLength"]); ok && lo >= 1 && lo <= float64(maxBytes) && lo == math.Trunc(lo) {
			n := int(lo) - 1
			out = append(out, pastValue{"minLength", lo, strconv.Itoa(n) + " characters", marshal(lengthString(canary, n))})
		}
	}
	if hasType(p, "integer") || hasType(p, "number") {
		for _, k := range []struct {
			key   string
			delta float64
			excl  bool
		}{{"maximum", 1, false}, {"minimum", -1, false}, {"exclusiveMaximum", 0, true}, {"exclusiveMinimum", 0, true}} {
			v, ok := num(p[k.key])
			if !ok || math.Abs(v) > 1<<52 {
				continue
			}
			x := v + k.delta
			out = append(out, pastValue{k.key, v, strconv.FormatFloat(x, 'f', -1, 64), strconv.FormatFloat(x, 'f', -1, 64)})
		}
	}
	if vs, ok := p["enum"].([]any); ok && len(vs) > 0 && hasType(p, "string") {
		out = append(out, pastValue{"enum", 0, "a string no enum member is", marshal(canary + "-enum")})
	}
	return out
}

// lengthString is n characters, led by as much of the canary as fits.
func lengthString(canary string, n int) string {
	if n <= len(canary) {
		return canary[:n]
	}
	return canary + strings.Repeat("a", n-len(canary))
}

// boundaryValues sends each value past a published bound of the tool's
// root members, beside the member at a valid value.
func (a *auditor) boundaryValues(ctx context.Context, s *session, tp *toolProbe, tr *ToolReport) error {
	sent := 0
	for _, p := range tp.props {
		past := pastValues(p.schema, a.canary, a.limits.EchoBytes)
		if len(past) == 0 {
			continue
		}
		good, err := a.shapeOf(ctx, s, tp, object(with(tp.base, p.name, tp.valid(p, a.canary))))
		if err != nil {
			return err
		}
		for _, pv := range past {
			if sent == MaxBoundaryValues {
				return nil
			}
			sent++
			_, sh, err := a.callArgs(ctx, s, tp, object(with(tp.base, p.name, pv.raw)))
			if err != nil {
				return err
			}
			v := VerdictRefused
			switch {
			case !sh.Same(good):
			case good.Refused():
				v = ""
			default:
				v = VerdictAccepted
			}
			tr.BoundaryValues = append(tr.BoundaryValues, BoundaryValue{p.name, pv.keyword, pv.bound, pv.sent, v, sh})
		}
	}
	return nil
}

// MarshalJSON writes a "" verdict as null.
func (b BoundaryValue) MarshalJSON() ([]byte, error) {
	type plain BoundaryValue
	return marshalNulls(plain(b))
}
