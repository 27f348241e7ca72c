//go:build amd64 && !purego

package charge

// escapeBlockAVX2 reads the 32 bytes b[0:32] and, as escape letters, the
// 32 bytes b[1:33], returning one mask bit a byte: see escaperun_amd64.s.
//
//go:noescape
func escapeBlockAVX2(b *[33]byte, tab *escapeClasses) (st, bs, valid, quote, g0, g1, odd0, odd1 uint32)
