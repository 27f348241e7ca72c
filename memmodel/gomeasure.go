package memmodel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/theurian/boundlab/internal/demo"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"testing/fstest"
	"time"

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
)

// GoPaths lists both paths.
var GoPaths = []GoPath{PathCheck, PathHTTP}

// GoGCPercent is the GOGC a Go row runs at: low, so the sampled heap tracks
// the live heap (garbage is at most this percent of it) rather than the
// collector's pacing.
const GoGCPercent = 2

// A Go row's sampling: at least minSamples heap readings while the row runs,
// over at most maxTries runs.
const (
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
	Samples    int64  `json:"samples"` // heap readings taken while the row ran
	Go         string `json:"go"`
}

// The validator a row runs through. A shape the schema refuses goes through
// the published knowledge.search schema (maxLength 2000); a shape it accepts
// goes through the same schema with maxLength lifted, so the body — and the
// Python row beside it — stays byte for byte the same.
func validatorFor(v Verdict) (*mcpvalidate.Validator, error) {
	if v == Refuses {
		return demo.NewValidator()
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
	return mcpvalidate.New(mcpvalidate.WithSchemaFiles(fstest.MapFS{
		"mcp/tool-context.schema.json":           {Data: ctx},
		"mcp/knowledge-search.input.schema.json": {Data: open},
	}, "mcp"))
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
	m := GoMeasurement{Shape: s.Name, Path: path, Wire: st.Wire, ArgsWire: st.ArgsWire, Go: runtime.Version()}
	var run func() string
	var h http.Handler
	switch path {
	case PathCheck:
		args := s.Arguments()
		run = func() string {
			var r *mcpvalidate.Refusal
			if errors.As(v.Check(context.Background(), "knowledge.search", args), &r) {
				if r.Gate != nil {
					return "refused: " + r.Stage.String() + " " + r.Gate.Bound.String()
				}
				return "refused: " + r.Stage.String()
			}
			return "admitted"
		}
	case PathHTTP:
		var err error
		if h, err = httpHandler(v); err != nil {
			return m, err
		}
		body := s.Body()
		run = func() string {
			req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			out := "http " + strconv.Itoa(rec.Code)
			var resp struct {
				Result struct {
					IsError bool `json:"isError"`
				} `json:"result"`
				Error *struct{ Code int } `json:"error"`
			}
			if json.Unmarshal(rec.Body.Bytes(), &resp) == nil {
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
	default:
		return m, fmt.Errorf("unknown path %q", path)
	}
	// One small call first: sonic compiles its decoder on first use and the
	// SDK builds its per-type state; a server pays that once, not per request.
	warm := Shape{Name: "warm-up", Segments: []Segment{{ASCII, 8}}, Encoder: s.Encoder, Verdict: s.Verdict}
	switch path {
	case PathCheck:
		v.Check(context.Background(), "knowledge.search", warm.Arguments())
	case PathHTTP:
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(warm.Body()))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	old := debug.SetGCPercent(GoGCPercent)
	defer debug.SetGCPercent(old)
	// The first call at this size: pooled buffers (sonic's among them) are
	// still sized for the warm-up, so it allocates more than a server in
	// steady state does.
	runtime.GC()
	allocs := readMetric("/gc/heap/allocs:bytes")
	m.Outcome = run()
	m.FirstAlloc = readMetric("/gc/heap/allocs:bytes") - allocs
	for i := 0; i < steadyCalls; i++ {
		run()
	}
	// Steady state. A row is idempotent, so it is repeated until the sampler
	// has read the heap at least minSamples times while the row ran (on a
	// loaded machine the sampler's thread may not be scheduled during a short
	// row); the peak is the highest over the tries, the allocation the first
	// try's.
	for try := 0; try < maxTries; try++ {
		runtime.GC()
		runtime.GC()
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
				return m, fmt.Errorf("%s: the row answered %q, then %q", s.Name, m.Outcome, outcome)
			}
		}
		m.PeakLive = max(m.PeakLive, peak-base)
		m.Samples += during
		if m.Samples >= minSamples {
			break
		}
	}
	return m, nil
}

// httpHandler is a go-sdk server with knowledge.search registered raw, the
// middleware first, served stateless with JSON responses.
func httpHandler(v *mcpvalidate.Validator) (http.Handler, error) {
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
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: v.MaxRequestBodyBytes()}), nil
}

// MeasureGo runs each shape through each path in a fresh child process:
// argv is the command that runs MeasureGoHere for `--row NAME --path P
// --div N` appended (`boundlab memmodel measure-go --row`).
func MeasureGo(ctx context.Context, argv []string, shapes []Shape, paths []GoPath, div int64, progress func(GoMeasurement)) ([]GoMeasurement, error) {
	var out []GoMeasurement
	for _, s := range shapes {
		for _, p := range paths {
			c, cancel := context.WithTimeout(ctx, 3*time.Minute)
			args := append(append([]string(nil), argv[1:]...), "--row", s.Name, "--path", string(p), "--div", strconv.FormatInt(div, 10))
			cmd := exec.CommandContext(c, argv[0], args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			cancel()
			if err != nil {
				return out, fmt.Errorf("%s %s: %w: %s", s.Name, p, err, tail(stderr.String(), 400))
			}
			var m GoMeasurement
			if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
				return out, fmt.Errorf("%s %s: unreadable row: %w", s.Name, p, err)
			}
			out = append(out, m)
			if progress != nil {
				progress(m)
			}
		}
	}
	return out, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// ShapeNamed finds a calibration shape by name at a scale.
func ShapeNamed(sc Scale, full bool, name string) (Shape, error) {
	for _, s := range CalibrationShapes(sc, full) {
		if s.Name == name {
			return s, nil
		}
	}
	return Shape{}, fmt.Errorf("no shape named %q at this scale", name)
}
