package adopters

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/internal/residuals"
	"github.com/theurian/boundlab/results"
	"github.com/theurian/boundlab/sweeps"
)

// Producer is the gopls producer's name.
const Producer = "adopters-gopls"

func init() {
	a := Gopls()
	results.Register(results.Producer{Name: Producer, Records: func() ([]results.Record, error) { return Records(a) },
		Remeasures: fmt.Sprintf("builds %s@%s unpatched and patched from the module proxy (GOTOOLCHAIN=%s; cached after the first run), "+
			"audits both over stdio and times a tool call on each", a.Module, a.Version, a.Toolchain), OnDemand: true})
}

// TargetRules are the findings a protected server must not raise: echo,
// deep nesting, the transport closed or silent past the cap, the session
// ended by a probe. Their counts are recorded for both variants, zero
// included.
var TargetRules = []string{audit.RuleEcho, audit.RuleDeepNesting, audit.RuleClosedPastCap, audit.RuleSilentPastCap, audit.RuleSessionEnded}

// Cost's rounds and calls per round: 30,000 calls of about 0.2 ms of
// server CPU each, some 500 clock ticks per server, so that a tick is
// 0.2% of the figure; alternating 15 times spreads the machine's bursts
// over both.
const (
	CostRounds = 15
	CostCalls  = 2000
)

// Result is one adopter measured: the audit of each variant and the cost.
type Result struct {
	Before, After *audit.Report
	Cost          Cost
	// PatchLines counts the patch's changed lines by file.
	PatchLines map[string]int
}

// Measure builds both variants (or takes them from the cache), audits each
// and measures the cost.
func Measure(ctx context.Context, a Adopter) (*Result, error) {
	before, after, err := a.Binaries(ctx)
	if err != nil {
		return nil, err
	}
	root, err := ModuleRoot(ctx)
	if err != nil {
		return nil, err
	}
	diff, err := os.ReadFile(filepath.Join(root, a.Patch))
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "boundlab-adopter-ws-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	ws, err := Workspace(work)
	if err != nil {
		return nil, err
	}
	res := &Result{PatchLines: PatchLines(diff)}
	if res.Before, err = a.Audit(ctx, before, ws); err != nil {
		return nil, err
	}
	if res.After, err = a.Audit(ctx, after, ws); err != nil {
		return nil, err
	}
	if res.Cost, err = a.MeasureCost(ctx, before, after, ws, CostRounds, CostCalls); err != nil {
		return nil, fmt.Errorf("%s: cost: %w", a.Key, err)
	}
	return res, nil
}

// Records measures a (Measure) and records: each variant's audit headline
// figures (residuals.ReportRecords) under adopters.KEY.stdio.before and
// .after, with the target rules' counts and the sessions ended; the patch's
// changed lines; the cost ratio.
func Records(a Adopter) ([]results.Record, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Minute)
	defer cancel()
	res, err := Measure(ctx, a)
	if err != nil {
		return nil, err
	}
	build := results.CurrentBuild()
	build.Modules = map[string]string{a.Module: a.Version, "GOTOOLCHAIN(" + a.Key + ")": a.Toolchain}
	var out []results.Record
	for _, v := range []struct {
		variant string
		rep     *audit.Report
		what    string
	}{
		{"before", res.Before, "as published"},
		{"after", res.After, "with " + a.Patch + " applied"},
	} {
		prefix := "adopters." + a.Key + ".stdio." + v.variant
		src := fmt.Sprintf("internal/adopters.Records: audit.Run (seed %d, default limits, every tool but %s called) on `%s %s` over stdio, %s@%s %s, in a one-package workspace",
			Seed, strings.Join(a.Skip, ", "), a.Key, strings.Join(a.Args, " "), a.Module, a.Version, v.what)
		recs := residuals.ReportRecords(prefix, src, build, v.rep)
		for _, rule := range TargetRules {
			id := prefix + ".findings." + rule
			if !slices.ContainsFunc(recs, func(r results.Record) bool { return r.ID == id }) {
				recs = append(recs, results.Record{ID: id, Title: "the findings of rule " + rule, Value: 0, Unit: "findings",
					Instance: "none raised", Method: results.Measured, Source: src, Build: build})
			}
		}
		var ended []string
		for _, e := range v.rep.SessionEnds {
			ended = append(ended, e.Probe)
		}
		instance := "none"
		if len(ended) > 0 {
			instance = strings.Join(ended, "; ")
		}
		recs = append(recs, results.Record{ID: prefix + ".sessions-ended", Title: "the probes on which the server ended the session (its process exited or closed stdout; report.session_ended)",
			Value: float64(len(ended)), Unit: "probes", Instance: instance, Method: results.Measured, Source: src, Build: build})
		out = append(out, recs...)
	}
	files := make([]string, 0, len(res.PatchLines))
	total, code := 0, 0
	for f, n := range res.PatchLines {
		files = append(files, fmt.Sprintf("%s %d", f, n))
		total += n
		if strings.HasSuffix(f, ".go") {
			code += n
		}
	}
	sort.Strings(files)
	psrc := "internal/adopters.PatchLines: the lines a unified diff adds and removes, by file, on " + a.Patch
	out = append(out,
		results.Record{ID: "adopters." + a.Key + ".patch.lines", Title: "the patch's changed lines (added and removed), every file",
			Value: float64(total), Unit: "lines", Instance: strings.Join(files, ", "), Method: results.Derived, Source: psrc},
		results.Record{ID: "adopters." + a.Key + ".patch.lines.go", Title: "the patch's changed lines (added and removed) in Go source: the change a maintainer writes",
			Value: float64(code), Unit: "lines", Instance: strings.Join(files, ", "), Method: results.Derived, Source: psrc},
		results.Record{ID: "adopters." + a.Key + ".stdio.cost.ratio", Title: "patched over unpatched throughput of one real tool call, side by side in one run, by the servers' own CPU time for the same calls",
			Value: round3(res.Cost.Ratio), Unit: "x",
			// the ticks and the wall time move run to run: the instance
			// says only what was timed
			Instance: fmt.Sprintf("%s %s in a one-package workspace, %d rounds of %d calls each, the order alternating; answers of %d bytes, the same from both",
				res.Cost.Tool, res.Cost.Arguments, res.Cost.Rounds, res.Cost.Calls, res.Cost.Answer),
			Method: results.Measured, Source: "internal/adopters.MeasureCost: both binaries over stdio as children, RSS-watched", Tolerance: 0.1, Build: build})
	// Every measured figure moves with the Go toolchain the lab runs on
	// (the auditor is built with it), so verify re-derives them on another
	// rather than holding them exactly.
	for i := range out {
		if out[i].Method == results.Measured && !slices.Contains(out[i].DependsOn, results.DepGo) {
			out[i].DependsOn = append(out[i].DependsOn, results.DepGo)
		}
	}
	// A figure can be a number the seed's withdrawn claims used (the
	// go-sdk's 16 MiB stdio line cap): say it is not that claim.
	return sweeps.NoteRetiredNumbers(charge.DefaultLimits(), out)
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }
