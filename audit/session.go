package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ProtocolVersion is the version the auditor asks for in initialize.
const ProtocolVersion = "2025-11-25"

// session is one connection the prober has initialized.
type session struct {
	a       *auditor
	conn    Conn
	version string // what the server answered in initialize
	// live is set once the session is open: a transport that ends after
	// that is a measured result (sessionEnded), not a failure of the run
	live bool
	// respawn says a session that ended is replaced by a new one (the
	// probes' session); a throwaway one (beforeInitialized) is not
	respawn bool
	notify  bool   // the session sent notifications/initialized
	last    string // the probe of the last message sent
}

// open starts a connection and initializes it; notify false leaves out
// notifications/initialized.
func (a *auditor) open(ctx context.Context, notify bool) (*session, error) {
	conn, err := a.target.Open(ctx)
	if err != nil {
		return nil, err
	}
	s := &session{a: a, conn: conn}
	init := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + ProtocolVersion +
		`","capabilities":{},"clientInfo":{"name":"boundlab-audit","version":"` + a.canary + `"}}}`)
	ans, err := s.sendWithin(ctx, init, json.RawMessage("0"), a.limits.Timeout+StartWait)
	if err != nil {
		conn.Close()
		return nil, err
	}
	var m struct {
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if ans.Message == nil || json.Unmarshal(ans.Message, &m) != nil || m.Result == nil {
		conn.Close()
		return nil, fmt.Errorf("initialize was not answered with a result (%s)", ShapeOf(ans, nil))
	}
	s.version, s.notify = m.Result.ProtocolVersion, notify
	if v, ok := conn.(interface{ setVersion(string) }); ok {
		v.setVersion(s.version)
	}
	if notify {
		if _, err := s.send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil); err != nil {
			conn.Close()
			return nil, err
		}
	}
	s.live, s.respawn = true, notify
	return s, nil
}

// send delivers one message and counts it against the request budget,
// awaiting its answer for the auditor's current wait.
func (s *session) send(ctx context.Context, body []byte, id json.RawMessage) (Answer, error) {
	return s.sendWithin(ctx, body, id, s.a.wait())
}

// QuickWait is the least time a message's answer is awaited once the
// server has answered: the wait is WaitFactor times the typical answer so
// far (a moving average over the small messages), at least QuickWait and at
// most Limits.Timeout (the whole timeout until a first answer). A server that drops malformed messages without
// answering (server-everything over stdio) then costs seconds a probe, not
// the timeout.
const (
	QuickWait  = 2 * time.Second
	WaitFactor = 20
)

// wait is how long the next ordinary message's answer is awaited.
func (a *auditor) wait() time.Duration {
	if a.typical == 0 {
		return a.limits.Timeout
	}
	return min(a.limits.Timeout, max(QuickWait, WaitFactor*a.typical))
}

// sendWithin is send with the answer awaited for at most wait. The message
// is the probe a.label() names (a.what is spent on it).
func (s *session) sendWithin(ctx context.Context, body []byte, id json.RawMessage, wait time.Duration) (Answer, error) {
	label := s.a.label()
	s.a.what = ""
	return s.sendLabelled(ctx, body, id, wait, label)
}

func (s *session) sendLabelled(ctx context.Context, body []byte, id json.RawMessage, wait time.Duration, label string) (Answer, error) {
	if s.a.sent >= s.a.limits.MaxRequests {
		return Answer{}, fmt.Errorf("the probe budget of %d requests is spent", s.a.limits.MaxRequests)
	}
	s.a.sent++
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	start := time.Now()
	ans, err := s.conn.Send(wctx, body, id)
	var ended *endedError
	if errors.As(err, &ended) && s.live && !s.a.capProbe {
		if ended.before { // the last message ended it: this one goes to a new session
			if err := s.ended(ctx, s.last, ended.cut); err != nil {
				return Answer{}, err
			}
			return s.sendLabelled(ctx, body, id, wait, label)
		}
		if err := s.ended(ctx, label, ended.cut); err != nil {
			return Answer{}, err
		}
		return Answer{Closed: true}, nil
	}
	s.last = label
	if took := time.Since(start); err == nil && !ans.Silent && id != nil && len(body) <= quickBody {
		if s.a.typical == 0 {
			s.a.typical = took
		}
		s.a.typical = (7*s.a.typical + took) / 8 // a moving average: one slow answer does not set the wait
	}
	return ans, err
}

// MaxRespawns bounds the sessions a run replaces after the server ended
// one (SessionEnd): each is a new process over stdio (a new initialize over
// HTTP), and a server that ends the session on most probes would otherwise
// cost a start per probe.
// Past it the probes not yet run are not measured.
const MaxRespawns = 16

// errRespawns is the run's respawn budget spent: the probes stop there and
// the report says which were not run.
var errRespawns = errors.New("respawn budget spent")

// ended records that the server ended the session on probe (cut: by
// cutting an HTTP connection) and, for the probes' session, opens a new
// one in its place (initialize, and notifications/initialized when the old
// one had sent it).
func (s *session) ended(ctx context.Context, probe string, cut bool) error {
	a := s.a
	s.conn.Close()
	a.rep.SessionEnds = append(a.rep.SessionEnds, SessionEnd{Probe: probe, Tool: a.tool, Cut: cut})
	if !s.respawn {
		return nil
	}
	if !a.bisecting {
		if a.respawns == MaxRespawns {
			return errRespawns
		}
		a.respawns++
	}
	ns, err := a.open(ctx, s.notify)
	if err != nil {
		return fmt.Errorf("a new session after the server ended one (on %s): %w", probe, err)
	}
	*s = *ns
	return nil
}

// label names the probe under way: its step and, where a probe names it,
// the message.
func (a *auditor) label() string {
	if a.what == "" {
		return a.step
	}
	return a.step + ": " + a.what
}

// quickBody bounds the messages whose answer time sets the wait: the
// body-cap probe's large bodies are timed by bodyWait.
const quickBody = 1 << 20

// StartWait is the time initialize is allowed beside the request timeout:
// over stdio each connection is a new process, and node took more than 5 s
// to answer its first message on a loaded machine.
const StartWait = 20 * time.Second

// bodyWait is how long the answer to an n-byte body is awaited: the
// current wait, plus a second for every BodyRate bytes, so a large body
// is not taken for a refused one because it is slow to carry and parse.
func (a *auditor) bodyWait(n int64) time.Duration {
	return a.wait() + time.Duration(n/BodyRate)*time.Second
}

// BodyRate is the slowest transfer (bytes a second) a body-cap probe allows
// for beside the request timeout: 1 MiB/s. The TypeScript SDK's stdio
// transport concatenates its read buffer chunk by chunk, so a 10 MiB line
// took it more than 7 s on a loaded machine.
const BodyRate = 1 << 20

// call sends a request with id and returns the answer and its shape.
func (s *session) call(ctx context.Context, body []byte, id int) (Answer, Shape, error) {
	rid := json.RawMessage(strconv.Itoa(id))
	a, err := s.send(ctx, body, rid)
	if err != nil {
		return a, Shape{}, err
	}
	s.a.observe(body, a)
	return a, ShapeOf(a, rid), nil
}

// observe counts, for an observing target, a tools/call whose arguments
// reached the middleware, and whether they arrived as the bytes sent.
func (a *auditor) observe(body []byte, ans Answer) {
	if !ans.Observed {
		return
	}
	o := a.observed()
	var m struct {
		Method string `json:"method"`
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != "tools/call" || m.Params.Arguments == nil {
		return // a body the auditor made unreadable on purpose
	}
	for _, r := range ans.Reached {
		if r.Method != "tools/call" {
			continue
		}
		o.Calls++
		if !bytes.Equal(r.Arguments, m.Params.Arguments) {
			o.ArgumentsAltered++
		}
	}
}

// observed is the report's white-box section, made on first use.
func (a *auditor) observed() *Observed {
	if a.obs == nil {
		a.obs = &Observed{}
	}
	return a.obs
}

// Tool is one tool as tools/list published it.
type Tool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations *struct {
		ReadOnlyHint *bool `json:"readOnlyHint,omitempty"`
	} `json:"annotations,omitempty"`
}

// ReadOnly reports whether the tool is annotated readOnlyHint: true.
func (t Tool) ReadOnly() bool {
	return t.Annotations != nil && t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
}

// listTools follows tools/list's pagination, at most Limits.MaxPages pages
// and Limits.MaxTools tools.
func (s *session) listTools(ctx context.Context) ([]Tool, error) {
	var tools []Tool
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page == s.a.limits.MaxPages {
			return tools, fmt.Errorf("tools/list: more than %d pages", s.a.limits.MaxPages)
		}
		params := "{}"
		if cursor != "" {
			c, _ := json.Marshal(cursor)
			params = `{"cursor":` + string(c) + `}`
		}
		ans, err := s.send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":`+params+`}`), json.RawMessage("1"))
		if err != nil {
			return nil, err
		}
		if ans.Message == nil {
			return nil, fmt.Errorf("tools/list was not answered with a result (%s)", ShapeOf(ans, nil))
		}
		listed, next, err := toolsPage(ans.Message)
		if err != nil {
			return nil, fmt.Errorf("tools/list page %d: %w (%s)", page+1, err, ShapeOf(ans, nil))
		}
		for i, t := range listed {
			if _, dup := seen[t.Name]; dup {
				return nil, fmt.Errorf("tools/list page %d: tools[%d] has the name of a tool an earlier page listed", page+1, i)
			}
			seen[t.Name] = true
		}
		tools = append(tools, listed...)
		if len(tools) > s.a.limits.MaxTools {
			return tools[:s.a.limits.MaxTools], fmt.Errorf("tools/list: more than %d tools", s.a.limits.MaxTools)
		}
		if next == "" {
			return tools, nil
		}
		cursor = next
	}
}
