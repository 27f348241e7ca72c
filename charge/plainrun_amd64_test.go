//go:build amd64 && !purego

package charge

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestHasAVX2AgreesWithTheKernel: hasAVX2 (CPUID and XGETBV read by hand)
// says what Linux's /proc/cpuinfo flags say: avx2, avx and popcnt all present
// (the kernel lists avx only when it saves the vector registers). Both paths
// give the same answers (TestPlainRunPathsAgree), so a wrong hasAVX2 shows
// nowhere else: it would leave the vector path unused, or run it where it
// faults.
func TestHasAVX2AgreesWithTheKernel(t *testing.T) {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skipf("no /proc/cpuinfo to hold hasAVX2 to: %v", err)
	}
	var flags []string
	for _, line := range strings.Split(string(data), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
			flags = strings.Fields(value)
			break
		}
	}
	if flags == nil {
		t.Skip("/proc/cpuinfo lists no flags")
	}
	want := slices.Contains(flags, "avx2") && slices.Contains(flags, "avx") && slices.Contains(flags, "popcnt")
	if got := hasAVX2(); got != want {
		t.Errorf("hasAVX2() = %v; /proc/cpuinfo's flags say %v", got, want)
	}
}
