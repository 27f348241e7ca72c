package load

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/theurian/boundlab/internal/sessclient"
)

// The flood shapes: what a request leaves behind, piled up against a
// stateful server (`boundlab serve` without --stateless). They are runs of
// their own (Flood), not members of the attack mix.
const (
	SessionFlood    = "session-flood"
	StreamFlood     = "stream-flood"
	ConnectionFlood = "connection-flood"
	HeaderFlood     = "header-flood"
	// AllBudgets fills every budget serve states its ceiling from at once:
	// the session table, the connection bound and the in-flight budget.
	AllBudgets = "all-budgets"
)

// FloodShape is a flood's default sizes; flags may change each.
type FloodShape struct {
	Name string
	What string
	// Sessions: initialize + notifications/initialized, never closed, over
	// FloodConfig.Concurrency keep-alive connections.
	Sessions int
	// Streams: standalone GET streams, each on a connection of its own, on
	// the last Streams sessions opened (the newest, which a session table
	// that evicts the least recently used keeps longest).
	Streams int
	// Conns: idle keep-alive connections, each having sent one GET without
	// a session (answered 400) and nothing after; or, with HeaderBytes,
	// connections that each send the first HeaderBytes of a GET's header
	// block and nothing after (a slowloris: never a complete request).
	Conns       int
	HeaderBytes int
	// IdleConns: idle keep-alive connections held beside header-block ones
	// (Conns with HeaderBytes), opened before them.
	IdleConns int
	// Hostile: at-cap requests of each hostile shape of the attack mix
	// (Shapes), sent HostileInFlight at a time on sessions of their own once
	// everything else is held, with ValidClients sending valid calls beside.
	Hostile, HostileInFlight, ValidClients int
}

// FloodShapes are the three floods at their default sizes: issue 24's
// 200,000 initialize with 2,000 streams held after them; thousands of
// streams; ten thousand idle connections.
func FloodShapes() []FloodShape {
	return []FloodShape{
		{Name: SessionFlood, What: "initialize + notifications/initialized, never closed; then GET streams held on the newest sessions", Sessions: 200_000, Streams: 2_000},
		{Name: StreamFlood, What: "sessions each holding a standalone GET stream on a connection of its own", Sessions: 5_000, Streams: 5_000},
		{Name: ConnectionFlood, What: "idle keep-alive connections: one GET each, answered, then nothing", Conns: 10_000},
		{Name: HeaderFlood, What: "connections each sending 1 KiB of a header block and never the rest", Conns: 10_000, HeaderBytes: 1 << 10},
		{Name: AllBudgets, What: "every budget at once: sessions past the session table's size, GET streams held on the newest, " +
			"idle connections and connections holding a header block just under the cap, then at-cap hostile calls with valid calls beside them, everything still held",
			Sessions: 20_000, Streams: 2_000, IdleConns: 500, Conns: 1_500, HeaderBytes: 16_000, Hostile: 16, HostileInFlight: 64, ValidClients: 2},
	}
}

// FloodShapeNamed returns the flood called name.
func FloodShapeNamed(name string) (FloodShape, bool) {
	for _, s := range FloodShapes() {
		if s.Name == name {
			return s, true
		}
	}
	return FloodShape{}, false
}

// StatefulVariants are the two servers a flood sets side by side, both
// stateful (serve's default): the front gate in front of the SDK, and the
// SDK's own sessions with only the middleware.
func StatefulVariants() []Variant {
	return []Variant{
		{Name: Guarded, Stateful: true},
		{Name: MiddlewareOnly, Stateful: true, Flags: []string{"--front-gate=false"}},
	}
}

// Bounds a flood refuses to pass, whatever the flags say. A held stream or
// connection is a file descriptor in the lab and one in the server: their
// sum stays well under the usual 20,000-descriptor limit.
const (
	MaxFloodSessions    = 2_000_000
	MaxFloodHeld        = 16_000 // streams x per session + connections
	MaxFloodConcurrency = 64
	// MaxFloodHeaderBytes bounds one held connection's unfinished header
	// block: net/http refuses a block past its MaxHeaderBytes (serve's is
	// bounds.MaxHeaderBytes) plus 4 KiB, so more measures nothing.
	MaxFloodHeaderBytes = 64 << 10
	MaxFloodDuration    = 30 * time.Minute
	MaxStreamsPer       = 8
)

// FloodConfig is one flood run.
type FloodConfig struct {
	Bin      string
	Variants []Variant
	Shape    string
	Sessions int
	Streams  int
	// StreamsPerSession: GET streams asked of each streamed session (go-sdk
	// v1.8.0 holds one and answers the others 409).
	StreamsPerSession int
	Conns             int
	HeaderBytes       int // > 0: each connection sends this much of a header block, never the rest
	IdleConns         int // with HeaderBytes: idle keep-alive connections held beside, opened first
	// Hostile at-cap requests per hostile shape, HostileInFlight at a time,
	// and ValidClients sending valid calls beside them (FloodShape.Hostile).
	Hostile, HostileInFlight, ValidClients int
	Concurrency                            int           // connections carrying the session flood's POSTs
	Hold                                   time.Duration // everything held this long after it is open, probes running
	ProbeEvery                             time.Duration // a new client's conversation this often
	ProbeTimeout                           time.Duration
	Duration                               time.Duration // the whole flood's bound, per variant
	GuardBytes                             int64
	Sample                                 time.Duration
}

// DefaultFloodConfig is shape's flood at its default sizes: 16 connections
// (the issue's), a conversation every second, everything held 10 s, the
// child killed at 2 GiB.
func DefaultFloodConfig(shape FloodShape) FloodConfig {
	return FloodConfig{
		Variants: StatefulVariants(), Shape: shape.Name,
		Sessions: shape.Sessions, Streams: shape.Streams, StreamsPerSession: 1, Conns: shape.Conns, HeaderBytes: shape.HeaderBytes,
		IdleConns: shape.IdleConns, Hostile: shape.Hostile, HostileInFlight: shape.HostileInFlight, ValidClients: shape.ValidClients,
		Concurrency: 16, Hold: 10 * time.Second, ProbeEvery: time.Second, ProbeTimeout: 10 * time.Second,
		Duration: 15 * time.Minute, GuardBytes: 2 << 30, Sample: 20 * time.Millisecond,
	}
}

// Check reports the first bound the config breaks.
func (c FloodConfig) Check() error {
	held := c.Streams*c.StreamsPerSession + c.Conns + c.IdleConns + c.HostileInFlight + c.ValidClients
	switch {
	case c.Bin == "":
		return errors.New("no binary to run")
	case len(c.Variants) == 0:
		return errors.New("no variant to run")
	case c.Sessions < 0 || c.Sessions > MaxFloodSessions:
		return fmt.Errorf("sessions %d: want 0..%d", c.Sessions, MaxFloodSessions)
	case c.Streams < 0 || c.Streams > c.Sessions:
		return fmt.Errorf("streams %d: want 0..sessions (%d): each stream is on a session of the flood", c.Streams, c.Sessions)
	case c.StreamsPerSession < 1 || c.StreamsPerSession > MaxStreamsPer:
		return fmt.Errorf("streams per session %d: want 1..%d", c.StreamsPerSession, MaxStreamsPer)
	case c.Conns < 0 || c.IdleConns < 0 || c.HostileInFlight < 0 || c.ValidClients < 0 || held > MaxFloodHeld:
		return fmt.Errorf("%d streams x %d + %d connections + %d idle + %d hostile in flight + %d valid clients held: want at most %d",
			c.Streams, c.StreamsPerSession, c.Conns, c.IdleConns, c.HostileInFlight, c.ValidClients, MaxFloodHeld)
	case c.HeaderBytes < 0 || c.HeaderBytes > MaxFloodHeaderBytes:
		return fmt.Errorf("header bytes %d: want 0..%d", c.HeaderBytes, MaxFloodHeaderBytes)
	case c.IdleConns > 0 && c.HeaderBytes == 0:
		return errors.New("idle connections beside others are held only when those send a header block (--header-bytes); without, --conns are idle ones")
	case c.Hostile < 0 || c.Hostile > MaxRequests:
		return fmt.Errorf("hostile requests %d per shape: want 0..%d", c.Hostile, MaxRequests)
	case c.Hostile > 0 && (c.HostileInFlight < 1 || c.HostileInFlight > MaxConcurrency):
		return fmt.Errorf("hostile requests in flight %d: want 1..%d", c.HostileInFlight, MaxConcurrency)
	case c.ValidClients > MaxConcurrency:
		return fmt.Errorf("valid clients %d: want 0..%d", c.ValidClients, MaxConcurrency)
	case c.Sessions+c.Conns+c.IdleConns+c.Hostile == 0:
		return errors.New("nothing to flood with")
	case c.Concurrency < 1 || c.Concurrency > MaxFloodConcurrency:
		return fmt.Errorf("concurrency %d: want 1..%d", c.Concurrency, MaxFloodConcurrency)
	case c.Duration <= 0 || c.Duration > MaxFloodDuration:
		return fmt.Errorf("duration %v: want up to %v", c.Duration, MaxFloodDuration)
	case c.Hold < 0 || c.Hold >= c.Duration:
		return fmt.Errorf("hold %v: want 0 up to the duration", c.Hold)
	case c.ProbeEvery <= 0 || c.ProbeTimeout <= 0:
		return errors.New("probe interval and timeout must be positive")
	case c.GuardBytes < 64<<20:
		return fmt.Errorf("RSS guard %d bytes: want at least 64 MiB", c.GuardBytes)
	case c.Sample <= 0:
		return errors.New("RSS sampling interval must be positive")
	}
	if _, ok := FloodShapeNamed(c.Shape); !ok {
		return fmt.Errorf("unknown flood %q", c.Shape)
	}
	return nil
}

// FloodRun is a flood's measurements: what `--out` saves and the records
// are read from.
type FloodRun struct {
	Lab      Lab           `json:"lab"`
	Settings FloodSettings `json:"settings"`
	Variants []FloodResult `json:"variants"`
}

// FloodSettings are the config's sizes and bounds as run.
type FloodSettings struct {
	Shape             string `json:"shape"`
	Sessions          int    `json:"sessions"`
	Streams           int    `json:"streams"`
	StreamsPerSession int    `json:"streams_per_session"`
	Conns             int    `json:"conns"`
	HeaderBytes       int    `json:"header_bytes,omitempty"`
	IdleConns         int    `json:"idle_conns,omitempty"`
	Hostile           int    `json:"hostile_per_shape,omitempty"`
	HostileInFlight   int    `json:"hostile_in_flight,omitempty"`
	ValidClients      int    `json:"valid_clients,omitempty"`
	Concurrency       int    `json:"concurrency"`
	HoldMS            int64  `json:"hold_ms"`
	ProbeEveryMS      int64  `json:"probe_every_ms"`
	ProbeTimeoutMS    int64  `json:"probe_timeout_ms"`
	DurationMS        int64  `json:"duration_ms"`
	GuardBytes        int64  `json:"guard_bytes"`
}

// streamConflict is go-sdk v1.8.0's answer to a second standalone GET
// stream on one session; sessionGone the answer to a request for a session
// that does not exist (any more).
const (
	streamConflict = "http-409"
	sessionGone    = "http-404"
)

// Phases of a flood, in order.
const (
	PhaseSessions = "sessions"
	PhaseStreams  = "streams"
	PhaseConns    = "conns"
	PhaseIdle     = "idle-conns" // beside header-block connections, before them
	PhaseHostile  = "hostile"    // at-cap requests in flight, everything else held
	PhaseHold     = "hold"
)

// FloodResult is one server's flood.
type FloodResult struct {
	Variant Variant  `json:"variant"`
	Error   string   `json:"error,omitempty"`
	Banner  []string `json:"banner,omitempty"`
	// Opened, held: what the server took. Sessions counts initialize +
	// initialized that both succeeded; streams and connections are counted
	// when the server answered them (200 event stream; the 400 read whole).
	Sessions  int `json:"sessions_opened"`
	Streams   int `json:"streams_held"`
	Conns     int `json:"conns_held"`
	IdleConns int `json:"idle_conns_held,omitempty"`
	// At the end, after the hold: how many of them the server still holds
	// open (a stream or connection it closed reads as an end of file).
	StreamsAlive int `json:"streams_alive_at_end"`
	ConnsAlive   int `json:"conns_alive_at_end"`
	// Refused counts the flood's failures by phase and kind
	// (sessclient.Failure.Kind: "http-503+retry-after", "transport" ...).
	Refused map[string]map[string]int `json:"refused,omitempty"`
	Unsent  int                       `json:"unsent"` // not tried: the child died or the duration passed
	// PeakRSS is the child's VmHWM, or the largest VmRSS sampled if larger.
	PeakRSS     int64        `json:"peak_rss_bytes"`
	Samples     int          `json:"rss_samples"`
	Killed      bool         `json:"killed_at_guard"`
	KilledRSS   int64        `json:"killed_rss_bytes,omitempty"`
	Crashed     bool         `json:"crashed"`
	ServedAfter bool         `json:"served_after"` // a new client's conversation, everything still held
	AfterError  string       `json:"after_error,omitempty"`
	Phases      []PhaseSpan  `json:"phases"`
	Curve       []CurvePoint `json:"curve"`  // once a second
	Probes      []Probe      `json:"probes"` // new clients' conversations during the flood
	// Hostile: the attack's rows (the hostile shapes and the valid calls
	// beside them), and the body cap serve printed, which they were built
	// one byte under.
	Hostile   []ShapeResult `json:"hostile,omitempty"`
	BodyCap   int64         `json:"body_cap,omitempty"`
	ElapsedMS int64         `json:"elapsed_ms"`
}

// PhaseSpan is when a phase ran, from the flood's start.
type PhaseSpan struct {
	Phase   string `json:"phase"`
	StartMS int64  `json:"start_ms"`
	EndMS   int64  `json:"end_ms"`
	RSSAt   int64  `json:"rss_at_start"`
	RSSEnd  int64  `json:"rss_at_end"`
}

// CurvePoint is the server's VmRSS beside what the flood had opened.
type CurvePoint struct {
	MS       int64 `json:"ms"`
	Sessions int   `json:"sessions"`
	Streams  int   `json:"streams"`
	Conns    int   `json:"conns"`
	RSS      int64 `json:"rss"`
	// RSSFile is the part of RSS that is file-backed pages (RssFile): the
	// executable's own, which the Go runtime's memory limit does not count.
	RSSFile int64 `json:"rss_file,omitempty"`
}

// Probe is one new client's conversation (initialize, initialized,
// tools/call) during the flood.
type Probe struct {
	StartMS   int64   `json:"start_ms"`
	LatencyMS float64 `json:"latency_ms"`
	Outcome   string  `json:"outcome"` // Served, or the failed step and its kind
}

// ProbesServed is how many of the probes were served, of how many.
func (r FloodResult) ProbesServed() (served, sent int) {
	for _, p := range r.Probes {
		if p.Outcome == Served {
			served++
		}
	}
	return served, len(r.Probes)
}

// ProbeP99 is the served probes' p99 latency in ms.
func (r FloodResult) ProbeP99() float64 {
	var d []time.Duration
	for _, p := range r.Probes {
		if p.Outcome == Served {
			d = append(d, time.Duration(p.LatencyMS*float64(time.Millisecond)))
		}
	}
	sortDurations(d)
	return percentile(d, 0.99)
}

// Refusals counts every refusal the server answered (a failure with an HTTP
// status, in any phase or probe) and those that were not 503 with
// Retry-After. Two answers in the streams phase are not refusals of
// capacity and are left out (they stay in Refused): 409, go-sdk v1.8.0's
// answer to a second standalone stream on one session, with no bound in
// play; and 404, the answer to a GET for a session that no longer exists
// (a session table closed it, idle, to admit a newer one: the flood asks for
// streams on sessions it opened before, and a client is told to initialize
// again).
func (r FloodResult) Refusals() (all, other int) {
	count := func(phase, kind string, n int) {
		if !strings.HasPrefix(kind, "http-") || (phase == PhaseStreams && (kind == streamConflict || kind == sessionGone)) {
			return
		}
		all += n
		if kind != RefusalKind {
			other += n
		}
	}
	for phase, kinds := range r.Refused {
		for k, n := range kinds {
			count(phase, k, n)
		}
	}
	for _, p := range r.Probes {
		if _, kind, ok := strings.Cut(p.Outcome, " "); ok {
			count("probe", kind, 1)
		}
	}
	return all, other
}

// Ran reports whether the flood reached a phase (a kill ends the flood
// where it is).
func (r FloodResult) Ran(phase string) bool {
	for _, p := range r.Phases {
		if p.Phase == phase {
			return true
		}
	}
	return false
}

// RSSPer is the server's VmRSS growth over a phase (PhaseSessions,
// PhaseStreams or PhaseConns) per unit the phase opened; false when the
// phase did not run, opened nothing or did not grow the RSS. A phase cut by
// the kill ends at the last sample.
func (r FloodResult) RSSPer(phase string) (float64, bool) {
	units := map[string]int{PhaseSessions: r.Sessions, PhaseStreams: r.Streams, PhaseConns: r.Conns, PhaseIdle: r.IdleConns}[phase]
	for _, p := range r.Phases {
		if p.Phase == phase && units > 0 && p.RSSEnd > p.RSSAt {
			return float64(p.RSSEnd-p.RSSAt) / float64(units), true
		}
	}
	return 0, false
}

// Flood runs the flood against each variant in turn.
func Flood(c FloodConfig, progress func(string)) (*FloodRun, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = func(string) {}
	}
	run := &FloodRun{Lab: lab(), Settings: FloodSettings{Shape: c.Shape, Sessions: c.Sessions, Streams: c.Streams,
		StreamsPerSession: c.StreamsPerSession, Conns: c.Conns, HeaderBytes: c.HeaderBytes, IdleConns: c.IdleConns,
		Hostile: c.Hostile, HostileInFlight: c.HostileInFlight, ValidClients: c.ValidClients, Concurrency: c.Concurrency,
		HoldMS: c.Hold.Milliseconds(), ProbeEveryMS: c.ProbeEvery.Milliseconds(), ProbeTimeoutMS: c.ProbeTimeout.Milliseconds(),
		DurationMS: c.Duration.Milliseconds(), GuardBytes: c.GuardBytes}}
	for _, v := range c.Variants {
		progress("variant " + v.Name + ": starting " + strings.Join(append([]string{"serve"}, v.args()...), " ") + " (stateful)")
		run.Variants = append(run.Variants, floodVariant(c, v, progress))
	}
	return run, nil
}

// flood is one variant's flood in progress.
type flood struct {
	c     FloodConfig
	ch    *child
	start time.Time
	ctx   context.Context // ends at the duration or when the child dies

	sessions, streams, conns, idle atomic.Int64
	mu                             sync.Mutex
	refused                        map[string]map[string]int
	unsent                         int
	held                           []*sessclient.Held
}

func (f *flood) ms() int64 { return time.Since(f.start).Milliseconds() }

func (f *flood) fail(phase string, err error) {
	var sf *sessclient.Failure
	kind := "transport"
	if errors.As(err, &sf) {
		kind = sf.Kind()
	} else if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		kind = "client-error"
	}
	f.mu.Lock()
	if f.refused[phase] == nil {
		f.refused[phase] = map[string]int{}
	}
	f.refused[phase][kind]++
	f.mu.Unlock()
}

func (f *flood) keep(h *sessclient.Held) {
	f.mu.Lock()
	f.held = append(f.held, h)
	f.mu.Unlock()
}

// rss is the child's VmRSS now (0 once it is gone).
func (f *flood) rss() int64 {
	rss, _, _ := readStatus(fmt.Sprintf("/proc/%d/status", f.ch.cmd.Process.Pid))
	return rss
}

// workers runs do(i) for i in [0, n) on conc goroutines until the flood's
// context ends; what was not tried is counted unsent.
func (f *flood) workers(n, conc int, do func(ctx context.Context, i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if f.ctx.Err() != nil {
					f.mu.Lock()
					f.unsent++
					f.mu.Unlock()
					continue
				}
				do(f.ctx, i)
			}
		}()
	}
	wg.Wait()
}

func floodVariant(c FloodConfig, v Variant, progress func(string)) FloodResult {
	fr := FloodResult{Variant: v}
	ch, err := startChild(c.Bin, v)
	if err != nil {
		fr.Error = err.Error()
		return fr
	}
	f := &flood{c: c, ch: ch, refused: map[string]map[string]int{}}
	defer func() {
		ch.stop() // the server first, so its side of each held connection closes first
		for _, h := range f.held {
			h.Close()
		}
	}()
	wctx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() { ch.watch(wctx, c.Sample, c.GuardBytes); close(watched) }()

	pctx, cancel := context.WithTimeout(context.Background(), c.ProbeTimeout)
	_, err = sessclient.Conversation(pctx, ch.URL)
	cancel()
	if err != nil {
		fr.Error = "the server did not serve a new client's conversation before the flood: " + err.Error()
	} else {
		f.run(&fr, progress)
	}
	fr.Banner = ch.lines()
	stopWatch()
	<-watched
	if ch.alive() {
		if _, hwm, ok := readStatus(fmt.Sprintf("/proc/%d/status", ch.cmd.Process.Pid)); ok {
			ch.mu.Lock()
			ch.hwm = max(ch.hwm, hwm)
			ch.mu.Unlock()
		}
	}
	ch.mu.Lock()
	fr.PeakRSS, fr.Samples = max(ch.hwm, ch.maxRSS), ch.samples
	fr.Killed, fr.KilledRSS = ch.killedAt > 0, ch.killedAt
	ch.mu.Unlock()
	fr.Crashed = !ch.alive() && !fr.Killed
	return fr
}

// run is the flood proper: the phases, the curve and the probes beside
// them, then the conversation afterwards with everything still held.
func (f *flood) run(fr *FloodResult, progress func(string)) {
	c := f.c
	ctx, cancel := context.WithTimeout(context.Background(), c.Duration)
	defer cancel()
	go func() { // the flood ends when the child does
		select {
		case <-f.ch.exited:
			cancel()
		case <-ctx.Done():
		}
	}()
	f.ctx, f.start = ctx, time.Now()
	bg, stopBG := context.WithCancel(ctx)
	var bgWG sync.WaitGroup
	var probesMu sync.Mutex
	bgWG.Add(2)
	go func() { defer bgWG.Done(); f.curve(bg, fr, progress) }()
	go func() {
		defer bgWG.Done()
		f.probe(bg, func(p Probe) {
			probesMu.Lock()
			fr.Probes = append(fr.Probes, p)
			probesMu.Unlock()
		})
	}()
	phase := func(name string, do func()) {
		span := PhaseSpan{Phase: name, StartMS: f.ms(), RSSAt: f.rss()}
		do()
		span.EndMS, span.RSSEnd = f.ms(), f.rss()
		if span.RSSEnd == 0 { // the child is gone: its last sample stands
			f.ch.mu.Lock()
			span.RSSEnd = f.ch.maxRSS
			f.ch.mu.Unlock()
		}
		fr.Phases = append(fr.Phases, span)
	}
	newest := make([]string, c.Streams) // the last Streams session ids, a ring
	if c.Sessions > 0 {
		phase(PhaseSessions, func() { f.openSessions(newest) })
	}
	if c.Streams > 0 && ctx.Err() == nil {
		phase(PhaseStreams, func() { f.holdStreams(newest) })
	}
	if c.IdleConns > 0 && ctx.Err() == nil {
		phase(PhaseIdle, func() { f.holdConns(c.IdleConns, 0, &f.idle) })
	}
	switch {
	case c.Hostile > 0 && ctx.Err() == nil:
		// A connection holding a header block lives ReadHeaderTimeout at
		// most: they are held (re-opened as the server closes them) for as
		// long as the attack runs, which starts once each is open.
		span := PhaseSpan{Phase: PhaseConns, StartMS: f.ms(), RSSAt: f.rss()}
		opened, stop, refreshed := make(chan struct{}), make(chan struct{}), make(chan struct{})
		go func() { defer close(refreshed); f.refreshConns(c.Conns, c.HeaderBytes, opened, stop) }()
		select {
		case <-opened:
		case <-ctx.Done():
		}
		phase(PhaseHostile, func() { fr.Hostile, fr.BodyCap = f.attack(), f.ch.Cap })
		close(stop)
		<-refreshed
		span.EndMS, span.RSSEnd = f.ms(), f.rss()
		fr.Phases = append(fr.Phases, span)
	case c.Conns > 0 && ctx.Err() == nil:
		phase(PhaseConns, func() { f.holdConns(c.Conns, c.HeaderBytes, &f.conns) })
	}
	if ctx.Err() == nil {
		phase(PhaseHold, func() {
			select {
			case <-ctx.Done():
			case <-time.After(c.Hold):
			}
		})
	}
	stopBG()
	bgWG.Wait()
	sort.Slice(fr.Probes, func(i, j int) bool { return fr.Probes[i].StartMS < fr.Probes[j].StartMS })
	fr.ElapsedMS = f.ms()
	fr.Sessions, fr.Streams, fr.Conns, fr.IdleConns = int(f.sessions.Load()), int(f.streams.Load()), int(f.conns.Load()), int(f.idle.Load())
	if f.ch.alive() {
		actx, acancel := context.WithTimeout(context.Background(), c.ProbeTimeout)
		_, err := sessclient.Conversation(actx, f.ch.URL)
		acancel()
		fr.ServedAfter = err == nil
		if err != nil {
			fr.AfterError = err.Error()
		}
		for _, h := range f.held {
			if !h.Alive(time.Millisecond) {
				continue
			}
			if h.Stream {
				fr.StreamsAlive++
			} else {
				fr.ConnsAlive++
			}
		}
	}
	f.mu.Lock()
	fr.Refused, fr.Unsent = f.refused, f.unsent
	f.mu.Unlock()
}

func (f *flood) openSessions(newest []string) {
	cl := sessclient.NewHTTPClient(f.c.Concurrency)
	defer cl.CloseIdleConnections()
	var ring atomic.Int64
	var mu sync.Mutex
	f.workers(f.c.Sessions, f.c.Concurrency, func(ctx context.Context, i int) {
		oc, cancel := context.WithTimeout(ctx, f.c.ProbeTimeout)
		sid, err := sessclient.Open(oc, cl, f.ch.URL)
		cancel()
		if err != nil {
			f.fail(PhaseSessions, err)
			return
		}
		f.sessions.Add(1)
		if len(newest) > 0 {
			mu.Lock()
			newest[int(ring.Add(1)-1)%len(newest)] = sid
			mu.Unlock()
		}
	})
}

func (f *flood) holdStreams(newest []string) {
	per := f.c.StreamsPerSession
	f.workers(len(newest)*per, f.c.Concurrency, func(ctx context.Context, i int) {
		sid := newest[i/per]
		if sid == "" {
			return // fewer sessions opened than streams asked
		}
		oc, cancel := context.WithTimeout(ctx, f.c.ProbeTimeout)
		h, err := sessclient.HoldStream(oc, f.ch.URL, sid)
		cancel()
		if err != nil {
			f.fail(PhaseStreams, err)
			return
		}
		f.streams.Add(1)
		f.keep(h)
	})
}

// holdConns holds n connections, each sending headerBytes of a header block
// and never the rest, or (0) an idle keep-alive one, counted in held.
func (f *flood) holdConns(n, headerBytes int, held *atomic.Int64) {
	phase := PhaseConns
	if held == &f.idle {
		phase = PhaseIdle
	}
	f.workers(n, f.c.Concurrency, func(ctx context.Context, i int) {
		oc, cancel := context.WithTimeout(ctx, f.c.ProbeTimeout)
		var h *sessclient.Held
		var err error
		if headerBytes > 0 {
			h, err = sessclient.HoldHeader(oc, f.ch.URL, headerBytes)
		} else {
			h, err = sessclient.HoldIdle(oc, f.ch.URL)
		}
		cancel()
		if err != nil {
			f.fail(phase, err)
			return
		}
		held.Add(1)
		f.keep(h)
	})
}

// refreshConns holds n connections that each send headerBytes of a header
// block (none when n is 0: then it only waits for stop), each re-opened
// when the server closes it — at ReadHeaderTimeout, or to admit another at
// the connection bound — until stop; opened is closed once each has been
// opened once (or failed). At most Concurrency are being opened at once.
// The last of each is kept, to be counted alive at the end.
func (f *flood) refreshConns(n, headerBytes int, opened, stop chan struct{}) {
	var wg, first sync.WaitGroup
	openers := make(chan struct{}, f.c.Concurrency)
	first.Add(n)
	go func() { first.Wait(); close(opened) }()
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			once := sync.OnceFunc(first.Done)
			defer once()
			for {
				select {
				case <-stop:
					return
				case <-f.ctx.Done():
					return
				case openers <- struct{}{}:
				}
				oc, cancel := context.WithTimeout(f.ctx, f.c.ProbeTimeout)
				h, err := sessclient.HoldHeader(oc, f.ch.URL, headerBytes)
				cancel()
				<-openers
				once()
				if err != nil {
					f.fail(PhaseConns, err)
					select { // a refused connection is not retried at once
					case <-stop:
						return
					case <-time.After(time.Second):
					}
					continue
				}
				f.conns.Add(1)
				for h.Alive(time.Second) {
					select {
					case <-stop:
						f.keep(h)
						return
					default:
					}
				}
				h.Close()
			}
		}()
	}
	wg.Wait()
}

// curve records VmRSS beside the counts once a second and reports progress
// every ten.
func (f *flood) curve(ctx context.Context, fr *FloodResult, progress func(string)) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		p := CurvePoint{MS: f.ms(), Sessions: int(f.sessions.Load()), Streams: int(f.streams.Load()), Conns: int(f.conns.Load() + f.idle.Load())}
		if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", f.ch.cmd.Process.Pid)); err == nil {
			p.RSS, _ = statusKB(data, "VmRSS:")
			p.RSSFile, _ = statusKB(data, "RssFile:")
		}
		fr.Curve = append(fr.Curve, p)
		if n%10 == 0 {
			progress(fmt.Sprintf("  %3d s: %d sessions, %d streams, %d connections, VmRSS %s", p.MS/1000, p.Sessions, p.Streams, p.Conns, mib(p.RSS)))
		}
	}
}

// probe starts a new client's conversation every ProbeEvery until ctx ends
// and waits for those started.
func (f *flood) probe(ctx context.Context, record func(Probe)) {
	t := time.NewTicker(f.c.ProbeEvery)
	defer t.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := Probe{StartMS: f.ms()}
			// Its own deadline, not the flood's: a conversation started is
			// finished even if the flood ends meanwhile.
			pc, cancel := context.WithTimeout(context.Background(), f.c.ProbeTimeout)
			took, err := sessclient.Conversation(pc, f.ch.URL)
			cancel()
			p.LatencyMS = float64(took.Microseconds()) / 1000
			p.Outcome = Served
			if err != nil {
				p.Outcome = probeOutcome(err)
			}
			record(p)
		}()
	}
}

// probeOutcome is "STEP KIND" for a failed conversation.
func probeOutcome(err error) string {
	var sf *sessclient.Failure
	if errors.As(err, &sf) {
		return sf.Step + " " + sf.Kind()
	}
	return "client-error"
}
