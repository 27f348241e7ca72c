package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// Limits bound every probe run: how much is sent, how much is read, and for
// how long.
type Limits struct {
	// BodyCeiling is the largest body the body-cap bisection sends; a server
	// that accepts it has no cap below it (Boundary.BodyCap is nil).
	BodyCeiling int64
	// DepthCeiling is the deepest arguments nesting the depth bisection sends.
	DepthCeiling int
	// EchoBytes is the filler bytes in one over-long string.
	EchoBytes int
	// MaxAnswerBytes is how much of one answer is read; the rest is dropped
	// and the answer marked truncated.
	MaxAnswerBytes int64
	// Timeout bounds one request (and, over stdio, the wait for its answer).
	Timeout time.Duration
	// MaxRequests bounds the requests of a whole run.
	MaxRequests int
	// MaxTools and MaxPages bound what tools/list may return.
	MaxTools, MaxPages int
	// MaxProbedTools bounds how many tools the per-tool probes call.
	MaxProbedTools int
}

// DefaultLimits: a 64 MiB body ceiling (past the 4 MiB go-sdk default and the
// 25 MiB cap mcpvalidate derives, so both are found), 16,384 levels (past
// encoding/json's 10,000 and sonic's 4,096), 64 KiB fillers (the envelope's
// fixed bytes then move an echo ratio by under 1%), answers read up to 256 MiB
// (a 5x echo of the largest body sent still fits), 10 s a request, 10,000
// requests a run and 128 tools called: an 80-tool server is called whole
// (BenchmarkEightyTools: about 4,100 requests, some 50 a tool beside the
// target-wide few hundred), and 128 tools at that rate fit with half again
// to spare for tools with more bounds and numbers to probe.
func DefaultLimits() Limits {
	return Limits{
		BodyCeiling:    64 << 20,
		DepthCeiling:   16384,
		EchoBytes:      64 << 10,
		MaxAnswerBytes: 256 << 20,
		Timeout:        10 * time.Second,
		MaxRequests:    10000,
		MaxTools:       1024,
		MaxPages:       64,
		MaxProbedTools: 128,
	}
}

// Config is one audit.
type Config struct {
	// Target is the server to probe; nil audits Tools statically.
	Target Target
	// Tools are the published tools of a static audit (ParseToolsList,
	// LoadSchemas); ignored when Target is set.
	Tools []Tool
	// Call names tools to call besides those annotated readOnlyHint: true;
	// AllTools calls every tool.
	Call     []string
	AllTools bool
	// Examples are valid calls, by tool name: each tool's arguments (a
	// JSON object), its baseline instead of one built from the schema (a
	// tool whose valid arguments need state the schema cannot show). A
	// tool with an example is called.
	Examples map[string]json.RawMessage
	// Sessions, when above 0, runs the session-cap probe: at most Sessions
	// sessions open at once (HTTP targets only; opt-in: it holds server
	// state).
	Sessions int
	// Memory, over stdio, reads the server's peak resident set before and
	// after one message at the body cap on a fresh process (Boundary.Memory;
	// opt-in: it starts one more process and sends the cap once more).
	Memory bool
	// Skip names tools never to call, whatever else says so.
	Skip []string
	// Cap is the body cap a static audit takes its figures at; 0 means
	// DefaultStaticCap. A probed target's figures are at its discovered cap.
	Cap int64
	// Seed makes the canary and the request ids reproducible.
	Seed uint64
	// Limits; the zero value means DefaultLimits.
	Limits Limits
	// Progress, if set, is told each probe as it starts.
	Progress func(Progress)
}

// Progress is where a run stands as a probe starts. Phase, Tool, Tools
// and Requests hold nothing the server sent (a tool is its place among
// the tools called), so a progress line made of them cannot carry a
// server's bytes to a terminal; Step names the probe and may hold a tool's
// name as the server listed it.
type Progress struct {
	Phase string
	// Tool is the tool under way (1-based) among the Tools called, in the
	// phases that go tool by tool (PhaseBaselines, PhaseTools); else 0.
	Tool, Tools int
	// Requests is how many requests the run has sent so far.
	Requests int
	Step     string
}

// The phases of a run, in the order they come.
const (
	PhaseList          = "tools/list"
	PhaseBaselines     = "baselines"
	PhaseHarvest       = "baselines from other tools' answers"
	PhaseTools         = "per-tool probes"
	PhaseAmplification = "amplification"
	PhaseEnvelope      = "envelope"
	PhaseOrigin        = "origin and host"
	PhaseBodyCap       = "body cap"
	PhaseMemory        = "peak memory"
	PhaseNesting       = "nesting depth"
	PhaseSessions      = "sessions"
)

// ErrTarget wraps every failure to reach or understand the target: the
// verb's exit status 2.
var ErrTarget = errors.New("audit: target error")

type auditor struct {
	cfg    Config
	target Target
	limits Limits
	canary string
	sent   int
	// timedSent counts the timed probes' requests among sent.
	timedSent int
	rep       *Report
	obs       *Observed // the white-box view, when the target observes
	step      string    // the probe under way, named in a target error
	what      string    // the message under way within step, where a probe names it
	tool      string    // the tool the per-tool probes are calling; "" target-wide
	// respawns counts the sessions opened after the server ended one,
	// bounded by MaxRespawns; capProbe is set while the body cap is
	// bisected (it tells an ended transport itself: closed-past-cap) and
	// bisecting while the depth is (bounded by its own steps, so its new
	// sessions do not spend the run's)
	respawns            int
	capProbe, bisecting bool
	// toolAt is the tool under way (1-based) of the toolsN called, in the
	// phases that go tool by tool; 0 elsewhere (Progress)
	toolAt, toolsN int
	// typical is the moving average of the small messages' answer times:
	// the wait for the next one follows it (wait)
	typical time.Duration
}

// Run audits the target (or the static tools) and returns the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	l := cfg.Limits
	if l == (Limits{}) {
		l = DefaultLimits()
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x626f756e646c6162))
	a := &auditor{cfg: cfg, target: cfg.Target, limits: l, canary: fmt.Sprintf("zq%08x", r.Uint32())}
	a.rep = &Report{Seed: cfg.Seed, Canary: a.canary, Findings: []Finding{}, NotMeasured: []NotMeasured{}, SessionEnds: []SessionEnd{}}
	if cfg.Target == nil {
		a.rep.Target = "static"
		a.staticTools(cfg.Tools)
		a.rep.finish(cfg.Cap)
		return a.rep, nil
	}
	setLimits(cfg.Target, l)
	a.rep.Target = cfg.Target.Name()
	if err := a.probe(ctx); errors.Is(err, errRespawns) {
		// the server ended the session once more than a run replaces:
		// what was measured stands, the rest is said not measured
		a.notMeasured(a.step, a.tool, fmt.Sprintf("the server ended the session %d times (a run opens at most %d new sessions): the probes from %q on were not run",
			len(a.rep.SessionEnds), MaxRespawns, a.label()))
	} else if err != nil {
		return a.rep, fmt.Errorf("%w: %s: %v", ErrTarget, a.step, err)
	}
	a.rep.Requests, a.rep.TimedRequests = a.sent, a.timedSent
	a.rep.finish(cfg.Cap)
	return a.rep, nil
}

func setLimits(t Target, l Limits) {
	switch t := t.(type) {
	case *HTTP:
		t.maxAnswer = l.MaxAnswerBytes
		if t.Client == nil {
			t.Client = newClient(l.Timeout)
		}
	case *Stdio:
		t.maxAnswer, t.wait = l.MaxAnswerBytes, l.Timeout
	}
}

func (a *auditor) progress(phase, step string) {
	a.step, a.what = step, ""
	if a.cfg.Progress != nil {
		p := Progress{Phase: phase, Requests: a.sent, Step: step}
		if phase == PhaseBaselines || phase == PhaseTools {
			p.Tool, p.Tools = a.toolAt, a.toolsN
		}
		a.cfg.Progress(p)
	}
}

// probe runs every probe against the target.
func (a *auditor) probe(ctx context.Context) error {
	a.progress(PhaseList, "initialize and tools/list")
	s, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer func() { s.conn.Close() }()
	a.rep.ProtocolVersion = s.version
	tools, err := s.listTools(ctx)
	if err != nil {
		return err
	}
	idle, err := a.startSessions(ctx)
	if err != nil {
		return err
	}
	probed := a.choose(tools)
	a.staticTools(tools)
	b := &Boundary{}
	a.rep.Boundary = b
	a.toolsN = len(probed)
	for i, tp := range probed {
		a.toolAt = i + 1
		a.progress(PhaseBaselines, "baseline of "+tp.tool.Name)
		a.tool = tp.tool.Name
		if err := a.baseline(ctx, s, tp); err != nil {
			return err
		}
		a.tool = ""
	}
	if err := a.rebase(ctx, s, probed); err != nil {
		return err
	}
	var carrier *toolProbe
	for i, tp := range probed {
		a.toolAt = i + 1
		a.progress(PhaseTools, "tool "+tp.tool.Name)
		a.tool = tp.tool.Name
		if err := a.probeTool(ctx, s, tp); err != nil {
			return err
		}
		if err := a.amplify(ctx, s, tp, &a.rep.Tools[tp.idx], true, false); err != nil {
			return err
		}
		a.tool = ""
		// the carrier of the target-wide probes: a tool whose baseline is a
		// result when there is one, so a refusal shows against it
		if carrier == nil || carrierRank(tp) > carrierRank(carrier) {
			carrier = tp
		}
	}
	if carrier == nil {
		carrier = a.absentCarrier()
	} else {
		b.Carrier = carrier.tool.Name
		a.tool = carrier.tool.Name
		if err := a.amplify(ctx, s, carrier, &a.rep.Tools[carrier.idx], false, true); err != nil {
			return err
		}
		a.tool = ""
	}
	if s, err = a.envelope(ctx, s, carrier, b); err != nil {
		return err
	}
	if err := a.origins(ctx, s, carrier, b); err != nil {
		return err
	}
	if err := a.bisect(ctx, s, carrier, b); err != nil {
		return err
	}
	b.Observed = a.obs
	if idle != nil {
		return a.sessionCap(ctx, idle)
	}
	return nil
}

// carrierRank orders the carrier candidates: a baseline answered with a
// result first, then one whose baseline holds a free string member (the
// differentials in the arguments go in it, so their answers differ from
// the baseline's only by the bad bytes).
func carrierRank(tp *toolProbe) int {
	r := 0
	if !tp.baseShape.Refused() {
		r += 2
		for _, m := range tp.base {
			if p := tp.prop(m.k); p != nil && freeString(p.schema) {
				r++
				break
			}
		}
	}
	return r
}

// choose decides which tools are called: readOnlyHint: true, named in
// Config.Call, or every tool under AllTools, unless named in Config.Skip;
// the rest are listed skipped.
func (a *auditor) choose(tools []Tool) []*toolProbe {
	var out []*toolProbe
	for _, t := range tools {
		tr := ToolReport{Name: t.Name}
		switch {
		case slices.Contains(a.cfg.Skip, t.Name):
			tr.Skipped = "named with --skip"
		case len(out) == a.limits.MaxProbedTools:
			tr.Skipped = fmt.Sprintf("past the %d tools one run probes", a.limits.MaxProbedTools)
		case a.cfg.AllTools:
			tr.Probed, tr.Why = true, "--all-tools"
		case slices.Contains(a.cfg.Call, t.Name):
			tr.Probed, tr.Why = true, "named with --tool"
		case a.cfg.Examples[t.Name] != nil:
			tr.Probed, tr.Why = true, "an example call given (--call, --calls)"
		case t.ReadOnly():
			tr.Probed, tr.Why = true, "readOnlyHint: true"
		default:
			tr.Skipped = "not annotated readOnlyHint: true (name it with --tool, or pass --all-tools)"
		}
		a.rep.Tools = append(a.rep.Tools, tr)
		if tr.Probed {
			out = append(out, &toolProbe{tool: t, idx: len(a.rep.Tools) - 1})
		}
	}
	return out
}
