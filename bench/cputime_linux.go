package bench

import (
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID: the calling thread's
// CPU time to the nanosecond, the running slice included (getrusage's
// RUSAGE_THREAD moves only at the scheduler's ticks).
const clockThreadCPUTime = 3

// threadCPU is the calling thread's CPU time so far, or false where the
// platform has no per-thread clock.
func threadCPU() (time.Duration, bool) {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
