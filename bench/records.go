package bench

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/theurian/boundlab/results"
	benchdata "github.com/theurian/boundlab/results/bench"
)

// Headline is one pinned ratio: impl's sec/op over the family baseline's, in
// one group.
type Headline struct {
	Family, Group, Impl string
	ID, Title           string
	Instance            string
	// Unit is "" for a sec/op ratio against the family baseline, or a
	// benchmark unit (answer-bytes/op) whose median is pinned as is.
	Unit string
}

// Headlines are the ratios pinned as records. The gate's cost against
// encoding/json.Valid on every shape family, and against sonic's decode (what
// mcpvalidate runs after it) on the same bytes.
func Headlines() []Headline {
	var hs []Headline
	for _, sh := range Shapes {
		inst := "BenchmarkValid/shape=" + sh.Name + ": " + shapeWhat[sh.Name]
		hs = append(hs, Headline{
			Family: "BenchmarkValid", Group: "shape=" + sh.Name, Impl: "gate",
			ID:       "bench.valid." + sh.Name + ".gate-over-encoding-json",
			Title:    "Gate time over encoding/json.Valid time, " + sh.Name + " documents",
			Instance: inst,
		}, Headline{
			Family: "BenchmarkValid", Group: "shape=" + sh.Name, Impl: "sonic-decode",
			ID:       "bench.valid." + sh.Name + ".sonic-decode-over-encoding-json",
			Title:    "sonic decode (UseNumber, ValidateString) time over encoding/json.Valid time, " + sh.Name + " documents",
			Instance: inst,
		})
	}
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
	return hs
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
}

// SuiteRecords computes the headline records from a saved run.
func SuiteRecords(data []byte, source string) ([]results.Record, error) {
	s, err := Parse(bytes.NewReader(data), source)
	if err != nil {
		return nil, err
	}
	rows := map[string][]Row{"": s.Compare("sec/op"), "answer-bytes/op": s.Compare("answer-bytes/op")}
	build := results.Build{Go: s.Config["go"], Modules: map[string]string{}}
	for k, v := range s.Config {
		if m, ok := cutModule(k); ok {
			build.Modules[m] = v
		}
	}
	size := s.Config["bench-bytes"]
	var recs []results.Record
	for _, h := range Headlines() {
		r, ok := Ratio(rows[h.Unit], h.Family, h.Group, h.Impl)
		if !ok || (h.Unit == "" && math.IsNaN(r.Ratio)) {
			return nil, fmt.Errorf("%s: %s has no %s/%s sample against %s", source, h.Family, h.Group, h.Impl, Baselines[h.Family])
		}
		if h.Unit != "" {
			// A count the benchmark reports: exact, the same every iteration.
			recs = append(recs, results.Record{
				ID: h.ID, Title: h.Title, Value: r.Median, Unit: "bytes",
				Instance: fmt.Sprintf("%s, string values of %s bytes", h.Instance, size),
				Method:   results.Measured,
				Source:   fmt.Sprintf("%s (%s), median %s over n=%d, read by bench.SuiteRecords", benchdata.SuiteFile, s.Config["command"], h.Unit, r.N),
				Build:    build,
			})
			continue
		}
		v := round3(r.Ratio)
		recs = append(recs, results.Record{
			ID:       h.ID,
			Title:    h.Title,
			Value:    v,
			Unit:     "ratio of median sec/op",
			Instance: fmt.Sprintf("%s, %s bytes; machine: %s, GOMAXPROCS %s", h.Instance, size, s.Config["cpu-model"], s.Config["gomaxprocs"]),
			Method:   results.Measured,
			Source: fmt.Sprintf("%s (%s), n=%d per impl, read by bench.SuiteRecords: benchmath AssumeNothing medians, %.0f%% interval of the ratio [%.3g, %.3g], U-test p=%.3g",
				benchdata.SuiteFile, s.Config["command"], r.N, 100*Confidence, r.RatioLo, r.RatioHi, r.P),
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

func init() {
	results.Register(results.Producer{
		Name: "bench",
		Records: func() ([]results.Record, error) {
			return SuiteRecords(benchdata.Suite, benchdata.SuiteFile)
		},
	})
}
