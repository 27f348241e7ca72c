package derivation

import (
	"fmt"
	"sort"
	"strings"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/results"
	"github.com/theurian/boundlab/sweeps"
)

// Finding is one consistency finding between the limits, with its arithmetic.
type Finding struct {
	ID          string `json:"id"`
	Limit       string `json:"limit"`       // the limit whose purpose it concerns
	Contradicts bool   `json:"contradicts"` // it breaks that limit's stated purpose
	Text        string `json:"text"`
}

// Need is the smallest budget that lets a file at the source-file limit reach
// its schema, for one dialect, over every encoder family.
type Need struct {
	Dialect charge.Dialect
	// Printable: every printable class (text in any script) that fits the cap.
	Printable                        int64
	PrintableClass, PrintableEncoder string
	PrintableArithmetic              string
	// All: every class that fits the cap, escapes included.
	All                  int64
	AllClass, AllEncoder string
	AllArithmetic        string
}

// Needs are the budgets each dialect needs; see Need.
func Needs(ls []Landing) []Need {
	var out []Need
	for _, d := range charge.Dialects() {
		n := Need{Dialect: d}
		for _, ld := range ls {
			if ld.Dialect != d {
				continue
			}
			if i := ld.NeedPrintableAt; i >= 0 && ld.NeedPrintable > n.Printable {
				c := ld.Classes[i]
				n.Printable, n.PrintableClass, n.PrintableEncoder, n.PrintableArithmetic = ld.NeedPrintable, classText(c), ld.Encoder.String(), c.Arithmetic()
			}
			if i := ld.NeedAllAt; i >= 0 && ld.NeedAll > n.All {
				c := ld.Classes[i]
				n.All, n.AllClass, n.AllEncoder, n.AllArithmetic = ld.NeedAll, classText(c), ld.Encoder.String(), c.Arithmetic()
			}
		}
		out = append(out, n)
	}
	return out
}

func classText(c ClassLanding) string {
	return fmt.Sprintf("%s (%s)", c.Row.Name(), sweeps.RuneName(c.Row.Example))
}

// unbounded is a budget no cap reaches, for asking what a cap alone carries.
const unbounded = int64(1) << 50

func findings(l charge.Limits, ls []Landing, m Measured) ([]Finding, error) {
	var out []Finding
	out = append(out, chargeFindings(l, ls)...)
	out = append(out, transportFinding(l, ls)...)
	f, err := budgetFindings(l)
	if err != nil {
		return nil, err
	}
	out = append(out, f...)
	out = append(out, nodeFinding(l)...)
	out = append(out, nestingFinding(l, m)...)
	return out, nil
}

// chargeFindings: files at the source-file limit that the charge refuses.
func chargeFindings(l charge.Limits, ls []Landing) []Finding {
	var out []Finding
	S, B := results.Thousands(l.MaxSourceFileBytes), results.Thousands(l.MaxParamsRenderedChars)
	for _, n := range Needs(ls) {
		unit := n.Dialect.Unit()
		printable, other := refusedByCharge(n.Dialect, ls, true), refusedByCharge(n.Dialect, ls, false)
		if len(printable) > 0 {
			out = append(out, Finding{ID: "source-file.printable-charge-bound." + n.Dialect.String(), Limit: "MaxSourceFileBytes", Contradicts: true,
				Text: fmt.Sprintf("%s dialect: printable text at MaxSourceFileBytes %s bytes is refused by the charge before its schema is reached "+
					"(budget %s %s): %s. Printable text in every script needs a budget of at least %s %s (%s under %s clients: %s).",
					n.Dialect, S, B, unit, strings.Join(printable, "; "), results.Thousands(n.Printable), unit, n.PrintableClass, n.PrintableEncoder, n.PrintableArithmetic)})
		}
		if len(other) > 0 {
			out = append(out, Finding{ID: "source-file.escape-charge-bound." + n.Dialect.String(), Limit: "MaxParamsRenderedChars",
				Text: fmt.Sprintf("%s dialect: %d classes of escaped (non-printable) text at MaxSourceFileBytes %s bytes fit the cap "+
					"and are refused by the charge (budget %s %s), which is the budget's job: it bounds what they render to. "+
					"Every class that fits the cap needs %s %s (%s under %s clients: %s).",
					n.Dialect, len(other), S, B, unit, results.Thousands(n.All), unit, n.AllClass, n.AllEncoder, n.AllArithmetic)})
		}
	}
	return out
}

// refusedByCharge lists a dialect's charge-bound classes (printable or not),
// widest first, each once with the encoder families it is charge-bound under.
func refusedByCharge(d charge.Dialect, ls []Landing, printable bool) []string {
	type entry struct {
		text   string
		charge int64
		encs   []string
	}
	by := map[string]*entry{}
	var order []*entry
	for _, ld := range ls {
		if ld.Dialect != d {
			continue
		}
		for _, c := range ld.Classes {
			if c.Outcome != ChargeBound || c.Printable() != printable {
				continue
			}
			key := classText(c) + ": " + c.Arithmetic()
			e, ok := by[key]
			if !ok {
				e = &entry{text: key, charge: c.Charge}
				by[key] = e
				order = append(order, e)
			}
			e.encs = append(e.encs, ld.Encoder.String())
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].charge > order[j].charge })
	var out []string
	for _, e := range order {
		out = append(out, fmt.Sprintf("%s (%s clients)", e.text, strings.Join(e.encs, ", ")))
	}
	return out
}

// transportFinding: classes whose file at the limit no budget lets through,
// because the cap refuses it first (the cap's residual and the controls).
func transportFinding(l charge.Limits, ls []Landing) []Finding {
	seen := map[string]bool{}
	var parts []string
	for _, ld := range ls {
		for _, c := range ld.Classes {
			key := ld.Encoder.String() + "/" + c.Row.Wire.Name
			if c.Outcome != TransportBound || seen[key] {
				continue
			}
			seen[key] = true
			parts = append(parts, fmt.Sprintf("%s under %s clients (%s bytes > %s cap %s)", c.Row.Wire.Name, ld.Encoder,
				results.Thousands(c.Wire), ld.CapName, results.Thousands(ld.Cap)))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	sort.Strings(parts)
	return []Finding{{ID: "source-file.transport-bound", Limit: "MaxSourceFileBytes",
		Text: fmt.Sprintf("%d wire classes stay refused at any budget: a file of them at MaxSourceFileBytes %s bytes is over the body cap "+
			"(their wire ratio is above the multiplier: the cap's residual and the control classes, which the multiplier leaves out): %s.",
			len(parts), results.Thousands(l.MaxSourceFileBytes), strings.Join(parts, "; "))}}
}

// budgetFindings: a budget above the most any string within the cap can charge.
func budgetFindings(l charge.Limits) ([]Finding, error) {
	s := sweeps.Shared()
	var out []Finding
	for _, d := range charge.Dialects() {
		rows, err := s.Table(d)
		if err != nil {
			return nil, err
		}
		var best sweeps.Reach
		var bestCap string
		for _, e := range charge.Encoders() {
			cp, name := capFor(l, e)
			sc := sweeps.Scenario{ID: "carry", Dialect: d, Encoder: e, Rule: sweeps.ExactRule, Transport: cp, CapName: name, Budget: unbounded}
			dv, err := sweeps.Derive(sc, rows)
			if err != nil {
				return nil, err
			}
			if dv.Worst.Charge > best.Charge {
				best, bestCap = dv.Worst, name
			}
		}
		if l.MaxParamsRenderedChars <= best.Charge {
			continue
		}
		out = append(out, Finding{ID: "budget.above-cap." + d.String(), Limit: "MaxParamsRenderedChars",
			Text: fmt.Sprintf("%s dialect: the budget %s %s is above the most one string within the %s cap %s bytes can charge, %s "+
				"(%s from %s clients, %s bytes): the charge never binds there, and the cap alone bounds the render.",
				d, results.Thousands(l.MaxParamsRenderedChars), d.Unit(), bestCap, results.Thousands(best.Transport),
				results.Thousands(best.Charge), best.Classes(), best.Encoder, results.Thousands(best.Wire))})
	}
	return out, nil
}

// nodeFinding: a node bound no body within the widest cap can reach. Every
// node after the first few costs at least 2 bytes (`0,` in an array), so a
// body of C bytes holds fewer than C/2 + 3 nodes.
func nodeFinding(l charge.Limits) []Finding {
	cp, name := capFor(l, charge.GoJSON)
	most := cp/2 + 3
	if int64(l.MaxParamsNodes) <= most {
		return nil
	}
	return []Finding{{ID: "nodes.above-cap", Limit: "MaxParamsNodes",
		Text: fmt.Sprintf("MaxParamsNodes %s is above the %s nodes any body within the %s cap %s bytes can hold "+
			"(each node past the first three costs at least 2 bytes, `0,`): the node bound never binds.",
			results.Thousands(int64(l.MaxParamsNodes)), results.Thousands(most), name, results.Thousands(cp))}}
}

// nestingFinding: a nesting bound the go-sdk's own pre-scan undercuts.
func nestingFinding(l charge.Limits, m Measured) []Finding {
	if m.SDKArgumentsMaxDepth == 0 {
		return []Finding{{ID: "nesting.sdk-unchecked", Limit: "MaxParamsNesting",
			Text: fmt.Sprintf("MaxParamsNesting %d was not checked against the go-sdk's own arguments depth: record %s is missing.", l.MaxParamsNesting, SDKDepthRecord)}}
	}
	if l.MaxParamsNesting <= m.SDKArgumentsMaxDepth {
		return nil
	}
	return []Finding{{ID: "nesting.sdk-undercuts", Limit: "MaxParamsNesting", Contradicts: true,
		Text: fmt.Sprintf("MaxParamsNesting %d is above the %d levels the go-sdk's envelope decoding lets arguments nest (record %s): "+
			"without the front gate, a document %d..%d levels deep meets the SDK's own error, not the gate's bounded refusal.",
			l.MaxParamsNesting, m.SDKArgumentsMaxDepth, m.SDKArgumentsMaxDepthRecord, m.SDKArgumentsMaxDepth+1, l.MaxParamsNesting)}}
}
