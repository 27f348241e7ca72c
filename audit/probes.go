package audit

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// toolProbe is one tool the per-tool probes call, and what they learnt.
type toolProbe struct {
	tool      Tool
	idx       int    // its row in Report.Tools
	name      string // its name as a JSON string
	props     []prop
	base      []member // the baseline arguments
	baseShape Shape
	key       *prop     // the member the mismatch, duplicate and differential probes use
	absent    bool      // a tool name no tool has: nothing runs
	given     bool      // base is Config.Examples'
	gen       *valueGen // builds values its schema admits; nil when the schema does not compile
	// baseAnswer is the baseline's JSON-RPC answer, whose strings may be
	// another tool's baseline values (rebase); harvested says base took
	// such values
	baseAnswer []byte
	harvested  bool
	// answered holds the shape of each arguments object the tool answered
	// (a result or a refusal; not silence, nor an end): the probes that
	// set a member at its valid value beside a bad one often send the
	// same arguments as the baseline or as each other, and the answer
	// they compare against is the one already drawn
	answered map[string]Shape
}

func (a *auditor) nextID() int { return 100 + a.sent }

func callBody(id int, name, args string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":` + name + `,"arguments":` + args + `}}`)
}

// callArgs calls the tool with args and returns the answer and its shape.
func (a *auditor) callArgs(ctx context.Context, s *session, tp *toolProbe, args string) (Answer, Shape, error) {
	id := a.nextID()
	ans, sh, err := s.call(ctx, callBody(id, tp.name, args), id)
	if err == nil && sh.Kind != KindSilent && sh.Kind != KindClosed && len(args) <= maxAnsweredArgs {
		if tp.answered == nil {
			tp.answered = map[string]Shape{}
		}
		tp.answered[args] = sh
	}
	return ans, sh, err
}

// maxAnsweredArgs bounds the arguments whose answer's shape a tool keeps:
// the valid values the probes compare against are small; the over-long
// ones are never sent twice.
const maxAnsweredArgs = 4 << 10

// shapeOf is the shape of the tool's answer to args: the one it drew
// already, else a call's.
func (a *auditor) shapeOf(ctx context.Context, s *session, tp *toolProbe, args string) (Shape, error) {
	if sh, ok := tp.answered[args]; ok {
		return sh, nil
	}
	_, sh, err := a.callArgs(ctx, s, tp, args)
	return sh, err
}

// absentCarrier is the carrier when no tool may be called: a tool name the
// server does not have, so every probe is answered before any handler runs.
func (a *auditor) absentCarrier() *toolProbe {
	return &toolProbe{name: marshal(a.canary + "-absent"), absent: true, idx: -1}
}

// prepare reads the tool's schema for the probes: its properties, the
// baseline arguments (every required member, valid as far as the schema
// says) and the key member (a required one first, a string one first).
func (a *auditor) prepare(tp *toolProbe) {
	tp.name = marshal(tp.tool.Name)
	tr := &a.rep.Tools[tp.idx]
	tr.BaselineFrom = BaselineSchema
	if ex := a.cfg.Examples[tp.tool.Name]; ex != nil {
		if ms, err := orderedMembers(ex); err == nil {
			tp.base, tp.given, tr.BaselineFrom = ms, true, BaselineGiven
		}
	}
	doc, err := parseSchema(tp.tool.InputSchema)
	if err != nil || doc == nil {
		return
	}
	tp.props = doc.rootProps()
	if !tp.given {
		a.schemaBaseline(tp, tr)
	}
	rank := func(p prop) int {
		r := 0
		if p.required {
			r += 2
		}
		if hasType(p.schema, "string") {
			r++
		}
		return r
	}
	for i := range tp.props {
		if tp.key == nil || rank(tp.props[i]) > rank(*tp.key) {
			tp.key = &tp.props[i]
		}
	}
}

// prop is the member named k, nil when the schema names none.
func (tp *toolProbe) prop(k string) *prop {
	for i := range tp.props {
		if tp.props[i].name == k {
			return &tp.props[i]
		}
	}
	return nil
}

// valid is a valid value of member p: the given call's (Config.Examples),
// else one built from its schema.
func (tp *toolProbe) valid(p prop, canary string) string {
	for _, m := range tp.base {
		if m.k == p.name {
			return m.v
		}
	}
	if tp.gen != nil {
		if v, err := tp.gen.Member(p.name); err == nil {
			return string(v)
		}
	}
	return validValue(p.schema, canary, 4)
}

// baseline reads the tool's schema and calls it with its baseline.
func (a *auditor) baseline(ctx context.Context, s *session, tp *toolProbe) error {
	a.prepare(tp)
	ans, sh, err := a.callArgs(ctx, s, tp, object(tp.base))
	if err != nil {
		return err
	}
	tp.baseShape, tp.baseAnswer = sh, ans.Message
	a.rep.Tools[tp.idx].Baseline = &tp.baseShape
	return nil
}

// probeTool runs the per-tool probes against the baseline.
func (a *auditor) probeTool(ctx context.Context, s *session, tp *toolProbe) error {
	tr := &a.rep.Tools[tp.idx]
	mark := a.longMark("uk")
	ans, sh, err := a.callArgs(ctx, s, tp, object(with(tp.base, mark, marshal(mark))))
	if err != nil {
		return err
	}
	tr.UnknownMember = a.argVerdict(tp, "unknown_member", sh, ans, mark)
	if tp.key != nil {
		mark := a.longMark("mm")
		ans, sh, err := a.callArgs(ctx, s, tp, object(with(tp.base, tp.key.name, mismatchValue(tp.key.schema, mark))))
		if err != nil {
			return err
		}
		tr.TypeMismatch = a.argVerdict(tp, "type_mismatch", sh, ans, mark)
		tr.Refusal = &sh
		if tr.Duplicates, err = a.argDuplicates(ctx, s, tp); err != nil {
			return err
		}
	}
	if tr.IntegralFloat, err = a.integralFloat(ctx, s, tp); err != nil {
		return err
	}
	if err := a.boundaryValues(ctx, s, tp, tr); err != nil {
		return err
	}
	if err := a.numbers(ctx, s, tp, tr); err != nil {
		return err
	}
	return a.toolEcho(ctx, s, tp, tr)
}

// longMark is a canary-led value of markBytes bytes: "echoed" means the
// answer holds all of it, so a refusal that quotes a name cut short (as
// mcpvalidate's do, at charge.KeyCut bytes) is not an echo.
func (a *auditor) longMark(tag string) string {
	m := a.canary + tag
	return m + strings.Repeat("k", markBytes-len(m))
}

// markBytes is the length of the unknown member's name and the mistyped
// value: well past any cut a bounded refusal makes of a name.
const markBytes = 256

// echoVerdict: "accepted" when the answer is a result, else "echoed" when
// it quotes mark whole, else "refused".
func echoVerdict(sh Shape, ans Answer, mark string) string {
	switch {
	case !sh.Refused():
		return VerdictAccepted
	case bytes.Contains(ans.Raw, []byte(mark)):
		return VerdictEchoed
	}
	return VerdictRefused
}

// argVerdict is echoVerdict for an arguments probe, "" (not measured,
// said so) when the tool's baseline is refused and the probe is refused
// alike without quoting the mark: the refusal may be the handler's, as the
// baseline's is, so whether a validator refused first does not show.
func (a *auditor) argVerdict(tp *toolProbe, probe string, sh Shape, ans Answer, mark string) string {
	v := echoVerdict(sh, ans, mark)
	if v == VerdictRefused && tp.baseShape.Refused() && sh.Same(tp.baseShape) {
		a.notMeasured(probe, tp.tool.Name, fmt.Sprintf("the baseline call is refused (%s) and this probe is refused alike: "+
			"the refusal may be the handler's; give a valid call with --call", tp.baseShape))
		return ""
	}
	return v
}

// Verdicts.
const (
	VerdictRefused    = "refused"
	VerdictAccepted   = "accepted"
	VerdictEchoed     = "echoed"
	VerdictFirstWins  = "first-wins"
	VerdictLastWins   = "last-wins"
	VerdictNormalised = "normalised"
	VerdictServed     = "served"
)

// argDuplicates sends the key member twice, a valid value and a mistyped
// one, in both orders: the answer that matches the valid value's tells which
// occurrence the server kept.
func (a *auditor) argDuplicates(ctx context.Context, s *session, tp *toolProbe) (string, error) {
	good := tp.valid(*tp.key, a.canary)
	bad := mismatchValue(tp.key.schema, a.canary)
	goodSh, err := a.shapeOf(ctx, s, tp, object(with(tp.base, tp.key.name, good)))
	if err != nil {
		return "", err
	}
	badSh, err := a.shapeOf(ctx, s, tp, object(with(tp.base, tp.key.name, bad)))
	if err != nil {
		return "", err
	}
	rest := object(without(tp.base, tp.key.name))
	dup := func(first, second string) string {
		// the second occurrence spells the name with its first character
		// escaped: a duplicate check that compares raw bytes misses it
		head := "{" + marshal(tp.key.name) + ":" + first + "," + escapedName(tp.key.name) + ":" + second
		if rest == "{}" {
			return head + "}"
		}
		return head + "," + rest[1:]
	}
	_, gb, err := a.callArgs(ctx, s, tp, dup(good, bad))
	if err != nil {
		return "", err
	}
	_, bg, err := a.callArgs(ctx, s, tp, dup(bad, good))
	if err != nil {
		return "", err
	}
	a.rep.Tools[tp.idx].DuplicateAnswers = []Shape{gb, bg}
	return winner(goodSh, badSh, gb, bg), nil
}

// winner reads two duplicate probes against the shapes of their two values
// alone: x (sent first in xy, second in yx) and y.
func winner(x, y, xy, yx Shape) string {
	switch {
	case x.Same(y):
		if xy.Same(x) && yx.Same(x) {
			return "" // both values answer alike: neither the winner nor a refusal shows
		}
		return VerdictRefused
	case xy.Same(x) && yx.Same(y):
		return VerdictFirstWins
	case xy.Same(y) && yx.Same(x):
		return VerdictLastWins
	}
	return VerdictRefused
}

// escapedName is name as a JSON string whose first character is written as
// a \u escape (a surrogate pair past U+FFFF).
func escapedName(name string) string {
	if name == "" {
		return `""`
	}
	r, size := utf8.DecodeRuneInString(name)
	var esc string
	if r >= 0x10000 {
		r1, r2 := utf16.EncodeRune(r)
		esc = fmt.Sprintf(`\u%04x\u%04x`, r1, r2)
	} else {
		esc = fmt.Sprintf(`\u%04x`, r)
	}
	rest := marshal(name[size:])
	return `"` + esc + rest[1:]
}

func without(ms []member, k string) []member {
	var out []member
	for _, m := range ms {
		if m.k != k {
			out = append(out, m)
		}
	}
	return out
}

// integralFloat sends an integer member as an integral float (5.0).
func (a *auditor) integralFloat(ctx context.Context, s *session, tp *toolProbe) (string, error) {
	for _, p := range tp.props {
		if !hasType(p.schema, "integer") || hasType(p.schema, "number") {
			continue
		}
		v := tp.valid(p, a.canary)
		if strings.ContainsAny(v, ".eE") || p.schema["enum"] != nil || p.schema["const"] != nil {
			continue
		}
		intSh, err := a.shapeOf(ctx, s, tp, object(with(tp.base, p.name, v)))
		if err != nil {
			return "", err
		}
		if intSh.Refused() {
			// 5 itself is refused: whether 5.0 is refused for its form
			// cannot show
			a.notMeasured("integral_float", tp.tool.Name, fmt.Sprintf("member %q at %s is refused (%s): a valid call is needed (--call)", p.name, v, intSh))
			return "", nil
		}
		_, sh, err := a.callArgs(ctx, s, tp, object(with(tp.base, p.name, v+".0")))
		if err != nil {
			return "", err
		}
		if sh.Same(intSh) {
			return VerdictAccepted, nil
		}
		return VerdictRefused, nil
	}
	return "", nil
}

// toolEcho sweeps the fillers through an unknown member's value, the key
// member, and a member of the wrong type (the string where a non-string
// member is wanted, else in an array at a string member).
func (a *auditor) toolEcho(ctx context.Context, s *session, tp *toolProbe, tr *ToolReport) error {
	type place struct {
		where string
		args  func(val string) string
	}
	places := []place{{"unknown member value", func(val string) string { return object(with(tp.base, a.canary+"ux", val)) }}}
	if k := tp.key; k != nil {
		where := fmt.Sprintf("member %q", k.name)
		if !hasType(k.schema, "string") && len(types(k.schema)) > 0 {
			where += " (a string for " + strings.Join(types(k.schema), "/") + ")"
		}
		places = append(places, place{where, func(val string) string { return object(with(tp.base, k.name, val)) }})
	}
	// a key member that takes no string is itself the wrong-type place:
	// the same bytes are not swept twice
	if p := tp.mismatchProp(); p != nil && (p != tp.key || hasType(p.schema, "string")) {
		wrap := func(val string) string { return val }
		what := "a string for " + strings.Join(types(p.schema), "/")
		if hasType(p.schema, "string") {
			wrap, what = func(val string) string { return "[" + val + "]" }, "an array for a string"
		}
		places = append(places, place{fmt.Sprintf("member %q (%s)", p.name, what), func(val string) string { return object(with(tp.base, p.name, wrap(val))) }})
	}
	for _, pl := range places {
		e, err := a.sweep(ctx, s, "tools/call "+tp.tool.Name+" "+pl.where, func(val string, id int) []byte {
			return callBody(id, tp.name, pl.args(val))
		})
		if err != nil {
			return err
		}
		tr.Echoes = append(tr.Echoes, e)
		if e.worse(tr.Echo) {
			tr.Echo = e
		}
	}
	return nil
}

// mismatchProp is the member a value of the wrong type goes to: the first
// whose type is named and is not string, else the key member when it is a
// string.
func (tp *toolProbe) mismatchProp() *prop {
	for i := range tp.props {
		if ts := types(tp.props[i].schema); len(ts) > 0 && !hasType(tp.props[i].schema, "string") {
			return &tp.props[i]
		}
	}
	if tp.key != nil && hasType(tp.key.schema, "string") {
		return tp.key
	}
	return nil
}
