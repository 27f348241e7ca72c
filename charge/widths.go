package charge

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"sync"
	"unicode/utf8"
)

// widthTable answers RuneWidth in O(1): a width per BMP code point and a
// printability bit per astral one. The tables are built from RuneWidth itself
// on first use, so they can only agree with it; they exist for speed.
type widthTable struct {
	// ascii is the width of each byte the string scan charges without leaving
	// its fast loop: printable ASCII and DEL. It is 0 for " \ C0 and every
	// byte >= 0x80.
	ascii       [256]uint8
	bmp         [0x10000]uint8
	astral      [(utf8.MaxRune+1-0x10000)/8 + 3]uint8 // +3: astralBlockAVX2 reads four bytes at each
	printable   uint8                                 // the width of a printable astral code point
	unprintable uint8                                 // and of any other
	// odd are the two printable-ASCII bytes the string scan charges at other
	// than one (DEL in both dialects, ' in go's; a stop byte, which never
	// reaches the count, fills an unused place), and oddExtra what each costs
	// over one. widthsFor derives them from ascii.
	odd      [2]byte
	oddRep   [2]uint64 // each odd byte repeated in every byte of a word
	oddExtra [2]int64
	words    bool // odd holds every such byte: the word path is exact
	// shortInts: every integer literal of one to three digits renders as
	// itself under the dialect's NumberWidth, so the gate charges one its
	// length without calling it.
	shortInts bool
	// shortDecimals: likewise every such integer (0 alone or without a
	// leading zero) with a point and one or two digits after it.
	shortDecimals bool
	// escape is the width of the rune each two-byte escape (\" \\ \/ \b \f
	// \n \r \t, indexed by its second byte) stands for; 0 for every other byte.
	escape [256]uint8
	// blocks, blockForm and usual are the vector path's (multiblock.go):
	// its lookups, how it charges a block, and each length's usual width.
	blocks    blockTables
	blockForm int
	usual     [5]int64
	// esc, escDelta and escRuns are the escape-dense vector path's
	// (escaperun.go): its classes of letters, what each group of letters
	// costs over two, and whether it can charge this dialect.
	esc      escapeClasses
	escDelta [2]int64
	escRuns  bool
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// stops marks (in the high bit of each byte, the lowest mark exact) the bytes
// of x that end a plain ASCII run: " \ C0 and every byte >= 0x80.
func stops(x uint64) uint64 {
	st, _ := stopsQuotes(x)
	return st
}

// stopsQuotes is stops, and has(x, '"') beside it: at the lowest stop it is
// exact (a quote below the first stop would be the first stop).
func stopsQuotes(x uint64) (st, quotes uint64) {
	quotes = has(x, '"')
	return ((x - ones*0x20) | x | quotes | has(x, '\\')) & highs, quotes
}

// stopByte is stops for one byte.
func stopByte(c byte) bool { return c < 0x20 || c >= 0x80 || c == '"' || c == '\\' }

// shortPlain reads a short string's content at doc[i:] when up to four
// words hold all of it — plain ASCII bytes, then the closing quote — and
// returns its length and width, and its first word masked to the content
// (nameKey of it, read here so a name is not read twice); n is -1 when they
// do not. Odd bytes are only looked for on the way; a content holding one
// is charged by plainRunWords.
func (t *widthTable) shortPlain(doc []byte, i int) (n int, w int64, key uint64) {
	if !t.words || i+8 > len(doc) {
		return -1, 0, 0
	}
	// The first word alone: most names and many values end in it.
	x := binary.LittleEndian.Uint64(doc[i : i+8])
	st, quotes := stopsQuotes(x)
	if st == 0 {
		return t.shortPlainOn(doc, i, x)
	}
	first := st & -st
	if first&quotes == 0 {
		return -1, 0, 0 // the content goes on past a stop byte
	}
	x &= first>>7 - 1 // the bytes before the quote
	n = bits.TrailingZeros64(st) >> 3
	if (hasRep(x, t.oddRep[0])|hasRep(x, t.oddRep[1]))&highs == 0 { // exact: has marks a byte only above a match
		return n, int64(n), x
	}
	_, w = t.plainRunWords(doc[i : i+n])
	return n, w, x
}

// shortPlainOn is shortPlain past a first word x of eight plain bytes.
func (t *widthTable) shortPlainOn(doc []byte, i int, key uint64) (n int, w int64, _ uint64) {
	odd := hasRep(key, t.oddRep[0]) | hasRep(key, t.oddRep[1])
	for k := 8; k < 32 && i+k+8 <= len(doc); k += 8 {
		x := binary.LittleEndian.Uint64(doc[i+k:])
		st, quotes := stopsQuotes(x)
		if st != 0 {
			first := st & -st
			if first&quotes == 0 {
				return -1, 0, 0 // the content goes on past a stop byte
			}
			x &= first>>7 - 1
			odd |= hasRep(x, t.oddRep[0]) | hasRep(x, t.oddRep[1])
			n = k + bits.TrailingZeros64(st)>>3
			if odd&highs == 0 {
				return n, int64(n), key
			}
			_, w = t.plainRunWords(doc[i : i+n])
			return n, w, key
		}
		odd |= hasRep(x, t.oddRep[0]) | hasRep(x, t.oddRep[1])
	}
	return -1, 0, 0
}

// shortIntEnd returns where the integer part of the number at doc[i], a
// digit, ends if it is at most three digits long: past its third digit
// otherwise. A leading zero is the whole integer part.
func shortIntEnd(doc []byte, i int) int {
	j := i + 1
	if doc[i] != '0' && j < len(doc) && isDigit(doc[j]) {
		if j++; j < len(doc) && isDigit(doc[j]) {
			j++
		}
	}
	return j
}

// shortFraction reads on from doc[j], a byte that continues a number whose
// integer part, one to three digits, renders as itself (shortInts): it
// returns where the number ends when a point and one or two digits that
// nothing after continues follow and shortDecimals says such literals render
// as themselves, and -1 otherwise (the gate's number() reads the token).
func (t *widthTable) shortFraction(doc []byte, j int) int {
	if !t.shortDecimals || doc[j] != '.' || j+1 >= len(doc) || !isDigit(doc[j+1]) {
		return -1
	}
	if j += 2; j < len(doc) && isDigit(doc[j]) {
		j++
	}
	if j < len(doc) && continuesNumber[doc[j]] {
		return -1
	}
	return j
}

// plainRun is the length and width of the plain ASCII run that opens b:
// every byte before the first stop byte (" \ C0 or a byte >= 0x80), or all
// of b. Its width is one per byte plus what its odd bytes cost over one.
// Where the CPU has a vector unit the run is found 32 bytes at a time
// (plainrun_amd64.s); plainRunWords is the portable path and finishes the
// vector path's last few bytes. The two are held identical by
// TestPlainRunPathsAgree.
func (t *widthTable) plainRun(b []byte) (n int, w int64) {
	if vectorRuns && len(b) >= 32 {
		var c0, c1 int
		n, c0, c1 = plainRunAVX2(b, t.odd[0], t.odd[1])
		w = int64(n) + t.oddExtra[0]*int64(c0) + t.oddExtra[1]*int64(c1)
		if n < len(b) && stopByte(b[n]) {
			return n, w
		}
	}
	m, wm := t.plainRunWords(b[n:])
	return n + m, w + wm
}

// plainRunWords is plainRun eight bytes at a time: the run's end found
// first, then its odd bytes counted (bytes.Count on a long run, a word at a
// time on a short one, the last word masked to the run).
func (t *widthTable) plainRunWords(b []byte) (n int, w int64) {
	for n+16 <= len(b) && stops(binary.LittleEndian.Uint64(b[n:]))|stops(binary.LittleEndian.Uint64(b[n+8:])) == 0 {
		n += 16
	}
	for {
		if n+8 > len(b) {
			for n < len(b) && !stopByte(b[n]) {
				n++
			}
			break
		}
		if st := stops(binary.LittleEndian.Uint64(b[n:])); st != 0 {
			n += bits.TrailingZeros64(st) >> 3 // plain bytes before the first stop
			break
		}
		n += 8
	}
	run := b[:n]
	w = int64(n)
	if n >= 512 {
		for k := range t.odd {
			if t.oddExtra[k] != 0 {
				w += t.oddExtra[k] * int64(bytes.Count(run, t.odd[k:k+1]))
			}
		}
		return n, w
	}
	for j := 0; j < n; j += 8 {
		var x uint64
		if j+8 <= n {
			x = binary.LittleEndian.Uint64(run[j:])
		} else {
			for k := n - 1; k >= j; k-- { // the run's last few bytes
				x = x<<8 | uint64(run[k])
			}
		}
		if (hasRep(x, t.oddRep[0])|hasRep(x, t.oddRep[1]))&highs != 0 {
			w += t.oddExtra[0]*int64(countRep(x, t.oddRep[0])) + t.oddExtra[1]*int64(countRep(x, t.oddRep[1]))
		}
	}
	return n, w
}

// plain scans doc[i:end] while it holds code points the table charges — the
// ASCII bytes with a nonzero ascii width and valid multi-byte UTF-8 (a
// sequence may run past end, never past doc) — and returns where it stopped
// and their total width. It stops at " \ C0, invalid UTF-8 and end.
//
// A run's first eight ASCII bytes are charged as one word; a run that
// outlasts them goes to plainRun.
func (t *widthTable) plain(doc []byte, i, end int) (int, int64) {
	var w int64
	for i < end {
		// The run's first word is charged as it is read: most runs between
		// escapes and multi-byte code points are short. A longer run's end
		// is found first, then the run is charged whole.
		if t.words && i+8 <= end {
			x := binary.LittleEndian.Uint64(doc[i:])
			st, n := stops(x), 8
			if st != 0 {
				n = bits.TrailingZeros64(st) >> 3
				x &= 1<<(8*n) - 1
			}
			w += int64(n)
			if (hasRep(x, t.oddRep[0])|hasRep(x, t.oddRep[1]))&highs != 0 {
				w += t.oddExtra[0]*int64(countRep(x, t.oddRep[0])) + t.oddExtra[1]*int64(countRep(x, t.oddRep[1]))
			}
			i += n
			if st == 0 {
				n, wr := t.plainRun(doc[i:end])
				i, w = i+n, w+wr
			}
		}
		if i >= end {
			break
		}
		c := doc[i]
		if c < utf8.RuneSelf {
			wc := t.ascii[c]
			if wc == 0 {
				break // " \ or a control character
			}
			w += int64(wc)
			i++
			continue
		}
		// Past ASCII: a block at a time where the vector path takes it
		// (often to the string's end), else multi, a code point at a time,
		// which tries blocks again a stretch on.
		retry := i
		if vectorRuns && t.blockForm != noBlocks && c >= 0xc0 {
			if j, wv := t.multiBlocks(doc, i, end); j > i {
				i, w = j, w+wv
				continue
			}
			retry = i + 2*minStretch
		}
		j, wm := t.multiFrom(doc, i, end, retry)
		if j == i {
			break // invalid UTF-8: the caller refuses it
		}
		i, w = j, w+wm
	}
	return i, w
}

// has sets the high bit of a byte of x^(c repeated) that is zero, along with
// possibly spurious bits above it: enough for "is there any", exact when every
// byte of x is below 0x80.
func has(x uint64, c byte) uint64 { return hasRep(x, ones*uint64(c)) }

// hasRep is has with c already repeated in every byte of rep.
func hasRep(x, rep uint64) uint64 {
	y := x ^ rep
	return (y - ones) &^ y
}

// count is exactly how many bytes of x equal c.
func count(x uint64, c byte) int { return countRep(x, ones*uint64(c)) }

// countRep is count with c already repeated in every byte of rep.
func countRep(x, rep uint64) int {
	const lows = 0x7f7f7f7f7f7f7f7f
	y := x ^ rep
	return bits.OnesCount64(^((y&lows + lows) | y | lows))
}

func (t *widthTable) of(r rune) int {
	if r < 0x10000 {
		return int(t.bmp[r])
	}
	return int(t.astralWidth(uint32(r)))
}

var (
	widthOnce   [3]sync.Once
	widthTables [3]*widthTable
)

func widthsFor(d Dialect) *widthTable {
	widthOnce[d].Do(func() {
		t := new(widthTable)
		for c := 0x20; c <= 0x7f; c++ {
			if c != '"' && c != '\\' {
				t.ascii[c] = uint8(d.RuneWidth(rune(c)))
			}
		}
		for r := rune(0); r < 0x10000; r++ {
			if r >= 0xd800 && r < 0xe000 {
				continue // never reaches a string the gate admits
			}
			t.bmp[r] = uint8(d.RuneWidth(r))
		}
		// Past the BMP a code point is printable or not, and each kind has
		// one width (the sweeps hold of to RuneWidth on every code point).
		// Each code point is classed once: RuneWidth would class it again.
		for r := rune(0x10000); r <= utf8.MaxRune; r++ {
			if c := d.RuneClass(r); c == Printable {
				t.astral[(r-0x10000)>>3] |= 1 << (r & 7)
				t.printable = uint8(d.widthAs(r, c))
			} else {
				t.unprintable = uint8(d.widthAs(r, c))
			}
		}
		t.deriveFastPaths()
		t.deriveBlocks()
		t.deriveEscapeRuns()
		t.shortInts, t.shortDecimals = true, true
		for n := 0; n < 1000; n++ {
			lit := strconv.AppendInt(nil, int64(n), 10)
			t.shortInts = t.shortInts && d.NumberWidth(lit) == len(lit)
			for f := 0; f < 110 && t.shortDecimals; f++ { // .0 to .9, then .00 to .99
				dec := append(lit, '.', byte('0'+f))
				if f >= 10 {
					dec = append(lit, '.', byte('0'+(f-10)/10), byte('0'+(f-10)%10))
				}
				t.shortDecimals = d.NumberWidth(dec) == len(dec)
			}
		}
		widthTables[d] = t
	})
	return widthTables[d]
}

// deriveFastPaths fills what the scan's word-at-a-time and escape paths read
// from the tables the rest of the scan reads, so the two cannot disagree.
// Should the ASCII widths ever hold more than two bytes that cost other than
// one, the word path would miss the rest: words stays false and plain takes
// ASCII one byte at a time.
func (t *widthTable) deriveFastPaths() {
	t.odd = [2]byte{'"', '"'}
	k := 0
	for c := 0x20; c <= 0x7f; c++ {
		if w := t.ascii[c]; w != 0 && w != 1 {
			if k < 2 {
				t.odd[k], t.oddExtra[k] = byte(c), int64(w)-1
			}
			k++
		}
	}
	t.words = k <= 2
	t.oddRep = [2]uint64{ones * uint64(t.odd[0]), ones * uint64(t.odd[1])}
	for b, r := range simpleEscape {
		if r != 0 {
			t.escape[b] = uint8(t.of(r))
		}
	}
}

// multi charges the run of code points that starts at doc[i] (a multi-byte
// lead), each starting before end, one at a time, and returns where the run
// stopped and its width. It stops at invalid UTF-8, at " \ and C0, at end,
// and after a few ASCII bytes in a row, which plain's word loop takes on.
//
// Each code point is read as one little-endian word of its four bytes (the
// document's last few padded with zeros, which no continuation byte
// matches), so one switch on the lead and one mask test decide it. A code
// point followed by another of its length enters that length's loop, which
// takes two or four at a time while they last. Where the CPU has AVX2, the
// run is read a 32-byte block at a time while blocks allow (multiBlocks),
// and a run of four-byte sequences eight at a time (astralBlockAVX2).
func (t *widthTable) multi(doc []byte, i, end int) (int, int64) {
	return t.multiFrom(doc, i, end, i)
}

// multiFrom is multi with the vector path first tried at retry, i or a
// stretch past it where plain has just seen it decline a block at i.
func (t *widthTable) multiFrom(doc []byte, i, end, retry int) (int, int64) {
	var w int64
	// The vector path (multiBlocks) is tried at the run's first lead, and
	// again a stretch past each block it declines, the stretch doubling
	// while it declines: text it cannot take (a run of flagged code points)
	// costs a few declined blocks, not one per block.
	stretch := max(minStretch, retry-i)
	if !vectorRuns || t.blockForm == noBlocks {
		retry = math.MaxInt
	}
	run := 0 // ASCII bytes in a row
	for i < end {
		c := doc[i]
		if c < utf8.RuneSelf {
			wc := t.ascii[c]
			if wc == 0 || run == 3 {
				return i, w
			}
			w += int64(wc)
			i++
			run++
			continue
		}
		// Only at a lead: the path reads the bytes before i as UTF-8
		// context, which then can only make it decline a block.
		if i >= retry && c >= 0xc0 {
			j, wv := t.multiBlocks(doc, i, end)
			stretch = min(2*stretch, maxStretch)
			if j > i {
				stretch, run = minStretch, 0
			}
			i, w, retry = j, w+wv, j+stretch
			if i >= end {
				break
			}
			if c = doc[i]; c < utf8.RuneSelf {
				continue
			}
		}
		run = 0
		var x uint32
		if i+4 <= len(doc) {
			x = binary.LittleEndian.Uint32(doc[i:])
		} else {
			for k := len(doc) - 1; k >= i; k-- {
				x = x<<8 | uint32(doc[k])
			}
		}
		switch {
		case c < 0xc2: // a continuation byte, or an overlong lead
			return i, w
		case c < 0xe0:
			if x&0xc000 != 0x8000 {
				return i, w
			}
			w += int64(t.bmp[x&0x1f<<6|x>>8&0x3f])
			i += 2
			if i+8 > end || doc[i]&0xe0 != 0xc0 {
				continue
			}
			// Four two-byte sequences at a time, for Arabic, Cyrillic,
			// Greek, Hebrew and the rest of U+0080..U+07FF.
			for i+8 <= end {
				x := binary.LittleEndian.Uint64(doc[i:])
				if x&0xc0e0c0e0c0e0c0e0 != 0x80c080c080c080c0 || !leadsOK(x) {
					break
				}
				w += int64(t.bmp[rune(x&0x1f)<<6|rune(x>>8&0x3f)]) +
					int64(t.bmp[rune(x>>16&0x1f)<<6|rune(x>>24&0x3f)]) +
					int64(t.bmp[rune(x>>32&0x1f)<<6|rune(x>>40&0x3f)]) +
					int64(t.bmp[rune(x>>48&0x1f)<<6|rune(x>>56&0x3f)])
				i += 8
			}
		case c < 0xf0:
			r := x&0x0f<<12 | x>>8&0x3f<<6 | x>>16&0x3f
			if x&0xc0c000 != 0x808000 || r < 0x800 || r-0xd800 < 0x800 {
				return i, w // not a continuation, overlong, or a surrogate
			}
			w += int64(t.bmp[r])
			i += 3
			if i+8 > end || doc[i]&0xf0 != 0xe0 {
				continue
			}
			// CJK and the rest of the BMP, two at a time.
			for i+8 <= end {
				x := binary.LittleEndian.Uint64(doc[i:])
				if x&0xc0c0f0c0c0f0 != 0x8080e08080e0 {
					break
				}
				r1 := rune(x&0x0f)<<12 | rune(x>>8&0x3f)<<6 | rune(x>>16&0x3f)
				r2 := rune(x>>24&0x0f)<<12 | rune(x>>32&0x3f)<<6 | rune(x>>40&0x3f)
				if r1 < 0x800 || uint32(r1-0xd800) < 0x800 || r2 < 0x800 || uint32(r2-0xd800) < 0x800 {
					break
				}
				w += int64(t.bmp[r1]) + int64(t.bmp[r2])
				i += 6
			}
		default:
			r := x&0x07<<18 | x>>8&0x3f<<12 | x>>16&0x3f<<6 | x>>24&0x3f
			// r-0x10000 below 0x100000: neither overlong nor past U+10FFFF.
			if x&0xc0c0c0f8 != 0x808080f0 || r-0x10000 >= 0x100000 {
				return i, w
			}
			w += t.astralWidth(r)
			i += 4
			if i+8 > end || doc[i] < 0xf0 {
				continue
			}
			// Eight at a time, their printability gathered from the table.
			for vectorRuns && i+32 <= end {
				p, ok := astralBlockAVX2((*[32]byte)(doc[i:i+32]), &t.astral[0])
				if !ok {
					break
				}
				w += int64(p)*int64(t.printable) + int64(8-p)*int64(t.unprintable)
				i += 32
			}
			// Two four-byte sequences at a time (emoji, the supplementary
			// ideographs).
			for i+8 <= end {
				x := binary.LittleEndian.Uint64(doc[i:])
				r1 := uint32(x&0x07)<<18 | uint32(x>>8&0x3f)<<12 | uint32(x>>16&0x3f)<<6 | uint32(x>>24&0x3f)
				r2 := uint32(x>>32&0x07)<<18 | uint32(x>>40&0x3f)<<12 | uint32(x>>48&0x3f)<<6 | uint32(x>>56&0x3f)
				// Both r-0x10000 below 0x100000 (a power of two): neither
				// overlong nor past U+10FFFF.
				if x&0xc0c0c0f8c0c0c0f8 != 0x808080f0808080f0 || (r1-0x10000)|(r2-0x10000) >= 0x100000 {
					break
				}
				w += t.astralWidth(r1) + t.astralWidth(r2)
				i += 8
			}
		}
	}
	return i, w
}

// quoteOrControl reports whether x holds a quote, a backslash or a C0 byte:
// a stop byte that bytes past ASCII are not. Each mark is exact for "is
// there any": a borrow runs only from a byte that is itself a match.
func quoteOrControl(x uint64) bool {
	return ((x-ones*0x20)&^x|has(x, '"')|has(x, '\\'))&highs != 0
}

// astralWidth is of for a code point past the BMP (r-0x10000 < 0x100000).
func (t *widthTable) astralWidth(r uint32) int64 {
	if t.astral[(r-0x10000)>>3]&(1<<(r&7)) != 0 {
		return int64(t.printable)
	}
	return int64(t.unprintable)
}
