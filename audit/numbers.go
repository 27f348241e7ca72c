package audit

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// NumberProbe is one number literal sent in a numeric member: a number
// cannot carry the canary, so what comes back is measured by its length
// and its digits.
type NumberProbe struct {
	Member string `json:"member"`
	Sent   string `json:"sent"` // the literal, or "N digits" for the long one
	// Admitted: the member's schema admits the value (no minimum or
	// maximum excludes it): a refusal is then the handler's type, not the
	// schema.
	Admitted     bool    `json:"admitted"`
	RequestBytes int     `json:"request_bytes"`
	Answer       Shape   `json:"answer"`
	Ratio        float64 `json:"ratio"` // answer bytes / request bytes
	// Quoted: the answer holds the literal whole (for the long one: a run
	// of its digits as long).
	Quoted bool `json:"quoted"`
	// QuotedAs is the form the short literal came back in: as sent, or as
	// its float64 value re-rendered (Go's encoder: 9223372036854776000 for
	// 2^63, 1e+39); "" when it did not.
	QuotedAs string `json:"quoted_as,omitempty"`
	// DigitsBack is the longest run of the long literal's digit in the
	// answer (the long literal only).
	DigitsBack int     `json:"digits_back,omitempty"`
	Verdict    Verdict `json:"verdict"` // refused, accepted (answered as a valid value), echoed (refused, quoted)
}

// MarshalJSON writes a "" verdict as null.
func (n NumberProbe) MarshalJSON() ([]byte, error) {
	type plain NumberProbe
	return marshalNulls(plain(n))
}

// numberLiterals are what a numeric member is sent: past int64 (2^63),
// past uint64, and Limits.EchoBytes digits for an integer; past float32
// (1e39), past float64 (1e400) and the long literal for a number.
func numberLiterals(integer bool, long int) []string {
	digits := strings.Repeat("9", long)
	if integer {
		return []string{"9223372036854775808", "99999999999999999999", digits}
	}
	return []string{"1e39", "1e400", digits}
}

// numbers sends the literals to the first integer and the first number
// member, beside the member at a valid value: a typed handler that cannot
// hold what the schema admits refuses it (BLA018), and one whose decode
// error quotes the literal echoes it (the long literal is an echo place).
func (a *auditor) numbers(ctx context.Context, s *session, tp *toolProbe, tr *ToolReport) error {
	for _, integer := range []bool{true, false} {
		var p *prop
		for i := range tp.props {
			q := tp.props[i].schema
			if (integer && hasType(q, "integer") && !hasType(q, "number")) || (!integer && hasType(q, "number")) {
				if q["enum"] == nil && q["const"] == nil {
					p = &tp.props[i]
					break
				}
			}
		}
		if p == nil {
			continue
		}
		good, err := a.shapeOf(ctx, s, tp, object(with(tp.base, p.name, tp.valid(*p, a.canary))))
		if err != nil {
			return err
		}
		if good.Refused() {
			a.notMeasured("numbers", tp.tool.Name, fmt.Sprintf("member %q at a valid value is refused (%s): a valid call is needed (--call)", p.name, good))
		}
		for _, lit := range numberLiterals(integer, a.limits.EchoBytes) {
			id := a.nextID()
			body := callBody(id, tp.name, object(with(tp.base, p.name, lit)))
			a.what = fmt.Sprintf("member %q = %s", p.name, lit)
			if len(lit) > 64 {
				a.what = fmt.Sprintf("member %q = a %d-digit number", p.name, len(lit))
			}
			ans, sh, err := s.call(ctx, body, id)
			if err != nil {
				return err
			}
			np := NumberProbe{Member: p.name, Sent: lit, Admitted: admits(p.schema, lit), RequestBytes: len(body), Answer: sh,
				Ratio: float64(len(ans.Raw)) / float64(len(body))}
			long := len(lit) > 64
			if long {
				np.Sent = fmt.Sprintf("%d digits", len(lit))
				np.DigitsBack = longestRun(ans.Raw, '9')
				np.Quoted = np.DigitsBack >= len(lit)
			} else {
				np.QuotedAs = quotedNumber(ans.Raw, lit)
				np.Quoted = np.QuotedAs != ""
			}
			switch {
			case good.Refused(): // not measured (said above); the bytes that came back still count
			case sh.Same(good):
				np.Verdict = VerdictAccepted
			case np.Quoted:
				np.Verdict = VerdictEchoed
			default:
				np.Verdict = VerdictRefused
			}
			tr.Numbers = append(tr.Numbers, np)
			if long {
				e := &Echo{Ratio: np.Ratio, Instance: fmt.Sprintf("tools/call %s member %q: a %s", tp.tool.Name, p.name, np.Sent),
					Echoed: np.Quoted, RequestBytes: len(body), Answer: sh, Place: fmt.Sprintf("member %q (a number literal)", p.name),
					Filler: "digit 9", Units: len(lit), UnitsBack: np.DigitsBack}
				if np.Quoted {
					e.Form = "as sent"
				}
				tr.Echoes = append(tr.Echoes, e)
				if e.worse(tr.Echo) {
					tr.Echo = e
				}
			}
		}
	}
	return nil
}

// admits reports whether no minimum, maximum or exclusive bound of p
// excludes the literal (its float64 value; 1e400 is +Inf).
func admits(p map[string]any, lit string) bool {
	v, _ := strconv.ParseFloat(lit, 64) // out of range: ±Inf, which every finite bound excludes
	if math.IsNaN(v) {
		return false
	}
	if hi, ok := num(p["maximum"]); ok && v > hi {
		return false
	}
	if hi, ok := num(p["exclusiveMaximum"]); ok && v >= hi {
		return false
	}
	if lo, ok := num(p["minimum"]); ok && v < lo {
		return false
	}
	if lo, ok := num(p["exclusiveMinimum"]); ok && v <= lo {
		return false
	}
	return true
}

// quotedNumber is the form lit takes in raw: as sent, or its float64
// value as Go's encoder or %v writes it; "" when neither is there.
func quotedNumber(raw []byte, lit string) string {
	forms := []string{lit}
	if v, err := strconv.ParseFloat(lit, 64); err == nil {
		forms = append(forms, marshal(v), strconv.FormatFloat(v, 'g', -1, 64))
	}
	for _, f := range forms {
		if f != "null" && bytes.Contains(raw, []byte(f)) {
			return f
		}
	}
	return ""
}

// longestRun is the longest run of c in b.
func longestRun(b []byte, c byte) int {
	best, n := 0, 0
	for _, x := range b {
		if x == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
