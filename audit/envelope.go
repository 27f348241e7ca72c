package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// differential is one parser-differential probe: bad bytes placed right
// after a canary inside a string; normalised are the forms an answer shows
// when the server replaced them, kept the forms it shows when they arrived
// as sent (raw, or re-escaped as the same code point or byte).
type differential struct {
	id         string
	bad        string // raw bytes inside a JSON string
	normalised []string
	kept       []string
}

func differentials() []differential {
	fffd := []string{"\ufffd", `\ufffd`, `\uFFFD`}
	return []differential{
		{"invalid_utf8", "\xff", fffd, []string{"\xff", `\\xff`, `\udcff`}},
		{"lone_surrogate", `\ud800`, fffd, []string{`\ud800`, `\uD800`, "\xed\xa0\x80", `\\ud800`}},
		{"raw_control", "\x01", nil, []string{"\x01", `\u0001`, `\\x01`}},
	}
}

// envelope runs the probes that do not depend on one tool: the params echo,
// duplicate names in the envelope, the differentials, trailing bytes, a call
// before notifications/initialized. It returns the session to go on with.
func (a *auditor) envelope(ctx context.Context, s *session, c *toolProbe, b *Boundary) (*session, error) {
	a.progress(PhaseEnvelope, "envelope")
	if err := a.placeEchoes(ctx, s, c, b); err != nil {
		return s, err
	}
	var err error
	if b.DuplicateNamesEnvelope, b.UnknownTool, err = a.envelopeDuplicates(ctx, s, c); err != nil {
		return s, err
	}
	if err := a.runDifferentials(ctx, s, c, b); err != nil {
		return s, err
	}
	if b.TrailingBytes, b.TrailingAnswer, err = a.trailing(ctx, s, c); err != nil {
		return s, err
	}
	if b.UnknownParamsMember, b.UnknownParamsAnswer, err = a.unknownParams(ctx, s, c); err != nil {
		return s, err
	}
	a.progress(PhaseEnvelope, "before initialized")
	if b.BeforeInitializedAnswer, err = a.beforeInitialized(ctx, c, true); err != nil {
		return s, err
	}
	b.BeforeInitialized = servedOrRefused(*b.BeforeInitializedAnswer, b.CarrierBaseline)
	a.progress(PhaseEnvelope, "before initialize")
	if b.BeforeInitializeAnswer, err = a.beforeInitialized(ctx, c, false); err != nil {
		return s, err
	}
	b.BeforeInitialize = servedOrRefused(*b.BeforeInitializeAnswer, b.CarrierBaseline)
	return s, nil
}

// placeEchoes sweeps the fillers through every place of the envelope a
// caller's bytes can come back from, through the carrier: malformed params
// (the go-sdk's %q echo), the tool name (one no tool has), the method, an
// unknown arguments member's name, params._meta holding a string, a
// tools/list cursor, and, over HTTP, the id (JSON-RPC answers with it, so
// a server with no bound on it echoes it: over stdio an answer whose id an
// encoder rewrote could not be told from another, and is not awaited).
func (a *auditor) placeEchoes(ctx context.Context, s *session, c *toolProbe, b *Boundary) error {
	head := func(id int) string { return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) }
	args := a.carrierArgs(c)
	rest := ""
	if args != "{}" {
		rest = "," + args[1:len(args)-1]
	}
	places := []struct {
		where string
		build func(val string, id int) []byte
	}{
		{"tools/call params {\"name\":1,\"x\":...}", func(val string, id int) []byte {
			return []byte(head(id) + `,"method":"tools/call","params":{"name":1,"x":` + val + `}}`)
		}},
		{"tools/call name (a tool no tool has)", func(val string, id int) []byte { return callBody(id, val, "{}") }},
		{"method", func(val string, id int) []byte { return []byte(head(id) + `,"method":` + val + `,"params":{}}`) }},
		{"tools/call unknown arguments member name", func(val string, id int) []byte {
			return callBody(id, c.name, "{"+val+":1"+rest+"}")
		}},
		{"tools/call params._meta (a string for an object)", func(val string, id int) []byte {
			return []byte(head(id) + `,"method":"tools/call","params":{"name":` + c.name + `,"arguments":` + args + `,"_meta":` + val + `}}`)
		}},
		{"tools/list cursor", func(val string, id int) []byte {
			return []byte(head(id) + `,"method":"tools/list","params":{"cursor":` + val + `}}`)
		}},
	}
	for i, pl := range places {
		e, err := a.sweep(ctx, s, pl.where, pl.build)
		if err != nil {
			return err
		}
		if i == 0 {
			b.EnvelopeEcho = e
		}
		b.Echoes = append(b.Echoes, e)
	}
	if _, ok := s.conn.(*httpConn); !ok {
		a.notMeasured("echoes.id", "", "over stdio an answer to an over-long id is told from others only by that id, which an encoder may rewrite")
		return nil
	}
	e, err := a.sweepWith(ctx, s, PlaceID, func(val string, _ int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + val + `,"method":"tools/call","params":{"name":` + c.name + `,"arguments":` + args + `}}`)
	}, func(val string) json.RawMessage { return json.RawMessage(val) })
	if err != nil {
		return err
	}
	b.Echoes = append(b.Echoes, e)
	return nil
}

// servedOrRefused: "served" when answered as the carrier's baseline.
func servedOrRefused(sh, base Shape) string {
	if sh.Same(base) {
		return VerdictServed
	}
	return VerdictRefused
}

// unknownParams sends the carrier's call with a params member no MCP
// version names, holding a 256-byte mark: "accepted" when answered as the
// call without it, "echoed" when the answer holds the mark, else "refused".
func (a *auditor) unknownParams(ctx context.Context, s *session, c *toolProbe) (string, *Shape, error) {
	mark := a.longMark("up")
	id := a.nextID()
	body := []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":` + c.name +
		`,"arguments":` + a.carrierArgs(c) + `,` + marshal(a.canary+"up") + `:` + marshal(mark) + `}}`)
	ans, sh, err := s.call(ctx, body, id)
	if err != nil {
		return "", nil, err
	}
	switch {
	case bytes.Contains(ans.Raw, []byte(mark)):
		return VerdictEchoed, &sh, nil
	case sh.Same(a.rep.Boundary.CarrierBaseline):
		return VerdictAccepted, &sh, nil
	}
	return VerdictRefused, &sh, nil
}

func (a *auditor) carrierArgs(c *toolProbe) string { return object(c.base) }

// envelopeDuplicates sends params with "name" twice: the carrier and a tool
// no server has, in both orders.
func (a *auditor) envelopeDuplicates(ctx context.Context, s *session, c *toolProbe) (string, *Shape, error) {
	other := marshal(a.canary + "-other")
	if c.absent {
		other = marshal(a.canary + "-absent2")
	}
	body := func(id int, n1, n2 string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":` + n1 +
			`,"name":` + n2 + `,"arguments":` + a.carrierArgs(c) + `}}`)
	}
	one := func(n string) (Answer, Shape, error) {
		id := a.nextID()
		return s.call(ctx, callBody(id, n, a.carrierArgs(c)), id)
	}
	two := func(n1, n2 string) (Answer, Shape, error) {
		id := a.nextID()
		return s.call(ctx, body(id, n1, n2), id)
	}
	_, x, err := one(c.name)
	if err != nil {
		return "", nil, err
	}
	a.rep.Boundary.CarrierBaseline = x
	_, y, err := one(other)
	if err != nil {
		return "", nil, err
	}
	unknown := &y
	xa, xy, err := two(c.name, other)
	if err != nil {
		return "", nil, err
	}
	ya, yx, err := two(other, c.name)
	if err != nil {
		return "", nil, err
	}
	a.rep.Boundary.DuplicateNamesEnvelopeAnswers = []Shape{xy, yx}
	v := winner(x, y, xy, yx)
	if v == VerdictAccepted && c.absent { // two absent names answer alike: the name quoted tells
		v = quotedWinner(xa, ya, c.name, other)
	}
	return v, unknown, nil
}

// quotedWinner reads which of two names an answer quotes.
func quotedWinner(xy, yx Answer, x, y string) string {
	qx, qy := []byte(x[1:len(x)-1]), []byte(y[1:len(y)-1])
	switch {
	case bytes.Contains(xy.Raw, qx) && !bytes.Contains(xy.Raw, qy) && bytes.Contains(yx.Raw, qy) && !bytes.Contains(yx.Raw, qx):
		return VerdictFirstWins
	case bytes.Contains(xy.Raw, qy) && !bytes.Contains(xy.Raw, qx) && bytes.Contains(yx.Raw, qx) && !bytes.Contains(yx.Raw, qy):
		return VerdictLastWins
	}
	return VerdictAccepted
}

// Differential is one parser-differential probe in one placement.
type Differential struct {
	Probe     string `json:"probe"`     // invalid_utf8, lone_surrogate, raw_control
	Placement string `json:"placement"` // "arguments" (a string member of the carrier) or "name" (a tool name no tool has)
	Verdict   string `json:"verdict"`   // refused, normalised, accepted, or served (answered as without the bytes; unknown whether normalised)
	Answer    Shape  `json:"answer"`
	Base      Shape  `json:"base"` // the same request without the bad bytes
	// Long is the answer when Limits.EchoBytes of "b" follow the bad bytes:
	// whether the answer grows with the body.
	Long Shape `json:"long_answer"`
}

// MarshalJSON writes a "" verdict as null.
func (d Differential) MarshalJSON() ([]byte, error) {
	type plain Differential
	return marshalNulls(plain(d))
}

// runDifferentials places each differential right after a canary in a
// string, next to the same string without the bad bytes: always in a tool
// name no tool has, and, when the carrier is a called tool, in its
// arguments: in its key member when that is a free string, else in an
// unknown member (the bad bytes' effect shows against the same unknown
// member without them).
func (a *auditor) runDifferentials(ctx context.Context, s *session, c *toolProbe, b *Boundary) error {
	mark := a.canary + "dv"
	type placement struct {
		name string
		body func(id int, content string) []byte
	}
	places := []placement{{"name", func(id int, content string) []byte {
		return callBody(id, `"`+mark+content+`z"`, "{}")
	}}}
	if !c.absent {
		member, prefix := a.canary+"dv", ""
		if k := c.key; k != nil && freeString(k.schema) {
			member = k.name
		}
		if (c.given || c.harvested) && !c.baseShape.Refused() {
			var err error
			if member, prefix, err = a.givenString(ctx, s, c, mark, member); err != nil {
				return err
			}
		}
		places = append(places, placement{"arguments", func(id int, content string) []byte {
			return callBody(id, c.name, object(with(c.base, member, `"`+prefix+mark+content+`z"`)))
		}})
	}
	tail := strings.Repeat("b", a.limits.EchoBytes)
	for _, pl := range places {
		id := a.nextID()
		baseAns, base, err := s.call(ctx, pl.body(id, ""), id)
		if err != nil {
			return err
		}
		// the baseline quotes the string whole (canary and end mark): an
		// answer to the bad bytes then shows what became of them
		quotes := bytes.Contains(baseAns.Raw, []byte(mark+"z"))
		for _, d := range differentials() {
			id := a.nextID()
			a.what = d.id + " in the " + pl.name
			ans, sh, err := s.call(ctx, pl.body(id, d.bad), id)
			if err != nil {
				return err
			}
			id = a.nextID()
			a.what = d.id + " in the " + pl.name + ", followed by a long string"
			_, long, err := s.call(ctx, pl.body(id, d.bad+tail), id)
			if err != nil {
				return err
			}
			v := VerdictServed // answered as without them, and nothing shows what the server made of them
			switch {
			case !sh.Same(base):
				v = VerdictRefused
			case followedBy(ans.Raw, mark, d.normalised):
				v = VerdictNormalised
			case followedBy(ans.Raw, mark, d.kept):
				v = VerdictAccepted
			case quotes && bytes.Contains(ans.Raw, []byte(mark+"z")):
				v = VerdictNormalised // the string is quoted back with the bytes dropped
			case base.Refused() && pl.name == "arguments":
				// the arguments are refused with and without the bad bytes,
				// perhaps by the layer that would refuse them: it does not
				// show (a name no tool has is refused after decoding, so
				// there the same refusal means the bytes got through)
				v = ""
				a.notMeasured(d.id, "", fmt.Sprintf("in the arguments: the carrier's call is refused (%s) with and without the bytes", base))
			}
			b.Differentials = append(b.Differentials, Differential{d.id, pl.name, v, sh, base, long})
			field := map[string]*string{"invalid_utf8": &b.InvalidUTF8, "lone_surrogate": &b.LoneSurrogates, "raw_control": &b.RawControls}[d.id]
			if exactness[v] > exactness[*field] {
				*field = v
			}
		}
	}
	return nil
}

// givenString picks, for a carrier called with a given valid call, the
// string member of that call the differentials go in: the first whose
// value with the mark appended is still answered with a result (a member
// the handler looks up, a project id, is not). It returns the member and
// its value (raw JSON string content) to keep before the mark; def and ""
// when none is.
func (a *auditor) givenString(ctx context.Context, s *session, c *toolProbe, mark, def string) (string, string, error) {
	for _, m := range c.base {
		if len(m.v) < 2 || m.v[0] != '"' {
			continue
		}
		id := a.nextID()
		_, sh, err := s.call(ctx, callBody(id, c.name, object(with(c.base, m.k, m.v[:len(m.v)-1]+mark+`z"`))), id)
		if err != nil {
			return "", "", err
		}
		if !sh.Refused() {
			return m.k, m.v[1 : len(m.v)-1], nil
		}
	}
	return def, "", nil
}

// exactness orders the differential verdicts for the headline: a placement
// that got the bytes through beats one that refused them, and a placement
// that shows what became of them (normalised, accepted) beats one that
// only served them ("served": unknown whether normalised), so the headline
// never overrides a more exact placement with a vaguer one.
var exactness = map[string]int{"": 0, VerdictRefused: 1, VerdictServed: 2, VerdictNormalised: 3, VerdictAccepted: 4}

// freeString: a string member with no enum, const, pattern or format, and
// room for the canary.
func freeString(m map[string]any) bool {
	if !hasType(m, "string") || m["enum"] != nil || m["const"] != nil || m["pattern"] != nil || m["format"] != nil {
		return false
	}
	hi, ok := num(m["maxLength"])
	return !ok || hi >= 64
}

// followedBy reports whether raw holds mark followed by one of forms.
func followedBy(raw []byte, mark string, forms []string) bool {
	for _, f := range forms {
		if bytes.Contains(raw, []byte(mark+f)) {
			return true
		}
	}
	return false
}

// trailing sends the carrier's call with bytes after the message.
func (a *auditor) trailing(ctx context.Context, s *session, c *toolProbe) (string, *Shape, error) {
	id := a.nextID()
	_, base, err := s.call(ctx, callBody(id, c.name, a.carrierArgs(c)), id)
	if err != nil {
		return "", nil, err
	}
	id = a.nextID()
	a.what = "bytes after the message"
	_, sh, err := s.call(ctx, append(callBody(id, c.name, a.carrierArgs(c)), []byte(` {"x":1}`)...), id)
	if err != nil {
		return "", nil, err
	}
	if sh.Same(base) {
		return VerdictAccepted, &sh, nil
	}
	return VerdictRefused, &sh, nil
}

// beforeInitialized calls the carrier on a fresh connection: one that sent
// initialize and not notifications/initialized (initialize true), or one
// that sent nothing before (initialize false: over HTTP, no session id).
func (a *auditor) beforeInitialized(ctx context.Context, c *toolProbe, initialize bool) (*Shape, error) {
	var s *session
	if initialize {
		var err error
		if s, err = a.open(ctx, false); err != nil {
			return nil, err
		}
	} else {
		conn, err := a.target.Open(ctx)
		if err != nil {
			return nil, err
		}
		s = &session{a: a, conn: conn, live: true} // no new session replaces it
	}
	defer s.conn.Close()
	id := a.nextID()
	_, sh, err := s.call(ctx, callBody(id, c.name, a.carrierArgs(c)), id)
	return &sh, err
}
