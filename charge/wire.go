package charge

import (
	"math/big"
	"slices"
	"unicode/utf8"
)

// WireClass is a set of code points every encoder family puts on the wire at
// the same size. The classes partition the 1,112,064 Unicode scalar values; the
// sweeps package proves the partition and each class's sizes against real
// encoders, code point by code point.
type WireClass struct {
	Name string // what the class holds, e.g. "2-byte" or "< > &"
	// Control marks the classes the body-cap multiplier excludes: C0 and DEL,
	// which a knowledge store does not land densely, and which have a remedy
	// (DEL sent raw) or none (raw C0 is illegal JSON).
	Control bool
	Landed  int     // UTF-8 bytes per code point
	Example rune    // one member, for instances and tables
	Count   int     // how many code points the class holds
	wire    [4]int8 // wire bytes per code point, indexed by Encoder
	has     func(r rune) bool
}

// Wire is the bytes encoder e puts on the wire for each code point of the class.
func (c WireClass) Wire(e Encoder) int { return int(c.wire[e]) }

// Ratio is wire bytes over landed bytes under encoder e, a new big.Rat on
// every call, which the caller may keep or modify.
func (c WireClass) Ratio(e Encoder) *big.Rat {
	return big.NewRat(int64(c.wire[e]), int64(c.Landed))
}

// Contains reports whether r is in the class.
func (c WireClass) Contains(r rune) bool { return c.has(r) }

func isShortC0(r rune) bool { return r == '\b' || r == '\t' || r == '\n' || r == '\f' || r == '\r' }
func isHTML(r rune) bool    { return r == '<' || r == '>' || r == '&' }

// WireClasses returns the class model, in order of code point, in a fresh
// slice: BodyCap reads the model itself, so nothing a caller does to the
// slice or its elements changes a derived cap.
func WireClasses() []WireClass { return slices.Clone(wireClasses[:]) }

// wireClasses is the class model BodyCap and WireClassOf read.
var wireClasses = [...]WireClass{
	{Name: `C0 \b \t \n \f \r`, Control: true, Landed: 1, Example: '\t', Count: 5,
		wire: wireBytes(2, 2, 2), has: isShortC0},
	{Name: "C0 other", Control: true, Landed: 1, Example: 0x01, Count: 27,
		wire: wireBytes(6, 6, 6), has: func(r rune) bool { return r < 0x20 && !isShortC0(r) }},
	{Name: `" and \`, Landed: 1, Example: '"', Count: 2,
		wire: wireBytes(2, 2, 2), has: func(r rune) bool { return r == '"' || r == '\\' }},
	{Name: "< > &", Landed: 1, Example: '<', Count: 3,
		wire: wireBytes(1, 1, 6), has: isHTML},
	{Name: "ASCII printable other", Landed: 1, Example: 'a', Count: 90,
		wire: wireBytes(1, 1, 1), has: func(r rune) bool {
			return r >= 0x20 && r < 0x7f && r != '"' && r != '\\' && !isHTML(r)
		}},
	{Name: "DEL", Control: true, Landed: 1, Example: 0x7f, Count: 1,
		wire: wireBytes(6, 1, 1), has: func(r rune) bool { return r == 0x7f }},
	{Name: "2-byte", Landed: 2, Example: 0x0600, Count: 0x800 - 0x80,
		wire: wireBytes(6, 2, 2), has: func(r rune) bool { return r >= 0x80 && r < 0x800 }},
	{Name: "3-byte other", Landed: 3, Example: 0x4e2d, Count: 0x10000 - 0x800 - 0x800 - 2,
		wire: wireBytes(6, 3, 3), has: func(r rune) bool {
			return r >= 0x800 && r < 0x10000 && !(r >= 0xd800 && r < 0xe000) && r != 0x2028 && r != 0x2029
		}},
	{Name: "U+2028 U+2029", Landed: 3, Example: 0x2028, Count: 2,
		wire: wireBytes(6, 3, 6), has: func(r rune) bool { return r == 0x2028 || r == 0x2029 }},
	{Name: "4-byte", Landed: 4, Example: 0x1f600, Count: utf8.MaxRune + 1 - 0x10000,
		wire: wireBytes(12, 4, 4), has: func(r rune) bool { return r >= 0x10000 && r <= utf8.MaxRune }},
}

func wireBytes(ensureASCII, raw, goJSON int8) [4]int8 {
	var w [4]int8
	w[EnsureASCII], w[Raw], w[GoJSON] = ensureASCII, raw, goJSON
	return w
}

// WireClassOf is the class r belongs to; ok is false for surrogates and values
// outside Unicode, which no encoder puts on the wire.
func WireClassOf(r rune) (WireClass, bool) {
	for _, c := range wireClasses[:] {
		if c.has(r) {
			return c, true
		}
	}
	return WireClass{}, false
}
