//go:build amd64 && !purego

package charge

// vectorRuns says whether plainRun may use plainRunAVX2: the CPU has AVX2
// and POPCNT and the operating system saves the vector registers.
var vectorRuns = hasAVX2()

// plainRunAVX2 reads b 32 bytes at a time while a block holds no stop byte
// (" \ C0 or a byte >= 0x80) and returns n, where the first stop byte is or
// where fewer than 32 bytes remain, and how many of b[:n] equal odd0 and
// odd1. In plainrun_amd64.s.
//
//go:noescape
func plainRunAVX2(b []byte, odd0, odd1 byte) (n, c0, c1 int)

// cpuid and xgetbv are the instructions, in plainrun_amd64.s.
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax uint32)

func hasAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx, popcnt = 1 << 27, 1 << 28, 1 << 23
	if ecx1&(osxsave|avx|popcnt) != osxsave|avx|popcnt {
		return false
	}
	if xgetbv()&6 != 6 { // the OS saves the XMM and YMM state
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const avx2 = 1 << 5
	return ebx7&avx2 != 0
}
