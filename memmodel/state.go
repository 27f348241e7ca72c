package memmodel

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/theurian/boundlab/internal/child"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/internal/sessclient"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

// StateKind is a piece of state a request leaves behind in a stateful
// go-sdk server (mcp.NewStreamableHTTPHandler without Stateless) behind the
// front gate: what the gate must weigh beside the requests in flight.
type StateKind string

const (
	// StateSession is an idle session: initialize, then
	// notifications/initialized, nothing after. Sessions are opened over a
	// few keep-alive connections, the same few at every count, so no
	// connection is in its cost.
	StateSession StateKind = "session"
	// StateSessionCalled is a session that has also served one tools/call
	// (project.list) and is idle again: what a session used once costs.
	StateSessionCalled StateKind = "session-called"
	// StateStream is a standalone GET stream held open on a connection of
	// its own, one per session: its cost is what the stream and its
	// connection add to the session (measured above the sessions, opened
	// first). Each session is asked for StreamsAsked streams; go-sdk v1.8.0
	// holds one and refuses the others (409: one standalone stream per
	// session), which the row records.
	StateStream StateKind = "stream"
	// StateConn is an idle keep-alive connection: one GET without a session
	// (answered 400, the connection kept alive), read whole, then nothing.
	StateConn StateKind = "conn"
	// StateConnHeader is a connection in its costliest state the front gate
	// does not weigh as a request: it has sent HeaderBlockBytes of a header
	// block and not the blank line that ends it, so the server holds what it
	// has read while it waits (until serve's ReadHeaderTimeout).
	StateConnHeader StateKind = "conn-header"
)

// StateKinds lists every kind, in the order they are measured.
var StateKinds = []StateKind{StateSession, StateSessionCalled, StateStream, StateConn, StateConnHeader}

// HeaderBlockBytes is the header block a conn-header unit sends: a kilobyte
// under the MaxHeaderBytes serve sets (bounds.MaxHeaderBytes), so the
// server reads it all and refuses none.
const HeaderBlockBytes = bounds.MaxHeaderBytes - 1<<10

// headerCountDiv divides the counts for conn-header: all of its header
// blocks must be read and held within serve's ReadHeaderTimeout, and a
// quarter of the counts opens well inside it.
const headerCountDiv = 4

// The measured child's session table and connection bound hold every unit
// of the largest count, so that none is evicted or refused before it is
// read: sizes are accounting, not memory the gate allocates.
const (
	childSessionBytes = 4 << 30
	childConnBytes    = 4 << 30
)

// StreamsAsked is how many standalone GET streams the stream row asks each
// session for: more than one, to record what the SDK does with the second.
const StreamsAsked = 2

// StateCounts are the counts a state row is measured at: the cost is the
// slope of the growth over them, so whatever the server holds once (pools,
// maps' first buckets, the listener) drops out.
var StateCounts = []int{1000, 4000, 16000}

// StateProcesses is how many fresh processes each count of each kind is
// measured in; a point keeps the highest growth of each instrument.
const StateProcesses = 2

// StateGuardBytes is the child's RSS past which the driver kills it: far
// above what the largest count holds (16,000 sessions with a stream each),
// far below what would trouble the machine.
const StateGuardBytes = 2 << 30

// StateReading is the server process's memory, read by the child itself
// after two collections and debug.FreeOSMemory, so what is left is live.
type StateReading struct {
	HeapObjects int64 `json:"heap_objects"` // runtime/metrics /memory/classes/heap/objects:bytes
	Stacks      int64 `json:"stacks"`       // /memory/classes/heap/stacks:bytes: goroutine stacks
	// Governed is what the Go runtime's soft memory limit counts:
	// /memory/classes/total:bytes - /memory/classes/heap/released:bytes.
	Governed   int64 `json:"governed"`
	RSS        int64 `json:"rss"`        // VmRSS from /proc/self/status
	Goroutines int64 `json:"goroutines"` // /sched/goroutines:goroutines
}

func (r StateReading) minus(b StateReading) StateReading {
	return StateReading{r.HeapObjects - b.HeapObjects, r.Stacks - b.Stacks, r.Governed - b.Governed, r.RSS - b.RSS, r.Goroutines - b.Goroutines}
}

func (r StateReading) worst(b StateReading) StateReading {
	return StateReading{max(r.HeapObjects, b.HeapObjects), max(r.Stacks, b.Stacks), max(r.Governed, b.Governed), max(r.RSS, b.RSS), max(r.Goroutines, b.Goroutines)}
}

// StatePoint is one count of one kind: the growth each instrument read
// over the units held.
type StatePoint struct {
	N    int `json:"n"`    // units asked for
	Held int `json:"held"` // units the server holds at the reading (the fewest over the processes)
	// Refused counts what the server refused while the units were opened,
	// by sessclient.Failure.Kind (the stream row's second stream per session).
	Refused   map[string]int `json:"refused,omitempty"`
	Growth    StateReading   `json:"growth"` // after - before, the highest over the processes
	Processes int            `json:"processes"`
}

// StateRow is one kind measured at several counts.
type StateRow struct {
	Kind    StateKind         `json:"kind"`
	Points  []StatePoint      `json:"points"`
	Go      string            `json:"go"`
	Modules map[string]string `json:"modules,omitempty"`
}

// Slope is a per-unit cost fitted over a row's points by least squares on
// (held, growth), with its intercept (the fixed part that drops out).
type Slope struct {
	PerUnit   float64 `json:"per_unit"`
	Intercept float64 `json:"intercept"`
}

func fit(pts []StatePoint, f func(StateReading) int64) Slope {
	n := float64(len(pts))
	var sx, sy float64
	for _, p := range pts {
		sx += float64(p.Held)
		sy += float64(f(p.Growth))
	}
	mx, my := sx/n, sy/n
	var num, den float64
	for _, p := range pts {
		dx := float64(p.Held) - mx
		num += dx * (float64(f(p.Growth)) - my)
		den += dx * dx
	}
	if den == 0 {
		return Slope{}
	}
	s := num / den
	return Slope{PerUnit: s, Intercept: my - s*mx}
}

// StateCost is a row's per-unit costs by instrument.
type StateCost struct {
	Kind       StateKind
	Heap       Slope // live heap objects
	Stacks     Slope // goroutine stacks
	Governed   Slope // what the soft memory limit counts
	RSS        Slope // the process's resident set
	Goroutines Slope
	// Cost is what the gate's weight must cover: the higher of Governed and
	// RSS per unit (the soft limit is set on the first, the ceiling is read
	// on the second).
	Cost   float64
	Points int // the counts fitted over
}

// Cost fits each instrument over the row's points.
func (r StateRow) Cost() (StateCost, error) {
	if len(r.Points) < 2 {
		return StateCost{}, fmt.Errorf("state row %s: %d points, a slope needs at least 2", r.Kind, len(r.Points))
	}
	for _, p := range r.Points {
		if p.Held <= 0 {
			return StateCost{}, fmt.Errorf("state row %s at %d: the server held none", r.Kind, p.N)
		}
	}
	c := StateCost{Kind: r.Kind, Points: len(r.Points),
		Heap:       fit(r.Points, func(s StateReading) int64 { return s.HeapObjects }),
		Stacks:     fit(r.Points, func(s StateReading) int64 { return s.Stacks }),
		Governed:   fit(r.Points, func(s StateReading) int64 { return s.Governed }),
		RSS:        fit(r.Points, func(s StateReading) int64 { return s.RSS }),
		Goroutines: fit(r.Points, func(s StateReading) int64 { return s.Goroutines }),
	}
	c.Cost = max(c.Governed.PerUnit, c.RSS.PerUnit)
	return c, nil
}

// StateWeights are what the front gate charges, in bytes, for the state a
// request leaves behind: one session, one standalone GET stream, one open
// connection. A held stream holds a connection of its own, so the gate
// charges it Stream + Conn; the stream row, measured on its own connection,
// is checked against that sum.
type StateWeights struct {
	Session, Stream, Conn int64
}

// Of is the weight the gate charges for one unit of kind.
func (w StateWeights) Of(k StateKind) (int64, error) {
	switch k {
	case StateSession, StateSessionCalled:
		return w.Session, nil
	case StateStream:
		return w.Stream + w.Conn, nil
	case StateConn, StateConnHeader:
		return w.Conn, nil
	}
	return 0, fmt.Errorf("no weight for state kind %q", k)
}

// CheckStateWeights fails when a measured row costs more per unit than the
// weight the front gate charges for it (StateWeights.Of), when a stream
// costs more beyond its connection (the stream row less the idle
// connection's) than Stream, and when a kind the gate weighs has no row.
// The second holds because the gate charges a stream's weight and its
// connection's to different budgets: each must cover its own part.
func CheckStateWeights(rows []StateRow, w StateWeights) error {
	costs := map[StateKind]StateCost{}
	for _, r := range rows {
		c, err := r.Cost()
		if err != nil {
			return err
		}
		weight, err := w.Of(r.Kind)
		if err != nil {
			return err
		}
		if c.Cost > float64(weight) {
			return fmt.Errorf("memmodel: one %s costs %.0f bytes (governed %.0f, RSS %.0f per unit over %d counts), above the %d bytes the front gate charges for it: raise the weight",
				r.Kind, c.Cost, c.Governed.PerUnit, c.RSS.PerUnit, len(r.Points), weight)
		}
		costs[r.Kind] = c
	}
	for _, k := range StateKinds {
		if _, ok := costs[k]; !ok {
			return fmt.Errorf("memmodel: no measured %s row: re-run measure-state", k)
		}
	}
	if alone := costs[StateStream].Cost - costs[StateConn].Cost; alone > float64(w.Stream) {
		return fmt.Errorf("memmodel: one stream costs %.0f bytes beyond its connection (stream %.0f less conn %.0f), above the %d bytes the front gate charges a stream: raise the stream weight",
			alone, costs[StateStream].Cost, costs[StateConn].Cost, w.Stream)
	}
	return nil
}

// ---- the child: the server under measurement ----

// stateReadingCommand is what the driver writes to the child's stdin to
// have it read its memory.
const stateReadingCommand = "read"

// stateHello is the child's first line on stdout.
type stateHello struct {
	URL string `json:"url"`
	Go  string `json:"go"`
}

// ServeStateChild is the measured process: the demo server, stateful, as
// `boundlab serve` runs it by default — the SDK's options from
// v.StreamableHTTPOptions, the default front gate with its session table
// (demo.Guarded), the http.Server's header bound and timeouts, and the
// connection bound (mcpvalidate.LimitConns) — on 127.0.0.1:0, the table and
// the bound sized to hold every unit (childSessionBytes, childConnBytes). It
// prints its URL as one JSON line, then answers each "read" line on in with
// one StateReading JSON line, until in ends.
func ServeStateChild(in io.Reader, out io.Writer) error {
	v, err := demo.NewValidator(nil)
	if err != nil {
		return err
	}
	srv, err := demo.NewServer(v, demo.Options{})
	if err != nil {
		return err
	}
	h, ph, err := demo.Guarded(v, srv, &mcpvalidate.HTTPOptions{SessionBytes: childSessionBytes, ConnBytes: childConnBytes}, nil)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	// As `boundlab serve` and every adopter set it up: Harden.
	hs := &http.Server{Handler: h}
	cl, err := ph.Harden(hs, ln)
	if err != nil {
		ln.Close()
		return err
	}
	go hs.Serve(cl)
	defer hs.Close()
	enc := json.NewEncoder(out)
	if err := enc.Encode(stateHello{URL: "http://" + ln.Addr().String() + demo.Path, Go: runtime.Version()}); err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if sc.Text() != stateReadingCommand {
			return fmt.Errorf("measure-state child: unknown command %q", sc.Text())
		}
		r, err := readState()
		if err != nil {
			return err
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return sc.Err()
}

// readState reads this process's memory once only live memory is left.
func readState() (StateReading, error) {
	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
	s := []metrics.Sample{
		{Name: heapObjects}, {Name: "/memory/classes/heap/stacks:bytes"},
		{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"},
		{Name: "/sched/goroutines:goroutines"},
	}
	metrics.Read(s)
	r := StateReading{
		HeapObjects: int64(s[0].Value.Uint64()), Stacks: int64(s[1].Value.Uint64()),
		Governed:   int64(s[2].Value.Uint64()) - int64(s[3].Value.Uint64()),
		Goroutines: int64(s[4].Value.Uint64()),
	}
	rss, ok := procStatusBytes("/proc/self/status", "VmRSS:")
	if !ok {
		return r, errors.New("measure-state child: no VmRSS in /proc/self/status")
	}
	r.RSS = rss
	return r, nil
}

// procStatusBytes reads one "Key: N kB" line of a /proc status file.
func procStatusBytes(path, key string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			var n int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &n); err != nil {
				return 0, false
			}
			return n << 10, true
		}
	}
	return 0, false
}

// ---- the driver: the clients, in this process ----

// stateChild is a running measure-state child.
type stateChild struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Scanner
	url    string
	killed atomic.Int64 // VmRSS when the guard killed it
	done   chan struct{}
}

func startStateChild(ctx context.Context, argv []string) (*stateChild, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stderr = &limitedBuffer{max: 4 << 10}
	in, outPipe, err := child.Start(cmd)
	if err != nil {
		return nil, err
	}
	c := &stateChild{cmd: cmd, in: in, out: bufio.NewScanner(outPipe), done: make(chan struct{})}
	var hello stateHello
	if err := c.line(&hello); err != nil {
		c.stop()
		return nil, fmt.Errorf("measure-state child: %w: %s", err, cmd.Stderr)
	}
	if _, err := sessclient.CheckURL(hello.URL); err != nil {
		c.stop()
		return nil, err
	}
	c.url = hello.URL
	go c.guard()
	return c, nil
}

func (c *stateChild) line(v any) error {
	if !c.out.Scan() {
		if err := c.out.Err(); err != nil {
			return err
		}
		return io.ErrUnexpectedEOF
	}
	return json.Unmarshal(c.out.Bytes(), v)
}

// guard kills the child the first time its VmRSS passes StateGuardBytes.
func (c *stateChild) guard() {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	path := fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid)
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		if rss, ok := procStatusBytes(path, "VmRSS:"); ok && rss > StateGuardBytes {
			c.killed.Store(rss)
			_ = c.cmd.Process.Kill()
			return
		}
	}
}

func (c *stateChild) read() (StateReading, error) {
	var r StateReading
	if _, err := io.WriteString(c.in, stateReadingCommand+"\n"); err != nil {
		return r, c.why(err)
	}
	if err := c.line(&r); err != nil {
		return r, c.why(err)
	}
	return r, nil
}

func (c *stateChild) why(err error) error {
	if k := c.killed.Load(); k > 0 {
		return fmt.Errorf("measure-state child killed at VmRSS %d bytes, past the %d-byte guard", k, int64(StateGuardBytes))
	}
	return fmt.Errorf("measure-state child: %w: %s", err, c.cmd.Stderr)
}

func (c *stateChild) stop() {
	select {
	case <-c.done:
		return
	default:
		close(c.done)
	}
	c.in.Close()
	exited := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-exited
	}
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.TrimSpace(string(l.b))
}

// stateWorkers is how many sessions, streams or connections the driver opens
// at once, and how many keep-alive connections carry the sessions' POSTs.
const stateWorkers = 8

// openTimeout bounds one unit's opening.
const openTimeout = 30 * time.Second

// parallel runs f(i) for i in [0, n) on stateWorkers goroutines and counts
// the failures by kind; the first failure that is not a *sessclient.Failure
// (a bug, or the child gone) ends the run.
func parallel(ctx context.Context, n int, f func(ctx context.Context, i int) error) (map[string]int, error) {
	var mu sync.Mutex
	refused := map[string]int{}
	var hard error
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range stateWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				c, cancel := context.WithTimeout(ctx, openTimeout)
				err := f(c, i)
				cancel()
				if err == nil {
					continue
				}
				var sf *sessclient.Failure
				mu.Lock()
				if errors.As(err, &sf) && sf.Status != 0 {
					refused[sf.Kind()]++
				} else if hard == nil {
					hard = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if hard != nil {
		return refused, hard
	}
	return refused, ctx.Err()
}

// measurePoint measures one kind at count n in one fresh child.
func measurePoint(ctx context.Context, argv []string, kind StateKind, n int) (StatePoint, error) {
	pt := StatePoint{N: n, Processes: 1}
	ch, err := startStateChild(ctx, argv)
	if err != nil {
		return pt, err
	}
	var held []*sessclient.Held
	defer func() {
		ch.stop() // the server first: its side of each connection closes, not the lab's
		for _, h := range held {
			h.Close()
		}
	}()
	cl := sessclient.NewHTTPClient(stateWorkers)
	defer cl.CloseIdleConnections()
	if err := warmUp(ctx, cl, ch.url); err != nil {
		return pt, ch.why(err)
	}
	before, err := ch.read()
	if err != nil {
		return pt, err
	}
	var mu sync.Mutex
	keep := func(h *sessclient.Held) {
		mu.Lock()
		held = append(held, h)
		mu.Unlock()
	}
	sids := make([]string, n)
	openSessions := func(call bool) (map[string]int, error) {
		return parallel(ctx, n, func(c context.Context, i int) error {
			sid, err := sessclient.Open(c, cl, ch.url)
			if err == nil && call {
				err = sessclient.Call(c, cl, ch.url, sid, sessclient.CallBody)
			}
			if err == nil {
				sids[i] = sid
			}
			return err
		})
	}
	switch kind {
	case StateSession, StateSessionCalled:
		pt.Refused, err = openSessions(kind == StateSessionCalled)
		pt.Held = countSet(sids)
	case StateStream:
		if pt.Refused, err = openSessions(false); err != nil {
			break
		}
		if before, err = ch.read(); err != nil { // the streams' growth is above the sessions'
			break
		}
		var streams atomic.Int64
		var refused map[string]int
		refused, err = parallel(ctx, n*StreamsAsked, func(c context.Context, i int) error {
			sid := sids[i/StreamsAsked]
			if sid == "" {
				return nil
			}
			h, err := sessclient.HoldStream(c, ch.url, sid)
			if err == nil {
				keep(h)
				streams.Add(1)
			}
			return err
		})
		pt.Refused = mergeCounts(pt.Refused, refused)
		pt.Held = int(streams.Load())
	case StateConn, StateConnHeader:
		var conns atomic.Int64
		pt.Refused, err = parallel(ctx, n, func(c context.Context, i int) error {
			var h *sessclient.Held
			var err error
			if kind == StateConn {
				h, err = sessclient.HoldIdle(c, ch.url)
			} else {
				h, err = sessclient.HoldHeader(c, ch.url, HeaderBlockBytes)
			}
			if err == nil {
				keep(h)
				conns.Add(1)
			}
			return err
		})
		pt.Held = int(conns.Load())
	default:
		return pt, fmt.Errorf("unknown state kind %q", kind)
	}
	if err != nil {
		return pt, ch.why(err)
	}
	// Let the server finish what the last answers started (a session's
	// read loop, a stream's first flush) before it reads itself.
	time.Sleep(200 * time.Millisecond)
	after, err := ch.read()
	if err != nil {
		return pt, err
	}
	pt.Growth = after.minus(before)
	if kind != StateSession && kind != StateSessionCalled {
		alive := 0
		for _, h := range held {
			if h.Alive(time.Millisecond) {
				alive++
			}
		}
		if alive != pt.Held {
			return pt, fmt.Errorf("%s at %d: %d of %d held connections were closed by the server before the reading", kind, n, pt.Held-alive, pt.Held)
		}
	}
	return pt, nil
}

// warmUp runs once what every kind runs, so what the server builds on first
// use (types, pools, the SDK's per-method state) is in the baseline.
func warmUp(ctx context.Context, cl *http.Client, url string) error {
	c, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	sid, err := sessclient.Open(c, cl, url)
	if err != nil {
		return err
	}
	if err := sessclient.Call(c, cl, url, sid, sessclient.CallBody); err != nil {
		return err
	}
	s, err := sessclient.HoldStream(c, url, sid)
	if err != nil {
		return err
	}
	s.Close()
	h, err := sessclient.HoldIdle(c, url)
	if err != nil {
		return err
	}
	h.Close()
	return sessclient.Close(c, cl, url, sid)
}

func countSet(ids []string) int {
	n := 0
	for _, s := range ids {
		if s != "" {
			n++
		}
	}
	return n
}

func mergeCounts(a, b map[string]int) map[string]int {
	if len(b) == 0 {
		return a
	}
	if a == nil {
		a = map[string]int{}
	}
	for k, v := range b {
		a[k] += v
	}
	return a
}

// MeasureState measures each kind at each count in StateProcesses fresh
// children (argv runs ServeStateChild: `boundlab memmodel measure-state
// --serve`), keeping each point's highest growth per instrument and its
// fewest units held.
func MeasureState(ctx context.Context, argv []string, kinds []StateKind, counts []int, procs int, progress func(StateKind, StatePoint)) ([]StateRow, error) {
	if procs < 1 {
		return nil, fmt.Errorf("measure-state: %d processes per point", procs)
	}
	var rows []StateRow
	for _, k := range kinds {
		if !slices.Contains(StateKinds, k) {
			return rows, fmt.Errorf("unknown state kind %q", k)
		}
		row := StateRow{Kind: k, Go: runtime.Version(),
			Modules: linkedModules("github.com/modelcontextprotocol/go-sdk")}
		for _, n := range counts {
			if k == StateConnHeader {
				n = max(1, n/headerCountDiv)
			}
			var pt StatePoint
			for p := 0; p < procs; p++ {
				one, err := measurePoint(ctx, argv, k, n)
				if err != nil {
					return rows, fmt.Errorf("%s at %d: %w", k, n, err)
				}
				if p == 0 {
					pt = one
					pt.Refused = mergeCounts(map[string]int{}, one.Refused)
					continue
				}
				pt.Growth = pt.Growth.worst(one.Growth)
				pt.Held = min(pt.Held, one.Held)
				for k, v := range one.Refused {
					pt.Refused[k] = max(pt.Refused[k], v)
				}
				pt.Processes++
			}
			row.Points = append(row.Points, pt)
			if progress != nil {
				progress(k, pt)
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// GateStateWeights are the weights the front gate charges for state: the
// product's bounds.SessionCost, StreamCost and ConnCost.
func GateStateWeights() StateWeights {
	return StateWeights{Session: bounds.SessionCost, Stream: bounds.StreamCost, Conn: bounds.ConnCost}
}
