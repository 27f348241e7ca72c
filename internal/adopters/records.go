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

// Producer is the name of a's producer.
func Producer(a Adopter) string { return "adopters-" + strings.TrimPrefix(a.Key, "mcp-") }

func init() {
	for _, a := range Adopters() {
		toolchain := "the local Go toolchain"
		if a.Toolchain != "" {
			toolchain = "GOTOOLCHAIN=" + a.Toolchain
		}
		tests := ""
		if a.Tests != nil {
			tests = ", runs its own tests (" + a.testCommands() + ") in both"
		}
		results.Register(results.Producer{Name: Producer(a), Records: func() ([]results.Record, error) { return Records(a) },
			Remeasures: fmt.Sprintf("builds %s@%s unpatched and patched from the module proxy (%s; cached after the first run), "+
				"audits both over %s%s and times a tool call on each", a.Module, a.Version, toolchain, strings.Join(a.Transports(), " and "), tests), OnDemand: true})
	}
}

// TargetRules are the findings a protected server must not raise: echo,
// deep nesting, the transport closed or silent past the cap, the session
// ended by a probe. Their counts are recorded for both variants, zero
// included.
var TargetRules = []string{audit.RuleEcho, audit.RuleDeepNesting, audit.RuleClosedPastCap, audit.RuleSilentPastCap, audit.RuleSessionEnded}

// Audits are one transport's audit of each variant.
type Audits struct{ Before, After *audit.Report }

// Result is one adopter measured: the audit of each variant over each
// transport, the cost, and its own tests in each variant.
type Result struct {
	Audits map[string]Audits
	Cost   Cost
	// TestsBefore and TestsAfter are its own tests (Adopter.Tests), when
	// it has them.
	TestsBefore, TestsAfter *TestRun
	// PatchLines counts the patch's changed lines by file.
	PatchLines map[string]int
}

// Measure builds both variants (or takes them from the cache), audits each
// over each transport, measures the cost and runs the server's own tests in
// both.
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
	res := &Result{PatchLines: PatchLines(diff), Audits: map[string]Audits{}}
	for _, tr := range a.Transports() {
		var au Audits
		if au.Before, err = a.Audit(ctx, before, ws, tr); err != nil {
			return nil, err
		}
		if au.After, err = a.Audit(ctx, after, ws, tr); err != nil {
			return nil, err
		}
		res.Audits[tr] = au
	}
	if res.Cost, err = a.MeasureCost(ctx, before, after, ws); err != nil {
		return nil, fmt.Errorf("%s: cost: %w", a.Key, err)
	}
	if a.Tests != nil {
		src, err := a.Source(ctx)
		if err != nil {
			return nil, err
		}
		tb, err := a.RunTests(ctx, src, root, "")
		if err != nil {
			return nil, fmt.Errorf("%s: its tests unpatched: %w", a.Key, err)
		}
		ta, err := a.RunTests(ctx, src, root, filepath.Join(root, a.Patch))
		if err != nil {
			return nil, fmt.Errorf("%s: its tests patched: %w", a.Key, err)
		}
		res.TestsBefore, res.TestsAfter = &tb, &ta
	}
	return res, nil
}

// Records measures a (Measure) and records: each variant's audit over each
// transport (auditRecords); the patch's changed lines; the cost ratio; its
// own tests in each variant (testRecords).
func Records(a Adopter) ([]results.Record, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Minute)
	defer cancel()
	res, err := Measure(ctx, a)
	if err != nil {
		return nil, err
	}
	build := results.CurrentBuild()
	build.Modules = map[string]string{a.Module: a.Version}
	if a.Toolchain != "" {
		build.Modules["GOTOOLCHAIN("+a.Key+")"] = a.Toolchain
	}
	var out []results.Record
	for _, tr := range a.Transports() {
		au := res.Audits[tr]
		// Each variant counts the target rules and every rule the
		// unpatched server raised, zero included: what the patch ended
		// is a record too.
		rules := slices.Clone(TargetRules)
		for _, f := range au.Before.Findings {
			if !slices.Contains(rules, f.Rule) {
				rules = append(rules, f.Rule)
			}
		}
		for _, v := range []struct {
			variant string
			rep     *audit.Report
			what    string
		}{
			{"before", au.Before, "as published"},
			{"after", au.After, "with " + a.Patch + " applied"},
		} {
			out = append(out, auditRecords(a, tr, v.variant, v.what, build, v.rep, rules)...)
		}
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
			// the CPU and wall times move run to run: the instance says
			// only what was timed
			Instance: fmt.Sprintf("%s %s %s, %d rounds of %d calls each, the order alternating, in two halves on fresh processes started in the other order; answers of %d bytes, the same from both",
				res.Cost.Tool, res.Cost.Arguments, a.Setting, res.Cost.Rounds, res.Cost.Calls, res.Cost.Answer),
			Method: results.Measured, Source: "internal/adopters.MeasureCost: both binaries over stdio as children, RSS-watched", Tolerance: 0.1, Build: build})
	if res.TestsBefore != nil {
		out = append(out, testRecords(a, build, *res.TestsBefore, *res.TestsAfter)...)
	}
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

// auditRecords are one variant's audit over one transport: its headline
// figures (residuals.ReportRecords) under adopters.KEY.TRANSPORT.VARIANT,
// the counts of rules, zero included, and the sessions ended.
func auditRecords(a Adopter, transport, variant, what string, build results.Build, rep *audit.Report, rules []string) []results.Record {
	prefix := "adopters." + a.Key + "." + transport + "." + variant
	var src string
	switch transport {
	case Stdio:
		src = fmt.Sprintf("internal/adopters.Records: audit.Run (seed %d, default limits, every tool but %s called) on `%s %s` over stdio, %s@%s %s, in a one-package workspace",
			Seed, strings.Join(a.Skip, ", "), a.Key, strings.Join(a.Args, " "), a.Module, a.Version, what)
	default:
		src = fmt.Sprintf("internal/adopters.Records: audit.Run (seed %d, default limits, every tool but %s called) on `%s %s` over streamable HTTP on loopback, %s@%s %s",
			Seed, strings.Join(a.Skip, ", "), a.Key, strings.Join(a.HTTPArgs("127.0.0.1:PORT"), " "), a.Module, a.Version, what)
	}
	if a.Timeout > 0 {
		src = strings.Replace(src, "default limits", "default limits but "+a.Timeout.String()+" a request", 1)
	}
	if len(a.Env) > 0 {
		src += ", with " + strings.Join(a.Env, " ")
	}
	recs := residuals.ReportRecords(prefix, src, build, rep)
	for _, rule := range rules {
		id := prefix + ".findings." + rule
		if !slices.ContainsFunc(recs, func(r results.Record) bool { return r.ID == id }) {
			recs = append(recs, results.Record{ID: id, Title: "the findings of rule " + rule, Value: 0, Unit: "findings",
				Instance: "none raised", Method: results.Measured, Source: src, Build: build})
		}
	}
	var ended []string
	for _, e := range rep.SessionEnds {
		ended = append(ended, e.Probe)
	}
	instance := "none"
	if len(ended) > 0 {
		instance = strings.Join(ended, "; ")
	}
	return append(recs, results.Record{ID: prefix + ".sessions-ended", Title: "the probes on which the server ended the session (its process exited or closed stdout; report.session_ended)",
		Value: float64(len(ended)), Unit: "probes", Instance: instance, Method: results.Measured, Source: src, Build: build})
}

// testRecords are the server's own tests in each variant: how many passed
// and failed, and the regressions (passed unpatched, not patched), named.
func testRecords(a Adopter, build results.Build, before, after TestRun) []results.Record {
	src := "internal/adopters.RunTests: " + strings.TrimSpace(strings.Join(a.TestEnv, " ")+" "+a.testCommands()) + " in " + a.Module + "@" + a.Version + ", unpatched and with " + a.Patch + " applied"
	prefix := "adopters." + a.Key + ".tests."
	var out []results.Record
	for _, v := range []struct {
		variant string
		run     TestRun
	}{{"before", before}, {"after", after}} {
		instance := fmt.Sprintf("%d failed, %d skipped", v.run.Failed(), v.run.count("skip"))
		if failed := v.run.Names("fail"); len(failed) > 0 {
			instance += "; failed: " + strings.Join(failed, "; ")
		}
		out = append(out,
			results.Record{ID: prefix + v.variant + ".passed", Title: "the server's own tests (and subtests) that passed, " + v.variant + " the patch (a port in a subtest's name elided)",
				Value: float64(v.run.Passed()), Unit: "tests", Instance: instance,
				Method: results.Measured, Source: src, Build: build})
	}
	reg := Regressions(before, after)
	instance := "none"
	if len(reg) > 0 {
		instance = strings.Join(reg, "; ")
	}
	return append(out, results.Record{ID: prefix + "regressions", Title: "the server's own tests that pass unpatched and not patched",
		Value: float64(len(reg)), Unit: "tests", Instance: instance, Method: results.Measured, Source: src, Build: build})
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }
