//go:build amd64 && !purego

package charge

// multiBlockAVX2 reads one 32-byte block of a multi-byte run, b[3:35], with
// the three bytes before it (the validation's context) and the one after it
// (the flag lookup's second byte for the block's last lead). ok is false
// when the block holds a stop byte (" \ C0), no byte past ASCII, or a byte
// that breaks UTF-8 given the ones before it; then the other results are
// unset. Otherwise leads marks the block's bytes that begin a code point,
// flags the leads tab flags (every four-byte lead among them), and odd0 and
// odd1 count the bytes equal to each. In multiblock_amd64.s.
//
//go:noescape
func multiBlockAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1 uint32, ok bool)

// astralBlockAVX2 reads b as eight four-byte sequences: ok is false unless
// each is one and encodes a code point past the BMP; then printable counts
// those whose bit is set in bits, the widthTable's astral bitmap (which
// holds three bytes past its last, as the gather reads four at a time). In
// multiblock_amd64.s.
//
//go:noescape
func astralBlockAVX2(b *[32]byte, bits *byte) (printable uint32, ok bool)

// multiBlockFineAVX2 is multiBlockAVX2 with leads 0xe0 and 0xe3 flagged by
// tab's fine table rather than lead3. In multiblock_amd64.s.
//
//go:noescape
func multiBlockFineAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1 uint32, ok bool)

// multiBlockPrefixAVX2 is multiBlockAVX2 for a block that may hold a stop
// byte (" \ C0): stops marks them, and the block is read up to the first.
// ok is false when the block holds no byte past ASCII, or a byte before
// the first stop, or the stop itself, that breaks UTF-8 given the ones
// before it (a stop that cuts a sequence short); flags, n0 and n1 count
// only the bytes before the first stop. Without a stop it answers as
// multiBlockAVX2 does. In multiblock_amd64.s.
//
//go:noescape
func multiBlockPrefixAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1, stops uint32, ok bool)

// multiBlockFinePrefixAVX2 is multiBlockPrefixAVX2 with leads 0xe0 and
// 0xe3 flagged by tab's fine table. In multiblock_amd64.s.
//
//go:noescape
func multiBlockFinePrefixAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1, stops uint32, ok bool)
