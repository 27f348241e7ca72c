package residuals

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/results"
)

// AuditProducer is the name the audit reports' headline figures are
// registered and pinned under.
const AuditProducer = "audit"

const mark3labsModule = "github.com/mark3labs/mcp-go"

func init() {
	results.Register(results.Producer{Name: AuditProducer, Records: AuditRecords, Remeasures: auditRemeasures()})
}

// auditRemeasures says what the audit producer runs: a whole audit of each
// server, in process, body-cap bisections up to the probe ceiling included
// (seconds a server).
func auditRemeasures() string {
	var keys []string
	for _, s := range AuditServers() {
		keys = append(keys, s.Key)
	}
	return fmt.Sprintf("audits %d servers in process (%s)", len(keys), strings.Join(keys, ", "))
}

// AuditServer is one in-process real server the audit records are taken
// over: its record-id key, and how to audit it.
type AuditServer struct {
	Key, Name string
	Report    func() (*audit.Report, error)
}

// AuditServers are the servers whose audits are recorded: those that need
// no network and no node (the served children and the TypeScript server
// are audited by audit's tests).
func AuditServers() []AuditServer {
	handler := func(name string, h func() (audit.Target, error), call []string) func() (*audit.Report, error) {
		return func() (*audit.Report, error) {
			t, err := h()
			if err != nil {
				return nil, err
			}
			return audit.Run(context.Background(), audit.Config{Target: t, Call: call, Seed: Seed})
		}
	}
	demoTarget := func(name string, guarded bool) func() (audit.Target, error) {
		return func() (audit.Target, error) {
			h, _, err := Demo(guarded)
			return audit.Handler(name, h, demo.Path), err
		}
	}
	return []AuditServer{
		{"go-sdk-bare", "the go-sdk bare (typed tools, its own validation, default handler; in process, observed)", BareReport},
		{"demo-middleware-only", "the demo with mcpvalidate's middleware only (what `boundlab serve --front-gate=false` runs; in process)",
			handler("demo middleware-only", demoTarget("demo middleware-only", false), Calls)},
		{"demo-guarded", "the demo behind mcpvalidate's front gate (what `boundlab serve` runs; in process)",
			handler("demo guarded", demoTarget("demo guarded", true), Calls)},
		{"mark3labs", "mark3labs/mcp-go, one read-only tool with an open typed schema, no validator (in process)",
			handler("mark3labs", func() (audit.Target, error) { return audit.Handler("mark3labs", Mark3labs(), "/mcp"), nil }, nil)},
	}
}

// VerdictCodes number the verdicts for a record's value (VerdictUnit says
// how): the order is from refusing to serving.
var VerdictCodes = map[string]float64{
	audit.VerdictRefused: 0, audit.VerdictNormalised: 1, audit.VerdictFirstWins: 2, audit.VerdictLastWins: 3,
	audit.VerdictAccepted: 4, audit.VerdictEchoed: 5, audit.VerdictServed: 6,
}

// VerdictUnit is the unit of a verdict record.
const VerdictUnit = "verdict: 0 refused, 1 normalised, 2 first-wins, 3 last-wins, 4 accepted, 5 echoed, 6 served"

// HeadlineVerdicts are the boundary verdicts recorded, by JSON field.
func HeadlineVerdicts(b *audit.Boundary) [][2]string {
	return [][2]string{
		{"unknown_keys", b.UnknownKeys}, {"duplicate_names_envelope", b.DuplicateNamesEnvelope},
		{"invalid_utf8", b.InvalidUTF8}, {"lone_surrogates", b.LoneSurrogates}, {"raw_controls", b.RawControls},
		{"trailing_bytes", b.TrailingBytes}, {"unknown_params_member", b.UnknownParamsMember},
		{"before_initialize", b.BeforeInitialize}, {"before_initialized", b.BeforeInitialized},
	}
}

// AuditRecords audits each AuditServers server and records its report's
// headline figures: the echo ratio, the body cap, the deepest nesting, the
// boundary's verdicts, the requests sent, and the findings, in all and per
// rule.
func AuditRecords() ([]results.Record, error) {
	build := results.CurrentBuild(sdkModule, mark3labsModule)
	var out []results.Record
	for _, s := range AuditServers() {
		rep, err := s.Report()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Key, err)
		}
		src := fmt.Sprintf("internal/residuals.AuditRecords: audit.Run (seed %d, default limits) on %s", Seed, s.Name)
		out = append(out, ReportRecords("audit."+s.Key, src, build, rep)...)
	}
	return out, nil
}

// ReportRecords are an audit report's headline figures as measured records
// under prefix (prefix.echo-ratio, prefix.body-cap, …): the echo ratio, the
// body cap (or the ceiling answered), the deepest nesting (or the ceiling
// answered), the boundary's verdicts, the requests sent, and the findings,
// in all and per rule. src names the instrument; build is what they hold for.
func ReportRecords(prefix, src string, build results.Build, rep *audit.Report) []results.Record {
	var out []results.Record
	rec := func(id, title string, v float64, unit, instance string, tol float64) {
		out = append(out, results.Record{ID: prefix + "." + id, Title: title, Value: v, Unit: unit, Instance: instance,
			Method: results.Measured, Source: src, Tolerance: tol, Build: build})
	}
	b := rep.Boundary
	rec("echo-ratio", "the worst answer bytes per request byte over every echo instance of the audit (boundary.echo_ratio)",
		round(b.EchoRatio, 3), "answer bytes / request bytes", b.EchoInstance, 0.002)
	if b.BodyCap != nil {
		rec("body-cap", "the largest body answered with a result (boundary.body_cap), found by doubling then bisection to the byte",
			float64(*b.BodyCap), "bytes", fmt.Sprintf("a ping padded with JSON whitespace; at the cap: %s; one past: %s", b.AtCap, b.PastCap), 0)
	} else {
		rec("body-ceiling-answered", "no body cap below the probe ceiling (boundary.body_cap null): the ceiling itself is answered with a result",
			float64(b.BodyCeiling), "bytes", fmt.Sprintf("a ping padded with JSON whitespace to the ceiling: %s", b.AtCap), 0)
	}
	if b.MaxDepth != nil {
		rec("max-depth", "the deepest nesting answered as a shallow call (boundary.max_depth), bisected",
			float64(*b.MaxDepth), "levels", fmt.Sprintf("nesting in %s; at it: %s; one deeper: %s", b.DepthPlacement, b.AtDepth, b.PastDepth), 0)
	} else {
		rec("depth-ceiling-answered", "no depth bound below the probe ceiling (boundary.max_depth null): the ceiling's nesting is answered as a shallow call",
			float64(b.DepthCeiling), "levels", fmt.Sprintf("nesting in %s: %s", b.DepthPlacement, b.AtDepth), 0)
	}
	for _, v := range HeadlineVerdicts(b) {
		if v[1] == "" {
			continue
		}
		rec("verdict."+v[0], "the boundary's "+v[0]+" verdict", VerdictCodes[v[1]], VerdictUnit, v[1], 0)
	}
	for _, o := range b.Origins {
		rec("verdict.origin."+o.Kind+"."+strings.ReplaceAll(o.Method, "/", "-"), "the verdict on "+o.Method+" sent with a "+o.Kind+" "+o.Header+" header (boundary.origins)",
			VerdictCodes[o.Verdict], VerdictUnit, o.Answer.String(), 0)
	}
	rec("requests", "the requests the audit sent, beside the timed probes' (how many of those depends on the server's speed)", float64(rep.Requests-rep.TimedRequests), "requests", fmt.Sprintf("%d tools listed, %d called", len(rep.Tools), probed(rep)), 0)
	// Amplification findings depend on how fast the server answered on the
	// machine that ran the audit: they are reported, not pinned.
	counts := map[string]int{}
	pinned := 0
	for _, f := range rep.Findings {
		if f.Rule != audit.RuleAmplification {
			counts[f.Rule]++
			pinned++
		}
	}
	rec("findings", "the findings of the audit, every rule but "+audit.RuleAmplification+" (timed: it depends on the server's speed)", float64(pinned), "findings", rules(rep), 0)
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		rec("findings."+id, "the findings of rule "+id+" ("+ruleName(id)+")", float64(counts[id]), "findings", findingTools(rep, id), 0)
	}
	return out
}

func probed(r *audit.Report) int {
	n := 0
	for _, t := range r.Tools {
		if t.Probed {
			n++
		}
	}
	return n
}

func ruleName(id string) string {
	for _, r := range audit.Rules() {
		if r.ID == id {
			return r.Name
		}
	}
	return "unknown rule"
}

func rules(r *audit.Report) string {
	var ids []string
	for _, f := range r.Findings {
		if f.Rule == audit.RuleAmplification {
			continue
		}
		if len(ids) == 0 || ids[len(ids)-1] != f.Rule {
			ids = append(ids, f.Rule)
		}
	}
	return "rules, in report order: " + strings.Join(ids, ", ")
}

func findingTools(r *audit.Report, id string) string {
	var where []string
	for _, f := range r.Findings {
		if f.Rule == id {
			w := f.Tool
			if w == "" {
				w = "(target)"
			}
			where = append(where, w)
		}
	}
	return strings.Join(where, ", ")
}
