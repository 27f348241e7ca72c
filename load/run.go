package load

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Config is one lab run. Zero fields take the defaults of DefaultConfig.
type Config struct {
	Bin      string    // the boundlab binary to run as `serve`
	Variants []Variant // servers under test, in order
	Shapes   []string  // shape names; empty: every shape
	// Concurrency is how many hostile requests are in flight at once;
	// VariantConcurrency overrides it per variant name.
	Concurrency        int
	VariantConcurrency map[string]int
	Requests           int   // requests per hostile shape
	BodyBytes          int   // hostile body size; 0: the server's cap - 1
	GuardBytes         int64 // kill the child when its VmRSS passes this
	Duration           time.Duration
	Protocol           string
	ValidClients       int // concurrent valid callers during the attack
	Trickles           int // concurrent slow-trickle clients
	TrickleEvery       time.Duration
	TrickleFor         time.Duration // a trickle client gives up after this
	Sample             time.Duration // RSS sampling interval
}

const sdkModule = "github.com/modelcontextprotocol/go-sdk"

// Bounds the lab refuses to pass, whatever the flags say.
const (
	MaxConcurrency = 256
	MaxRequests    = 10000
	MaxDuration    = 5 * time.Minute
	MaxTrickles    = 64
)

// DefaultConfig is the full-scale run of issue 9's targets: 64 at-cap hostile
// requests in flight, mixed over the shapes, with small valid calls beside.
func DefaultConfig() Config {
	return Config{
		Variants:     Variants(),
		Concurrency:  64,
		Requests:     16,
		GuardBytes:   4 << 30,
		Duration:     60 * time.Second,
		Protocol:     ProtocolNone,
		ValidClients: 2,
		Trickles:     4,
		TrickleEvery: time.Second,
		TrickleFor:   15 * time.Second,
		Sample:       20 * time.Millisecond,
	}
}

// Check reports the first bound the config breaks.
func (c Config) Check() error {
	switch {
	case c.Bin == "":
		return errors.New("no binary to run")
	case len(c.Variants) == 0:
		return errors.New("no variant to run")
	case c.Concurrency < 1 || c.Concurrency > MaxConcurrency:
		return fmt.Errorf("concurrency %d: want 1..%d", c.Concurrency, MaxConcurrency)
	case c.Requests < 1 || c.Requests > MaxRequests:
		return fmt.Errorf("requests %d: want 1..%d", c.Requests, MaxRequests)
	case c.Duration <= 0 || c.Duration > MaxDuration:
		return fmt.Errorf("duration %v: want up to %v", c.Duration, MaxDuration)
	case c.BodyBytes < 0:
		return fmt.Errorf("body bytes %d: want 0 (the cap) or more", c.BodyBytes)
	case c.GuardBytes < 64<<20:
		return fmt.Errorf("RSS guard %d bytes: want at least 64 MiB", c.GuardBytes)
	case c.ValidClients < 0 || c.ValidClients > MaxConcurrency:
		return fmt.Errorf("valid clients %d: want 0..%d", c.ValidClients, MaxConcurrency)
	case c.Trickles < 0 || c.Trickles > MaxTrickles:
		return fmt.Errorf("trickles %d: want 0..%d", c.Trickles, MaxTrickles)
	case c.Trickles > 0 && (c.TrickleEvery <= 0 || c.TrickleFor <= 0):
		return errors.New("trickle interval and give-up time must be positive")
	case c.Sample <= 0:
		return errors.New("RSS sampling interval must be positive")
	}
	for name, n := range c.VariantConcurrency {
		if n < 1 || n > MaxConcurrency {
			return fmt.Errorf("concurrency %d for %s: want 1..%d", n, name, MaxConcurrency)
		}
	}
	if err := checkProtocol(c.Protocol); err != nil {
		return err
	}
	_, err := c.shapes()
	return err
}

func (c Config) shapes() ([]Shape, error) {
	if len(c.Shapes) == 0 {
		return Shapes(), nil
	}
	var out []Shape
	for _, n := range c.Shapes {
		s, ok := ShapeNamed(n)
		if !ok {
			return nil, fmt.Errorf("unknown shape %q", n)
		}
		out = append(out, s)
	}
	return out, nil
}

// Run is a lab run's measurements: what `--out` saves and the records are
// read from.
type Run struct {
	Lab      Lab             `json:"lab"`
	Settings Settings        `json:"settings"`
	Variants []VariantResult `json:"variants"`
}

// Lab is where the run happened.
type Lab struct {
	Go     string `json:"go"`
	NumCPU int    `json:"numcpu"`
	CPU    string `json:"cpu_model,omitempty"`
	Kernel string `json:"kernel,omitempty"`
	Commit string `json:"commit,omitempty"` // the lab's own build (vcs.revision)
	// Modules are the versions the lab was built with; the child is the
	// same build unless --bin named another.
	Modules map[string]string `json:"modules,omitempty"`
	Date    string            `json:"date"`
	Command string            `json:"command,omitempty"`
}

// Settings are the config's bounds as run.
type Settings struct {
	Concurrency  int      `json:"concurrency"`
	Requests     int      `json:"requests_per_shape"`
	BodyBytes    int      `json:"body_bytes"` // 0: cap - 1
	GuardBytes   int64    `json:"guard_bytes"`
	DurationMS   int64    `json:"duration_ms"`
	Protocol     string   `json:"protocol"`
	ValidClients int      `json:"valid_clients"`
	Trickles     int      `json:"trickles"`
	TrickleEvery int64    `json:"trickle_every_ms"`
	TrickleFor   int64    `json:"trickle_for_ms"`
	Shapes       []string `json:"shapes"`
}

// VariantResult is one server's measurements.
type VariantResult struct {
	Variant     Variant  `json:"variant"`
	Error       string   `json:"error,omitempty"` // it could not be measured
	Concurrency int      `json:"concurrency"`
	BodyCap     int64    `json:"body_cap"`
	BodyBytes   int      `json:"body_bytes"` // the hostile bodies' target size
	Banner      []string `json:"banner,omitempty"`
	// PeakRSS is the child's VmHWM, or the largest VmRSS sampled if larger
	// (a child killed at the guard leaves no VmHWM to read).
	PeakRSS     int64         `json:"peak_rss_bytes"`
	Samples     int           `json:"rss_samples"`
	Killed      bool          `json:"killed_at_guard"`
	KilledRSS   int64         `json:"killed_rss_bytes,omitempty"`
	Crashed     bool          `json:"crashed"` // exited during the run, not killed by the lab
	ServedAfter bool          `json:"served_after"`
	ElapsedMS   int64         `json:"elapsed_ms"`
	Shapes      []ShapeResult `json:"shapes"`
}

// ShapeResult is one shape's requests against one server.
type ShapeResult struct {
	Shape     string         `json:"shape"`
	BodyBytes int            `json:"body_bytes"`
	Hostile   bool           `json:"hostile"`
	Canary    bool           `json:"canary"`
	Sent      int            `json:"sent"`
	Unsent    int            `json:"unsent"` // not started before the deadline
	Outcomes  map[string]int `json:"outcomes"`
	Statuses  map[int]int    `json:"statuses"` // HTTP status: count (0: none)
	MaxAnswer int64          `json:"max_answer_bytes"`
	Echoed    int            `json:"echoed"` // answers holding Canary
	P50MS     float64        `json:"p50_ms"`
	P99MS     float64        `json:"p99_ms"`

	lat []time.Duration
}

func (s *ShapeResult) add(r result) {
	s.Sent++
	s.Outcomes[r.kind]++
	s.Statuses[r.status]++
	s.MaxAnswer = max(s.MaxAnswer, r.bytes)
	if r.echoed {
		s.Echoed++
	}
	if r.kind != Timeout { // a held trickle's latency is how long it was held
		s.lat = append(s.lat, r.latency)
	}
}

// Execute runs the lab: each variant in turn, started, attacked, checked and
// stopped. A variant that cannot start is recorded with its error and the
// others still run. progress gets one line per stage (nil: none).
func Execute(c Config, progress func(string)) (*Run, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = func(string) {}
	}
	shapes, _ := c.shapes()
	run := &Run{Lab: lab(), Settings: settings(c, shapes)}
	for _, v := range c.Variants {
		progress("variant " + v.Name + ": starting serve " + strings.Join(v.Flags, " "))
		run.Variants = append(run.Variants, runVariant(c, v, shapes, progress))
	}
	return run, nil
}

func settings(c Config, shapes []Shape) Settings {
	s := Settings{Concurrency: c.Concurrency, Requests: c.Requests, BodyBytes: c.BodyBytes, GuardBytes: c.GuardBytes,
		DurationMS: c.Duration.Milliseconds(), Protocol: c.Protocol, ValidClients: c.ValidClients, Trickles: c.Trickles,
		TrickleEvery: c.TrickleEvery.Milliseconds(), TrickleFor: c.TrickleFor.Milliseconds()}
	for _, sh := range shapes {
		s.Shapes = append(s.Shapes, sh.Name)
	}
	return s
}

func runVariant(c Config, v Variant, shapes []Shape, progress func(string)) VariantResult {
	vr := VariantResult{Variant: v, Concurrency: c.Concurrency}
	if n, ok := c.VariantConcurrency[v.Name]; ok {
		vr.Concurrency = n
	}
	ch, err := startChild(c.Bin, v)
	if err != nil {
		vr.Error = err.Error()
		return vr
	}
	defer ch.stop()
	vr.BodyCap = ch.Cap
	vr.BodyBytes = c.BodyBytes
	if vr.BodyBytes == 0 {
		vr.BodyBytes = int(ch.Cap - 1)
	}
	wctx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() { ch.watch(wctx, c.Sample, c.GuardBytes); close(watched) }()
	cl := newClient(vr.Concurrency + c.ValidClients + c.Trickles + 4)
	defer cl.CloseIdleConnections()

	valid, _ := ShapeNamed(ValidShape)
	validBody := valid.Body(0, c.Protocol)
	if r := validOnce(cl, ch.URL, valid, validBody, c.Protocol); r.kind != Served {
		vr.Error = fmt.Sprintf("the server did not serve a valid call before the attack (%s, HTTP %d)", r.kind, r.status)
	} else {
		progress(fmt.Sprintf("variant %s: attacking %s (cap %d, bodies of %d bytes, %d in flight)", v.Name, ch.URL, ch.Cap, vr.BodyBytes, vr.Concurrency))
		start := time.Now()
		vr.Shapes = attack(c, ch.URL, cl, shapes, vr.BodyBytes, vr.Concurrency)
		vr.ElapsedMS = time.Since(start).Milliseconds()
		vr.Crashed = !ch.alive()
		if ch.alive() {
			vr.ServedAfter = validOnce(cl, ch.URL, valid, validBody, c.Protocol).kind == Served
		}
	}
	if ch.alive() {
		if _, hwm, ok := readStatus(fmt.Sprintf("/proc/%d/status", ch.cmd.Process.Pid)); ok {
			ch.mu.Lock()
			ch.hwm = max(ch.hwm, hwm)
			ch.mu.Unlock()
		}
	}
	vr.Banner = ch.lines() // what serve printed: its budget and ceiling among them
	stopWatch()
	<-watched
	ch.mu.Lock()
	vr.PeakRSS, vr.Samples = max(ch.hwm, ch.maxRSS), ch.samples
	vr.Killed, vr.KilledRSS = ch.killedAt > 0, ch.killedAt
	ch.mu.Unlock()
	vr.Crashed = vr.Crashed && !vr.Killed
	return vr
}

// validOnce sends one valid call with a 10 s bound.
func validOnce(cl *http.Client, url string, sh Shape, body []byte, protocol string) result {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return send(ctx, cl, url, sh, body, protocol, 0, 0)
}

// attack sends Requests of every hostile shape, interleaved, conc at a time;
// beside them, ValidClients callers send valid calls until the hostile ones
// are done, and Trickles clients trickle theirs. Everything ends by the
// config's Duration.
func attack(c Config, url string, cl *http.Client, shapes []Shape, bodyBytes, conc int) []ShapeResult {
	ctx, cancel := context.WithTimeout(context.Background(), c.Duration)
	defer cancel()
	var mu sync.Mutex
	rows := make([]ShapeResult, len(shapes))
	bodies := make([][]byte, len(shapes))
	var hostile []int
	for i, sh := range shapes {
		bodies[i] = sh.Body(bodyBytes, c.Protocol)
		rows[i] = ShapeResult{Shape: sh.Name, BodyBytes: len(bodies[i]), Hostile: sh.Hostile, Canary: sh.Canary,
			Outcomes: map[string]int{}, Statuses: map[int]int{}}
		if sh.Hostile {
			hostile = append(hostile, i)
		}
	}
	record := func(i int, r result) {
		mu.Lock()
		rows[i].add(r)
		mu.Unlock()
	}
	jobs := make(chan int, c.Requests*len(hostile))
	for range c.Requests {
		for _, i := range hostile {
			jobs <- i
		}
	}
	close(jobs)
	var hostileWG, sideWG sync.WaitGroup
	for range conc {
		hostileWG.Add(1)
		go func() {
			defer hostileWG.Done()
			for i := range jobs {
				if ctx.Err() != nil {
					mu.Lock()
					rows[i].Unsent++
					mu.Unlock()
					continue
				}
				record(i, send(ctx, cl, url, shapes[i], bodies[i], c.Protocol, 0, 0))
			}
		}()
	}
	hostileDone := make(chan struct{})
	for i, sh := range shapes {
		switch {
		case sh.Name == ValidShape:
			for range c.ValidClients {
				sideWG.Add(1)
				go func() {
					defer sideWG.Done()
					for sent := 0; ctx.Err() == nil; sent++ {
						select {
						case <-hostileDone:
							if sent >= c.Requests/max(1, c.ValidClients) {
								return
							}
						default:
						}
						record(i, send(ctx, cl, url, sh, bodies[i], c.Protocol, 0, 0))
					}
				}()
			}
		case sh.Trickle:
			for range c.Trickles {
				sideWG.Add(1)
				go func() {
					defer sideWG.Done()
					record(i, send(ctx, cl, url, sh, bodies[i], c.Protocol, c.TrickleEvery, c.TrickleFor))
				}()
			}
		}
	}
	hostileWG.Wait()
	close(hostileDone)
	sideWG.Wait()
	for i := range rows {
		sortDurations(rows[i].lat)
		rows[i].P50MS, rows[i].P99MS = percentile(rows[i].lat, 0.50), percentile(rows[i].lat, 0.99)
	}
	return rows
}

// lab describes this machine and build.
func lab() Lab {
	l := Lab{Go: runtime.Version(), NumCPU: runtime.NumCPU(), Date: time.Now().UTC().Format(time.RFC3339)}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				l.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if out, err := exec.Command("uname", "-sr").Output(); err == nil {
		l.Kernel = strings.TrimSpace(string(out))
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == sdkModule {
				l.Modules = map[string]string{d.Path: d.Version}
			}
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				l.Commit = s.Value[:12] + l.Commit
			}
			if s.Key == "vcs.modified" && s.Value == "true" {
				l.Commit += "+dirty"
			}
		}
	}
	return l
}
