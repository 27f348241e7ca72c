package bench

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
)

// An A/B run puts the gate of two builds side by side on the same bytes: the
// fixed shapes (Shapes) and the seeds of the mixture (Mixture), both taken
// from the tree the run starts in, so the two sides read identical documents.
// Each side is a test binary built from a copy of that side's charge package
// (charge imports only the standard library) and one generated benchmark;
// the binaries run in alternating rounds (A B, B A, A B, ...) with -test.cpu
// 1, so a slow minute of a shared machine falls on both sides. Optionally
// each side also runs once under callgrind, which counts the instructions
// one Check of each document executes: a measure the machine's load does not
// move.

// ABConfig is one A/B run.
type ABConfig struct {
	Dir  string // the module root the run starts in: its shapes, its mixture
	Base string // side A: a git revision (e.g. c76d480^1)
	// Head is side B: a git revision, or "" for the charge package as it
	// stands in Dir, uncommitted changes included.
	Head      string
	Rounds    int    // samples per side and document, one per round (default 6)
	Bench     string // regexp over the documents' names (shape=chat, seed=12); "" for all
	Benchtime string // -test.benchtime per sample (default 100ms)
	Bytes     int    // fixed shapes' size (default 1 MiB)
	MixSeeds  int    // seeds 1..MixSeeds of the mixture (default 50)
	MixBytes  int    // each mixture document's size (default 256 KiB)
	Callgrind bool   // also count instructions under valgrind --tool=callgrind
	// Work is where the two builds are made; "" for a temporary directory
	// removed at the end.
	Work string
}

// The sides' labels, as their benchmarks' impl names.
const (
	ABBase = "base"
	ABHead = "head"
)

// abHarness is the benchmark each side's binary holds; the side's label is
// filled in. It reads the same environment as BenchmarkValid and
// BenchmarkMixture, so both sides build the same documents.
const abHarness = `package bench

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"

	"github.com/theurian/boundlab/charge"
)

const side = %q

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

type doc struct {
	name string
	data []byte
}

func docs() []doc {
	var ds []doc
	size := envInt("BOUNDLAB_BENCH_BYTES", 1<<20)
	for _, sh := range Shapes {
		ds = append(ds, doc{"shape=" + sh.Name, sh.Doc(size)})
	}
	seeds, mix := envInt("BOUNDLAB_MIX_SEEDS", 50), envInt("BOUNDLAB_MIX_BYTES", 256<<10)
	for seed := 1; seed <= seeds; seed++ {
		ds = append(ds, doc{"seed=" + strconv.Itoa(seed), Mixture(uint64(seed), mix)})
	}
	return ds
}

func newGate(tb testing.TB) *charge.Gate {
	g, err := charge.NewGate(charge.Go, charge.DefaultLimits())
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func BenchmarkAB(b *testing.B) {
	g := newGate(b)
	for _, d := range docs() {
		if _, err := g.Check(d.data); err != nil {
			b.Fatalf("%%s: refused: %%v", d.name, err)
		}
		b.Run(d.name+"/impl="+side, func(b *testing.B) {
			b.SetBytes(int64(len(d.data)))
			loopCPU(b, func() {
				if _, err := g.Check(d.data); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// abCheck is the one call callgrind counts (--toggle-collect, and a dump
// after each).
//
//go:noinline
func abCheck(g *charge.Gate, data []byte) error {
	_, err := g.Check(data)
	return err
}

// TestABInstructions checks each document whose name BOUNDLAB_AB_MATCH
// matches once through abCheck, after a first check that warms the gate,
// and prints the names in order.
func TestABInstructions(t *testing.T) {
	match := os.Getenv("BOUNDLAB_AB_MATCH")
	if match == "" {
		t.Skip("BOUNDLAB_AB_MATCH unset: run by the A/B runner under callgrind")
	}
	re := regexpMust(match)
	g := newGate(t)
	debug.SetGCPercent(-1)
	// One thread runs the checks and nothing else (callgrind counts each
	// thread apart), so the runtime's own goroutines are not counted.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, d := range docs() {
		if !re.MatchString(d.name) {
			continue
		}
		if _, err := g.Check(d.data); err != nil {
			t.Fatal(err)
		}
		runtime.GC() // none during the count: the collector's work is not Check's
		if err := abCheck(g, d.data); err != nil {
			t.Fatal(err)
		}
		fmt.Println("ab-doc:", d.name)
	}
}
`

// abRegexp is kept apart from the template so the template stays a format
// string with few verbs.
const abRegexp = `package bench

import "regexp"

func regexpMust(s string) *regexp.Regexp { return regexp.MustCompile(s) }
`

func (c *ABConfig) defaults() {
	if c.Rounds <= 0 {
		c.Rounds = 6
	}
	if c.Benchtime == "" {
		c.Benchtime = "100ms"
	}
	if c.Bytes <= 0 {
		c.Bytes = 1 << 20
	}
	if c.MixSeeds <= 0 {
		c.MixSeeds = 50
	}
	if c.MixBytes <= 0 {
		c.MixBytes = 256 << 10
	}
	if c.Bench == "" {
		c.Bench = "."
	}
}

// RunAB builds both sides and runs them in alternating rounds. It returns
// the run in benchfmt form: the machine, the two sides (ab-base, ab-head),
// then every sample, named BenchmarkAB/<document>/impl=<side>; with
// Callgrind, each document's instruction count per side as
// BenchmarkABInstructions/<document>/impl=<side> in instructions/op.
func RunAB(ctx context.Context, cfg ABConfig, progress io.Writer) ([]byte, error) {
	cfg.defaults()
	if cfg.Base == "" {
		return nil, errors.New("ab: no base revision")
	}
	if _, err := regexp.Compile(cfg.Bench); err != nil {
		return nil, fmt.Errorf("ab: -bench: %w", err)
	}
	work := cfg.Work
	if work == "" {
		dir, err := os.MkdirTemp("", "boundlab-ab-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	var head bytes.Buffer
	for _, kv := range Machine(ctx, cfg.Dir) {
		fmt.Fprintf(&head, "%s: %s\n", kv[0], kv[1])
	}
	bins := map[string]string{}
	for _, side := range []struct{ label, rev string }{{ABBase, cfg.Base}, {ABHead, cfg.Head}} {
		desc, err := describeRev(ctx, cfg.Dir, side.rev)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&head, "ab-%s: %s\n", side.label, desc)
		fmt.Fprintf(progress, "== building %s: %s\n", side.label, desc)
		bin, err := buildSide(ctx, cfg.Dir, filepath.Join(work, side.label), side.label, side.rev)
		if err != nil {
			return nil, fmt.Errorf("ab: building %s (%s): %w", side.label, desc, err)
		}
		bins[side.label] = bin
	}
	env := append(os.Environ(),
		"BOUNDLAB_BENCH_BYTES="+strconv.Itoa(cfg.Bytes),
		"BOUNDLAB_MIX_SEEDS="+strconv.Itoa(cfg.MixSeeds),
		"BOUNDLAB_MIX_BYTES="+strconv.Itoa(cfg.MixBytes))
	args := []string{"-test.run=^$", "-test.bench=^BenchmarkAB$/(" + cfg.Bench + ")", "-test.cpu=1", "-test.count=1", "-test.benchtime=" + cfg.Benchtime}
	fmt.Fprintf(&head, "command: <side>.test %s, %d rounds alternating base and head (A B, B A, ...)\n", strings.Join(args, " "), cfg.Rounds)
	fmt.Fprintf(&head, "bench-bytes: %d\nmix-bytes: %d\nmix-seeds: %d\n", cfg.Bytes, cfg.MixBytes, cfg.MixSeeds)
	var out bytes.Buffer
	for round := 0; round < cfg.Rounds; round++ {
		order := []string{ABBase, ABHead}
		if round%2 == 1 {
			order = []string{ABHead, ABBase}
		}
		for _, label := range order {
			fmt.Fprintf(progress, "== round %d of %d: %s\n", round+1, cfg.Rounds, label)
			cmd := exec.CommandContext(ctx, bins[label], args...)
			cmd.Dir = filepath.Dir(bins[label])
			cmd.Env = env
			cmd.Stdout = io.MultiWriter(&out, progress)
			cmd.Stderr = progress
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("ab: %s round %d: %w", label, round+1, err)
			}
		}
	}
	if cfg.Callgrind {
		for _, label := range []string{ABBase, ABHead} {
			fmt.Fprintf(progress, "== callgrind: %s\n", label)
			lines, err := callgrindSide(ctx, bins[label], label, cfg.Bench, env)
			if err != nil {
				return nil, err
			}
			out.WriteString(lines)
		}
	}
	return append(head.Bytes(), out.Bytes()...), nil
}

// describeRev names a side: the revision and the commit it resolves to, or
// the work tree's commit and whether charge/ differs from it.
func describeRev(ctx context.Context, dir, rev string) (string, error) {
	if rev == "" {
		commit, err := git(ctx, dir, "rev-parse", "--short=12", "HEAD")
		if err != nil {
			return "", err
		}
		st, err := git(ctx, dir, "status", "--porcelain", "--", "charge")
		if err != nil {
			return "", err
		}
		if st != "" {
			return "work tree at " + commit + " with charge/ changed", nil
		}
		return "work tree at " + commit, nil
	}
	commit, err := git(ctx, dir, "rev-parse", "--short=12", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("ab: revision %q: %w", rev, err)
	}
	return rev + " (" + commit + ")", nil
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// chargeFile is what a side copies of charge: its package's own sources,
// not its tests or sub-packages.
func chargeFile(name string) bool {
	return !strings.Contains(name, "/") && !strings.HasSuffix(name, "_test.go") &&
		(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".s"))
}

// buildSide writes one side's module under dir — charge's sources at rev
// (or as they stand in root), the shapes and the mixture from root, the
// harness — and builds its test binary.
func buildSide(ctx context.Context, root, dir, label, rev string) (string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "charge"), 0o755); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, "testdata"), 0o755); err != nil {
		return "", err
	}
	files := map[string][]byte{}
	if rev == "" {
		ents, err := os.ReadDir(filepath.Join(root, "charge"))
		if err != nil {
			return "", err
		}
		for _, e := range ents {
			if e.Type().IsRegular() && chargeFile(e.Name()) {
				b, err := os.ReadFile(filepath.Join(root, "charge", e.Name()))
				if err != nil {
					return "", err
				}
				files[e.Name()] = b
			}
		}
	} else {
		cmd := exec.CommandContext(ctx, "git", "archive", "--format=tar", rev, "charge")
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		arch, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("git archive %s charge: %w: %s", rev, err, strings.TrimSpace(stderr.String()))
		}
		tr := tar.NewReader(bytes.NewReader(arch))
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return "", err
			}
			name, ok := strings.CutPrefix(h.Name, "charge/")
			if !ok || h.Typeflag != tar.TypeReg || !chargeFile(name) {
				continue
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				return "", err
			}
			files[name] = b
		}
	}
	if len(files) == 0 {
		return "", fmt.Errorf("no charge sources at %q", rev)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, "charge", name), b, 0o644); err != nil {
			return "", err
		}
	}
	write := map[string][]byte{
		"charge/go.mod": []byte("module github.com/theurian/boundlab/charge\n\ngo 1.25.0\n"),
		"go.mod": []byte("module boundlab.ab\n\ngo 1.25.0\n\nrequire github.com/theurian/boundlab/charge v0.0.0\n\n" +
			"replace github.com/theurian/boundlab/charge => ./charge\n"),
		"ab_test.go":     fmt.Appendf(nil, abHarness, label),
		"regexp_test.go": []byte(abRegexp),
	}
	for _, f := range []string{"bench/shapes.go", "bench/mixture.go", "bench/cputime.go", "bench/cputime_linux.go", "bench/cputime_other.go", "bench/testdata/chat.txt", "bench/testdata/source.go.txt"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return "", err
		}
		if strings.HasSuffix(f, ".go") {
			f = strings.TrimSuffix(f, ".go") + "_test.go" // test-only in the side's module
		}
		write[strings.TrimPrefix(f, "bench/")] = b
	}
	for name, b := range write {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return "", err
		}
	}
	bin := filepath.Join(dir, label+".test")
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, ".")
	cmd.Dir = dir
	// Nothing outside the standard library: no workspace, no proxy.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go test -c: %w\n%s", err, out)
	}
	return bin, nil
}

var (
	totalsLine = regexp.MustCompile(`(?m)^(?:totals|summary): (\d+)`)
	dumpName   = regexp.MustCompile(`^cg\.out\.(\d+)-\d+$`)
)

// callgrindSide runs one side once under callgrind, counting the instructions
// of one Check of each document (a dump after each), and returns them as
// benchfmt lines.
func callgrindSide(ctx context.Context, bin, label, match string, env []string) (string, error) {
	dir, err := os.MkdirTemp(filepath.Dir(bin), "callgrind-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, "valgrind", "--tool=callgrind", "--callgrind-out-file="+filepath.Join(dir, "cg.out"),
		"--toggle-collect=*.abCheck", "--dump-after=*.abCheck", "--separate-threads=yes",
		bin, "-test.run=^TestABInstructions$", "-test.count=1", "-test.v")
	// Go preempts goroutines with signals, which trip callgrind's signal
	// bookkeeping (an assertion in vgCallgrind_post_signal), and its
	// runtime reads the clock with RDTSCP, which valgrind 3.19 cannot
	// decode: both off under callgrind.
	cmd.Env = append(env, "BOUNDLAB_AB_MATCH="+match, "GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("ab: callgrind %s: %w\n%s%s", label, err, stdout.Bytes(), lastLines(stderr.String(), 20))
	}
	var names []string
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "ab-doc: "); ok {
			names = append(names, n)
		}
	}
	dumps, err := filepath.Glob(filepath.Join(dir, "cg.out*"))
	if err != nil {
		return "", err
	}
	// cg.out.<n>-<thread>: one dump per abCheck, in call order, a file per
	// thread; the checks ran on one locked thread, whose file holds the
	// count (the others hold what their threads ran meanwhile, if anything).
	counts := map[int]int64{}
	for _, p := range dumps {
		m := dumpName.FindStringSubmatch(filepath.Base(p))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		data, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		t := totalsLine.FindSubmatch(data)
		if t == nil {
			return "", fmt.Errorf("ab: callgrind %s: no totals in %s", label, filepath.Base(p))
		}
		v, _ := strconv.ParseInt(string(t[1]), 10, 64)
		counts[n] = max(counts[n], v)
	}
	if len(counts) != len(names) {
		return "", fmt.Errorf("ab: callgrind %s: %d dumps for %d documents", label, len(counts), len(names))
	}
	var b strings.Builder
	for i, name := range names {
		v, ok := counts[i+1]
		if !ok {
			return "", fmt.Errorf("ab: callgrind %s: no dump %d (%s)", label, i+1, name)
		}
		fmt.Fprintf(&b, "BenchmarkABInstructions/%s/impl=%s \t1\t%d instructions/op\n", name, label, v)
	}
	return b.String(), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n") + "\n"
}

// abUnit is the time an A/B run is read in: the thread's CPU time where the
// samples report it, else wall time.
func abUnit(s *Samples) string {
	for _, k := range s.Order {
		if k.Family == "BenchmarkAB" && len(s.Values[k][CPUTimeUnit]) > 0 {
			return CPUTimeUnit
		}
	}
	return "sec/op"
}

// ABRow is one document's verdict: head against base in wall time (medians
// of the rounds, with the ratio's interval and U-test) and, when counted, in
// instructions.
type ABRow struct {
	Doc                  string
	Unit                 string  // cpu-sec/op, or sec/op
	Base, Head           float64 // median time per op
	Ratio, Lo, Hi, P     float64 // head over base
	N                    int
	BaseInstr, HeadInstr float64 // 0 when not counted
	Verdict              string
}

// InstrNoise is the instruction-count ratio within which two builds are
// called the same: Check's count moves only with the runtime's own work
// (a preemption, a write barrier) between runs of one build.
const InstrNoise = 0.005

// ABVerdicts reads an A/B run. A document is "slower" (or "faster") when
// the wall-time U-test tells the sides apart (p < 0.05) and the instruction
// count, where counted, moves the same way past InstrNoise, or when only
// one instrument is there and it says so; "~" otherwise, and "instr only"
// or "time only" when the two instruments disagree.
func ABVerdicts(s *Samples) []ABRow {
	unit := abUnit(s)
	rows := s.CompareTo(unit, func(Key) string { return ABBase })
	byDoc := map[string]*ABRow{}
	var order []string
	get := func(doc string) *ABRow {
		r := byDoc[doc]
		if r == nil {
			r = &ABRow{Doc: doc, Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: math.NaN()}
			byDoc[doc] = r
			order = append(order, doc)
		}
		return r
	}
	for _, r := range rows {
		if r.Family != "BenchmarkAB" {
			continue
		}
		ab := get(r.Group)
		ab.Unit = unit
		switch r.Impl {
		case ABBase:
			ab.Base = r.Median
		case ABHead:
			ab.Head, ab.Ratio, ab.Lo, ab.Hi, ab.P, ab.N = r.Median, r.Ratio, r.RatioLo, r.RatioHi, r.P, r.N
		}
	}
	for _, k := range s.Order {
		if k.Family != "BenchmarkABInstructions" {
			continue
		}
		v := s.Values[k]["instructions/op"]
		if len(v) == 0 {
			continue
		}
		ab := get(k.Group)
		if k.Impl == ABBase {
			ab.BaseInstr = v[0]
		} else if k.Impl == ABHead {
			ab.HeadInstr = v[0]
		}
	}
	out := make([]ABRow, 0, len(order))
	for _, doc := range order {
		r := byDoc[doc]
		r.Verdict = abVerdict(r)
		out = append(out, *r)
	}
	return out
}

func abVerdict(r *ABRow) string {
	timeSays := 0
	if !math.IsNaN(r.P) && r.P < 0.05 {
		if r.Ratio > 1 {
			timeSays = 1
		} else if r.Ratio < 1 {
			timeSays = -1
		}
	}
	hasInstr := r.BaseInstr > 0 && r.HeadInstr > 0
	instrSays := 0
	if hasInstr {
		q := r.HeadInstr / r.BaseInstr
		if q > 1+InstrNoise {
			instrSays = 1
		} else if q < 1-InstrNoise {
			instrSays = -1
		}
	}
	word := map[int]string{1: "slower", -1: "faster", 0: "~"}
	switch {
	case !hasInstr:
		return word[timeSays]
	case math.IsNaN(r.P):
		return word[instrSays]
	case timeSays == instrSays:
		return word[timeSays]
	case timeSays == 0:
		return word[instrSays] + " (instr only)"
	case instrSays == 0:
		return word[timeSays] + " (time only)"
	}
	return "disagree"
}

// WriteAB prints the run's machine and sides, then a row per document.
func WriteAB(w io.Writer, s *Samples, rows []ABRow) error {
	for _, k := range []string{"ab-base", "ab-head", "go", "cpu-model", "date", "command"} {
		if v := s.Config[k]; v != "" {
			fmt.Fprintf(w, "%s: %s\n", k, v)
		}
	}
	if len(rows) > 0 {
		fmt.Fprintf(w, "time: median %s over the rounds (cpu-sec/op: the benchmark thread's CPU time)\n", rows[0].Unit)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "document\tbase\thead\thead/base\tinterval\tp\tn\tinstr base\tinstr head\tinstr ratio\tverdict\t\n")
	for _, r := range rows {
		ratio, ci, p := "-", "-", "-"
		if !math.IsNaN(r.Ratio) {
			ratio = fmt.Sprintf("%.3fx", r.Ratio)
			ci = fmt.Sprintf("[%.2f, %.2f]", r.Lo, r.Hi)
		}
		if !math.IsNaN(r.P) {
			p = fmt.Sprintf("%.3f", r.P)
		}
		ib, ih, iq := "-", "-", "-"
		if r.BaseInstr > 0 && r.HeadInstr > 0 {
			ib, ih = fmt.Sprintf("%.0f", r.BaseInstr), fmt.Sprintf("%.0f", r.HeadInstr)
			iq = fmt.Sprintf("%.4fx", r.HeadInstr/r.BaseInstr)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t\n", r.Doc, formatUnit(r.Base, "sec/op"), formatUnit(r.Head, "sec/op"),
			ratio, ci, p, r.N, ib, ih, iq, r.Verdict)
	}
	return tw.Flush()
}
