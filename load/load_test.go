package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/memmodel"
	loaddata "github.com/theurian/boundlab/results/load"
)

// TestBodies: every hostile body lands within one filler unit under the size
// asked; each is the JSON it claims to be (strict decoders differ only where
// the shape says); canaries sit where an echo would show them.
func TestBodies(t *testing.T) {
	for _, n := range []int{4096, 65536, 1 << 20} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			for _, s := range Shapes() {
				t.Run(caseName(s.Name), func(t *testing.T) {
					for _, p := range []string{ProtocolNone, Protocol20260728} {
						t.Run(caseName(p), func(t *testing.T) {
							b := s.Body(n, p)
							want := n
							if !s.Hostile {
								want = ValidBytes
							}
							if s.NodeBound != (s.Name == NodeChainsShape) {
								t.Errorf("%s: NodeBound %v", s.Name, s.NodeBound)
							}
							if s.NodeBound && !bytes.Equal(b, nodeBody(p, 0)) {
								t.Errorf("%s/%s at %d: not built at the node bound", s.Name, p, n)
							}
							unit := len(s.unit) + len(s.unit2)
							if s.unit != "" && (len(b) > want || len(b) <= want-unit) {
								t.Errorf("%s/%s at %d: %d bytes", s.Name, p, n, len(b))
							}
							// json.Valid accepts duplicate names and invalid UTF-8, and
							// refuses nesting past 10,000 (deep is checked below).
							if ok, w := json.Valid(b), s.Name != "trailing"; s.Name != "deep" && ok != w {
								t.Errorf("%s: json.Valid %v, want %v", s.Name, ok, w)
							}
							if utf8.Valid(b) == (s.Name == "invalid-utf8") {
								t.Errorf("%s: utf8.Valid %v", s.Name, utf8.Valid(b))
							}
							if got := bytes.Contains(b, []byte(Canary)); got != s.Canary {
								t.Errorf("%s: holds canary %v, want %v", s.Name, got, s.Canary)
							}
							if has := bytes.Contains(b, []byte(`"_meta"`)); has != (p == Protocol20260728) {
								t.Errorf("%s/%s: _meta present %v", s.Name, p, has)
							}
						})
					}
				})
			}
		})
	}
	if b := mustShape(t, "deep").Body(4096, ProtocolNone); bytes.Count(b, []byte("[")) != bytes.Count(b, []byte("]")) ||
		bytes.Count(b, []byte("[")) < 1900 {
		t.Errorf("deep: %d [ and %d ]", bytes.Count(b, []byte("[")), bytes.Count(b, []byte("]")))
	}
}

// TestNodeChainsAtTheBound: node-chains' arguments hold exactly the node
// bound, made of memmodel.NodeChain and the zeros that fill the rest, and the
// front gate admits the body at every protocol; one node more and the gate
// refuses it for the node bound, as a tool refusal (the envelope is sound).
func TestNodeChainsAtTheBound(t *testing.T) {
	l := charge.DefaultLimits()
	g, err := charge.NewGate(charge.Go, l)
	if err != nil {
		t.Fatal(err)
	}
	v, err := demo.NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	chains, zeros := chainMembers()
	if chains == 0 || zeros == 0 {
		t.Fatalf("%d chains and %d zeros: the case no longer covers the filling zeros", chains, zeros)
	}
	for _, p := range []string{ProtocolNone, Protocol20260728} {
		t.Run(caseName(p), func(t *testing.T) {
			for extra, admit := range []bool{true, false} {
				body := nodeBody(p, extra)
				var doc struct {
					Params struct{ Arguments json.RawMessage }
				}
				if err := json.Unmarshal(body, &doc); err != nil {
					t.Fatalf("%s +%d: %v", p, extra, err)
				}
				rep, err := g.Check(doc.Params.Arguments)
				if admit && (err != nil || rep.Nodes != l.MaxParamsNodes) {
					t.Errorf("%s at the bound: %d nodes, %v; want %d", p, rep.Nodes, err, l.MaxParamsNodes)
				}
				var args struct {
					Query string
					N     []json.RawMessage
				}
				if err := json.Unmarshal(doc.Params.Arguments, &args); err != nil {
					t.Fatal(err)
				}
				if args.Query != Canary || len(args.N) != chains+zeros+extra || string(args.N[0]) != memmodel.NodeChain.JSON ||
					string(args.N[chains-1]) != memmodel.NodeChain.JSON || string(args.N[chains]) != "0" {
					t.Errorf("%s +%d: query %q, %d members", p, extra, args.Query, len(args.N))
				}
				if int64(len(body)) >= v.MaxBodyBytes() {
					t.Errorf("%s +%d: %d bytes, past the body cap %d", p, extra, len(body), v.MaxBodyBytes())
				}
				err = frontVerdict(v, body)
				var f *mcpvalidate.Refusal
				switch {
				case admit && err != nil:
					t.Errorf("%s at the bound: the front gate refused: %v", p, err)
				case !admit && (!errors.As(err, &f) || f.Stage != mcpvalidate.StageGate || f.Bound != charge.BoundNodes.String()):
					t.Errorf("%s one node past the bound: %v, want a refusal for the node bound", p, err)
				case !admit && bytes.Contains([]byte(err.Error()), []byte(Canary)):
					t.Errorf("%s one node past the bound: the refusal echoes the canary: %v", p, err)
				}
			}
		})
	}
}

func mustShape(t *testing.T, name string) Shape {
	t.Helper()
	s, ok := ShapeNamed(name)
	if !ok {
		t.Fatalf("no shape %s", name)
	}
	return s
}

// TestScanFindsCanaryAcrossWrites splits an answer at every point, and into
// single bytes, and still finds the canary; without it, nothing is found.
func TestScanFindsCanaryAcrossWrites(t *testing.T) {
	answer := []byte(`data: {"error":"unmarshaling \"` + Canary + `\\u007f\""}`)
	for cut := 0; cut <= len(answer); cut++ {
		s := &scan{}
		s.Write(answer[:cut])
		s.Write(answer[cut:])
		if !s.found || s.n != int64(len(answer)) {
			t.Fatalf("cut at %d: found %v, n %d", cut, s.found, s.n)
		}
	}
	s := &scan{}
	for i := range answer {
		s.Write(answer[i : i+1])
	}
	if !s.found {
		t.Fatal("byte by byte: canary not found")
	}
	near := bytes.Replace(answer, []byte(Canary), []byte(Canary[:len(Canary)-1]+"x"), 1)
	for cut := 0; cut <= len(near); cut++ {
		s := &scan{}
		s.Write(near[:cut])
		s.Write(near[cut:])
		if s.found {
			t.Fatalf("cut at %d: found a canary that is not there", cut)
		}
	}
}

func TestScanKeepsOnlyHead(t *testing.T) {
	s := &scan{}
	chunk := bytes.Repeat([]byte("a"), 1<<16)
	for range 8 {
		s.Write(chunk)
	}
	if s.n != 8<<16 || len(s.head) != headMax+1 {
		t.Fatalf("n %d, head %d", s.n, len(s.head))
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct{ answer, want string }{
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, Served},
		{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[],\"isError\":true}}\n\n", Refused},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}`, Refused},
		{"Bad Request\n", NonRPC},
		{`{"jsonrpc":"2.0","id":1}`, NonRPC},
	} {
		t.Run(caseName(c.answer), func(t *testing.T) {
			if got := classify([]byte(c.answer)); got != c.want {
				t.Errorf("%q: %s, want %s", c.answer, got, c.want)
			}
		})
	}
}

func TestLoopbackOnly(t *testing.T) {
	for u, ok := range map[string]bool{
		"http://127.0.0.1:8080/mcp": true,
		"http://127.0.0.1/mcp":      true,
		"http://localhost:8080/mcp": false,
		"http://[::1]:8080/mcp":     false,
		"http://10.0.0.1:8080/mcp":  false,
		"https://127.0.0.1:1/mcp":   false,
		"http://127.0.0.2:1/mcp":    false,
		"http://127.0.0.1.evil/mcp": false,
	} {
		t.Run(caseName(u), func(t *testing.T) {
			if err := loopbackOnly(u); (err == nil) != ok {
				t.Errorf("%s: %v", u, err)
			}
		})
	}
}

func TestStatusKB(t *testing.T) {
	status := []byte("Name:\tboundlab\nVmPeak:\t 1 kB\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nThreads:\t5\n")
	if v, ok := statusKB(status, "VmRSS:"); !ok || v != 10240<<10 {
		t.Errorf("VmRSS %d %v", v, ok)
	}
	if v, ok := statusKB(status, "VmHWM:"); !ok || v != 20480<<10 {
		t.Errorf("VmHWM %d %v", v, ok)
	}
	if _, ok := statusKB(status, "VmSwap:"); ok {
		t.Error("VmSwap found")
	}
	if _, ok := statusKB([]byte("VmRSS:\t12 MB\n"), "VmRSS:"); ok {
		t.Error("a unit other than kB accepted")
	}
	// The lab's own process has both lines.
	if rss, hwm, ok := readStatus("/proc/self/status"); !ok || rss <= 0 || hwm < rss {
		t.Errorf("self: rss %d hwm %d %v", rss, hwm, ok)
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	sortDurations(d)
	for q, want := range map[float64]float64{0.5: 50, 0.99: 99, 1: 100, 0.001: 1} {
		if got := percentile(d, q); got != want {
			t.Errorf("q %v: %v, want %v", q, got, want)
		}
	}
	if percentile(nil, 0.5) != 0 {
		t.Error("empty")
	}
}

func TestConfigCheck(t *testing.T) {
	ok := DefaultConfig()
	ok.Bin = "boundlab"
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(*Config){
		"no bin":           func(c *Config) { c.Bin = "" },
		"concurrency 0":    func(c *Config) { c.Concurrency = 0 },
		"concurrency 257":  func(c *Config) { c.Concurrency = MaxConcurrency + 1 },
		"requests 10001":   func(c *Config) { c.Requests = MaxRequests + 1 },
		"duration 6m":      func(c *Config) { c.Duration = 6 * time.Minute },
		"guard 1 MiB":      func(c *Config) { c.GuardBytes = 1 << 20 },
		"unknown shape":    func(c *Config) { c.Shapes = []string{"nope"} },
		"unknown protocol": func(c *Config) { c.Protocol = "2025-11-25" },
		"variant conc":     func(c *Config) { c.VariantConcurrency = map[string]int{MiddlewareOnly: 0} },
		"trickles 65":      func(c *Config) { c.Trickles = MaxTrickles + 1 },
	} {
		c := ok
		f(&c)
		if c.Check() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestRunRecords reads the synthetic run in testdata and checks the records
// carry its figures.
func TestRunRecords(t *testing.T) {
	data, err := os.ReadFile("testdata/run-small.json")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := RunRecords(data, "load/testdata/run-small.json", "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range recs {
		got[r.ID] = r.Value
		if r.Method != "measured" || r.Build.Go == "" || !strings.Contains(r.Instance, "127.0.0.1") {
			t.Errorf("%s: %+v", r.ID, r)
		}
	}
	for id, want := range map[string]float64{
		"load.guarded.peak-rss":                         100 << 20,
		"load.guarded.hostile.echoed":                   0,
		"load.guarded.hostile.max-answer-bytes":         300,
		"load.guarded.hostile.unrefused":                0,
		"load.guarded.valid.served-fraction":            0.9,
		"load.guarded.valid.p99-ms":                     12.5,
		"load.guarded.echo-params.p99-ms":               3.5,
		"load.guarded.served-after":                     1,
		"load.middleware-only.hostile.echoed":           2,
		"load.middleware-only.hostile.unrefused":        3,
		"load.middleware-only.hostile.max-answer-bytes": 327512,
		"load.middleware-only.killed-at-guard":          1,
		"load.middleware-only.peak-rss":                 5 << 30,
	} {
		if g, ok := got[id]; !ok || g != want {
			t.Errorf("%s: %v (present %v), want %v", id, g, ok, want)
		}
	}
	if _, ok := got["load.middleware-only.valid.p99-ms"]; ok {
		t.Error("a killed variant's latency is a record")
	}
	if _, ok := got["load.guarded.in-flight-budget"]; ok {
		t.Error("a budget record from a run whose banner names none")
	}
	for banner, want := range map[string]int64{
		"  front gate: in-flight budget 354117120 bytes (a request weighs ...)": 354117120,
		"  front gate: in-flight budget 12 bytes":                               12,
		"  front gate: off (the SDK reads every body; no in-flight bound)":      0,
		"  front gate: in-flight budget lots of bytes":                          0,
		"  front gate: in-flight budget 0 bytes":                                0,
	} {
		if b, ok := budgetOf([]string{"boundlab serve: MCP streamable HTTP at http://127.0.0.1:1/mcp", banner}); b != want || ok != (want > 0) {
			t.Errorf("%q: %d %v, want %d", banner, b, ok, want)
		}
	}
	// A node-bound shape's body is not the run's body size: the instance
	// names its own.
	run, err := ParseRun(data)
	if err != nil {
		t.Fatal(err)
	}
	run.Variants[0].Shapes = append(run.Variants[0].Shapes, ShapeResult{Shape: NodeChainsShape, BodyBytes: 251600, Hostile: true, Canary: true})
	run.Variants[0].Banner = []string{"  front gate: in-flight budget 354117120 bytes (a request weighs ...)"}
	withNodes, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	recs, err = RunRecords(withNodes, "x", "")
	if err != nil {
		t.Fatal(err)
	}
	budgets := 0
	for _, r := range recs {
		if r.ID == "load.guarded.in-flight-budget" && r.Value == 354117120 {
			budgets++
		}
		const at = "bodies of 65536 bytes, node-chains at the arguments' node bound (251600 bytes) (cap"
		if strings.HasPrefix(r.ID, "load.guarded.") != strings.Contains(r.Instance, at) {
			t.Errorf("%s: instance %q", r.ID, r.Instance)
		}
	}
	if budgets != 1 {
		t.Errorf("%d load.guarded.in-flight-budget records of the banner's budget, want 1", budgets)
	}
	if recs, err := RunRecords(data, "x", "at-64"); err != nil || recs[0].ID != "load.at-64.guarded.peak-rss" {
		t.Errorf("labelled: %v %s", err, recs[0].ID)
	}
	if _, err := ParseRun([]byte(`{"lab":{},"settings":{},"variants":[{"extra":1}]}`)); err == nil {
		t.Error("a run with an unknown field parsed")
	}
	if _, err := ParseRun([]byte(`{"lab":{},"settings":{},"variants":[]}`)); err == nil {
		t.Error("a run with no variant parsed")
	}
}

// TestTargets holds the synthetic run's guarded variant to the targets, then
// breaks each one.
func TestTargets(t *testing.T) {
	data, err := os.ReadFile("testdata/run-small.json")
	if err != nil {
		t.Fatal(err)
	}
	base, err := ParseRun(data)
	if err != nil {
		t.Fatal(err)
	}
	vs := base.Targets()
	// The synthetic guarded run serves 90% of valid calls: that one misses.
	for _, v := range vs {
		if v.Variant != Guarded {
			t.Errorf("a target checked on %s", v.Variant)
		}
		if v.OK == strings.HasPrefix(v.Target, "valid calls served") {
			t.Errorf("%s: ok %v (%s)", v.Target, v.OK, v.Got)
		}
	}
	for name, f := range map[string]func(*VariantResult){
		"peak":    func(v *VariantResult) { v.PeakRSS = TargetPeakRSS + 1 },
		"ceiling": func(v *VariantResult) { v.PeakRSS = 200<<20 + 1 }, // past the banner's, under TargetPeakRSS
		"banner":  func(v *VariantResult) { v.Banner = nil },
		"echo":    func(v *VariantResult) { v.Shapes[0].Echoed = 1 },
		"answer":  func(v *VariantResult) { v.Shapes[0].MaxAnswer = TargetAnswerBytes + 1 },
		"crash":   func(v *VariantResult) { v.Crashed = true },
		"killed":  func(v *VariantResult) { v.Killed = true },
		"reset":   func(v *VariantResult) { v.Shapes[0].Outcomes[Refused]--; v.Shapes[0].Outcomes[Reset]++ },
		"unsent":  func(v *VariantResult) { v.Shapes[0].Unsent++ },
		"after":   func(v *VariantResult) { v.ServedAfter = false },
		"measure": func(v *VariantResult) { v.Error = "could not start" },
	} {
		r, _ := ParseRun(data)
		f(&r.Variants[0])
		missed := false
		for _, v := range r.Targets() { // beside the synthetic valid-fraction miss
			missed = missed || !v.OK && !strings.HasPrefix(v.Target, "valid calls served")
		}
		if !missed {
			t.Errorf("%s: not missed", name)
		}
	}
}

func TestErrFlagUnknownWraps(t *testing.T) {
	c := &child{stderr: &head{max: 1 << 10}}
	c.stderr.Write([]byte("flag provided but not defined: -front-gate\nusage: ...\n"))
	err := c.exitError(Variant{Name: MiddlewareOnly, Flags: []string{"--front-gate=false"}})
	if !errors.Is(err, ErrFlagUnknown) || !strings.Contains(err.Error(), "--front-gate=false") {
		t.Fatalf("%v", err)
	}
}

// The pinned runs meet their targets: every saved run's and every saved
// flood's guarded variant (the before- floods, pinned as the comparison from
// before the bounds, excepted), the memory ceiling serve printed among them.
func TestPinnedRunsMeetTheirTargets(t *testing.T) {
	for _, s := range loaddata.Runs() {
		r, err := ParseRun(s.Data)
		if err != nil {
			t.Fatalf("%s: %v", s.File, err)
		}
		ceiling := false
		for _, v := range r.Targets() {
			ceiling = ceiling || strings.HasPrefix(v.Target, "peak RSS <= the printed ceiling")
			if !v.OK {
				t.Errorf("%s: %s: %s missed: %s", s.File, v.Variant, v.Target, v.Got)
			}
		}
		if hasGuarded(r) && !ceiling {
			t.Errorf("%s: the printed ceiling was not checked", s.File)
		}
	}
	for _, s := range loaddata.Floods() {
		if strings.HasPrefix(s.Label, "before-") {
			continue
		}
		r, err := ParseFloodRun(s.Data)
		if err != nil {
			t.Fatalf("%s: %v", s.File, err)
		}
		for _, v := range r.Targets() {
			if !v.OK && !knownMisses[s.Label][serviceTarget(v.Target)] {
				t.Errorf("%s: %s: %s missed: %s", s.File, v.Variant, v.Target, v.Got)
			}
		}
	}
}

func hasGuarded(r *Run) bool {
	for _, v := range r.Variants {
		if v.Variant.Name == Guarded {
			return true
		}
	}
	return false
}

// frontVerdict is the front gate's verdict on body alone, read through the
// product's public CheckRequest: a refusal at the request or of the
// arguments' charge (the stages the front gate answers), else nil.
func frontVerdict(v *mcpvalidate.Validator, body []byte) error {
	var r *mcpvalidate.Refusal
	if err := v.CheckRequest(context.Background(), body); errors.As(err, &r) && (r.Stage == mcpvalidate.StageRequest || r.Stage == mcpvalidate.StageGate) {
		return r
	}
	return nil
}

// knownMisses are the targets a pinned flood misses by what it pins, by
// file label and target: none today. (The run past the connection bound
// missed both service targets until an idle connection had to be idle for
// bounds.ConnIdleGrace before the bound closed it.)
var knownMisses = map[string]map[string]bool{}

// serviceTarget is the words a service target's text begins with.
func serviceTarget(target string) string {
	for _, lead := range []string{"new clients served", "valid calls beside"} {
		if strings.HasPrefix(target, lead) {
			return lead
		}
	}
	return target
}
