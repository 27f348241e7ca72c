package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/theurian/boundlab/results"
	loaddata "github.com/theurian/boundlab/results/load"
)

// Producer is the name the load records are pinned under.
const Producer = "load"

func init() {
	results.Register(results.Producer{Name: Producer, Records: func() ([]results.Record, error) {
		var out []results.Record
		for _, s := range loaddata.Runs() {
			recs, err := RunRecords(s.Data, s.File, s.Label)
			if err != nil {
				return nil, err
			}
			out = append(out, recs...)
		}
		for _, s := range loaddata.Floods() {
			recs, err := FloodRecords(s.Data, s.File, s.Label)
			if err != nil {
				return nil, err
			}
			out = append(out, recs...)
		}
		return out, nil
	}})
}

// ParseRun reads a saved run strictly (unknown fields refused).
func ParseRun(data []byte) (*Run, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Run
	if err := dec.Decode(&r); err != nil {
		return nil, err
	}
	if len(r.Variants) == 0 {
		return nil, fmt.Errorf("the run holds no variant")
	}
	return &r, nil
}

// RunRecords turns a saved run into measured records: per measured variant,
// the peak RSS, whether it was killed at the guard, the hostile answers'
// largest size, echoes and resets, whether it served afterwards, the valid
// calls' served fraction and p99, and each hostile shape's p99 (these last
// two only when the server was not killed at the guard). Verify reads
// them from the saved file; it never re-runs the load (a shared CI runner
// would neither have the memory nor reproduce the timings).
//
// Tolerances say how far a re-run on the same kind of machine may land:
// counts of echoes, resets and kills are exact; peak RSS within a quarter or
// 64 MiB; a p99 within its own value or 20 ms; the served fraction within
// 0.05.
//
// label, when not empty, prefixes the records' IDs (load.<label>.<variant>...)
// so runs that differ in their settings pin side by side.
func RunRecords(data []byte, source, label string) ([]results.Record, error) {
	r, err := ParseRun(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	build := results.Build{Go: r.Lab.Go, Modules: r.Lab.Modules}
	var out []results.Record
	for _, v := range r.Variants {
		if v.Error != "" {
			continue
		}
		inst := instance(r, v)
		prefix := "load."
		if label != "" {
			prefix += label + "."
		}
		rec := func(id, title string, value float64, unit string, tol float64) {
			out = append(out, results.Record{
				ID: prefix + v.Variant.Name + "." + id, Title: title, Value: value, Unit: unit, Instance: inst,
				Method: results.Measured, Tolerance: tol, Build: build,
				Source: fmt.Sprintf("%s (`%s`, at %s on %s), read by load.RunRecords", source, r.Lab.Command, or(r.Lab.Commit, "an unnamed commit"), r.Lab.Date),
			})
		}
		sent, unsent, refused, echoed, maxAnswer := v.Hostile()
		rec("peak-rss", "the server's peak RSS (VmHWM) over the attack", float64(v.PeakRSS), "bytes", math.Max(64<<20, float64(v.PeakRSS)/4))
		rec("killed-at-guard", fmt.Sprintf("the lab killed the server when its VmRSS passed the %s guard (1) or not (0)", mib(r.Settings.GuardBytes)), b2f(v.Killed), "1 = killed", 0)
		rec("hostile.max-answer-bytes", "the largest answer to a hostile request", float64(maxAnswer), "bytes", math.Max(64, float64(maxAnswer)/10))
		rec("hostile.echoed", "hostile answers that hold the canary from the request's caller values", float64(echoed), "answers", 0)
		rec("hostile.unrefused", fmt.Sprintf("hostile requests (of %d) not answered with a refusal: served, reset, oversized or unsent", sent+unsent), float64(sent+unsent-refused), "requests", 0)
		rec("served-after", "the server served a valid call after the attack (1) or not (0)", b2f(v.ServedAfter), "1 = served", 0)
		if b, ok := budgetOf(v.Banner); ok {
			rec("in-flight-budget", "the front gate's in-flight budget, as serve printed it", float64(b), "bytes", 0)
		}
		if c, ok := ceilingOf(v.Banner); ok {
			rec("printed-ceiling", "the memory ceiling serve printed", float64(c), "bytes", 0)
			rec("peak-over-printed-ceiling", "the server's peak RSS (VmHWM) over the memory ceiling serve printed: at most 1 is issue 24's target",
				round3(float64(v.PeakRSS)/float64(c)), "ratio", 0.25)
		}
		if v.Killed {
			// Latency and goodput of a server killed mid-attack say when the
			// kill came, not how the server serves: not records.
			continue
		}
		for _, s := range v.Shapes {
			switch {
			case s.Shape == ValidShape:
				rec("valid.served-fraction", "the fraction of small valid calls served during the attack", round3(s.ServedFraction()), "fraction", 0.05)
				rec("valid.p99-ms", "the p99 latency of small valid calls during the attack", s.P99MS, "ms", math.Max(20, s.P99MS))
			case s.Hostile:
				rec(s.Shape+".p99-ms", "the p99 latency of "+s.Shape+" requests ("+shapeWhat(s.Shape)+")", s.P99MS, "ms", math.Max(20, s.P99MS))
			}
		}
	}
	return out, nil
}

func instance(r *Run, v VariantResult) string {
	var hostile []string
	atBound := ""
	for _, s := range v.Shapes {
		if s.Hostile {
			hostile = append(hostile, s.Shape)
			if sh, ok := ShapeNamed(s.Shape); ok && sh.NodeBound {
				atBound += fmt.Sprintf(", %s at the arguments' node bound (%d bytes)", s.Shape, s.BodyBytes)
			}
		}
	}
	return fmt.Sprintf("%s on 127.0.0.1: %d requests each of %s, %d in flight, bodies of %d bytes"+atBound+" (cap %d); "+
		"%d valid-call clients, %d slow-trickle clients; protocol header %s; machine: %s, %d CPUs, %s",
		strings.Join(append([]string{"boundlab serve --stateless"}, v.Variant.Flags...), " "), r.Settings.Requests, strings.Join(hostile, ", "), v.Concurrency, v.BodyBytes, v.BodyCap,
		r.Settings.ValidClients, r.Settings.Trickles, r.Settings.Protocol, r.Lab.CPU, r.Lab.NumCPU, r.Lab.Kernel)
}

// budgetLead is what serve's banner prints before the front gate's in-flight
// budget in bytes.
const budgetLead = "front gate: in-flight budget "

// budgetOf reads the in-flight budget from serve's banner; false when the
// banner names none (the front gate off, or a serve from before it).
func budgetOf(banner []string) (int64, bool) { return bannerBytes(banner, budgetLead) }

// bannerBytes reads the byte count serve's banner prints after lead; false
// when no line holds lead or the count does not parse.
func bannerBytes(banner []string, lead string) (int64, bool) {
	for _, line := range banner {
		_, rest, ok := strings.Cut(line, lead)
		if !ok {
			continue
		}
		digits, _, _ := strings.Cut(rest, " ")
		b, err := strconv.ParseInt(digits, 10, 64)
		return b, err == nil && b > 0
	}
	return 0, false
}

func shapeWhat(name string) string {
	s, _ := ShapeNamed(name)
	return s.What
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
