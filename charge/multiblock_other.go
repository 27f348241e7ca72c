//go:build !amd64 || purego

package charge

func multiBlockAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1 uint32, ok bool) {
	panic("charge: no vector path in this build")
}

func multiBlockFineAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1 uint32, ok bool) {
	panic("charge: no vector path in this build")
}

func multiBlockPrefixAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1, stops uint32, ok bool) {
	panic("charge: no vector path in this build")
}

func multiBlockFinePrefixAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1, stops uint32, ok bool) {
	panic("charge: no vector path in this build")
}

func astralBlockAVX2(b *[32]byte, bits *byte) (printable uint32, ok bool) {
	panic("charge: no vector path in this build")
}
