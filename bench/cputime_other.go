//go:build !linux

package bench

import "time"

// threadCPU has no per-thread clock to read outside Linux.
func threadCPU() (time.Duration, bool) { return 0, false }
