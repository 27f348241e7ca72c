package audit

import (
	"bytes"
	"context"
	"strconv"
)

// differential is one parser-differential probe: bad bytes placed right
// after a canary inside a string; Normalised are the forms an answer shows
// when the server replaced them.
type differential struct {
	id         string
	bad        string // raw bytes inside a JSON string
	normalised []string
}

func differentials() []differential {
	fffd := []string{"\ufffd", `\ufffd`, `\uFFFD`}
	return []differential{
		{"invalid_utf8", "\xff", fffd},
		{"lone_surrogate", `\ud800`, fffd},
		{"raw_control", "\x01", nil},
	}
}

// envelope runs the probes that do not depend on one tool: the params echo,
// duplicate names in the envelope, the differentials, trailing bytes, a call
// before notifications/initialized. It returns the session to go on with.
func (a *auditor) envelope(ctx context.Context, s *session, c *toolProbe, b *Boundary) (*session, error) {
	a.progress("envelope")
	e, err := a.sweep(ctx, s, "tools/call params {\"name\":1,\"x\":...}", func(val string, id int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":1,"x":` + val + `}}`)
	})
	if err != nil {
		return s, err
	}
	b.EnvelopeEcho = e
	if b.DuplicateNamesEnvelope, b.UnknownTool, err = a.envelopeDuplicates(ctx, s, c); err != nil {
		return s, err
	}
	if err := a.runDifferentials(ctx, s, c, b); err != nil {
		return s, err
	}
	if b.TrailingBytes, err = a.trailing(ctx, s, c); err != nil {
		return s, err
	}
	b.BeforeInitializedAnswer, err = a.beforeInitialized(ctx, c)
	if err == nil {
		b.BeforeInitialized = VerdictRefused
		if b.BeforeInitializedAnswer.Same(b.CarrierBaseline) {
			b.BeforeInitialized = VerdictServed
		}
	}
	return s, err
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

// runDifferentials places each differential in a string the carrier's
// arguments hold (its key member when it is a string, else an unknown
// member), next to the same string without the bad bytes.
func (a *auditor) runDifferentials(ctx context.Context, s *session, c *toolProbe, b *Boundary) error {
	key := a.canary + "df"
	if c.key != nil && hasType(c.key.schema, "string") && c.key.schema["enum"] == nil && c.key.schema["pattern"] == nil {
		key = c.key.name
	}
	mark := a.canary + "dv"
	call := func(content string) (Answer, Shape, error) {
		id := a.nextID()
		return s.call(ctx, callBody(id, c.name, object(with(c.base, key, `"`+mark+content+`z"`))), id)
	}
	_, base, err := call("")
	if err != nil {
		return err
	}
	for _, d := range differentials() {
		ans, sh, err := call(d.bad)
		if err != nil {
			return err
		}
		v := VerdictAccepted
		switch {
		case sh.Refused() && !sh.Same(base):
			v = VerdictRefused
		case followedBy(ans.Raw, mark, d.normalised):
			v = VerdictNormalised
		}
		switch d.id {
		case "invalid_utf8":
			b.InvalidUTF8 = v
		case "lone_surrogate":
			b.LoneSurrogates = v
		case "raw_control":
			b.RawControls = v
		}
	}
	return nil
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
func (a *auditor) trailing(ctx context.Context, s *session, c *toolProbe) (string, error) {
	id := a.nextID()
	_, base, err := s.call(ctx, callBody(id, c.name, a.carrierArgs(c)), id)
	if err != nil {
		return "", err
	}
	id = a.nextID()
	_, sh, err := s.call(ctx, append(callBody(id, c.name, a.carrierArgs(c)), []byte(` {"x":1}`)...), id)
	if err != nil {
		return "", err
	}
	if sh.Same(base) {
		return VerdictAccepted, nil
	}
	return VerdictRefused, nil
}

// beforeInitialized calls the carrier on a fresh session that sent
// initialize and not notifications/initialized.
func (a *auditor) beforeInitialized(ctx context.Context, c *toolProbe) (*Shape, error) {
	s, err := a.open(ctx, false)
	if err != nil {
		return nil, err
	}
	defer s.conn.Close()
	id := a.nextID()
	_, sh, err := s.call(ctx, callBody(id, c.name, a.carrierArgs(c)), id)
	return &sh, err
}
