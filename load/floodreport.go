package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/theurian/boundlab/results"
)

// Issue 24's targets for the guarded server under a flood.
const (
	TargetProbeFraction = 0.95 // new clients' conversations served during the flood
	// RefusalKind is the one refusal a full server may answer: 503 with
	// Retry-After (sessclient.Failure.Kind).
	RefusalKind = "http-503+retry-after"
)

// ceilingLead is what serve's banner prints before the memory ceiling in
// bytes.
const ceilingLead = "memory ceiling: "

// ceilingOf reads the memory ceiling from serve's banner; false when the
// banner names none (the front gate off).
func ceilingOf(banner []string) (int64, bool) { return bannerBytes(banner, ceilingLead) }

// ParseFloodRun reads a saved flood strictly (unknown fields refused).
func ParseFloodRun(data []byte) (*FloodRun, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r FloodRun
	if err := dec.Decode(&r); err != nil {
		return nil, err
	}
	if len(r.Variants) == 0 {
		return nil, fmt.Errorf("the flood holds no variant")
	}
	if _, ok := FloodShapeNamed(r.Settings.Shape); !ok {
		return nil, fmt.Errorf("the flood names no known shape (%q)", r.Settings.Shape)
	}
	return &r, nil
}

// Targets checks issue 24's targets on the guarded variant: peak RSS (VmHWM)
// at most the ceiling serve printed, no kill or crash, at least 95% of new
// clients' conversations served during the flood, one served afterwards
// with everything still held, every refusal 503 with Retry-After. The
// middleware-only variant is the comparison and is held to nothing.
func (r *FloodRun) Targets() []Verdict {
	var out []Verdict
	for _, v := range r.Variants {
		if v.Variant.Name != Guarded {
			continue
		}
		add := func(target, got string, ok bool) {
			out = append(out, Verdict{Variant: v.Variant.Name, Target: target, Got: got, OK: ok})
		}
		if v.Error != "" {
			add("measured", v.Error, false)
			continue
		}
		if ceiling, ok := ceilingOf(v.Banner); ok {
			add(fmt.Sprintf("peak RSS <= the printed ceiling %s", mib(ceiling)), mib(v.PeakRSS), v.PeakRSS <= ceiling && !v.Killed)
		} else {
			add("peak RSS <= the printed ceiling", "serve printed no ceiling", false)
		}
		add("0 crashes", floodCrashWord(v), !v.Crashed && !v.Killed)
		served, sent := v.ProbesServed()
		f := 0.0
		if sent > 0 {
			f = float64(served) / float64(sent)
		}
		add(fmt.Sprintf("new clients served during the flood >= %.0f%%", 100*TargetProbeFraction),
			fmt.Sprintf("%.1f%% (%d/%d), p99 %.1f ms", 100*f, served, sent, v.ProbeP99()), sent > 0 && f >= TargetProbeFraction)
		add("a new client served afterwards, everything held", yes(v.ServedAfter), v.ServedAfter)
		all, other := v.Refusals()
		add("every refusal 503 with Retry-After", fmt.Sprintf("%d refusals, %d other", all, other), other == 0)
		if r.Settings.Hostile > 0 {
			a := v.attack()
			sent, unsent, refused, echoed, maxAnswer := a.Hostile()
			add(fmt.Sprintf("every at-cap hostile request refused, none echoing the canary, every answer <= %d bytes", TargetAnswerBytes),
				fmt.Sprintf("%d of %d refused, %d echoed, largest %d bytes", refused, sent+unsent, echoed, maxAnswer),
				sent > 0 && refused == sent+unsent && echoed == 0 && maxAnswer <= TargetAnswerBytes)
			valid, _ := a.Shape(ValidShape)
			add(fmt.Sprintf("valid calls beside the hostile ones served >= %.0f%%", 100*TargetValidFraction),
				fmt.Sprintf("%.1f%% of %d", 100*valid.ServedFraction(), valid.Sent+valid.Unsent), valid.ServedFraction() >= TargetValidFraction)
		}
	}
	return out
}

// peakPoint is the curve's point of largest VmRSS; false for an empty curve.
func (r FloodResult) peakPoint() (CurvePoint, bool) {
	var at CurvePoint
	for _, p := range r.Curve {
		if p.RSS > at.RSS {
			at = p
		}
	}
	return at, at.RSS > 0
}

// attack is the flood's attack phase as a lab run's variant, for the
// figures the two share.
func (r FloodResult) attack() VariantResult {
	return VariantResult{Variant: r.Variant, BodyCap: r.BodyCap, Shapes: r.Hostile}
}

func floodCrashWord(v FloodResult) string {
	switch {
	case v.Killed:
		return fmt.Sprintf("killed at guard (VmRSS %s)", mib(v.KilledRSS))
	case v.Crashed:
		return "exited during the run"
	}
	return "none"
}

// FloodRecords turns a saved flood into measured records, per measured
// variant: peak RSS, the kill, what the server took (sessions, streams,
// connections, each when its phase ran) and still held at the end, its RSS growth per session, the
// refusals that were not 503 with Retry-After, a new client served
// afterwards, the ceiling serve printed; and, when the server was not
// killed, the share of new clients' conversations served during the flood
// and their p99. IDs are load.<label>.<variant>.<figure>.
//
// Tolerances: the kill, the served-after and the refusals not 503 exact;
// peak RSS within a quarter or 64 MiB; counts within a tenth (a killed
// run's counts move with when the kill came); RSS per session within a
// quarter; the served fraction within 0.05; a p99 within its own value or
// 100 ms (a conversation is three requests on a new connection: two runs of
// the same connection flood on the shared 2-CPU lab machine put its p99 a
// few tens of milliseconds apart, nearly three times one another).
func FloodRecords(data []byte, source, label string) ([]results.Record, error) {
	r, err := ParseFloodRun(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	build := results.Build{Go: r.Lab.Go, Modules: r.Lab.Modules}
	var out []results.Record
	for _, v := range r.Variants {
		if v.Error != "" {
			continue
		}
		inst := floodInstance(r, v)
		rec := func(id, title string, value float64, unit string, tol float64) {
			out = append(out, results.Record{
				ID: "load." + label + "." + v.Variant.Name + "." + id, Title: title, Value: value, Unit: unit, Instance: inst,
				Method: results.Measured, Tolerance: tol, Build: build,
				Source: fmt.Sprintf("%s (`%s`, at %s on %s), read by load.FloodRecords", source, r.Lab.Command, or(r.Lab.Commit, "an unnamed commit"), r.Lab.Date),
			})
		}
		tenth := func(n int) float64 { return math.Max(1, float64(n)/10) }
		rec("peak-rss", "the server's peak RSS (VmHWM) over the flood", float64(v.PeakRSS), "bytes", math.Max(64<<20, float64(v.PeakRSS)/4))
		rec("killed-at-guard", fmt.Sprintf("the lab killed the server when its VmRSS passed the %s guard (1) or not (0)", mib(r.Settings.GuardBytes)), b2f(v.Killed), "1 = killed", 0)
		if r.Settings.Sessions > 0 {
			rec("sessions-opened", fmt.Sprintf("sessions the server opened (initialize and notifications/initialized both served), of %d asked", r.Settings.Sessions),
				float64(v.Sessions), "sessions", tenth(v.Sessions))
			if per, ok := v.RSSPer(PhaseSessions); ok {
				rec("rss-per-session", "the server's VmRSS growth over the sessions phase per session opened", math.Round(per), "bytes per session", math.Round(per/4))
			}
		}
		if v.Ran(PhaseStreams) {
			rec("streams-held", fmt.Sprintf("standalone GET streams the server answered 200 with an event stream, of %d asked", r.Settings.Streams*r.Settings.StreamsPerSession),
				float64(v.Streams), "streams", tenth(v.Streams))
			rec("streams-alive-at-end", "of those, still held open by the server after the hold", float64(v.StreamsAlive), "streams", tenth(v.StreamsAlive))
			gone := v.Refused[PhaseStreams][sessionGone]
			rec("streams.session-gone", "GET streams answered 404: their session no longer existed (closed, idle, to admit newer ones)", float64(gone), "streams", tenth(gone))
			if per, ok := v.RSSPer(PhaseStreams); ok {
				rec("rss-per-stream", "the server's VmRSS growth over the streams phase per stream held (its connection included)", math.Round(per), "bytes per stream", math.Round(per/4))
			}
		}
		if v.Ran(PhaseIdle) {
			rec("idle-conns-held", fmt.Sprintf("idle keep-alive connections the server answered and kept, of %d asked", r.Settings.IdleConns), float64(v.IdleConns), "connections", tenth(v.IdleConns))
		}
		if v.Ran(PhaseConns) {
			held := fmt.Sprintf("idle keep-alive connections the server answered and kept, of %d asked", r.Settings.Conns)
			if r.Settings.HeaderBytes > 0 {
				held = fmt.Sprintf("connections opened that sent %d bytes of a header block and never the rest, of %d asked", r.Settings.HeaderBytes, r.Settings.Conns)
			}
			if r.Settings.HeaderBytes > 0 && v.Ran(PhaseHostile) {
				held = fmt.Sprintf("connections opened that sent %d bytes of a header block and never the rest, %d held at once, each re-opened when the server closed it until the attack ended",
					r.Settings.HeaderBytes, r.Settings.Conns)
			}
			rec("conns-held", held, float64(v.Conns), "connections", tenth(v.Conns))
			rec("conns-alive-at-end", "of those, still held open by the server after the hold", float64(v.ConnsAlive), "connections", tenth(v.ConnsAlive))
			// Beside the attack, the phase's growth is mostly the attack's.
			if per, ok := v.RSSPer(PhaseConns); ok && !v.Ran(PhaseHostile) {
				rec("rss-per-conn", "the server's VmRSS growth over the connections phase per connection held", math.Round(per), "bytes per connection", math.Round(per/4))
			}
		}
		_, other := v.Refusals()
		rec("refusals.not-503-retry-after", "refusals (flood and new clients) answered with anything but 503 and Retry-After", float64(other), "refusals", 0)
		rec("served-after", "a new client's conversation was served after the flood with everything still held (1) or not (0)", b2f(v.ServedAfter), "1 = served", 0)
		if c, ok := ceilingOf(v.Banner); ok {
			rec("printed-ceiling", "the memory ceiling serve printed", float64(c), "bytes", 0)
			if r.Settings.Hostile > 0 {
				rec("peak-over-printed-ceiling", "the server's peak RSS (VmHWM) over the memory ceiling serve printed: at most 1 is issue 35's target",
					round3(float64(v.PeakRSS)/float64(c)), "ratio", 0.25)
			}
		}
		if r.Settings.Hostile > 0 {
			for _, t := range ceilingTerms {
				if b, ok := bannerBytes(v.Banner, t.lead); ok {
					rec(t.id, t.title+", as serve printed it", float64(b), "bytes", 0)
				}
			}
		}
		if at, ok := v.peakPoint(); ok && at.RSSFile > 0 {
			rec("rss-file-at-peak", "the file-backed part (RssFile: the executable's pages, which the Go runtime's memory limit does not count) of the largest VmRSS sampled once a second",
				float64(at.RSSFile), "bytes", math.Max(8<<20, float64(at.RSSFile)/4))
		}
		if v.Ran(PhaseHostile) {
			a := v.attack()
			sent, unsent, refused, echoed, maxAnswer := a.Hostile()
			rec("hostile.echoed", "at-cap hostile answers that hold the canary from the request's caller values", float64(echoed), "answers", 0)
			rec("hostile.max-answer-bytes", "the largest answer to an at-cap hostile request", float64(maxAnswer), "bytes", math.Max(64, float64(maxAnswer)/10))
			rec("hostile.unrefused", fmt.Sprintf("at-cap hostile requests (of %d) not answered with a refusal: served, reset, oversized or unsent", sent+unsent), float64(sent+unsent-refused), "requests", 0)
		}
		if v.Killed {
			continue // service during a flood cut by the kill says when the kill came
		}
		if valid, ok := v.attack().Shape(ValidShape); ok && v.Ran(PhaseHostile) {
			rec("valid.served-fraction", "the fraction of valid 1 KB calls (each on a session of its own) served beside the at-cap hostile requests", round3(valid.ServedFraction()), "fraction", 0.05)
			rec("valid.p99-ms", "the p99 latency of valid 1 KB calls beside the at-cap hostile requests", valid.P99MS, "ms", math.Max(20, valid.P99MS))
		}
		served, sent := v.ProbesServed()
		if sent > 0 {
			rec("probes.served-fraction", fmt.Sprintf("new clients' conversations (initialize, initialized, tools/call) served during the flood, one every %d ms", r.Settings.ProbeEveryMS),
				round3(float64(served)/float64(sent)), "fraction", 0.05)
			if served > 0 {
				p99 := v.ProbeP99()
				rec("probes.p99-ms", "the p99 latency of the new clients' served conversations during the flood", p99, "ms", math.Max(100, p99))
			}
		}
	}
	return out, nil
}

// ceilingTerms are the lines of serve's banner that state the memory
// ceiling's terms, each with the record it is pinned as.
var ceilingTerms = []struct{ lead, id, title string }{
	{budgetLead, "in-flight-budget", "the front gate's in-flight budget"},
	{"sessions: ", "session-bytes", "the session table's budget"},
	{"connections: ", "conn-bytes", "the connection bound's budget"},
}

func floodInstance(r *FloodRun, v FloodResult) string {
	s := r.Settings
	var parts []string
	if s.Sessions > 0 {
		parts = append(parts, fmt.Sprintf("%d sessions over %d connections", s.Sessions, s.Concurrency))
	}
	if s.Streams > 0 {
		parts = append(parts, fmt.Sprintf("then %d GET streams (%d per session, each on its own connection) on the newest sessions", s.Streams*s.StreamsPerSession, s.StreamsPerSession))
	}
	if s.IdleConns > 0 {
		parts = append(parts, fmt.Sprintf("%d idle keep-alive connections", s.IdleConns))
	}
	if s.Hostile > 0 {
		parts = append(parts, fmt.Sprintf("%d at-cap requests of each hostile shape of the attack mix (%d in flight, each on a session of its own; %d valid-call clients beside), "+
			"started before the connections below and run to their end", s.Hostile, s.HostileInFlight, s.ValidClients))
	}
	if s.Conns > 0 {
		if s.HeaderBytes > 0 {
			parts = append(parts, fmt.Sprintf("%d connections each sending %d bytes of a header block and never the rest", s.Conns, s.HeaderBytes))
		} else {
			parts = append(parts, fmt.Sprintf("%d idle keep-alive connections", s.Conns))
		}
	}
	return fmt.Sprintf("%s, %s on 127.0.0.1: %s, held %d ms; a new client's conversation every %d ms; bounded at %d ms, RSS guard %s; machine: %s, %d CPUs, %s",
		s.Shape, strings.Join(append([]string{"boundlab serve"}, v.Variant.args()...), " "), strings.Join(parts, ", "), s.HoldMS,
		s.ProbeEveryMS, s.DurationMS, mib(s.GuardBytes), r.Lab.CPU, r.Lab.NumCPU, r.Lab.Kernel)
}

// WriteFloodTable prints the flood: one block per variant, then the targets.
func WriteFloodTable(w io.Writer, r *FloodRun, verdicts []Verdict) error {
	s := r.Settings
	fmt.Fprintf(w, "%s: %d sessions, %d streams x %d per session, %d connections; %d in flight; held %.1f s\n\n",
		s.Shape, s.Sessions, s.Streams, s.StreamsPerSession, s.Conns, s.Concurrency, float64(s.HoldMS)/1000)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tpeak RSS\tceiling\tkilled\tsessions\tstreams (alive)\tconns (alive)\tRSS B/session, /stream, /conn\tnew clients served\tp99 ms\tafter\trefused")
	for _, v := range r.Variants {
		if v.Error != "" {
			fmt.Fprintf(tw, "%s\t(not measured: %s)\n", v.Variant.Name, v.Error)
			continue
		}
		ceiling := "-"
		if c, ok := ceilingOf(v.Banner); ok {
			ceiling = mib(c)
		}
		var pers []string
		for _, phase := range []string{PhaseSessions, PhaseStreams, PhaseConns} {
			p, ok := v.RSSPer(phase)
			pers = append(pers, map[bool]string{true: fmt.Sprintf("%.0f", p), false: "-"}[ok])
		}
		per := strings.Join(pers, ", ")
		served, sent := v.ProbesServed()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d (%d)\t%d (%d)\t%s\t%d/%d\t%.1f\t%s\t%s\n", v.Variant.Name, mib(v.PeakRSS), ceiling,
			floodCrashWord(v), v.Sessions, v.Streams, v.StreamsAlive, v.Conns, v.ConnsAlive, per, served, sent, v.ProbeP99(), yes(v.ServedAfter), refusedWord(v))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, v := range r.Variants {
		if v.Ran(PhaseHostile) {
			sent, unsent, refused, echoed, maxAnswer := v.attack().Hostile()
			valid, _ := v.attack().Shape(ValidShape)
			fmt.Fprintf(w, "\n%s: %d idle connections beside; attack: %d at-cap requests, %d refused, %d unsent, %d echoed, largest answer %d bytes; valid calls %d/%d served, p99 %.1f ms\n",
				v.Variant.Name, v.IdleConns, sent, refused, unsent, echoed, maxAnswer, valid.Outcomes[Served], valid.Sent+valid.Unsent, valid.P99MS)
		}
	}
	if len(verdicts) > 0 {
		fmt.Fprintln(w, "\nissue 24 targets:")
		for _, v := range verdicts {
			mark := "ok  "
			if !v.OK {
				mark = "MISS"
			}
			fmt.Fprintf(w, "  %s %s: %s: %s\n", mark, v.Variant, v.Target, v.Got)
		}
	}
	return nil
}

// refusedWord lists a variant's failures by phase and kind.
func refusedWord(v FloodResult) string {
	var parts []string
	for phase, kinds := range v.Refused {
		for k, n := range kinds {
			parts = append(parts, fmt.Sprintf("%s %s %d", phase, k, n))
		}
	}
	if v.Unsent > 0 {
		parts = append(parts, fmt.Sprintf("unsent %d", v.Unsent))
	}
	if len(parts) == 0 {
		return "none"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
