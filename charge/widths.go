package charge

import (
	"sync"
	"unicode/utf8"
)

// widthTable answers RuneWidth in O(1): a width per BMP code point and a
// printability bit per astral one. The tables are built from RuneWidth itself
// on first use, so they can only agree with it; they exist for speed.
type widthTable struct {
	bmp       [0x10000]uint8
	astral    [(utf8.MaxRune + 1 - 0x10000) / 8]uint8
	printable uint8 // the width of a printable astral code point
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
