package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// MaxSessions bounds Config.Sessions: the session-cap probe holds that many
// sessions open at once on the server.
const MaxSessions = 1000

// SessionCap is what the session-cap probe (Config.Sessions) found: how
// many sessions the server let one client hold open at once, where and how
// it refused initialize, and whether a session left idle for the whole run
// expired.
type SessionCap struct {
	Asked  int `json:"asked"`  // the most sessions the probe opens at once
	Opened int `json:"opened"` // initialized before the first refusal (or all asked)
	// RefusedAt is the session (1-based, the idle one not counted) whose
	// initialize was refused; 0 when none was.
	RefusedAt  int    `json:"refused_at"`
	Refusal    *Shape `json:"refusal"`
	RetryAfter string `json:"retry_after,omitempty"` // the refusal's Retry-After header, as sent
	// IdleSeconds is how long the idle session (opened before the other
	// probes, used by none) sat unused; IdleExpired whether a ping on it
	// was then refused (IdleAnswer).
	IdleSeconds float64 `json:"idle_seconds"`
	IdleExpired bool    `json:"idle_expired"`
	IdleAnswer  *Shape  `json:"idle_answer"`
	// Alive is how many of the Opened sessions still answer a ping once
	// the last is open: fewer than Opened when the server closes (evicts)
	// sessions to admit new ones instead of refusing initialize.
	Alive int `json:"alive"`
	// Closed is how many sessions a DELETE was answered 2xx for.
	Closed int `json:"closed"`
}

// rawSession is one session the cap probe opened, outside the auditor's
// Conn (the answer's headers are read).
type rawSession struct {
	id     string
	opened time.Time
}

// post sends one body over h with the session id (none: ""), and the
// headers hdr as name, value pairs ("Host" sets the request's host),
// counting it against the request budget, and returns the answer and its
// headers.
func (a *auditor) post(ctx context.Context, h *HTTP, method, session string, body []byte, hdr ...string) (Answer, http.Header, error) {
	if a.sent >= a.limits.MaxRequests {
		return Answer{}, nil, fmt.Errorf("the probe budget of %d requests is spent", a.limits.MaxRequests)
	}
	a.sent++
	ctx, cancel := context.WithTimeout(ctx, a.limits.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, h.URL, bytes.NewReader(body))
	if err != nil {
		return Answer{}, nil, err
	}
	for k, vs := range h.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", ProtocolVersion)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	c := h.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		if connCut(err) {
			// a measured answer, as on the probes' session; a DELETE is
			// no probe, so its cut raises nothing
			if method == http.MethodPost {
				a.rep.SessionEnds = append(a.rep.SessionEnds, SessionEnd{Probe: a.label(), Tool: a.tool, Cut: true})
			}
			return Answer{Closed: true}, http.Header{}, nil
		}
		return Answer{}, nil, fmt.Errorf("%s %s: %w", method, h.Name(), scrub(err))
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	ans := Answer{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Raw: raw, Message: extractMessage(raw)}
	return ans, resp.Header, nil
}

// openRaw initializes one session; ok false with the answer when the
// server refused it.
func (a *auditor) openRaw(ctx context.Context, h *HTTP) (rawSession, Answer, http.Header, bool, error) {
	init := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + ProtocolVersion +
		`","capabilities":{},"clientInfo":{"name":"boundlab-audit","version":"` + a.canary + `"}}}`)
	ans, hdr, err := a.post(ctx, h, http.MethodPost, "", init)
	if err != nil {
		return rawSession{}, ans, hdr, false, err
	}
	s := rawSession{id: hdr.Get("Mcp-Session-Id"), opened: time.Now()}
	if sh := ShapeOf(ans, json.RawMessage("0")); sh.Refused() {
		return s, ans, hdr, false, nil
	}
	_, _, err = a.post(ctx, h, http.MethodPost, s.id, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return s, ans, hdr, true, err
}

// startSessions opens the idle session the cap probe checks at the end;
// nil when the probe is off or the target is not HTTP (said so).
func (a *auditor) startSessions(ctx context.Context) (*rawSession, error) {
	if a.cfg.Sessions <= 0 {
		return nil, nil
	}
	h, ok := a.target.(*HTTP)
	if !ok {
		a.notMeasured("sessions", "", "the session cap is probed over HTTP only")
		return nil, nil
	}
	a.progress(PhaseSessions, "sessions: the idle session")
	s, ans, _, ok, err := a.openRaw(ctx, h)
	if err != nil {
		return nil, err
	}
	if !ok {
		sh := ShapeOf(ans, json.RawMessage("0"))
		return nil, fmt.Errorf("initialize of the idle session was refused (%s)", sh)
	}
	return &s, nil
}

// sessionCap checks the idle session, then opens up to Config.Sessions
// sessions at once until initialize is refused, and closes every one with
// DELETE.
func (a *auditor) sessionCap(ctx context.Context, idle *rawSession) error {
	h := a.target.(*HTTP)
	sc := &SessionCap{Asked: a.cfg.Sessions}
	a.rep.Boundary.Sessions = sc
	a.progress(PhaseSessions, "sessions: the idle session's expiry")
	open := []rawSession{*idle}
	defer func() {
		for _, s := range open {
			if s.id == "" {
				continue
			}
			if ans, _, err := a.post(context.WithoutCancel(ctx), h, http.MethodDelete, s.id, nil); err == nil && ans.Status/100 == 2 {
				sc.Closed++
			}
		}
	}()
	sc.IdleSeconds = float64(time.Since(idle.opened).Round(time.Millisecond)) / float64(time.Second)
	ans, _, err := a.post(ctx, h, http.MethodPost, idle.id, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		return err
	}
	sh := ShapeOf(ans, json.RawMessage("1"))
	sc.IdleAnswer, sc.IdleExpired = &sh, sh.Refused()
	a.progress(PhaseSessions, "sessions: the cap")
	for i := 1; i <= a.cfg.Sessions; i++ {
		s, ans, hdr, ok, err := a.openRaw(ctx, h)
		if err != nil {
			return err
		}
		open = append(open, s)
		if !ok {
			sh := ShapeOf(ans, json.RawMessage("0"))
			sc.RefusedAt, sc.Refusal, sc.RetryAfter = i, &sh, hdr.Get("Retry-After")
			open = open[:len(open)-1] // refused: no session to ping or close
			break
		}
		sc.Opened = i
	}
	for _, s := range open[1:] {
		ans, _, err := a.post(ctx, h, http.MethodPost, s.id, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			return err
		}
		if !ShapeOf(ans, json.RawMessage("1")).Refused() {
			sc.Alive++
		}
	}
	return nil
}

// String is the probe's answer in a line.
func (sc *SessionCap) String() string {
	out := fmt.Sprintf("%d of %d opened, %d of them alive once all were", sc.Opened, sc.Asked, sc.Alive)
	if sc.RefusedAt > 0 {
		out += fmt.Sprintf("; initialize %d refused (%s", sc.RefusedAt, sc.Refusal)
		if sc.RetryAfter != "" {
			out += ", Retry-After " + strconv.Quote(sc.RetryAfter)
		}
		out += ")"
	}
	exp := "alive"
	if sc.IdleExpired {
		exp = "expired"
	}
	return out + fmt.Sprintf("; a session idle %.1f s: %s", sc.IdleSeconds, exp)
}
