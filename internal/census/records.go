package census

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/internal/residuals"
	"github.com/theurian/boundlab/internal/strangers"
	"github.com/theurian/boundlab/results"
	"github.com/theurian/boundlab/sweeps"
)

// Producer is the census's producer.
const Producer = "census"

func init() {
	results.Register(results.Producer{Name: Producer, Records: func() ([]results.Record, error) {
		return Records(context.Background(), func(i int, s Server) {
			fmt.Fprintf(os.Stderr, "census: %s (%d of %d)\n", s.Key, i+1, len(Servers()))
		})
	},
		Remeasures: fmt.Sprintf("installs the npm reference servers, builds the SDK strangers, gopls and mcp-grafana, and audits %d servers (BOUNDLAB_CENSUS_JOBS at once; one by default), "+
			"each held to direct measurements (tens of minutes)", len(Servers())), OnDemand: true})
}

// Result is one server audited and measured directly.
type Result struct {
	Server  Server
	Report  *audit.Report
	Direct  *Direct
	Seconds float64
	// Stdio says the server spoke stdio (a process per session).
	Stdio bool
}

// Audit starts s, audits it (seed Seed, the default limits, its read-only
// tools and Tools called, none of Skip, the peak-memory probe over stdio),
// measures it directly, and stops it.
func Audit(ctx context.Context, s Server, progress func(audit.Progress)) (*Result, error) {
	work, err := os.MkdirTemp("", "boundlab-census-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	target, stop, err := s.Start(ctx, work)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Key, err)
	}
	st, isStdio := target.(*audit.Stdio)
	if isStdio && st.RSSLimit == 0 {
		st.RSSLimit = RSSGuard // each process the auditor starts, watched as the HTTP children are
	}
	res := &Result{Server: s, Stdio: isStdio}
	start := time.Now()
	res.Report, err = audit.Run(ctx, audit.Config{Target: target, Seed: Seed, Call: s.Tools, Skip: s.Skip, AllTools: s.AllTools, Memory: true, Progress: progress})
	res.Seconds = time.Since(start).Seconds()
	if err == nil {
		res.Direct, err = Measure(ctx, target, res.Report)
	}
	if serr := stop(); err == nil && serr != nil {
		err = serr
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Key, err)
	}
	return res, nil
}

// Disagreements lists where the report and the direct measurements differ:
// the cap (or the ceiling) answered and one byte past it not; the depth
// (or the ceiling) answered as depth 2 and one deeper not; the params echo
// within 1% (and 0.01); no direct echo above the report's worst; the peak
// memory per request byte within MemoryTolerance.
func Disagreements(rep *audit.Report, d *Direct) []string {
	var out []string
	b := rep.Boundary
	switch {
	case b.BodyCap != nil && !d.AtCap:
		out = append(out, fmt.Sprintf("a %d-byte ping (the reported cap) is not answered with a result", *b.BodyCap))
	case b.BodyCap == nil && !d.AtCap:
		out = append(out, fmt.Sprintf("no cap reported, but a %d-byte ping is not answered with a result", b.BodyCeiling))
	}
	if d.PastCap != nil && *d.PastCap {
		out = append(out, fmt.Sprintf("a %d-byte ping (one past the reported cap) is answered with a result", *b.BodyCap+1))
	}
	if !d.AtDepth {
		out = append(out, fmt.Sprintf("the reported depth (%s) is not answered as depth 2", depthText(b)))
	}
	if d.PastDepth != nil && *d.PastDepth {
		out = append(out, fmt.Sprintf("one level past the reported depth (%s) is answered as depth 2", depthText(b)))
	}
	if e := b.EnvelopeEcho; e != nil && math.Abs(e.Ratio-d.Params.Ratio) > 0.01*d.Params.Ratio+0.01 {
		out = append(out, fmt.Sprintf("the reported params echo is %.4f; measured directly %.4f", e.Ratio, d.Params.Ratio))
	}
	for _, e := range []strangers.Echo{d.Params, d.UnknownTool} {
		if b.EchoRatio < e.Ratio-0.01 {
			out = append(out, fmt.Sprintf("the report's echo ratio %.3f misses an echo measured directly: %.3f (%s)", b.EchoRatio, e.Ratio, e.Instance))
		}
	}
	if m := b.Memory; m != nil && d.Memory != nil && math.Abs(m.PerByte-*d.Memory) > MemoryTolerance(*d.Memory) {
		out = append(out, fmt.Sprintf("the reported peak memory is %.3f bytes per request byte; measured directly %.3f", m.PerByte, *d.Memory))
	}
	return out
}

// MemoryTolerance is how far two peak-memory readings of one server may
// differ: the figure itself (a factor of two), at least a byte per byte.
// A garbage-collected runtime's high-water mark depends on when its
// collector ran, which differs run to run: node's reference servers read
// 6.0 and 7.6 in audits and 4.0 and 3.9 directly beside them.
func MemoryTolerance(v float64) float64 { return max(1, v) }

func depthText(b *audit.Boundary) string {
	if b.MaxDepth != nil {
		return fmt.Sprint(*b.MaxDepth)
	}
	return fmt.Sprintf("none to the ceiling %d", b.DepthCeiling)
}

// BaselinesBuilt counts the called tools whose baseline was built (from
// the schema, or with values from other tools' answers) and admitted: no
// valid call was given to any census server.
func BaselinesBuilt(rep *audit.Report) (built, called int) {
	for _, t := range rep.Tools {
		if !t.Probed {
			continue
		}
		called++
		if t.BaselineFrom == "schema" || t.BaselineFrom == "harvested" || t.BaselineFrom == "given" {
			built++
		}
	}
	return built, called
}

// Records audits every census server (Audit) and records each report's
// headline figures (residuals.ReportRecords) and the census's own as
// census.KEY.*, after holding them to the direct measurements: a
// disagreement is an error, not a record. progress, when set, is told
// each server as it starts. Any server's runtime absent makes the whole
// census Unavailable.
func Records(ctx context.Context, started func(i int, s Server)) ([]results.Record, error) {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Minute)
	defer cancel()
	servers := Servers()
	type done struct {
		recs []results.Record
		err  error
	}
	// each server on its own: a worker takes the next until none is left;
	// the longest first, so the last to finish is short
	outs := make([]done, len(servers))
	next := make(chan int)
	var wg sync.WaitGroup
	var first sync.Once
	var firstErr error
	for range Jobs() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				outs[i].recs, outs[i].err = kept(ctx, i, servers[i], started)
				if outs[i].err != nil {
					// the others go on: what they measure is kept (KeepEnv)
					first.Do(func() { firstErr = outs[i].err })
					if started != nil {
						fmt.Fprintf(os.Stderr, "census: %s failed: %v\n", servers[i].Key, outs[i].err)
					}
				}
			}
		}()
	}
	for _, i := range longestFirst(servers) {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	// the first failure
	if firstErr != nil {
		return nil, firstErr
	}
	var out []results.Record
	var builtAll, calledAll, notMeasured float64
	for i, d := range outs {
		if d.err != nil {
			return nil, d.err
		}
		if d.recs == nil {
			return nil, fmt.Errorf("%s: not audited: %v", servers[i].Key, ctx.Err())
		}
		out = append(out, d.recs...)
		for _, r := range d.recs {
			switch strings.TrimPrefix(r.ID, "census."+servers[i].Key+".") {
			case "baselines-built":
				builtAll += r.Value
			case "tools-called":
				calledAll += r.Value
			case "not-measured":
				notMeasured += r.Value
			}
		}
	}
	if calledAll == 0 {
		return nil, errors.New("the census called no tool")
	}
	src := "internal/census.Records: the sum over every census server's audit"
	build := results.CurrentBuild()
	out = append(out,
		results.Record{ID: "census.servers", Title: "the servers of the census, each audited and held to direct measurements", Value: float64(len(Servers())), Unit: "servers",
			Instance: keys(), Method: results.Derived, Source: "internal/census.Servers"},
		results.Record{ID: "census.baselines.share", Title: "of the tools the census called, the share with a valid baseline built from the schema or other tools' answers (no valid call given)",
			Value: round3(builtAll / calledAll), Unit: "share", Instance: fmt.Sprintf("%.0f of %.0f tools called", builtAll, calledAll),
			Method: results.Measured, Source: src, Build: build, DependsOn: []string{results.DepGo}},
		results.Record{ID: "census.not-measured", Title: "the measurements the census's audits did not make (report.not_measured), every server", Value: notMeasured, Unit: "entries",
			Instance: "the sum of census.*.not-measured", Method: results.Measured, Source: src, Build: build, DependsOn: []string{results.DepGo}},
	)
	return sweeps.NoteRetiredNumbers(charge.DefaultLimits(), out)
}

// JobsEnv names the environment variable that sets how many servers the
// census audits at once (Jobs): each is its own children and its own
// session, so they do not meet; the default is one at a time.
const JobsEnv = "BOUNDLAB_CENSUS_JOBS"

// Jobs is how many servers Records audits at once: JobsEnv's value, 1 to
// 8, else 1.
func Jobs() int {
	n, err := strconv.Atoi(os.Getenv(JobsEnv))
	if err != nil || n < 1 || n > 8 {
		return 1
	}
	return n
}

// measureServer audits s (once more after a target error: a body the
// server took longer to parse than the auditor allows, on a loaded
// machine), holds it to the direct measurements, and returns its records.
func measureServer(ctx context.Context, s Server) ([]results.Record, error) {
	res, err := Audit(ctx, s, nil)
	if errors.Is(err, audit.ErrTarget) {
		res, err = Audit(ctx, s, nil)
	}
	if err != nil {
		return nil, err
	}
	if bad := Disagreements(res.Report, res.Direct); len(bad) > 0 {
		return nil, fmt.Errorf("%s: the audit and the direct measurements disagree: %s", s.Key, strings.Join(bad, "; "))
	}
	return ServerRecords(ctx, res)
}

// KeepEnv names the environment variable that names a directory where
// each server's records are kept as it is measured (KEY.json), and taken
// from on the next run instead of measuring it again: a census the
// machine or the network cut short goes on where it stopped. A directory
// of its own for each census; without it, every server is measured.
const KeepEnv = "BOUNDLAB_CENSUS_KEEP"

// kept is measureServer, through KeepEnv's directory when one is named.
func kept(ctx context.Context, i int, s Server, started func(int, Server)) ([]results.Record, error) {
	dir := os.Getenv(KeepEnv)
	path := filepath.Join(dir, s.Key+".json")
	if dir != "" {
		if data, err := os.ReadFile(path); err == nil {
			var recs []results.Record
			if err := json.Unmarshal(data, &recs); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			return recs, nil
		}
	}
	if started != nil {
		started(i, s)
	}
	recs, err := measureServer(ctx, s)
	if err != nil || dir == "" {
		return recs, err
	}
	data, err := json.Marshal(recs)
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	return recs, err
}

// longestFirst orders the servers' indexes by how long each takes: the
// npm servers over node's stdio and the adopters first (minutes each),
// then the rest as listed.
func longestFirst(servers []Server) []int {
	var slow, rest []int
	for i, s := range servers {
		if s.Module != "" {
			slow = append(slow, i)
		} else {
			rest = append(rest, i)
		}
	}
	return append(slow, rest...)
}

func keys() string {
	var k []string
	for _, s := range Servers() {
		k = append(k, s.Key)
	}
	return strings.Join(k, ", ")
}

// ServerRecords are one server's records: the report's headline figures,
// the tools called and listed, the baselines built, what was not measured,
// the peak memory per request byte (over stdio), and the direct
// measurements beside them.
func ServerRecords(ctx context.Context, res *Result) ([]results.Record, error) {
	s, rep, d := res.Server, res.Report, res.Direct
	build, err := buildOf(ctx, s)
	if err != nil {
		return nil, err
	}
	prefix := "census." + s.Key
	src := fmt.Sprintf("internal/census.Audit: audit.Run (seed %d, default limits, Memory, no valid call given) on %s", Seed, s.Name)
	out := residuals.ReportRecords(prefix, src, build, rep)
	rec := func(id, title string, v float64, unit, instance string, tol float64, source string) {
		out = append(out, results.Record{ID: prefix + "." + id, Title: title, Value: v, Unit: unit, Instance: instance,
			Method: results.Measured, Source: source, Tolerance: tol, Build: build})
	}
	built, called := BaselinesBuilt(rep)
	var froms []string
	for _, t := range rep.Tools {
		if t.Probed {
			froms = append(froms, t.Name+": "+t.BaselineFrom)
		}
	}
	rec("tools-listed", "the tools the server lists (tools/list)", float64(len(rep.Tools)), "tools", "", 0, src)
	rec("tools-called", "the tools the audit called: those annotated read-only, and those named", float64(called), "tools", strings.Join(froms, ", "), 0, src)
	rec("baselines-built", "of the tools called, those whose baseline was built from the schema or from other tools' answers and admitted by jsonschema/v6 (tools[].baseline_from)",
		float64(built), "tools", strings.Join(froms, ", "), 0, src)
	var nm []string
	for _, n := range rep.NotMeasured {
		w := n.Probe
		if n.Tool != "" {
			w += " (" + n.Tool + ")"
		}
		nm = append(nm, w)
	}
	inst := "none"
	if len(nm) > 0 {
		inst = strings.Join(nm, "; ")
	}
	rec("not-measured", "the measurements the audit did not make (report.not_measured)", float64(len(nm)), "entries", inst, 0, src)
	for _, sev := range []string{audit.SeverityError, audit.SeverityWarning, audit.SeverityNote} {
		n := 0
		for _, f := range rep.Findings {
			if f.Severity == sev && f.Rule != audit.RuleAmplification {
				n++
			}
		}
		rec("findings."+sev, "the findings of severity "+sev+", every rule but "+audit.RuleAmplification+" (timed)", float64(n), "findings", "", 0, src)
	}
	dsrc := fmt.Sprintf("internal/census.Measure: a raw client (strangers.Session over HTTP; a process of its own over stdio, RSS-watched), not package audit, on %s", s.Name)
	if m := rep.Boundary.Memory; m != nil {
		rec("memory.per-byte", "over stdio, the process's peak resident set (VmHWM) growth for one ping at the body cap on a fresh process, per request byte (boundary.memory.per_byte)",
			m.PerByte, "resident bytes / request byte", fmt.Sprintf("a %d-byte ping padded with JSON whitespace", m.RequestBytes), MemoryTolerance(m.PerByte), src)
		if d.Memory != nil {
			rec("direct.memory.per-byte", "measured directly: the VmHWM growth for one ping of the same size on a fresh process, per request byte",
				round3(*d.Memory), "resident bytes / request byte", fmt.Sprintf("a %d-byte ping padded with JSON whitespace", m.RequestBytes), MemoryTolerance(*d.Memory), dsrc)
		}
	}
	if d.Fuzzy {
		rec("direct.cap-fuzzy", "measured directly: one byte past the reported body cap answered with a result, two past not: the cap holds to within a byte",
			1, "bytes", fmt.Sprintf("pings of %d and %d bytes, each on a fresh session", *rep.Boundary.BodyCap+1, *rep.Boundary.BodyCap+2), 0, dsrc)
	}
	rec("direct.params-echo", "measured directly: the answer bytes per request byte to params {\"name\":1,\"x\":64 KiB}, worst filler (a, <, 0xFF, DEL)",
		round3(d.Params.Ratio), "answer bytes / request bytes", d.Params.Instance, 0.002, dsrc)
	rec("direct.unknown-tool-echo", "measured directly: the answer bytes per request byte to a tools/call naming an unknown tool of 64 KiB, worst filler (a, <, 0xFF, DEL)",
		round3(d.UnknownTool.Ratio), "answer bytes / request bytes", d.UnknownTool.Instance, 0.002, dsrc)
	for i := range out {
		if !slices.Contains(out[i].DependsOn, results.DepGo) {
			out[i].DependsOn = append(out[i].DependsOn, results.DepGo)
		}
	}
	return out, nil
}

// buildOf is what a server's records hold for: the Go toolchain the
// auditor runs on, and the server's package or module at its version.
func buildOf(ctx context.Context, s Server) (results.Build, error) {
	b := results.CurrentBuild()
	switch {
	case s.Module != "":
		b.Modules = map[string]string{s.Module: s.Version}
	case strings.HasPrefix(s.Key, "mcp-go"):
		b = results.CurrentBuild("github.com/mark3labs/mcp-go")
	case strings.HasPrefix(s.Key, "go-sdk"), s.Key == "boundlab-serve":
		b = results.CurrentBuild("github.com/modelcontextprotocol/go-sdk")
	case s.Key == "typescript":
		b.Modules = map[string]string{"npm:@modelcontextprotocol/sdk": strangers.TypeScriptSDK}
	case strings.HasPrefix(s.Key, "python"):
		py, err := strangers.Python(ctx)
		if err != nil {
			return b, err
		}
		v, err := pythonVersions(ctx, py)
		if err != nil {
			return b, err
		}
		b.Modules = v
	}
	return b, nil
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
