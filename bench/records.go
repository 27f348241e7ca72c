package bench

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/theurian/boundlab/results"
	benchdata "github.com/theurian/boundlab/results/bench"
)

// Headline is one pinned figure: impl's sec/op over a baseline's in one
// group, or one unit's median.
type Headline struct {
	Family, Group, Impl string
	ID, Title           string
	Instance            string
	// Baseline is the impl the ratio is taken against; "" for the family's
	// (Baselines).
	Baseline string
	// RatioOf is the benchmark unit a ratio is taken over ("" for sec/op),
	// e.g. p50-µs for a ratio of median latencies.
	RatioOf string
	// Unit is "" for a ratio against the baseline, or a benchmark
	// unit whose median is pinned as is: answer-bytes/op (exact), B/s
	// (throughput, pinned in MB/s), heap/wire (bytes allocated per wire
	// byte), or "time" (sec/op, pinned in µs).
	Unit string
}

// multiByte are the shapes whose strings are all multi-byte UTF-8: there the
// gate is held to utf8.Valid, the floor for a scan that decodes every code
// point.
var multiByte = map[string]bool{"cjk": true, "u0600": true, "astral": true, "mixed": true}

// Headlines are the figures pinned as records: the gate's cost against
// encoding/json.Valid and against the strict peers (jsontext, simdjson-go,
// and utf8.Valid on multi-byte strings) on every shape, sonic's decode (what
// mcpvalidate ran after it before its own decoder) on the same bytes, the gate's throughput on
// printable ASCII, whole served calls, and the front gate against charge's
// gate.
func Headlines() []Headline {
	var hs []Headline
	for _, sh := range Shapes {
		inst := "BenchmarkValid/shape=" + sh.Name + ": " + shapeWhat[sh.Name]
		valid := func(impl, base, id, title string) {
			hs = append(hs, Headline{
				Family: "BenchmarkValid", Group: "shape=" + sh.Name, Impl: impl, Baseline: base,
				ID: "bench.valid." + sh.Name + "." + id, Title: title + ", " + sh.Name + " documents", Instance: inst,
			})
		}
		valid("gate", "", "gate-over-encoding-json", "Gate time over encoding/json.Valid time")
		valid("sonic-decode", "", "sonic-decode-over-encoding-json", "sonic decode (UseNumber, ValidateString) time over encoding/json.Valid time")
		// Against the strict peers the ratio is the peer's time over the
		// gate's: the gate's throughput in multiples of the peer's, the form
		// the targets are stated in (above 1, the gate is faster).
		valid("jsontext", "gate", "jsontext-over-gate", "jsontext.Value.IsValid (strict defaults) time over gate time")
		valid("simdjson-go", "gate", "simdjson-go-over-gate", "simdjson-go Parse (reused tape) time over gate time")
		if multiByte[sh.Name] {
			valid("utf8", "gate", "utf8-over-gate", "utf8.Valid time over gate time")
		}
	}
	hs = append(hs, Headline{
		Family: "BenchmarkValid", Group: "shape=ascii", Impl: "gate", Unit: "B/s",
		ID: "bench.valid.ascii.gate.throughput", Title: "Gate throughput on printable ASCII",
		Instance: "BenchmarkValid/shape=ascii: " + shapeWhat["ascii"],
	})
	for _, rq := range ServedRequests(0) {
		inst := "BenchmarkServed/req=" + rq.name + ": one tools/call of knowledge.search, client to handler in process (go-sdk in-memory transport; mark3labs in-process client), " + servedWhat[rq.name]
		for _, impl := range []string{"mcpvalidate", "mark3labs"} {
			hs = append(hs, Headline{
				Family: "BenchmarkServed", Group: "req=" + rq.name, Impl: impl,
				ID:       "bench.served." + rq.name + "." + impl + "-over-go-sdk-typed",
				Title:    impl + " call time over the go-sdk's typed-tool validation call time, " + rq.name + " request",
				Instance: inst,
			})
		}
		if rq.admit {
			continue
		}
		for _, impl := range []string{"mcpvalidate", "go-sdk-typed", "mark3labs"} {
			hs = append(hs, Headline{
				Family: "BenchmarkServed", Group: "req=" + rq.name, Impl: impl, Unit: "answer-bytes/op",
				ID:       "bench.served." + rq.name + "." + impl + ".answer-bytes",
				Title:    "Bytes of the refusal " + impl + " answers a " + rq.name + " request with",
				Instance: inst,
			})
		}
	}
	for _, op := range HTTPOps {
		inst := "BenchmarkHTTP/op=" + op + ": " + httpWhat[op] + ", " + httpSetup
		for _, impl := range []string{"middleware", "guarded"} {
			hs = append(hs, Headline{
				Family: "BenchmarkHTTP", Group: "op=" + op, Impl: "bare", Baseline: impl,
				ID:       "bench.http." + strings.ToLower(op) + "." + impl + "-over-bare-throughput",
				Title:    httpTitle[impl] + " requests per second over the bare go-sdk's, " + op,
				Instance: inst,
			}, Headline{
				Family: "BenchmarkHTTP", Group: "op=" + op, Impl: impl, Baseline: "bare", RatioOf: "p50-µs",
				ID:       "bench.http." + strings.ToLower(op) + "." + impl + "-over-bare-p50",
				Title:    httpTitle[impl] + " median request latency over the bare go-sdk's, " + op,
				Instance: inst,
			})
		}
	}
	stdioInst := "BenchmarkStdio/op=call-1KB: " + httpWhat["call-1KB"] + ", " + stdioSetup
	for _, impl := range []string{"middleware", "guarded"} {
		hs = append(hs, Headline{
			Family: "BenchmarkStdio", Group: "op=call-1KB", Impl: "bare", Baseline: impl,
			ID:       "bench.stdio.call-1kb." + impl + "-over-bare-throughput",
			Title:    stdioTitle[impl] + " calls per second over the bare go-sdk's, call-1KB over stdio",
			Instance: stdioInst,
		}, Headline{
			Family: "BenchmarkStdio", Group: "op=call-1KB", Impl: impl, Baseline: "bare", RatioOf: "p50-µs",
			ID:       "bench.stdio.call-1kb." + impl + "-over-bare-p50",
			Title:    stdioTitle[impl] + " median round trip over the bare go-sdk's, call-1KB over stdio",
			Instance: stdioInst,
		})
	}
	for _, body := range []string{"call-1KB", "at-cap-ascii", "at-cap-escaped"} {
		inst := "mcpvalidate BenchmarkFrontGate/shape=" + body + ": " + frontWhat[body]
		for _, impl := range []string{"front-gate", "serve"} {
			hs = append(hs, Headline{
				Family: "BenchmarkFrontGate", Group: "shape=" + body, Impl: impl,
				ID:       "bench.frontgate." + strings.ToLower(body) + "." + impl + "-over-core-gate", // ids are lower case
				Title:    frontTitle[impl] + " over charge's gate on the arguments alone, " + body,
				Instance: inst,
			})
		}
	}
	for _, c := range []string{"typical-1KB", "atcap-maxlength-ascii", "atcap-maxlength-u00e9-escaped"} {
		inst := "mcpvalidate BenchmarkCheck/case=" + c + ": " + checkWhat[c]
		id := "bench.check." + strings.ToLower(c) + "."
		hs = append(hs, Headline{
			Family: "BenchmarkCheck", Group: "case=" + c, Impl: "go-sdk-typed", Baseline: "mcpvalidate",
			ID:       id + "go-sdk-typed-over-mcpvalidate",
			Title:    "The go-sdk's typed-tool validation time over mcpvalidate.Check time, " + c,
			Instance: inst,
		}, Headline{
			Family: "BenchmarkCheck", Group: "case=" + c, Impl: "mcpvalidate", Unit: "heap/wire",
			ID:       id + "mcpvalidate.heap-over-wire",
			Title:    "Bytes mcpvalidate.Check allocates per wire byte of the arguments, " + c,
			Instance: inst,
		})
		if c == "typical-1KB" {
			hs = append(hs, Headline{
				Family: "BenchmarkCheck", Group: "case=" + c, Impl: "mcpvalidate", Unit: "time",
				ID:       id + "mcpvalidate.time",
				Title:    "mcpvalidate.Check time per call, " + c,
				Instance: inst,
			})
		}
	}
	return hs
}

// HTTPOps are BenchmarkHTTP's request kinds.
var HTTPOps = []string{"call-1KB", "tools-list", "initialize"}

const httpSetup = "a go-sdk server with one typed tool (query string, limit int), streamable HTTP over loopback, stateful, 4 clients with a session each calling at once"

var httpWhat = map[string]string{
	"call-1KB":   "a tools/call whose query is 1 KB of prose (served)",
	"tools-list": "a tools/list",
	"initialize": "a new session (initialize, notifications/initialized) and its DELETE",
}

const stdioSetup = "the same typed tool served over OS pipes (newline-delimited JSON-RPC), one call in flight"

var stdioTitle = map[string]string{
	"middleware": "mcpvalidate.Install alone:",
	"guarded":    "mcpvalidate.Install and StdioTransport (the README's wiring):",
}

var httpTitle = map[string]string{
	"middleware": "mcpvalidate.Install alone:",
	"guarded":    "mcpvalidate.Install and FrontGate (the README's wiring):",
}

var checkWhat = map[string]string{
	"typical-1KB":                   "knowledge.search arguments of 1,013 bytes (admitted), validation alone in process",
	"atcap-maxlength-ascii":         "knowledge.search arguments whose query is 8 MiB of printable ASCII (refused by maxLength 2000), validation alone",
	"atcap-maxlength-u00e9-escaped": "knowledge.search arguments whose query is 4 Mi \\u00e9 escapes, 24 MiB on the wire (refused by maxLength 2000), validation alone",
}

var frontWhat = map[string]string{
	"call-1KB":       "a typical 1 KB tools/call of knowledge.search",
	"at-cap-ascii":   "a tools/call at the body cap whose query is printable ASCII (refused by the charge at the render budget)",
	"at-cap-escaped": "a tools/call at the body cap whose query is \\u00e9 escapes (6 wire bytes, 2 rendered; admitted)",
}

var frontTitle = map[string]string{
	"front-gate": "Front gate time (FrontGate.Check: the whole body, envelope and arguments)",
	"serve":      "Served front gate time (FrontGate.ServeHTTP: budget, pooled read, scan)",
}

var servedWhat = map[string]string{
	"valid":           "a valid three-field request",
	"unknown-key":     "a request with one undeclared key",
	"maxlength-ascii": "query of ASCII past maxLength 2000",
	"maxlength-u0600": "query of raw U+0600 past maxLength 2000",
	"pattern-del":     "projectId of raw DEL failing its pattern",
}

var shapeWhat = map[string]string{
	"ascii":      `{"content": printable ASCII}`,
	"cjk":        `{"content": U+4E2D repeated (printable 3-byte)}`,
	"u0600":      `{"content": raw U+0600 repeated (non-printable 2-byte)}`,
	"del":        `{"content": raw U+007F repeated}`,
	"astral":     `{"content": U+1F600 repeated (printable 4-byte)}`,
	"smallnodes": `an array of single-digit numbers (at most 99,999)`,
	"deep":       `an array of chains nested 63 deep around a 0`,
	"escaped":    `{"content": \" repeated}`,
	"fields":     `an object of members "k<i>": i`,
	"mixed":      `{"content": a cycle through a, é, 中, 😀, U+0600, DEL, <, ', U+2028, ~}`,
	"gosource":   `{"path":"scanner.go","content": encoding/json's scanner.go repeated, escaped as encoding/json escapes it}`,
	"toolscall":  `a tools/call whose arguments hold records of seven small members (string, short name, integer, float, bool, null, two-tag array)`,
	"chat":       `a tools/call whose arguments hold chat messages of one to four lines of a mixed-script corpus (accented Latin, Cyrillic, CJK, Hangul, Arabic, Greek, Hebrew, emoji with ZWJ sequences and flags), escaped by encoding/json, every third message ensure_ascii`,
	"jsoninjson": `a tools/call whose one argument is a JSON document of records (a quoted template with newlines, a Windows path) encoded as a string`,
}

// SuiteRecords computes the headline records of the families a saved run
// holds (a run of ./bench/ holds BenchmarkValid and BenchmarkServed; one of
// ./mcpvalidate/ BenchmarkFrontGate). A family in the run whose headline has
// no sample is an error.
func SuiteRecords(data []byte, source string) ([]results.Record, error) {
	s, err := Parse(bytes.NewReader(data), source)
	if err != nil {
		return nil, err
	}
	families := map[string]bool{}
	for k := range s.Values {
		families[k.Family] = true
	}
	type view struct{ unit, base string }
	rows := map[view][]Row{}
	rowsFor := func(unit, base string) []Row {
		v := view{unit, base}
		if r, ok := rows[v]; ok {
			return r
		}
		if base == "" {
			rows[v] = s.Compare(unit)
		} else {
			rows[v] = s.CompareTo(unit, func(Key) string { return base })
		}
		return rows[v]
	}
	build := results.Build{Go: s.Config["go"], Modules: map[string]string{}}
	for k, v := range s.Config {
		if m, ok := cutModule(k); ok {
			build.Modules[m] = v
		}
	}
	size := s.Config["bench-bytes"]
	machine := fmt.Sprintf("machine: %s, GOMAXPROCS %s", s.Config["cpu-model"], s.Config["gomaxprocs"])
	var recs []results.Record
	if families["BenchmarkMixture"] {
		mix, err := mixtureRecords(s, source, build, machine)
		if err != nil {
			return nil, err
		}
		recs = append(recs, mix...)
	}
	for _, h := range Headlines() {
		if !families[h.Family] {
			continue
		}
		base := h.Baseline
		if base == "" {
			base = Baselines[h.Family]
		}
		unit := h.Unit
		if unit == "" || unit == "time" {
			unit = "sec/op"
		}
		if h.RatioOf != "" {
			unit = h.RatioOf
		}
		r, ok := Ratio(rowsFor(unit, h.Baseline), h.Family, h.Group, h.Impl)
		if !ok || (h.Unit == "" && math.IsNaN(r.Ratio)) {
			return nil, fmt.Errorf("%s: %s has no %s/%s sample against %s", source, h.Family, h.Group, h.Impl, base)
		}
		instance := fmt.Sprintf("%s, %s bytes; %s", h.Instance, size, machine)
		if h.Family == "BenchmarkFrontGate" || h.Family == "BenchmarkCheck" || h.Family == "BenchmarkHTTP" || h.Family == "BenchmarkStdio" {
			instance = fmt.Sprintf("%s; %s", h.Instance, machine) // sized by the body cap, not -bytes
		}
		switch h.Unit {
		case "answer-bytes/op":
			// A count the benchmark reports: exact, the same every iteration.
			recs = append(recs, results.Record{
				ID: h.ID, Title: h.Title, Value: r.Median, Unit: "bytes",
				Instance: fmt.Sprintf("%s, string values of %s bytes", h.Instance, size),
				Method:   results.Measured,
				Source:   fmt.Sprintf("%s (%s), median %s over n=%d, read by bench.SuiteRecords", source, s.Config["command"], h.Unit, r.N),
				Build:    build,
			})
			continue
		case "heap/wire", "time":
			// A median pinned as is: bytes allocated per wire byte, or a
			// call's time in microseconds.
			scale, unit := 1.0, "heap bytes per wire byte"
			if h.Unit == "time" {
				scale, unit = 1e6, "µs"
			}
			v := round3(r.Median * scale)
			recs = append(recs, results.Record{
				ID: h.ID, Title: h.Title, Value: v, Unit: unit, Instance: instance,
				Method: results.Measured,
				Source: fmt.Sprintf("%s (%s), n=%d, read by bench.SuiteRecords: benchmath AssumeNothing median, %.0f%% interval [%.4g, %.4g] %s",
					source, s.Config["command"], r.N, 100*Confidence, r.Lo*scale, r.Hi*scale, unit),
				Tolerance: round3(math.Max(0.5*v, math.Max(r.Hi*scale-v, v-r.Lo*scale))),
				Build:     build,
			})
			continue
		case "B/s":
			v := round3(r.Median / 1e6)
			recs = append(recs, results.Record{
				ID: h.ID, Title: h.Title, Value: v, Unit: "MB/s", Instance: instance,
				Method: results.Measured,
				Source: fmt.Sprintf("%s (%s), n=%d, read by bench.SuiteRecords: benchmath AssumeNothing median, %.0f%% interval [%.4g, %.4g] MB/s",
					source, s.Config["command"], r.N, 100*Confidence, r.Lo/1e6, r.Hi/1e6),
				Tolerance: round3(math.Max(0.5*v, math.Max(r.Hi/1e6-v, v-r.Lo/1e6))),
				Build:     build,
			})
			continue
		}
		v := round3(r.Ratio)
		recs = append(recs, results.Record{
			ID:       h.ID,
			Title:    h.Title,
			Value:    v,
			Unit:     "ratio of median " + unit,
			Instance: instance,
			Method:   results.Measured,
			Source: fmt.Sprintf("%s (%s), n=%d per impl, read by bench.SuiteRecords: benchmath AssumeNothing medians against %s, %.0f%% interval of the ratio [%.3g, %.3g], U-test p=%.3g",
				source, s.Config["command"], r.N, base, 100*Confidence, r.RatioLo, r.RatioHi, r.P),
			// Generous: half the value, or the interval's reach if wider. A
			// re-measurement on a quiet machine of the same kind lands inside.
			Tolerance: round3(math.Max(0.5*v, math.Max(r.RatioHi-v, v-r.RatioLo))),
			Build:     build,
		})
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	return recs, nil
}

func cutModule(k string) (string, bool) {
	const p = "mod/"
	if len(k) > len(p) && k[:len(p)] == p {
		return k[len(p):], true
	}
	return "", false
}

func round3(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return f
}

// Target is a bound a pinned headline ratio is held to: the records whose
// ids match Pattern (one * standing for one id segment, e.g. a shape) must
// each be at least Min and, when Max is not zero, at most Max.
type Target struct {
	Pattern  string
	Min, Max float64
	Why      string
}

// Targets are the bounds the pinned records are held to: Pinned fails (and
// with it `boundlab verify`) when a saved run breaks one, so a re-pin that
// loses a target cannot pass unnoticed.
var Targets = []Target{
	{"bench.valid.*.jsontext-over-gate", 1, 0, "the gate at least as fast as jsontext on every shape of the suite (issue 27)"},
	{"bench.http.call-1kb.guarded-over-bare-throughput", 0.95, 0, "the README's wiring (Install + FrontGate) keeps 95% of the bare go-sdk's throughput on a typical call (issue 27)"},
	{"bench.http.call-1kb.guarded-over-bare-p50", 0, 1.1, "and at most 1.1x its median latency (issue 27)"},
	{"bench.stdio.call-1kb.guarded-over-bare-throughput", 0.95, 0, "over stdio, Install + StdioTransport keeps 95% of the bare go-sdk's throughput on a typical call (issue 35)"},
	{"bench.stdio.call-1kb.guarded-over-bare-p50", 0, 1.1, "and at most 1.1x its median round trip (issue 35)"},
	{"bench.mixture.jsontext-over-gate.min", 1, 0, "the gate at least as fast as jsontext on the worst of the fifty seeded mixtures, text nobody tuned for (issue 35)"},
}

// CheckTargets returns an error naming every record that matches a target's
// pattern and falls outside its bounds, or a target no record matches.
func CheckTargets(recs []results.Record, targets []Target) error {
	var bad []string
	for _, tg := range targets {
		pre, post, star := strings.Cut(tg.Pattern, "*")
		matched := 0
		for _, r := range recs {
			if !star && r.ID != tg.Pattern {
				continue
			}
			if star && (len(r.ID) <= len(pre)+len(post) || !strings.HasPrefix(r.ID, pre) || !strings.HasSuffix(r.ID, post) ||
				strings.Contains(r.ID[len(pre):len(r.ID)-len(post)], ".")) {
				continue
			}
			matched++
			if r.Value < tg.Min {
				bad = append(bad, fmt.Sprintf("%s is %g, below %g (%s)", r.ID, r.Value, tg.Min, tg.Why))
			}
			if tg.Max != 0 && r.Value > tg.Max {
				bad = append(bad, fmt.Sprintf("%s is %g, above %g (%s)", r.ID, r.Value, tg.Max, tg.Why))
			}
		}
		if matched == 0 {
			bad = append(bad, fmt.Sprintf("target %s matches no record", tg.Pattern))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("the pinned runs miss their targets: %s", strings.Join(bad, "; "))
	}
	return nil
}

// Pinned is every headline record of the saved runs: the side-by-side suite,
// the front gate's and mcpvalidate.Check's. It fails when they break a
// target (Targets).
func Pinned() ([]results.Record, error) {
	var recs []results.Record
	for _, run := range []struct {
		data []byte
		file string
	}{
		{benchdata.Suite, benchdata.SuiteFile},
		{benchdata.FrontGate, benchdata.FrontGateFile},
		{benchdata.Check, benchdata.CheckFile},
		{benchdata.HTTP, benchdata.HTTPFile},
		{benchdata.Mixture, benchdata.MixtureFile},
	} {
		rs, err := SuiteRecords(run.data, run.file)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rs...)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	if err := CheckTargets(recs, Targets); err != nil {
		return nil, err
	}
	return recs, nil
}

// HeadlineFamily is the benchmark family a headline record's id belongs to
// ("" for an id no headline has).
func HeadlineFamily(id string) string {
	if strings.HasPrefix(id, "bench.mixture.") {
		return "BenchmarkMixture"
	}
	for _, h := range Headlines() {
		if h.ID == id {
			return h.Family
		}
	}
	return ""
}

func init() {
	results.Register(results.Producer{
		Name:    "bench",
		Records: Pinned,
	})
}
