//go:build amd64 && !purego

package charge

// multiBlockAVX2 reads one 32-byte block of a multi-byte run, b[3:35], with
// the three bytes before it (the validation's context) and the one after it
// (the flag lookup's second byte for the block's last lead). stops marks
// the block's stop bytes (" \ C0); the block is read up to the first, or
// whole without one. ok is false when the block holds no byte past ASCII,
// or a byte up to the first stop that breaks UTF-8 given the ones before it
// (a stop byte that cuts a sequence short among them); then the other
// results are unset. Otherwise leads marks the block's bytes that begin a
// code point, flags the leads tab flags before the first stop (every
// four-byte lead among them), and n0 and n1 count the bytes before the
// first stop equal to odd0 and odd1. In multiblock_amd64.s.
//
//go:noescape
func multiBlockAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1, stops uint32, ok bool)

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
func multiBlockFineAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1, stops uint32, ok bool)
