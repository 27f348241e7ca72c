//go:build !amd64 || purego

package charge

func escapeBlockAVX2(b *[33]byte, tab *escapeClasses) (st, bs, valid, quote, g0, g1, odd0, odd1 uint32) {
	panic("charge: no vector path in this build")
}
