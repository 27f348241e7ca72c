package audit_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/audit"
)

// fakeHoardEnv is how many copies of each ping line longer than 64 KiB
// the "hoard" fake keeps (every page touched): its memory per request
// byte, measured from outside.
const fakeHoardEnv = "BOUNDLAB_AUDIT_FAKE_HOARD"

var hoarded [][]byte

func hoard(line []byte) {
	if len(line) <= 64<<10 {
		return
	}
	n, _ := strconv.Atoi(os.Getenv(fakeHoardEnv))
	for range n {
		hoarded = append(hoarded, append([]byte(nil), line...))
	}
}

func memoryRun(t *testing.T, copies int, ceiling int64, memory bool) *audit.Report {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("SKIP: the peak resident set is read from Linux's /proc")
	}
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = ceiling, 16, 1<<10, 5*time.Second
	target := &audit.Stdio{Command: os.Args[0], Env: append(os.Environ(), fakeEnv+"=hoard", fakeHoardEnv+"="+strconv.Itoa(copies))}
	rep, err := audit.Run(context.Background(), audit.Config{Target: target, Seed: 7, Limits: l, Memory: memory})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestMemoryProbe: a stdio server that holds 40 copies of a message is
// raised as BLA022 with a figure of about 40 bytes per request byte; one
// that holds none is not, and its figure is small. Both take their figure
// with a body of audit.MinMemoryBytes, the floor.
func TestMemoryProbe(t *testing.T) {
	hoarder := memoryRun(t, 40, audit.MinMemoryBytes, true)
	m := hoarder.Boundary.Memory
	if m == nil || m.RequestBytes != audit.MinMemoryBytes {
		t.Fatalf("memory %+v, not measured %v; want a %d-byte measurement", m, hoarder.NotMeasured, audit.MinMemoryBytes)
	}
	if m.PerByte < 38 || m.PerByte > 48 || m.PeakAfter <= m.PeakBefore {
		t.Errorf("holding 40 copies: %.3f bytes per request byte (%d to %d), want about 40", m.PerByte, m.PeakBefore, m.PeakAfter)
	}
	wantRule(t, hoarder, audit.RuleMemory, true)

	lean := memoryRun(t, 0, audit.MinMemoryBytes, true)
	if m := lean.Boundary.Memory; m == nil || m.PerByte >= audit.MemoryHurtRatio {
		t.Fatalf("holding nothing: memory %+v, not measured %v", m, lean.NotMeasured)
	}
	wantRule(t, lean, audit.RuleMemory, false)
}

// TestMemoryProbeOff: one byte under the floor the probe says why it did
// not measure; without Config.Memory it neither measures nor says so.
func TestMemoryProbeOff(t *testing.T) {
	below := memoryRun(t, 40, audit.MinMemoryBytes-1, true)
	if below.Boundary.Memory != nil || !notMeasuredMemory(below) {
		t.Errorf("one byte under the floor: memory %+v, not measured %v", below.Boundary.Memory, below.NotMeasured)
	}
	off := memoryRun(t, 40, audit.MinMemoryBytes, false)
	if off.Boundary.Memory != nil || notMeasuredMemory(off) {
		t.Errorf("without Config.Memory: memory %+v, not measured %v", off.Boundary.Memory, off.NotMeasured)
	}
	wantRule(t, off, audit.RuleMemory, false)
}

func notMeasuredMemory(r *audit.Report) bool {
	for _, n := range r.NotMeasured {
		if n.Probe == "memory" {
			return true
		}
	}
	return false
}

// TestStdioRSSLimit: a process past its resident-set bound is killed and
// the run ends with an error naming the bound, not a session the server
// ended; the same process under a bound it never reaches is audited.
func TestStdioRSSLimit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SKIP: the resident set is read from Linux's /proc")
	}
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = 4<<20, 16, 1<<10, 5*time.Second
	// 40 copies of a 4 MiB ping: 160 MiB held
	env := append(os.Environ(), fakeEnv+"=hoard", fakeHoardEnv+"=40")
	_, err := audit.Run(context.Background(), audit.Config{Target: &audit.Stdio{Command: os.Args[0], Env: env, RSSLimit: 96 << 20}, Seed: 7, Limits: l})
	if err == nil || !strings.Contains(err.Error(), "past its bound of 100663296") {
		t.Fatalf("err %v: want the process killed past its 96 MiB bound", err)
	}
	if _, err := audit.Run(context.Background(), audit.Config{Target: &audit.Stdio{Command: os.Args[0], Env: env, RSSLimit: 1 << 30}, Seed: 7, Limits: l}); err != nil {
		t.Fatalf("under a 1 GiB bound: %v", err)
	}
}
