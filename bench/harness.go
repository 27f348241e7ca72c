// Package bench is boundlab's side-by-side benchmark lab: the benchmarks
// (in this package's tests) that run the gate, mcpvalidate and their peers on
// the same bytes in one process, and the harness that runs them, reads the
// output with golang.org/x/perf/benchfmt and compares implementations
// benchstat-style with golang.org/x/perf/benchmath.
//
// A comparison is a ratio of medians within one benchmark run: sub-benchmarks
// named Benchmark<Family>/<key=value>.../impl=<name> that differ only in impl
// are one group, and each impl's sec/op is divided by the family's baseline
// impl's. The interval printed beside a ratio is built from each median's
// 95% confidence interval (benchmath.AssumeNothing): [lo/hi', hi/lo'], which
// is conservative; the p-value is benchmath's Mann-Whitney U-test between
// the two samples.
//
// What it does not promise: that a ratio holds on another machine. The saved
// file (results/bench/) names the machine it was measured on, and the
// headline ratios are measured records read from that file, with a generous
// tolerance.
package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// Baselines is the impl each benchmark family's ratios are taken against.
var Baselines = map[string]string{
	"BenchmarkValid":    "encoding-json",
	"BenchmarkServed":   "go-sdk-typed",
	"BenchmarkCheck":    "go-sdk-typed", // mcpvalidate's own (validation alone)
	"BenchmarkInMemory": "go-sdk-typed", // mcpvalidate's own (over the in-memory transport)
	// mcpvalidate's decode stage: Check (and the stage alone) with its own
	// decoder against encoding/json's UseNumber decode, the reference it is
	// held to (the fuzz package holds it to sonic too).
	"BenchmarkCheckDecoders": "encoding-json",
	"BenchmarkDecode":        "encoding-json",
	// mcpvalidate's front gate: the whole body's scan (envelope and all)
	// and the served front gate over charge's gate on the arguments alone.
	"BenchmarkFrontGate": "core-gate",
	// The whole path over loopback HTTP: each wiring against the bare go-sdk.
	"BenchmarkHTTP": "bare",
	// The same over stdio pipes: the gated transport against the go-sdk's
	// bare IOTransport, the middleware behind both.
	"BenchmarkStdio":     "bare",
	"BenchmarkStdioRead": "bare", // reading alone, no pipes: the gate's own cost
	// The gate against jsontext on seeded documents of realistic text: the
	// peer's time over the gate's, as the suite states its strict peers.
	"BenchmarkMixture": "gate",
}

// Modules are the peers whose versions a saved run records.
var Modules = []string{
	"github.com/bytedance/sonic",
	"github.com/modelcontextprotocol/go-sdk",
	"github.com/santhosh-tekuri/jsonschema/v6",
	"github.com/google/jsonschema-go",
	"github.com/segmentio/encoding",
	"github.com/mark3labs/mcp-go",
	"github.com/go-json-experiment/json",
	"github.com/minio/simdjson-go",
}

// RunConfig is one run of the benchmark suite.
type RunConfig struct {
	Dir       string // module root; "" for the current directory
	Packages  []string
	Bench     string // -bench regexp
	Count     int    // samples per benchmark: rounds of -count=1 (see Run)
	Benchtime string // -benchtime, e.g. "1s" or "200x"
	Env       []string
}

// Run runs the benchmarks and returns their output in benchfmt form,
// prefixed with file configuration lines that describe the machine and build.
// The go test output is streamed to progress as it arrives.
//
// The Count samples of each benchmark are taken as Count rounds of
// `go test -count=1`, each round running every benchmark the pattern
// selects, so every impl of a comparison is sampled once per round. With
// -count=N a benchmark's N samples are taken back to back, and on a shared
// machine the two sides of a ratio then measure different minutes of it; in
// rounds a slow phase slows both.
func Run(ctx context.Context, rc RunConfig, progress io.Writer) ([]byte, error) {
	if rc.Count <= 0 {
		rc.Count = 6
	}
	if len(rc.Packages) == 0 {
		rc.Packages = []string{"./bench/"}
	}
	args := []string{"test", "-run=^$", "-bench=" + rc.Bench, "-benchmem", "-count=1"}
	if rc.Benchtime != "" {
		args = append(args, "-benchtime="+rc.Benchtime)
	}
	args = append(args, rc.Packages...)
	var head bytes.Buffer
	for _, kv := range Machine(ctx, rc.Dir) {
		fmt.Fprintf(&head, "%s: %s\n", kv[0], kv[1])
	}
	fmt.Fprintf(&head, "command: go %s, %d rounds\n", strings.Join(args, " "), rc.Count)
	for _, e := range rc.Env {
		if v, ok := strings.CutPrefix(e, "BOUNDLAB_BENCH_BYTES="); ok {
			fmt.Fprintf(&head, "bench-bytes: %s\n", v)
		}
		if v, ok := strings.CutPrefix(e, "BOUNDLAB_MIX_BYTES="); ok {
			fmt.Fprintf(&head, "mix-bytes: %s\n", v)
		}
		if v, ok := strings.CutPrefix(e, "BOUNDLAB_MIX_SEEDS="); ok {
			fmt.Fprintf(&head, "mix-seeds: %s\n", v)
		}
	}
	var out bytes.Buffer
	for round := 1; round <= rc.Count; round++ {
		fmt.Fprintf(progress, "== round %d of %d\n", round, rc.Count)
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = rc.Dir
		cmd.Env = append(os.Environ(), rc.Env...)
		cmd.Stdout = io.MultiWriter(&out, progress)
		cmd.Stderr = progress
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go %s (round %d): %w", strings.Join(args, " "), round, err)
		}
	}
	return append(head.Bytes(), out.Bytes()...), nil
}

// Machine describes where a run happens, as benchfmt configuration keys: Go
// version, GOMAXPROCS, CPU count and model, kernel, commit, date. (go test
// adds goos, goarch, pkg and cpu itself.)
func Machine(ctx context.Context, dir string) [][2]string {
	kv := [][2]string{
		{"go", runtime.Version()},
		{"gomaxprocs", fmt.Sprint(runtime.GOMAXPROCS(0))},
		{"numcpu", fmt.Sprint(runtime.NumCPU())},
		{"date", time.Now().UTC().Format(time.RFC3339)},
	}
	if model := cpuModel(); model != "" {
		kv = append(kv, [2]string{"cpu-model", model})
	}
	if out, err := exec.CommandContext(ctx, "uname", "-sr").Output(); err == nil {
		kv = append(kv, [2]string{"kernel", strings.TrimSpace(string(out))})
	}
	list := exec.CommandContext(ctx, "go", append([]string{"list", "-m", "-f", "{{.Path}} {{.Version}}"}, Modules...)...)
	list.Dir = dir
	if out, err := list.Output(); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if path, ver, ok := strings.Cut(line, " "); ok {
				kv = append(kv, [2]string{"mod/" + path, ver})
			}
		}
	}
	git := exec.CommandContext(ctx, "git", "rev-parse", "--short=12", "HEAD")
	git.Dir = dir
	if out, err := git.Output(); err == nil {
		rev := strings.TrimSpace(string(out))
		st := exec.CommandContext(ctx, "git", "status", "--porcelain", "--", "bench", "charge", "mcpvalidate")
		st.Dir = dir
		if o, err := st.Output(); err == nil && len(bytes.TrimSpace(o)) > 0 {
			rev += "+dirty"
		}
		kv = append(kv, [2]string{"boundlab-commit", rev})
	}
	return kv
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Key identifies one sample: a benchmark family, its non-impl name parts,
// and the impl.
type Key struct {
	Family string // e.g. BenchmarkValid
	Group  string // the other parts, e.g. shape=ascii
	Impl   string
}

// Samples are a run's measurements by key and unit.
type Samples struct {
	Values map[Key]map[string][]float64
	Config map[string]string // file configuration (the machine)
	Order  []Key             // first-seen order
}

// Parse reads benchfmt text.
func Parse(r io.Reader, name string) (*Samples, error) {
	s := &Samples{Values: map[Key]map[string][]float64{}, Config: map[string]string{}}
	br := benchfmt.NewReader(r, name)
	var errs []error
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			errs = append(errs, rec)
		case *benchfmt.Result:
			for _, c := range rec.Config {
				if c.File {
					s.Config[c.Key] = string(c.Value)
				}
			}
			k, ok := keyOf(rec.Name)
			if !ok {
				continue
			}
			m := s.Values[k]
			if m == nil {
				m = map[string][]float64{}
				s.Values[k] = m
				s.Order = append(s.Order, k)
			}
			for _, v := range rec.Values {
				m[v.Unit] = append(m[v.Unit], v.Value)
			}
		}
	}
	if err := br.Err(); err != nil {
		errs = append(errs, err)
	}
	if len(s.Values) == 0 {
		errs = append(errs, fmt.Errorf("%s: no benchmark results", name))
	}
	return s, errors.Join(errs...)
}

// keyOf splits BenchmarkX/a=1/impl=y-2 into family, group and impl.
func keyOf(n benchfmt.Name) (Key, bool) {
	base, parts := n.Parts()
	k := Key{Family: "Benchmark" + string(base)}
	var group []string
	for _, p := range parts {
		ps := string(p)
		if !strings.HasPrefix(ps, "/") {
			continue // the -GOMAXPROCS suffix
		}
		ps = ps[1:]
		if impl, ok := strings.CutPrefix(ps, "impl="); ok {
			k.Impl = impl
			continue
		}
		group = append(group, ps)
	}
	k.Group = strings.Join(group, "/")
	if k.Impl == "" {
		k.Impl = "-" // a benchmark with no peers: summarised, not compared
	}
	return k, true
}

// Row is one impl of one group, compared with the family's baseline.
type Row struct {
	Key
	Unit        string
	N           int
	Median      float64
	Lo, Hi      float64 // the median's confidence interval
	Baseline    string
	Ratio       float64 // Median / the baseline's median; 1 for the baseline
	RatioLo     float64
	RatioHi     float64
	P           float64 // U-test p-value against the baseline
	Significant bool
	Warnings    []string
}

// Confidence is the level of every interval.
const Confidence = 0.95

// Compare builds the comparison rows for one unit (sec/op, B/op ...), each
// against its family's baseline (Baselines).
func (s *Samples) Compare(unit string) []Row {
	return s.CompareTo(unit, func(k Key) string { return Baselines[k.Family] })
}

// CompareTo is Compare with the baseline chosen per key: the gate against a
// strict peer (jsontext, simdjson-go) rather than the family's baseline.
func (s *Samples) CompareTo(unit string, baseline func(Key) string) []Row {
	thr := benchmath.DefaultThresholds
	summary := func(vals []float64) (*benchmath.Sample, benchmath.Summary) {
		smp := benchmath.NewSample(append([]float64(nil), vals...), &thr)
		return smp, benchmath.AssumeNothing.Summary(smp, Confidence)
	}
	var rows []Row
	for _, k := range s.Order {
		vals := s.Values[k][unit]
		if len(vals) == 0 {
			continue
		}
		base := baseline(k)
		smp, sum := summary(vals)
		row := Row{Key: k, Unit: unit, N: len(vals), Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi, Baseline: base, Ratio: math.NaN(), RatioLo: math.NaN(), RatioHi: math.NaN(), P: math.NaN()}
		for _, w := range sum.Warnings {
			row.Warnings = append(row.Warnings, w.Error())
		}
		bvals := s.Values[Key{k.Family, k.Group, base}][unit]
		if len(bvals) > 0 && sum.Center != 0 {
			bsmp, bsum := summary(bvals)
			if bsum.Center != 0 {
				row.Ratio = sum.Center / bsum.Center
				row.RatioLo = sum.Lo / bsum.Hi
				row.RatioHi = sum.Hi / bsum.Lo
				if k.Impl != base {
					c := benchmath.AssumeNothing.Compare(bsmp, smp)
					row.P, row.Significant = c.P, c.P < c.Alpha
					for _, w := range c.Warnings {
						row.Warnings = append(row.Warnings, w.Error())
					}
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// Ratio finds one row's ratio.
func Ratio(rows []Row, family, group, impl string) (Row, bool) {
	for _, r := range rows {
		if r.Family == family && r.Group == group && r.Impl == impl {
			return r, true
		}
	}
	return Row{}, false
}

// WriteTable prints rows benchstat-style: per group, each impl's median with
// its interval, and its ratio to the baseline with the ratio's interval and
// the p-value.
func WriteTable(w io.Writer, s *Samples, rows []Row) error {
	keys := make([]string, 0, len(s.Config))
	for k := range s.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "%s: %s\n", k, s.Config[k])
	}
	var tw *tabwriter.Writer
	family := ""
	var warns []string
	for _, r := range rows {
		if r.Family != family {
			if tw != nil {
				if err := tw.Flush(); err != nil {
					return err
				}
			}
			family = r.Family
			if r.Baseline == "" {
				fmt.Fprintf(w, "\n%s (%s; no baseline: medians only; interval %.0f%%)\n", family, r.Unit, 100*Confidence)
			} else {
				fmt.Fprintf(w, "\n%s (%s; ratio = impl / %s; interval %.0f%%)\n", family, r.Unit, r.Baseline, 100*Confidence)
			}
			tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(tw, "group\timpl\tmedian\t±\tratio\tinterval\tp\tn\t\n")
		}
		p := "-"
		if !math.IsNaN(r.P) {
			p = fmt.Sprintf("%.3f", r.P)
			if !r.Significant {
				p += " ~"
			}
		}
		ratio, ci := "-", "-"
		if r.Baseline == "" {
			// no peers
		} else if r.Impl == r.Baseline {
			ratio = "1"
		} else if !math.IsNaN(r.Ratio) {
			ratio = fmt.Sprintf("%.2fx", r.Ratio)
			ci = fmt.Sprintf("[%.2f, %.2f]", r.RatioLo, r.RatioHi)
			if math.IsInf(r.RatioHi, 0) || math.IsInf(r.RatioLo, 0) || r.RatioLo < 0 {
				ci = "∞"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.Group, r.Impl, formatUnit(r.Median, r.Unit), pctRange(r), ratio, ci, p, r.N)
		for _, wmsg := range r.Warnings {
			warns = append(warns, fmt.Sprintf("%s/%s/%s: %s", r.Family, r.Group, r.Impl, wmsg))
		}
	}
	if tw != nil {
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(warns) > 0 {
		sort.Strings(warns)
		warns = compact(warns)
		fmt.Fprintln(w)
		for _, m := range warns {
			fmt.Fprintln(w, "warning:", m)
		}
	}
	return nil
}

func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func pctRange(r Row) string {
	if math.IsInf(r.Lo, 0) || math.IsInf(r.Hi, 0) || r.Median == 0 {
		return "∞"
	}
	return fmt.Sprintf("%.0f%%", 100*math.Max(r.Hi/r.Median-1, 1-r.Lo/r.Median))
}

func formatUnit(v float64, unit string) string {
	switch unit {
	case "sec/op":
		switch {
		case v >= 1:
			return fmt.Sprintf("%.3fs", v)
		case v >= 1e-3:
			return fmt.Sprintf("%.3fms", v*1e3)
		case v >= 1e-6:
			return fmt.Sprintf("%.3fµs", v*1e6)
		}
		return fmt.Sprintf("%.1fns", v*1e9)
	case "B/s":
		return fmt.Sprintf("%.1fMB/s", v/1e6)
	case "B/op":
		return fmt.Sprintf("%.0fB", v)
	}
	return fmt.Sprintf("%.4g %s", v, unit)
}
