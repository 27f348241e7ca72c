package audit

import "testing"

// TestMemoryThreshold: BLA022 at MemoryHurtRatio bytes per request byte,
// none just under it.
func TestMemoryThreshold(t *testing.T) {
	for _, c := range []struct {
		per  float64
		want int
	}{{MemoryHurtRatio, 1}, {MemoryHurtRatio - 0.001, 0}} {
		b := &Boundary{Memory: &Memory{RequestBytes: 1 << 20, PerByte: c.per}}
		if got := len(b.memoryFindings()); got != c.want {
			t.Errorf("%.3f bytes per byte: %d findings, want %d", c.per, got, c.want)
		}
	}
	if got := (&Boundary{}).memoryFindings(); got != nil {
		t.Errorf("no measurement: %v", got)
	}
}

// TestVMField reads /proc status lines, and refuses what is not one.
func TestVMField(t *testing.T) {
	status := []byte("Name:\tx\nVmPeak:\t  2048 kB\nVmHWM:\t    1024 kB\n")
	if n, err := vmField(status, "VmHWM:"); err != nil || n != 1<<20 {
		t.Errorf("VmHWM = %d, %v; want %d", n, err, 1<<20)
	}
	for _, bad := range []string{"VmHWM:\t12 MB\n", "VmHWM:\t-1 kB\n", "VmHWM:\tx kB\n", "VmRSS:\t1 kB\n"} {
		if n, err := vmField([]byte(bad), "VmHWM:"); err == nil {
			t.Errorf("%q read as %d", bad, n)
		}
	}
}
