package charge

import (
	"encoding/binary"
	"math/bits"
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
	ascii     [256]uint8
	bmp       [0x10000]uint8
	astral    [(utf8.MaxRune + 1 - 0x10000) / 8]uint8
	printable uint8 // the width of a printable astral code point
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// ascii8 charges eight bytes at once when all are ASCII the string scan
// charges from its table — printable or DEL, none " or \ — and reports
// whether they were.
func (t *widthTable) ascii8(b []byte) (int64, bool) {
	x := binary.LittleEndian.Uint64(b)
	if ((x-ones*0x20)|x|has(x, '"')|has(x, '\\'))&highs != 0 {
		return 0, false
	}
	// Printable bytes cost 1; DEL costs 4 in both dialects; ' costs the
	// dialect's quote width.
	n := 8 + 3*count(x, 0x7f)
	if t.ascii['\''] == 2 {
		n += count(x, '\'')
	}
	return int64(n), true
}

// has sets the high bit of a byte of x^(c repeated) that is zero, along with
// possibly spurious bits above it: enough for "is there any", exact when every
// byte of x is below 0x80.
func has(x uint64, c byte) uint64 {
	y := x ^ (ones * uint64(c))
	return (y - ones) &^ y
}

// count is exactly how many bytes of x equal c.
func count(x uint64, c byte) int {
	const lows = 0x7f7f7f7f7f7f7f7f
	y := x ^ (ones * uint64(c))
	return bits.OnesCount64(^((y&lows + lows) | y | lows))
}

func (t *widthTable) of(r rune) int {
	if r < 0x10000 {
		return int(t.bmp[r])
	}
	if t.astral[(r-0x10000)>>3]&(1<<(r&7)) != 0 {
		return int(t.printable)
	}
	return 10
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
		t.printable = 1
		if d == Go {
			t.printable = 4
		}
		for r := rune(0x10000); r <= utf8.MaxRune; r++ {
			if d.RuneClass(r) == Printable {
				t.astral[(r-0x10000)>>3] |= 1 << (r & 7)
			}
		}
		widthTables[d] = t
	})
	return widthTables[d]
}
