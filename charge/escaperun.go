package charge

import (
	"math/bits"
)

// The escape-dense string's vector path: where the CPU has AVX2
// (escaperun_amd64.s), a stretch of two-byte escapes (\" \\ \/ \b \f \n \r
// \t) and the plain ASCII bytes between them is read 32 bytes at a time.
// One block gives masks, one bit a byte: its stop bytes, its backslashes,
// its odd bytes, and, of the byte after each (the letter, were that byte
// a backslash opening an escape), whether it is a letter and which group
// of letters of one width it is in. Which backslashes open an escape
// follows from the backslash mask and one carried bit (escapeStarts); a
// stop that is no escape's backslash or letter, or an escape whose letter
// is none of those eight, ends the stretch. A stretch then costs its
// length, plus each escape's width over its two bytes (a popcount per
// group), plus the odd bytes' widths over one (a popcount per odd byte):
// no escape is read one at a time. TestEscapeRunsAgree holds it to the
// escape loop's own reading on escapes and plain bytes at every place in a
// block.

// escapeClasses is what escapeBlockAVX2 classifies a block's bytes with.
// A letter's class is lo[its low nibble] & hi[its high nibble]: each of
// the eight letters has one bit, set in its low nibble's entry of lo and
// its high nibble's of hi, so that only the letter itself has it. quote is
// the class bit of ", group[g] the bits of the letters whose width is
// escDelta[g] over two; odd are widthTable.odd. The layout is the
// assembly's: lo at 0, hi at 16, quote at 32, group at 33, odd at 36.
type escapeClasses struct {
	lo, hi [16]byte
	quote  byte
	group  [2]byte
	_      byte
	odd    [2]byte
}

// deriveEscapeRuns fills t.esc and t.escDelta from t.escape and t.odd, and
// says whether the vector path can charge this dialect: the word path is
// exact (t.words), no odd byte that costs other than one is a letter (the
// block counts odd bytes wherever they are, letters included), and the
// letters' widths over two take at most two values other than zero.
func (t *widthTable) deriveEscapeRuns() {
	t.escRuns = false
	if !t.words {
		return
	}
	for k, c := range t.odd {
		if t.oddExtra[k] != 0 && simpleEscape[c] != 0 {
			return
		}
	}
	var deltas []int64
	for l, c := range []byte(`"\/bfnrt`) {
		bit := byte(1) << l
		t.esc.lo[c&0xf] |= bit
		t.esc.hi[c>>4] |= bit
		if c == '"' {
			t.esc.quote = bit
		}
		d := int64(t.escape[c]) - 2
		if d == 0 {
			continue
		}
		g := 0
		for g < len(deltas) && deltas[g] != d {
			g++
		}
		if g == len(deltas) {
			if g == len(t.esc.group) {
				return
			}
			deltas = append(deltas, d)
		}
		t.esc.group[g] |= bit
		t.escDelta[g] = d
	}
	t.esc.odd = t.odd
	t.escRuns = true
}

// escapeRun reads from doc[i], a backslash, the stretch of two-byte escapes
// and plain ASCII bytes that starts there, 32 bytes a block while a block
// ends at or before limit (at most len(doc)-1: the byte after a block is
// read as its last byte's letter), and returns where it stopped, what it
// read costs, and whether an escaped quote was among it. It stops at the
// first byte that is neither: a quote, a control byte, a byte past ASCII, a
// backslash opening any other escape (\uXXXX, or one JSON has no letter
// for); or at the last whole block before limit. Nothing it reads is
// refused: str hands on to its exact loops at the byte it stopped at, and
// when what it read passes the budget, str rereads the same bytes with
// them, which find the byte that did. Only where t.escRuns and vectorRuns.
func (t *widthTable) escapeRun(doc []byte, i, limit int) (int, int64, bool) {
	var extra int64 // what the stretch costs over its length
	quotes := false
	p, carry := i, uint32(0) // carry: doc[p] is the letter of an escape opened at p-1
	for p+32 <= limit {
		st, bs, valid, quote, g0, g1, odd0, odd1 := escapeBlockAVX2((*[33]byte)(doc[p:p+33]), &t.esc)
		starts := escapeStarts(bs, carry)
		letters := starts<<1 | carry
		stop := st&^(starts|letters) | starts&^valid
		read := ^uint32(0) // the block's bytes in the stretch
		if stop != 0 {
			read = stop&-stop - 1
		}
		starts &= read
		// An odd byte that costs other than one is never a letter
		// (deriveEscapeRuns), so each one read is a plain byte.
		extra += t.escDelta[0]*int64(bits.OnesCount32(g0&starts)) + t.escDelta[1]*int64(bits.OnesCount32(g1&starts)) +
			t.oddExtra[0]*int64(bits.OnesCount32(odd0&read)) + t.oddExtra[1]*int64(bits.OnesCount32(odd1&read))
		quotes = quotes || quote&starts != 0
		if stop != 0 {
			end := p + bits.TrailingZeros32(stop)
			return end, int64(end-i) + extra, quotes
		}
		carry = starts >> 31 // an escape opened at the block's last byte: its letter was read
		p += 32
	}
	p += int(carry) // past the letter of an escape opened at the last block's end
	return p, int64(p-i) + extra, quotes
}

// escapeStarts marks the backslashes among bs (one bit a byte of a block)
// that open an escape, when the block's first byte is (carry 1) or is not
// (carry 0) the letter of an escape opened before it. Reading from the
// left, a backslash that is not a letter opens an escape and the byte after
// it is its letter; so within a run of backslashes that does not begin
// with a letter, those at an even distance from the run's first open one.
// A run is told by the parity of its first place: adding its first bit to
// the mask clears exactly that run (the carry runs to its end), which
// separates the runs that begin on even places from those on odd ones.
func escapeStarts(bs, carry uint32) uint32 {
	const even = 0x55555555
	b := uint64(bs &^ carry)          // a backslash that is a letter opens nothing
	first := b &^ (b << 1)            // each run's first backslash
	evenRuns := b &^ (b + first&even) // the runs that begin on an even place
	oddRuns := b &^ evenRuns
	return uint32(evenRuns&even | oddRuns&^even)
}
