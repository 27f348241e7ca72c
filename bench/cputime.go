package bench

import (
	"runtime"
	"testing"
)

// CPUTimeUnit is the benchmark unit of a sample's on-CPU time per op: the
// benchmark goroutine's thread's user and system time (Linux's
// CLOCK_THREAD_CPUTIME_ID; not reported elsewhere), so the time the thread
// waited for a CPU on a loaded machine is not counted, as it is in sec/op.
const CPUTimeUnit = "cpu-sec/op"

// loopCPU runs f in b.Loop on one locked thread and reports the thread's CPU
// time per op beside b's own wall time.
func loopCPU(b *testing.B, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, ok := threadCPU()
	n := 0
	for b.Loop() {
		f()
		n++
	}
	if end, ok2 := threadCPU(); ok && ok2 && n > 0 {
		b.ReportMetric((end-start).Seconds()/float64(n), CPUTimeUnit)
	}
}
