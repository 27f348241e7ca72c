package charge

import (
	"encoding/binary"
	"math/bits"
)

// A multi-byte run's vector path: 32 bytes at a time, where the CPU has
// AVX2 (multiblock_amd64.s). One block is validated as UTF-8 in registers
// (the lookup algorithm of Keiser and Lemire, "Validating UTF-8 in less than
// one instruction per byte", 2021) and charged as if every code point had
// its length's usual width (its byte length in go's dialect, one in
// Python's); a lead whose code point may differ is flagged by a lookup on
// its first two bytes, and each flagged code point is then charged from the
// width tables one at a time. The tables below say which leads to flag;
// they are derived from the width tables at start-up, so the vector path
// cannot disagree with them. TestMultiBlocksAgree holds the whole path to
// the one-code-point-at-a-time reading on every code point, at every place
// in a block, and on every invalid pair of bytes.

// blockTables are the sixteen-byte lookups a block is read with. The first
// three are the UTF-8 validation's (dialect-free); the last four flag
// leads. A lead's flag byte is taken by the lead's low nibble from lead2Lo
// (leads 0xc0..0xcf), lead2Hi (0xd0..0xdf) or lead3 (0xe0..0xef); bit k of
// it, k the next byte's bits 5..3, is set when a code point of that lead
// and that k may cost other than its length's usual width: an eighth of a
// two-byte lead's 64 code points, or an eighth of a three-byte lead's 4,096.
// fine is a finer reading of leads 0xe0 and 0xe3, where an eighth of the
// lead's 4,096 holds a script whole beside places that cost otherwise
// (Devanagari beside Bengali's unassigned ones; kana beside the ideographic
// space): by the next byte's bits 5..0, a group of 64 code points each, bit
// b of byte j for bits 5..2 equal to j and bits 1..0 to b (0xe3,
// U+3000..U+3FFF), or to b-4 (0xe0, U+0800..U+0FFF, whose next byte's bit 5
// is always set). A run that begins with such a lead is read with it
// (multiBlockFineAVX2), every other run without it, at no cost. Every
// four-byte lead is flagged: the astral plane's printable and unprintable
// code points are too interleaved for a two-byte lookup.
type blockTables struct {
	byte1High, byte1Low, byte2High [16]byte
	lead2Lo, lead2Hi, lead3        [16]byte
	fine                           [16]byte
}

// UTF-8 errors, as the validation's lookups name them: bit sets that a pair
// of bytes (the one before and the one at a place) selects; a pair is bad
// when the three lookups share a bit, or when the place must continue a
// three- or four-byte sequence and is not a continuation byte (twoConts).
const (
	tooShort     = 1 << 0 // 11______ followed by 0_______ or 11______
	tooLong      = 1 << 1 // 0_______ followed by 10______
	overlong3    = 1 << 2 // 11100000 100_____
	tooLarge     = 1 << 3 // 11110100 1001____ or 101_____; 11110101.. likewise
	surrogate    = 1 << 4 // 11101101 101_____
	overlong2    = 1 << 5 // 1100000_ 10______
	tooLarge1000 = 1 << 6 // 11110101.. 1000____
	overlong4    = 1 << 6 // 11110000 1000____
	twoConts     = 1 << 7 // 10______ 10______
	carry        = tooShort | tooLong | twoConts
)

var utf8Lookups = blockTables{
	byte1High: [16]byte{ // by the previous byte's high nibble
		tooLong, tooLong, tooLong, tooLong, tooLong, tooLong, tooLong, tooLong,
		twoConts, twoConts, twoConts, twoConts,
		tooShort | overlong2,
		tooShort,
		tooShort | overlong3 | surrogate,
		tooShort | tooLarge | tooLarge1000 | overlong4,
	},
	byte1Low: [16]byte{ // by the previous byte's low nibble
		carry | overlong3 | overlong2 | overlong4,
		carry | overlong2,
		carry,
		carry,
		carry | tooLarge,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000 | surrogate,
		carry | tooLarge | tooLarge1000,
		carry | tooLarge | tooLarge1000,
	},
	byte2High: [16]byte{ // by this byte's high nibble
		tooShort, tooShort, tooShort, tooShort, tooShort, tooShort, tooShort, tooShort,
		tooLong | overlong2 | twoConts | overlong3 | tooLarge1000 | overlong4,
		tooLong | overlong2 | twoConts | overlong3 | tooLarge,
		tooLong | overlong2 | twoConts | surrogate | tooLarge,
		tooLong | overlong2 | twoConts | surrogate | tooLarge,
		tooShort, tooShort, tooShort, tooShort,
	},
}

// maxFlagged is how many flagged code points a block may hold before the
// scalar loop is the cheaper reading: each costs a decode and a table read,
// the scalar loops' whole per-code-point work on a run of one length.
const maxFlagged = 6

// minStretch and maxStretch bound how far past a declined block multi reads
// on by itself before it tries the vector path again (widths.go).
const minStretch, maxStretch = 64, 4096

// deriveBlocks fills t.blocks from t's widths and says whether the vector
// path can charge this dialect: every length's usual width is its byte
// length (go) or one (Python), so that a block's unflagged code points cost
// its byte count or its lead count.
func (t *widthTable) deriveBlocks() {
	t.blocks = utf8Lookups
	usual := func(n int, r rune) bool { return int64(t.of(r)) == t.usual[n] }
	// A two- or three-byte length's usual width is its most common one.
	// Every four-byte lead is flagged, so that length's is what the block
	// charges it before the flag is read.
	spans := [4][2]rune{2: {0x80, 0x800}, 3: {0x800, 0x10000}}
	for n := 2; n <= 3; n++ {
		count := map[int64]int{}
		for r := spans[n][0]; r < spans[n][1]; r++ {
			if r < 0xd800 || r >= 0xe000 {
				count[int64(t.of(r))]++
			}
		}
		for w, c := range count {
			if c > count[t.usual[n]] {
				t.usual[n] = w
			}
		}
	}
	t.usual[1] = 1
	switch {
	case t.usual[2] == 2 && t.usual[3] == 3:
		t.blockForm, t.usual[4] = byteCount, 4
	case t.usual[2] == 1 && t.usual[3] == 1:
		t.blockForm, t.usual[4] = leadCount, 1
	default:
		t.blockForm = noBlocks
		return
	}
	flag := func(table *[16]byte, nibble int, k uint, lo, n rune, length int) {
		for r := lo; r < lo+n; r++ {
			if (r < 0xd800 || r >= 0xe000) && !usual(length, r) {
				table[nibble] |= 1 << k
				return
			}
		}
	}
	for lead := 0xc0; lead < 0xe0; lead++ {
		table := &t.blocks.lead2Lo
		if lead >= 0xd0 {
			table = &t.blocks.lead2Hi
		}
		for k := uint(0); k < 8; k++ {
			flag(table, lead&0xf, k, rune(lead&0x1f)<<6|rune(k)<<3, 8, 2)
		}
	}
	for lead := 0xe0; lead < 0xf0; lead++ {
		for k := uint(0); k < 8; k++ {
			flag(&t.blocks.lead3, lead&0xf, k, rune(lead&0xf)<<12|rune(k)<<9, 512, 3)
		}
	}
	for g := 0; g < 64; g++ { // the next byte's bits 5..0
		flag(&t.blocks.fine, g>>2, uint(g&3), 0x3000|rune(g)<<6, 64, 3)
		if g >= 32 { // after 0xe0 a valid next byte is 0xa0..0xbf
			flag(&t.blocks.fine, g>>2, 4+uint(g&3), rune(g)<<6, 64, 3)
		}
	}
}

// How a block's unflagged code points are charged.
const (
	noBlocks  = iota // the dialect's widths fit neither: no vector path
	byteCount        // each costs its byte length
	leadCount        // each costs one
)

// multiBlocks charges the code points from doc[i], a code point's first
// byte, a block of 32 bytes at a time, while a block holds no stop byte
// (" \ C0), no invalid UTF-8, at least one byte past ASCII and at most
// maxFlagged flagged code points, and lies inside end; a code point that a
// block's last bytes begin is left to the next. The run's first block, and
// the block that ends the loop, are read by prefixBlock, up to a stop byte
// they hold: a short string's content is one block, read to its closing
// quote, and a long one's last bytes one more. A run that begins with lead
// 0xe0 or 0xe3 is read with their fine flags (multiBlockFineAVX2). It
// returns where it stopped, always a code point's first byte, and the width
// before it; multi's scalar loop takes on from there.
//
// It declines at once where the run's first word holds a quote, a
// backslash or a control byte (a string that ends a code point or two
// later): the scalar loop reads those few for less than a block costs.
func (t *widthTable) multiBlocks(doc []byte, i, end int) (int, int64) {
	// The block reads three bytes before it (the validation's context) and
	// three after (a flagged lead's code point, read as one word).
	if i < 3 || i+35 > len(doc) || i+32 > end || quoteOrControl(binary.LittleEndian.Uint64(doc[i:i+8])) {
		return i, 0
	}
	fine := doc[i] == 0xe0 || doc[i] == 0xe3
	j, w, stopped := t.prefixBlock(doc, i, fine)
	if stopped || j == i { // read to a stop, or declined
		return j, w
	}
	i = j
	for last := min(end-32, len(doc)-35); i <= last; {
		b := (*[36]byte)(doc[i-3 : i+33])
		var leads, flags, n0, n1 uint32
		var ok bool
		if fine {
			leads, flags, n0, n1, ok = multiBlockFineAVX2(b, &t.blocks, t.odd[0], t.odd[1])
		} else {
			leads, flags, n0, n1, ok = multiBlockAVX2(b, &t.blocks, t.odd[0], t.odd[1])
		}
		if !ok || bits.OnesCount32(flags) > maxFlagged {
			// Most often a block that holds the run's end.
			j, wp, _ := t.prefixBlock(doc, i, fine)
			return j, w + wp
		}
		n := wholeBytes(doc, i)
		whole := uint32(uint64(1)<<n - 1) // n is 32 for most blocks
		if t.blockForm == byteCount {
			w += int64(n)
		} else {
			w += int64(bits.OnesCount32(leads & whole))
		}
		w += t.oddExtra[0]*int64(n0) + t.oddExtra[1]*int64(n1)
		// Each flagged code point's extra over its length's usual width
		// (flaggedExtra, written out: a call per code point cost a third
		// of the mixed shape's time).
		for f := flags & whole; f != 0; f &= f - 1 {
			k := i + bits.TrailingZeros32(f)
			x := binary.LittleEndian.Uint32(doc[k:])
			switch c := byte(x); {
			case c < 0xe0:
				w += int64(t.bmp[x&0x1f<<6|x>>8&0x3f]) - t.usual[2]
			case c < 0xf0:
				w += int64(t.bmp[x&0x0f<<12|x>>8&0x3f<<6|x>>16&0x3f]) - t.usual[3]
			default:
				r := x&0x07<<18 | x>>8&0x3f<<12 | x>>16&0x3f<<6 | x>>24&0x3f
				w += t.astralWidth(r) - t.usual[4]
			}
		}
		i += n
	}
	return i, w
}

// prefixBlock reads the block at doc[i] (a code point's first byte, with
// three bytes before it and 35 from it inside doc) as multiBlocks reads
// one, but a stop byte it holds does not decline it: it is charged up to
// the first, and stopped says so. It returns where it stopped and the
// width before it; i and 0 when it declines the block.
func (t *widthTable) prefixBlock(doc []byte, i int, fine bool) (int, int64, bool) {
	b := (*[36]byte)(doc[i-3 : i+33])
	var leads, flags, n0, n1, stops uint32
	var ok bool
	if fine {
		leads, flags, n0, n1, stops, ok = multiBlockFinePrefixAVX2(b, &t.blocks, t.odd[0], t.odd[1])
	} else {
		leads, flags, n0, n1, stops, ok = multiBlockPrefixAVX2(b, &t.blocks, t.odd[0], t.odd[1])
	}
	if !ok || bits.OnesCount32(flags) > maxFlagged {
		return i, 0, false
	}
	// The block's bytes up to its first stop (a stop byte ends a whole code
	// point, else !ok), or its last whole code point.
	n := bits.TrailingZeros32(stops)
	if stops == 0 {
		n = wholeBytes(doc, i)
	}
	if n == 0 {
		return i, 0, true
	}
	whole := uint32(uint64(1)<<n - 1)
	w := int64(n)
	if t.blockForm != byteCount {
		w = int64(bits.OnesCount32(leads & whole))
	}
	w += t.oddExtra[0]*int64(n0) + t.oddExtra[1]*int64(n1)
	for f := flags & whole; f != 0; f &= f - 1 {
		w += t.flaggedExtra(doc, i+bits.TrailingZeros32(f))
	}
	return i + n, w, stops != 0
}

// wholeBytes is how many bytes of the 32-byte block at doc[i] end with its
// last whole code point: 32, less a sequence its last bytes begin.
func wholeBytes(doc []byte, i int) int {
	switch {
	case doc[i+31] >= 0xc0:
		return 31
	case doc[i+30] >= 0xe0:
		return 30
	case doc[i+29] >= 0xf0:
		return 29
	}
	return 32
}

// flaggedExtra is what the flagged code point at doc[k] costs over its
// length's usual width.
func (t *widthTable) flaggedExtra(doc []byte, k int) int64 {
	x := binary.LittleEndian.Uint32(doc[k:])
	switch c := byte(x); {
	case c < 0xe0:
		return int64(t.bmp[x&0x1f<<6|x>>8&0x3f]) - t.usual[2]
	case c < 0xf0:
		return int64(t.bmp[x&0x0f<<12|x>>8&0x3f<<6|x>>16&0x3f]) - t.usual[3]
	}
	r := x&0x07<<18 | x>>8&0x3f<<12 | x>>16&0x3f<<6 | x>>24&0x3f
	return t.astralWidth(r) - t.usual[4]
}
