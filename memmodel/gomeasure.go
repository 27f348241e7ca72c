package memmodel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing/fstest"
	"time"

	"github.com/theurian/boundlab/internal/demo"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/schemas"
)

// GoPath is how far through our validator a Go row measures.
type GoPath string

const (
	// PathCheck is mcpvalidate's middleware work alone: from the raw
	// arguments bytes to the refusal or the handler call
	// ((*mcpvalidate.Validator).Check).
	PathCheck GoPath = "check"
	// PathHTTP is the whole HTTP request: a go-sdk streamable HTTP handler
	// (stateless, JSON responses) with the middleware wired, reading the body,
	// its own JSON-RPC parses, the middleware, the answer.
	PathHTTP GoPath = "http"
	// PathGuarded is the whole HTTP request as `boundlab serve --stateless`
	// runs it: mcpvalidate's front gate (body read into a pooled buffer, the
	// envelope and the arguments checked before the SDK decodes a byte, the
	// in-flight budget), then the go-sdk streamable handler (stateless, SSE
	// answers) with the middleware (demo.Guarded). Its rows are what
	// bounds.PeakFactor must cover.
	PathGuarded GoPath = "guarded"
)

// GoPaths lists every path.
var GoPaths = []GoPath{PathCheck, PathHTTP, PathGuarded}

// PathsFor is the paths a shape is measured through: every path for a
// well-formed call (FrameCall, FrameNodes); the two HTTP paths for a hostile
// envelope (Check never sees an envelope).
func PathsFor(s Shape) []GoPath {
	if s.Frame != FrameCall && s.Frame != FrameNodes {
		return []GoPath{PathHTTP, PathGuarded}
	}
	return GoPaths
}

// GoGCPercent is the GOGC a Go row runs at: low, so the sampled heap tracks
// the live heap (garbage is at most this percent of it) rather than the
// collector's pacing.
const GoGCPercent = 2

// A Go row's sampling: at least minTries runs and minSamples heap readings
// while the row runs, over at most maxTries runs. The peak is the highest
// over the runs: a sampled peak only ever reads low, and one run's reading
// moved by up to a wire's worth on the guarded path (6.5x-8.0x on one body).
const (
	minTries    = 5
	minSamples  = 16
	maxTries    = 50
	steadyCalls = 3 // at-size calls between the first and the measured one
)

// GoMeasurement is one shape through one path in a fresh Go process.
type GoMeasurement struct {
	Shape      string `json:"shape"`
	Path       GoPath `json:"path"`
	Wire       int64  `json:"wire"`        // the whole body
	ArgsWire   int64  `json:"args_wire"`   // the arguments object
	PeakLive   int64  `json:"peak_live"`   // steady state: sampled peak of heap objects above the baseline
	TotalAlloc int64  `json:"total_alloc"` // steady state: allocated by one call
	FirstAlloc int64  `json:"first_alloc"` // allocated by the first call at this size, after a small warm-up
	Outcome    string `json:"outcome"`
	Samples    int64  `json:"samples"`   // heap readings taken while the row ran
	Processes  int    `json:"processes"` // fresh processes the row was measured in; its figures are the highest of them
	Go         string `json:"go"`
}

// The validator a row runs through. A shape the schema refuses goes through
// the published knowledge.search schema (maxLength 2000); a shape it accepts
// goes through the same schema with maxLength lifted, so the body — and the
// Python row beside it — stays byte for byte the same.
func validatorFor(v Verdict) (*mcpvalidate.Validator, error) {
	if v == Refuses {
		return demo.NewValidator(nil)
	}
	ctx, err := fs.ReadFile(schemas.FS, schemas.Dir+"/tool-context.schema.json")
	if err != nil {
		return nil, err
	}
	raw, err := fs.ReadFile(schemas.FS, schemas.Dir+"/knowledge-search.input.schema.json")
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	q := doc["properties"].(map[string]any)["query"].(map[string]any)
	delete(q, "maxLength")
	open, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return mcpvalidate.New(mcpvalidate.SchemaFiles(fstest.MapFS{
		"mcp/tool-context.schema.json":           {Data: ctx},
		"mcp/knowledge-search.input.schema.json": {Data: open},
	}, "mcp"), nil)
}

// heapSampler reads the heap's live objects in a busy loop and keeps the
// highest reading.
type heapSampler struct {
	peak, n atomic.Int64
	stop    chan struct{}
	done    chan struct{}
}

const heapObjects = "/memory/classes/heap/objects:bytes"

func readMetric(name string) int64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

func startSampler() *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		defer close(h.done)
		s := []metrics.Sample{{Name: heapObjects}}
		for first := true; ; first = false {
			select {
			case <-h.stop:
				return
			default:
			}
			metrics.Read(s)
			if v := int64(s[0].Value.Uint64()); v > h.peak.Load() {
				h.peak.Store(v)
			}
			h.n.Add(1)
			if first {
				close(ready)
			}
		}
	}()
	<-ready // the row starts only once the sampler is reading
	return h
}

func (h *heapSampler) finish() (int64, int64) {
	close(h.stop)
	<-h.done
	return h.peak.Load(), h.n.Load()
}

// MeasureGoHere measures one shape through one path in this process. Run it
// in a fresh process per row (MeasureGo does): the heap's history is part of
// what a sampled peak reads.
func MeasureGoHere(s Shape, path GoPath) (GoMeasurement, error) {
	v, err := validatorFor(s.Verdict)
	if err != nil {
		return GoMeasurement{}, err
	}
	st := s.Stats()
	m := GoMeasurement{Shape: s.Name, Path: path, Wire: st.Wire, ArgsWire: st.ArgsWire, Go: runtime.Version(), Processes: 1}
	call, err := rowRunner(v, path)
	if err != nil {
		return m, err
	}
	in := rowInput(s, path)
	run := func() string { return call(in) }
	// One small call first: sonic compiles its decoder on first use and the
	// SDK builds its per-type state; a server pays that once, not per request.
	warm := Shape{Name: "warm-up", Segments: []Segment{{ASCII, 8}}, Encoder: s.Encoder, Verdict: s.Verdict}
	call(rowInput(warm, path))
	old := debug.SetGCPercent(GoGCPercent)
	defer debug.SetGCPercent(old)
	// The first call at this size: pooled buffers (sonic's, the front
	// gate's) are still sized for the warm-up, so it allocates more than a
	// server in steady state does.
	runtime.GC()
	allocs := readMetric("/gc/heap/allocs:bytes")
	m.Outcome = run()
	m.FirstAlloc = readMetric("/gc/heap/allocs:bytes") - allocs
	for i := 0; i < steadyCalls; i++ {
		run()
	}
	// Two collections before each try empty every sync.Pool, the front
	// gate's body buffers among them: the measured call allocates its
	// buffer, as a call does whenever the collector has cleared the pool
	// (at GOGC=2 a background cycle runs between most calls; a server's own
	// cycles do the same). That is the cost the in-flight budget must cover.
	if err := sampleSteady(&m, run, 2); err != nil {
		return m, err
	}
	return m, nil
}

// sampleSteady measures run in steady state into m (PeakLive, Samples and,
// on its first try, TotalAlloc), each try after gcs collections. Two
// collections empty every sync.Pool (the first moves a pool's items to its
// victim cache, the second drops them), so a pooled buffer the call uses is
// allocated inside it, as when the pool is empty. A row is idempotent, so it
// is repeated minTries times and until the sampler has read the heap at
// least minSamples times while the row ran (on a loaded machine the
// sampler's thread may not be scheduled during a short row); the peak is the
// highest over the tries, the allocation the first try's.
func sampleSteady(m *GoMeasurement, run func() string, gcs int) error {
	for try := 0; try < maxTries; try++ {
		for i := 0; i < gcs; i++ {
			runtime.GC()
		}
		base := readMetric(heapObjects)
		allocs := readMetric("/gc/heap/allocs:bytes")
		smp := startSampler()
		before := smp.n.Load()
		outcome := run()
		during := smp.n.Load() - before
		peak, _ := smp.finish()
		if try == 0 {
			m.TotalAlloc = readMetric("/gc/heap/allocs:bytes") - allocs
			if outcome != m.Outcome {
				return fmt.Errorf("%s: the row answered %q, then %q", m.Shape, m.Outcome, outcome)
			}
		}
		m.PeakLive = max(m.PeakLive, peak-base)
		m.Samples += during
		if try+1 >= minTries && m.Samples >= minSamples {
			return nil
		}
	}
	if m.Samples == 0 {
		// No reading while the row ran: the peak would be the heap before it.
		return fmt.Errorf("%s: the heap sampler never read the heap while the row ran, over %d runs (it needs a CPU of its own: GOMAXPROCS %d, %d CPUs)",
			m.Shape, maxTries, runtime.GOMAXPROCS(0), runtime.NumCPU())
	}
	return nil
}

// rowRunner is path's handler, built once: one call of it with a shape's
// input (rowInput) answers the call's outcome.
func rowRunner(v *mcpvalidate.Validator, path GoPath) (func([]byte) string, error) {
	switch path {
	case PathCheck:
		return func(args []byte) string {
			var r *mcpvalidate.Refusal
			if errors.As(v.Check(context.Background(), "knowledge.search", args), &r) {
				if r.Stage == mcpvalidate.StageGate {
					return "refused: " + r.Stage.String() + " " + r.Bound
				}
				return "refused: " + r.Stage.String()
			}
			return "admitted"
		}, nil
	case PathHTTP, PathGuarded:
		h, err := httpHandler(v, path)
		if err != nil {
			return nil, err
		}
		return func(body []byte) string { return serveOnce(h, body) }, nil
	}
	return nil, fmt.Errorf("unknown path %q", path)
}

// rowInput is what a path is handed: the arguments for Check, the whole
// body over HTTP.
func rowInput(s Shape, path GoPath) []byte {
	if path == PathCheck {
		return s.Arguments()
	}
	return s.Body()
}

// serveOnce posts body to h and names the answer: the status, then a
// JSON-RPC error's code, a tool result's isError, or the handler's answer.
// An SSE answer (the guarded path's SDK answers in SSE, as `boundlab serve`
// does) is read from its data line.
func serveOnce(h http.Handler, body []byte) string {
	req := httptest.NewRequest(http.MethodPost, demo.Path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	out := "http " + strconv.Itoa(rec.Code)
	msg := rec.Body.Bytes()
	if i := bytes.Index(msg, []byte("data: ")); i >= 0 && strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
		msg, _, _ = bytes.Cut(msg[i+len("data: "):], []byte("\n"))
	}
	var resp struct {
		Result struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct{ Code int } `json:"error"`
	}
	if json.Unmarshal(msg, &resp) == nil {
		switch {
		case resp.Error != nil:
			out += " jsonrpc error " + strconv.Itoa(resp.Error.Code)
		case resp.Result.IsError:
			out += " refused (isError)"
		default:
			out += " handler ran"
		}
	}
	return out
}

// httpHandler is a go-sdk server with knowledge.search registered raw and
// the middleware first. PathHTTP serves it stateless with JSON responses;
// PathGuarded serves it as `boundlab serve --stateless` does:
// demo.Guarded with the default front gate (SSE answers).
func httpHandler(v *mcpvalidate.Validator, path GoPath) (http.Handler, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "boundlab-memmodel", Version: "0"}, nil)
	schema, ok := v.InputSchema("knowledge.search")
	if !ok {
		return nil, errors.New("knowledge.search has no published schema")
	}
	srv.AddTool(&mcp.Tool{Name: "knowledge.search", InputSchema: schema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	srv.AddReceivingMiddleware(v.Middleware())
	if path == PathGuarded {
		h, _, err := demo.Guarded(v, srv, nil, demo.Stateless())
		return h, err
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: v.MaxBodyBytes()}), nil
}

// GuardedProcesses is how many fresh processes a guarded row is measured
// in; the row keeps the highest figures. One process's peak stays put over
// its tries but moves between processes (6.5x, 7.0x or 8.0x the wire bytes
// on arabic-at-budget, with the heap's layout and the collector's pacing),
// and the row feeds bounds.PeakFactor, so it takes the worst of
// several.
const GuardedProcesses = 5

// MeasureGo runs each shape through each of its paths (PathsFor) in fresh
// child processes (GuardedProcesses for a guarded row, else one): argv is
// the command that runs MeasureGoHere for `--row NAME --path P --div N`
// appended (`boundlab memmodel measure-go --row`).
func MeasureGo(ctx context.Context, argv []string, shapes []Shape, paths []GoPath, div int64, progress func(GoMeasurement)) ([]GoMeasurement, error) {
	var out []GoMeasurement
	for _, s := range shapes {
		for _, p := range paths {
			if !slices.Contains(PathsFor(s), p) {
				continue
			}
			n := 1
			if p == PathGuarded {
				n = GuardedProcesses
			}
			var m GoMeasurement
			for i := 0; i < n; i++ {
				one, err := runRowChild(ctx, argv, s.Name, p, div)
				if err != nil {
					return out, err
				}
				if i > 0 && one.Outcome != m.Outcome {
					return out, fmt.Errorf("%s %s: one process answered %q, another %q", s.Name, p, m.Outcome, one.Outcome)
				}
				m = worst(m, one)
			}
			out = append(out, m)
			if progress != nil {
				progress(m)
			}
		}
	}
	return out, nil
}

// worst merges two measurements of one row: the highest of each figure, the
// readings summed.
func worst(a, b GoMeasurement) GoMeasurement {
	b.PeakLive, b.TotalAlloc, b.FirstAlloc = max(a.PeakLive, b.PeakLive), max(a.TotalAlloc, b.TotalAlloc), max(a.FirstAlloc, b.FirstAlloc)
	b.Samples += a.Samples
	b.Processes += a.Processes
	return b
}

// runRowChild runs one row in a fresh process.
func runRowChild(ctx context.Context, argv []string, shape string, p GoPath, div int64) (GoMeasurement, error) {
	c, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	args := append(append([]string(nil), argv[1:]...), "--row", shape, "--path", string(p), "--div", strconv.FormatInt(div, 10))
	cmd := exec.CommandContext(c, argv[0], args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return GoMeasurement{}, fmt.Errorf("%s %s: %w: %s", shape, p, err, tail(stderr.String(), 400))
	}
	var m GoMeasurement
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
		return m, fmt.Errorf("%s %s: unreadable row: %w", shape, p, err)
	}
	return m, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// ShapeNamed finds a calibration or gate shape by name at a scale.
func ShapeNamed(sc Scale, full bool, name string) (Shape, error) {
	for _, s := range append(CalibrationShapes(sc, full), GateShapes(sc)...) {
		if s.Name == name {
			return s, nil
		}
	}
	return Shape{}, fmt.Errorf("no shape named %q at this scale", name)
}
