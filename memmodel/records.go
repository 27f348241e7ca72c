package memmodel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/results"
)

func init() {
	results.Register(results.Producer{Name: "memmodel", Records: Records})
}

// MeasuredTolerance is how far a re-measurement of a calibrated row may move,
// as a fraction of the peak (a record's Tolerance is this times its value, in
// bytes): tracemalloc reproduced every full-scale row to
// well under 0.1% across runs here; 1% leaves room for interpreter patch
// releases that move the per-request fixed cost.
const MeasuredTolerance = 0.01

// build is the build a record holds for: the Go version and each dialect's
// Unicode version (what results.CurrentBuild reports), plus the modules a
// measured row names.
func build(mods map[string]string) results.Build {
	b := results.Build{Go: runtime.Version(), Unicode: map[string]string{}, Modules: mods}
	for _, d := range charge.Dialects() {
		b.Unicode[d.String()] = d.UnicodeVersion()
	}
	return b
}

func shortParser(name string) string {
	switch name {
	case PydanticCore.Name:
		return "pydantic_core"
	case JSONLoads.Name:
		return "json"
	}
	return strings.ReplaceAll(name, " ", "-")
}

// seedFigures are what the seed printed for the shapes it names, quoted so a
// record can stand beside them; the lab's values are computed, never these.
var seedFigures = map[string]string{
	"ascii":                         "ADR-0031 A1 family (i): all ASCII 75.1 MiB, 3.00x, as one row of four (as a bound it is retired.seed.memory-ascii-row-as-bound)",
	"del":                           "ADR-0031 A1 family (i): dense U+007F 75.2 MiB, 3.01x",
	"del+2byte":                     "ADR-0031 A1 family (i): U+007F + one 2-byte character 125.1 MiB, 5.00x",
	"del+astral":                    "ADR-0031 A1 family (i): U+007F + one astral character 175.1 MiB, 7.00x",
	"seed-ratio-worst":              "ADR-0031 A1 family (ii) worst by ratio: 114.1 MiB = 38.04x at 3,145,848 wire bytes",
	"cjk-at-cap":                    "ADR-0031 A1: printable CJK peaks at its parse moment, 5.00x against a 4.00x render moment",
	"2byte-printable-at-budget":     "ADR-0031 A1: additive form 7.00x predicted against 5.12x measured (printable 2-byte)",
	"astral-nonprintable-at-budget": "ADR-0031 A1: non-printable astral measures 8.11x where the expression says 23.00x",
	"arabic-at-budget":              "ADR-0031 A1: non-printable U+0600 measures 9.11x against 15.00x",
	"search-ii-absolute":            "ADR-0031 A1 family (ii) worst absolute: ~194-200 MiB, up to 8.00x (CJK filler + ASCII + one astral, at the cap)",
}

// seedPeaks are the tracemalloc peaks the seed printed for its at-cap rows
// (ADR-0031 A1), as it printed them (results.Record.SeedValue); they stand
// beside the pydantic_core measurements, which results.Classify compares
// them with.
var seedPeaks = map[string]struct {
	value  string
	figure int // in the seed's list, results.SeedFigures
}{
	"ascii":              {"75.1 MiB", 42},
	"del":                {"75.2 MiB", 43},
	"del+2byte":          {"125.1 MiB", 44},
	"del+astral":         {"175.1 MiB", 45},
	"seed-ratio-worst":   {"114.1 MiB", 48},
	"search-ii-absolute": {"194-200 MiB", 50},
}

// measuredID is the id of a pinned calibration row's record.
func measuredID(r CalibratedRow) string {
	return fmt.Sprintf("memmodel.python.%s@%s%s.%s.measured-peak", shortParser(r.Measured.Parser), r.Measured.Impl, r.Measured.Python, r.Shape)
}

// Records recomputes every memmodel record from the live build: the model's
// predictions at full scale (derived, exact), the seed's expression over the
// same bodies (derived), every pinned calibration row (measured; checked here
// against the live model, which must bound it, and against the lab's shapes,
// which must still build the body that was measured), and the seed's
// withdrawn claims (retired, each with the counterexample).
func Records() ([]results.Record, error) {
	sc := FullScale()
	var out []results.Record
	shapes := CalibrationShapes(sc, true)
	byName := map[string]Shape{}
	for _, s := range shapes {
		byName[s.Name] = s
		seedPeak, _ := SeedModel(s, sc.Limits)
		st := s.Stats()
		for _, p := range Parsers {
			pr := Predict(s, p, sc.Limits)
			out = append(out, results.Record{
				ID:       fmt.Sprintf("memmodel.python.%s.%s.predicted-peak", shortParser(p.Name), s.Name),
				Title:    fmt.Sprintf("CPython per-request peak, family %s, parse by %s (decided by the %s moment)", pr.Family.Describe(), p.Name, pr.Decider),
				Value:    float64(pr.Peak),
				Unit:     "bytes (tracemalloc-visible heap)",
				Instance: fmt.Sprintf("%s; %d wire bytes", s.Describe(), st.Wire),
				Method:   results.Derived,
				Source:   "memmodel.Predict(shape, memmodel." + map[string]string{PydanticCore.Name: "PydanticCore", JSONLoads.Name: "JSONLoads"}[p.Name] + ", charge.DefaultLimits()) at charge.BodyCap(EnsureASCII, Raw).Cap",
				Seed:     seedFigures[s.Name],
				Build:    build(nil),
			})
		}
		out = append(out, results.Record{
			ID:       fmt.Sprintf("memmodel.python.seed-expression.%s", s.Name),
			Title:    "the seed's round-three expression for the same body: max(2w + parse, 2w + n*kind + 2*rendered*kind), parse 1x/3x/5x",
			Value:    float64(seedPeak),
			Unit:     "bytes",
			Instance: fmt.Sprintf("%s; %d wire bytes", s.Describe(), st.Wire),
			Method:   results.Derived,
			Source:   "memmodel.SeedModel(shape, charge.DefaultLimits())",
			Seed:     seedFigures[s.Name],
			Build:    build(nil),
		})
	}
	cal, err := PinnedCalibration()
	if err != nil {
		return nil, err
	}
	for _, r := range cal.Rows {
		s, ok := byName[r.Shape]
		if !ok {
			return nil, fmt.Errorf("%s: pinned row %q names a shape the lab no longer builds", CalibrationFile, r.Shape)
		}
		p, err := ParserNamed(r.Measured.Parser)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", CalibrationFile, err)
		}
		if st := s.Stats(); st.Wire != r.Measured.Wire || st.CodePoints != r.Measured.CodePoints {
			return nil, fmt.Errorf("%s: shape %s now builds %d wire bytes, %d code points; the pinned row measured %d, %d: re-run calibrate",
				CalibrationFile, r.Shape, st.Wire, st.CodePoints, r.Measured.Wire, r.Measured.CodePoints)
		}
		live := Predict(s, p, sc.Limits)
		r.Predicted, r.PredPeak = live.Moments, live.Peak
		if err := r.Holds(); err != nil {
			return nil, fmt.Errorf("the live model no longer bounds a pinned measurement: %w", err)
		}
		seedValue, seedFigure := "", 0
		if p.Name == PydanticCore.Name { // the seed's SDK parses with pydantic_core
			seedValue, seedFigure = seedPeaks[s.Name].value, seedPeaks[s.Name].figure
		}
		out = append(out, results.Record{
			ID:         measuredID(r),
			SeedValue:  seedValue,
			SeedFigure: seedFigure,
			Title:      fmt.Sprintf("CPython per-request peak, measured, family %s; the live model predicts %d (holds: prediction >= measurement)", FamilyOfName(r.Family), live.Peak),
			Value:      float64(r.Measured.Peak),
			Unit:       "bytes (tracemalloc peak)",
			Instance: fmt.Sprintf("%s; %d wire bytes; one fresh %s %s process, %s %s",
				s.Describe(), r.Measured.Wire, r.Measured.Impl, r.Measured.Python, r.Measured.Parser, r.Measured.ParserVersion),
			Method:    results.Measured,
			Source:    "tracemalloc (peak per moment, reset_peak between) via `boundlab memmodel calibrate --python PATH --out " + CalibrationFile + "`; memmodel/calibrate.py",
			Tolerance: float64(int64(MeasuredTolerance * float64(r.Measured.Peak))),
			Seed:      seedFigures[s.Name],
			Build: build(map[string]string{
				"cpython":                      r.Measured.Python,
				shortParser(r.Measured.Parser): r.Measured.ParserVersion,
				"cpython-unicodedata":          r.Measured.Unicode,
			}),
		})
	}
	goRecs, err := goRecords(byName, sc)
	if err != nil {
		return nil, err
	}
	out = append(out, goRecs...)
	stateRecs, err := stateRecords()
	if err != nil {
		return nil, err
	}
	out = append(out, stateRecs...)
	ret, err := retired(cal, byName, sc)
	if err != nil {
		return nil, err
	}
	small, err := smallRecords(cal, sc)
	if err != nil {
		return nil, err
	}
	out = append(out, small...)
	seedRecs, err := seedFigureRecords(cal, byName, sc)
	if err != nil {
		return nil, err
	}
	out = append(out, seedRecs...)
	return append(out, ret...), nil
}

// FamilyOfName turns "i", "ii", "iii" back into the seed's wording.
func FamilyOfName(s string) string {
	for _, f := range Families {
		if f.String() == s {
			return f.Describe()
		}
	}
	return s
}

// goRecords are the pinned Go rows as measured records, the middleware model
// beside each as a derived one; a pinned middleware row above its model fails
// the producer, and so does a guarded row whose peak over its wire bytes
// exceeds bounds.PeakFactor (guardedRecords).
func goRecords(byName map[string]Shape, sc Scale) ([]results.Record, error) {
	rows, err := PinnedGoRows()
	if err != nil {
		return nil, err
	}
	gate := map[string]Shape{}
	for _, s := range GateShapes(sc) {
		gate[s.Name] = s
	}
	var out []results.Record
	mods := linkedModules("github.com/modelcontextprotocol/go-sdk", "github.com/bytedance/sonic", "github.com/santhosh-tekuri/jsonschema/v6")
	for _, m := range rows {
		s, ok := byName[m.Shape]
		if !ok {
			s, ok = gate[m.Shape]
		}
		if !ok {
			return nil, fmt.Errorf("%s: pinned row %q names a shape the lab no longer builds", GoRowsFile, m.Shape)
		}
		st := s.Stats()
		if st.Wire != m.Wire || st.ArgsWire != m.ArgsWire {
			return nil, fmt.Errorf("%s: shape %s now builds %d wire bytes; the pinned row measured %d: re-run measure-go", GoRowsFile, m.Shape, st.Wire, m.Wire)
		}
		out = append(out, rowRecords(s, m, mods)...)
		if s.Frame != FrameCall {
			continue // the fitted models price single-leaf calls only
		}
		switch m.Path {
		case PathHTTP:
			model := GoHTTPModel(s, sc.Limits)
			if m.PeakLive > model {
				return nil, fmt.Errorf("%s: %s peaked at %d through HTTP, above the whole-request fit's %d", GoRowsFile, m.Shape, m.PeakLive, model)
			}
			out = append(out, results.Record{
				ID:       fmt.Sprintf("memmodel.go.http.%s.model", m.Shape),
				Title:    "the whole-request fit's bound on the peak: 6 x wire + the middleware model + 4 MiB",
				Value:    float64(model),
				Unit:     "bytes",
				Instance: fmt.Sprintf("%s; %d wire bytes", s.Describe(), m.Wire),
				Method:   results.Derived,
				Source:   "memmodel.GoHTTPModel(shape, charge.DefaultLimits())",
				Build:    build(nil),
			})
		case PathCheck:
			model := GoMiddlewareModel(s, sc.Limits)
			if m.TotalAlloc > model || m.FirstAlloc > model {
				return nil, fmt.Errorf("%s: %s allocated %d (first call %d) through Check, above the middleware model's %d", GoRowsFile, m.Shape, m.TotalAlloc, m.FirstAlloc, model)
			}
			out = append(out, results.Record{
				ID:       fmt.Sprintf("memmodel.go.check.%s.model", m.Shape),
				Title:    "the middleware model's bound on Check's allocation: 0 on a gate refusal, else arguments (sonic's copy) + 2 x landed (v6's copies) + GoFixed",
				Value:    float64(model),
				Unit:     "bytes",
				Instance: fmt.Sprintf("%s; %d arguments bytes", s.Describe(), m.ArgsWire),
				Method:   results.Derived,
				Source:   "memmodel.GoMiddlewareModel(shape, charge.DefaultLimits())",
				Build:    build(nil),
			})
		}
	}
	g, err := guardedRecords(rows, gate)
	if err != nil {
		return nil, err
	}
	return append(out, g...), nil
}

// rowRecords are one pinned row's measured records: its peak, its first
// call's allocation and its steady allocation.
func rowRecords(s Shape, m GoMeasurement, mods map[string]string) []results.Record {
	inst := fmt.Sprintf("%s; %d wire bytes, %d arguments bytes; outcome %s", s.Describe(), m.Wire, m.ArgsWire, m.Outcome)
	var what string
	switch m.Path {
	case PathCheck:
		what = "mcpvalidate's (*Validator).Check, from the raw arguments to the refusal or the handler call"
	case PathHTTP:
		what = "one whole HTTP request: go-sdk v1.8.0 streamable handler (stateless, JSON responses) with mcpvalidate's middleware"
	default:
		what = "one whole HTTP request behind mcpvalidate's front gate, as `boundlab serve --stateless` runs it (demo.Guarded: the gate's pooled body buffer, then the go-sdk v1.8.0 streamable handler, stateless, SSE answers, with the middleware)"
	}
	procs := "one fresh process per row"
	if m.Processes > 1 {
		procs = fmt.Sprintf("the highest of %d fresh processes", m.Processes)
	}
	peakSrc := "runtime/metrics " + heapObjects + " sampled in a busy goroutine at GOGC=2 (at least five calls and 16 readings during them), above a baseline taken after two collections (which empty every sync.Pool, so a pooled buffer the call uses is allocated inside it), after a warm-up and four at-size calls, " + procs + ": `boundlab memmodel measure-go --out " + GoRowsFile + "`"
	return []results.Record{
		{
			ID:    fmt.Sprintf("memmodel.go.%s.%s.peak-live", m.Path, m.Shape),
			Title: "our validator's peak live heap in steady state: " + what,
			Value: float64(m.PeakLive), Unit: "bytes", Instance: inst, Method: results.Measured,
			Source: peakSrc, Tolerance: float64(max(m.PeakLive/10, 1<<20)), Build: build(mods),
		},
		{
			ID:    fmt.Sprintf("memmodel.go.%s.%s.first-alloc", m.Path, m.Shape),
			Title: "our validator's allocation on the first call at this size (pooled buffers still small): " + what,
			Value: float64(m.FirstAlloc), Unit: "bytes", Instance: inst, Method: results.Measured,
			Source:    "runtime/metrics /gc/heap/allocs:bytes around the first at-size call after an 8-byte warm-up call, " + procs + ": `boundlab memmodel measure-go --out " + GoRowsFile + "`",
			Tolerance: float64(max(m.FirstAlloc/20, 1<<20)), Build: build(mods),
		},
		{
			ID:    fmt.Sprintf("memmodel.go.%s.%s.total-alloc", m.Path, m.Shape),
			Title: "our validator's total allocation per call in steady state (after three at-size calls): " + what,
			Value: float64(m.TotalAlloc), Unit: "bytes", Instance: inst, Method: results.Measured,
			Source:    "runtime/metrics /gc/heap/allocs:bytes, before and after, " + procs + ": `boundlab memmodel measure-go --out " + GoRowsFile + "`",
			Tolerance: float64(max(m.TotalAlloc/20, 1<<20)), Build: build(mods),
		},
	}
}

// linkedModules is each module's version as linked into this binary.
func linkedModules(paths ...string) map[string]string {
	out := map[string]string{}
	info, ok := debug.ReadBuildInfo()
	for _, p := range paths {
		out[p] = "not linked"
		if !ok {
			continue
		}
		for _, d := range info.Deps {
			if d.Path == p {
				out[p] = d.Version
			}
		}
	}
	return out
}
