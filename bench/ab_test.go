package bench

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// abRun is a saved A/B run in benchfmt: six rounds of two documents, then
// their instruction counts.
func abRun(baseCPU, headCPU []string, baseInstr, headInstr string) string {
	var b strings.Builder
	b.WriteString("ab-base: c0ffee (c0ffee000000)\nab-head: work tree at c0ffee000000\n")
	for i := range baseCPU {
		b.WriteString("BenchmarkAB/shape=chat/impl=base \t100\t1000 ns/op\t" + baseCPU[i] + " cpu-sec/op\n")
		b.WriteString("BenchmarkAB/shape=chat/impl=head \t100\t1000 ns/op\t" + headCPU[i] + " cpu-sec/op\n")
	}
	b.WriteString("BenchmarkABInstructions/shape=chat/impl=base \t1\t" + baseInstr + " instructions/op\n")
	b.WriteString("BenchmarkABInstructions/shape=chat/impl=head \t1\t" + headInstr + " instructions/op\n")
	return b.String()
}

// ABVerdicts reads CPU time (not the wall time, equal here) and calls a
// document slower or faster only when the U-test tells the sides apart and
// the instruction count agrees; one instrument alone is named.
func TestABVerdicts(t *testing.T) {
	same := []string{"1e-3", "1.01e-3", "0.99e-3", "1.02e-3", "0.98e-3", "1e-3"}
	slow := []string{"1.3e-3", "1.31e-3", "1.29e-3", "1.32e-3", "1.28e-3", "1.3e-3"}
	fast := []string{"0.7e-3", "0.71e-3", "0.69e-3", "0.72e-3", "0.68e-3", "0.7e-3"}
	cases := []struct {
		name              string
		head              []string
		baseInstr, hInstr string
		want              string
	}{
		{"same", same, "1000000", "1000000", "~"},
		{"slower", slow, "1000000", "1200000", "slower"},
		{"faster", fast, "1000000", "800000", "faster"},
		{"time_only", slow, "1000000", "1004000", "slower (time only)"},
		{"instr_only", same, "1000000", "1006000", "slower (instr only)"},
		{"disagree", slow, "1000000", "900000", "disagree"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse(strings.NewReader(abRun(same, c.head, c.baseInstr, c.hInstr)), "ab")
			if err != nil {
				t.Fatal(err)
			}
			rows := ABVerdicts(s)
			if len(rows) != 1 || rows[0].Doc != "shape=chat" {
				t.Fatalf("rows %+v", rows)
			}
			r := rows[0]
			if r.Unit != CPUTimeUnit || r.N != 6 || r.Verdict != c.want {
				t.Errorf("unit %s n %d verdict %q, want %s 6 %q (p=%v ratio=%v)", r.Unit, r.N, r.Verdict, CPUTimeUnit, c.want, r.P, r.Ratio)
			}
			var out bytes.Buffer
			if err := WriteAB(&out, s, rows); err != nil || !strings.Contains(out.String(), c.want) || !strings.Contains(out.String(), "c0ffee") {
				t.Errorf("WriteAB: %v\n%s", err, out.String())
			}
		})
	}
}

// A side copies charge's own sources: not its tests, not its sub-packages.
func TestChargeFile(t *testing.T) {
	for name, want := range map[string]bool{
		"gate.go": true, "escaperun_amd64.s": true, "gate_test.go": false, "internal/x.go": false,
		"reference/reference.go": false, "go.mod": false, "README.md": false,
	} {
		if chargeFile(name) != want {
			t.Errorf("chargeFile(%q) = %v", name, !want)
		}
	}
}

// RunAB end to end, against this commit: both sides build from charge's
// sources alone, alternate round by round, and read the same documents.
// It builds two binaries (tens of seconds on a loaded machine), so it runs
// on demand: BOUNDLAB_AB_TEST=1.
func TestRunABAgainstHEAD(t *testing.T) {
	if os.Getenv("BOUNDLAB_AB_TEST") == "" {
		t.Skip("BOUNDLAB_AB_TEST unset: builds and runs two test binaries")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	out, err := RunAB(context.Background(), ABConfig{Dir: root, Base: "HEAD", Rounds: 2, Bench: "shape=ascii$|seed=2$",
		Benchtime: "3x", Bytes: 4096, MixSeeds: 2, MixBytes: 4096, Work: t.TempDir()}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(bytes.NewReader(out), "ab")
	if err != nil {
		t.Fatal(err)
	}
	rows := ABVerdicts(s)
	if len(rows) != 2 || rows[0].Doc != "shape=ascii" || rows[1].Doc != "seed=2" || rows[0].N != 2 || rows[1].N != 2 {
		t.Fatalf("rows %+v\n%s", rows, out)
	}
	var order []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "BenchmarkAB/shape=ascii/") {
			order = append(order, strings.Fields(line)[0])
		}
	}
	if got := strings.Join(order, ","); got != "BenchmarkAB/shape=ascii/impl=base,BenchmarkAB/shape=ascii/impl=head,BenchmarkAB/shape=ascii/impl=head,BenchmarkAB/shape=ascii/impl=base" {
		t.Fatalf("order %s, want base head head base", got)
	}
}
