// Package fuzz turns fuzz bytes into JSON documents that reach the parts of
// the stack random bytes rarely do: deep structure, wide flat structure, and
// strings drawn from the code point classes the charge and the body cap are
// priced over, written in every escape style a real encoder uses.
//
// The generators are driven by github.com/google/gofuzz's NewFromGoFuzz, so
// the same input bytes always give the same document and a fuzzer's
// mutations of the bytes become mutations of the document's structure. gofuzz
// is imported here and nowhere else in boundlab.
//
// What the package promises: Document and String are deterministic functions
// of their input, never panic, and stay within the sizes in Options. A
// document generated without Options.Hostile is RFC 8259 JSON with unique
// member names and no lone surrogates. What it does not promise: coverage of
// any particular document, or that a hostile document is invalid (a mutation
// may land somewhere harmless).
//
// The cross-package fuzz targets live in this package's tests; their seed
// corpora are under testdata/fuzz/. The oracles they share (oracle.go) are
// package code, so that OSS-Fuzz's builder, which compiles a target's file
// with the package's non-test files alone, sees them; nothing outside this
// package's tests calls them.
package fuzz

import (
	"strconv"
	"unicode/utf8"

	gofuzz "github.com/google/gofuzz"
)

// Class is a family of code points a generated string draws from. The
// classes follow the lab's models: every charge.WireClass, and within them
// the code points each dialect renders differently (printable or escaped),
// plus the two characters a JSON pointer escapes.
type Class uint8

const (
	ASCIIPlain         Class = iota // letters, digits, space
	Quotes                          // " \ '
	PointerChars                    // ~ / (RFC 6901 escapes them as ~0 ~1)
	HTML                            // < > & (Go's encoding/json escapes them)
	C0Short                         // \b \t \n \f \r
	C0Other                         // the rest of U+0000..U+001F
	DEL                             // U+007F
	Latin1Control                   // U+0080..U+009F: 2 bytes, never printable
	TwoByte                         // printable 2-byte: Latin-1 letters, Greek, Cyrillic, Arabic letters
	Format2Byte                     // non-printable 2-byte (Cf): U+00AD, U+0600..U+0605, U+061C, U+06DD, U+070F
	CJK                             // printable 3-byte
	LineSeparators                  // U+2028 U+2029
	BMPNonPrintable                 // 3-byte, not printable: U+200B..U+200F, U+FEFF, U+E000.. private use, U+FFF9..U+FFFB
	Noncharacters                   // U+FFFE U+FFFF U+1FFFE U+10FFFF ...
	AstralPrintable                 // emoji, CJK extension B, and Unicode 15.1's U+2EBF0..
	AstralNonPrintable              // U+E0001 tags, plane 15 private use, unassigned astral
	AnyScalar                       // uniform over all 1,112,064 scalar values
	numClasses
)

var classNames = [...]string{"ascii", "quotes", "pointer", "html", "c0-short", "c0-other", "del",
	"latin1-control", "2-byte", "2-byte-format", "cjk", "line-separators", "bmp-nonprintable",
	"noncharacters", "astral-printable", "astral-nonprintable", "any"}

func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// Classes lists every class.
func Classes() []Class {
	out := make([]Class, numClasses)
	for i := range out {
		out[i] = Class(i)
	}
	return out
}

var classRunes = [numClasses][]rune{
	ASCIIPlain:         []rune("abcxyzABCXYZ0123456789 _-.:,;!?()[]{}@#$%^*+=|`"),
	Quotes:             {'"', '\\', '\''},
	PointerChars:       {'~', '/'},
	HTML:               {'<', '>', '&'},
	C0Short:            {'\b', '\t', '\n', '\f', '\r'},
	C0Other:            {0x00, 0x01, 0x07, 0x0b, 0x0e, 0x1b, 0x1f},
	DEL:                {0x7f},
	Latin1Control:      {0x80, 0x85, 0x8d, 0x9f},
	TwoByte:            {0xa0, 0xe9, 0xff, 0x394, 0x416, 0x5d0, 0x627, 0x7ff},
	Format2Byte:        {0xad, 0x600, 0x601, 0x605, 0x61c, 0x6dd, 0x70f},
	CJK:                {0x800, 0x4e2d, 0x6587, 0xac00, 0x3042, 0x2ffc, 0x31ef, 0xfffd},
	LineSeparators:     {0x2028, 0x2029},
	BMPNonPrintable:    {0x200b, 0x200e, 0x200f, 0x2060, 0xfeff, 0xe000, 0xf8ff, 0xfff9, 0xfffb, 0x3000},
	Noncharacters:      {0xfdd0, 0xfffe, 0xffff, 0x1fffe, 0x10fffe, 0x10ffff},
	AstralPrintable:    {0x10000, 0x1f600, 0x1f4a9, 0x20000, 0x2ebf0, 0x2ee5d, 0x1d11e},
	AstralNonPrintable: {0xe0001, 0xe007f, 0xf0000, 0x10fffd, 0x3ffff, 0x1d173},
}

// Escape is how a generated string is written on the wire.
type Escape uint8

const (
	// EscRaw writes every code point as UTF-8, escaping only what JSON
	// requires: what the official Python and JS clients send.
	EscRaw Escape = iota
	// EscASCII escapes everything outside ' '..'~', astral code points as a
	// surrogate pair: Python's json.dumps default.
	EscASCII
	// EscGo is encoding/json's HTML-safe form: EscRaw plus < > & U+2028 U+2029.
	EscGo
	// EscMixed escapes each code point or not at the generator's choice,
	// with either hex case and \/ for '/'.
	EscMixed
	numEscapes
)

// Options bound what Document generates.
type Options struct {
	// MaxNodes bounds the containers, member names and values (default 256).
	MaxNodes int
	// MaxDepth bounds container nesting (default 24).
	MaxDepth int
	// MaxString bounds one string's code points (default 64).
	MaxString int
	// Hostile lets the generator break the document: lone surrogates,
	// invalid UTF-8, raw control bytes, duplicate names (spelt the same or
	// escaped differently), over-long and over-large numbers, trailing bytes.
	Hostile bool
}

func (o Options) withDefaults() Options {
	if o.MaxNodes <= 0 {
		o.MaxNodes = 256
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 24
	}
	if o.MaxString <= 0 {
		o.MaxString = 64
	}
	return o
}

// gen draws every decision from one gofuzz Fuzzer.
type gen struct {
	f     *gofuzz.Fuzzer
	opt   Options
	nodes int
	out   []byte
	// classes is the small set of classes this document's strings draw from,
	// so a document can be dense in one class (the worst instances are).
	classes []Class
	esc     Escape
}

func newGen(data []byte, opt Options) *gen {
	g := &gen{f: gofuzz.NewFromGoFuzz(data), opt: opt.withDefaults()}
	k := 1 + g.n(3)
	for i := 0; i < k; i++ {
		g.classes = append(g.classes, Class(g.n(int(numClasses))))
	}
	g.esc = Escape(g.n(int(numEscapes)))
	return g
}

// n is a choice in [0, k).
func (g *gen) n(k int) int {
	if k <= 1 {
		return 0
	}
	var u uint32
	g.f.Fuzz(&u)
	return int(u % uint32(k))
}

func (g *gen) chance(outOf int) bool { return g.n(outOf) == 0 }

// Rune draws one code point from class c.
func (g *gen) rune(c Class) rune {
	if c == AnyScalar {
		r := rune(g.n(utf8.MaxRune + 1 - 0x800))
		if r >= 0xd800 {
			r += 0x800 // skip the surrogates
		}
		return r
	}
	set := classRunes[c]
	if c == AstralNonPrintable && g.chance(2) {
		return 0xf0000 + rune(g.n(0xfffe)) // plane 15 private use
	}
	if c == CJK && g.chance(2) {
		return 0x4e00 + rune(g.n(0x9fff-0x4e00))
	}
	return set[g.n(len(set))]
}

// runes draws a string's code points.
func (g *gen) runes(max int) []rune {
	n := g.n(max + 1)
	if g.chance(4) {
		n = max // dense strings at the bound are where the worst instances live
	}
	rs := make([]rune, n)
	for i := range rs {
		rs[i] = g.rune(g.classes[g.n(len(g.classes))])
	}
	return rs
}

const hexLower, hexUpper = "0123456789abcdef", "0123456789ABCDEF"

func appendU(b []byte, v rune, upper bool) []byte {
	digits := hexLower
	if upper {
		digits = hexUpper
	}
	return append(b, '\\', 'u', digits[v>>12&0xf], digits[v>>8&0xf], digits[v>>4&0xf], digits[v&0xf])
}

func appendEscapedRune(b []byte, r rune, upper bool) []byte {
	if r >= 0x10000 {
		r -= 0x10000
		b = appendU(b, 0xd800+(r>>10), upper)
		return appendU(b, 0xdc00+(r&0x3ff), upper)
	}
	return appendU(b, r, upper)
}

// appendString writes rs as a JSON string in the escape style.
func (g *gen) appendString(b []byte, rs []rune, esc Escape) []byte {
	b = append(b, '"')
	for _, r := range rs {
		if g.opt.Hostile && g.chance(64) {
			b = g.appendHostileStringByte(b)
		}
		must := r < 0x20 || r == '"' || r == '\\'
		escape := must
		switch esc {
		case EscASCII:
			escape = escape || r > 0x7e
		case EscGo:
			escape = escape || r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029
		case EscMixed:
			escape = escape || g.chance(3)
		}
		if !escape {
			b = utf8.AppendRune(b, r)
			continue
		}
		switch r {
		case '"':
			b = append(b, '\\', '"')
			continue
		case '\\':
			b = append(b, '\\', '\\')
			continue
		case '\n', '\r', '\t', '\b', '\f':
			if esc != EscMixed || g.chance(2) {
				b = append(b, '\\', shortEscape(r))
				continue
			}
		case '/':
			if g.chance(2) {
				b = append(b, '\\', '/')
				continue
			}
		}
		b = appendEscapedRune(b, r, esc == EscMixed && g.chance(2))
	}
	return append(b, '"')
}

func shortEscape(r rune) byte {
	switch r {
	case '\n':
		return 'n'
	case '\r':
		return 'r'
	case '\t':
		return 't'
	case '\b':
		return 'b'
	}
	return 'f'
}

// appendHostileStringByte breaks a string: a lone surrogate, a reversed
// pair, an invalid or overlong UTF-8 sequence, an encoded surrogate, or a raw
// control byte.
func (g *gen) appendHostileStringByte(b []byte) []byte {
	switch g.n(9) {
	case 0:
		return appendU(b, 0xd800+rune(g.n(0x400)), false) // lone high
	case 1:
		return appendU(b, 0xdc00+rune(g.n(0x400)), false) // lone low
	case 2:
		return appendU(appendU(b, 0xdc00, false), 0xd800, false) // reversed pair
	case 3:
		return append(b, byte(0x80+g.n(0x40))) // stray continuation byte
	case 4:
		return append(b, 0xc0, 0xaf) // overlong '/'
	case 5:
		return append(b, 0xed, 0xa0, 0x80) // UTF-8-encoded surrogate
	case 6:
		return append(b, 0xf4, 0x90, 0x80, 0x80) // past U+10FFFF
	case 7:
		return append(b, byte(g.n(0x20))) // raw control byte
	}
	return append(b, '\\', "xq'0"[g.n(4)]) // an escape JSON does not have
}

var numberForms = []string{
	"0", "-0", "1", "-1", "42", "0.5", "-0.0", "1e2", "1E+2", "1e-2", "1.5e300",
	"9007199254740993", "-9223372036854775808", "18446744073709551616",
	"1e308", "1.7976931348623157e308", "1e309", "-1e309", "4.9e-324", "1e-400", "2.2250738585072014e-308",
	"123456789012345678901234567890", "0.1", "100000000000000000", "1e16", "1e15", "0.0001", "0.00001",
	"1e999", "1e-999", "1234567890123456789012345678901234567890123456789012345678901234", // 64 bytes
}

var hostileNumbers = []string{
	"1e1000", "1e1000001", "01", "-", "1.", ".5", "+1", "1e", "0x10", "NaN", "Infinity", "-Infinity",
	"12345678901234567890123456789012345678901234567890123456789012345", // 65 bytes
}

// number writes a number token: a named edge form or a built one.
func (g *gen) number(b []byte) []byte {
	if g.opt.Hostile && g.chance(8) {
		return append(b, hostileNumbers[g.n(len(hostileNumbers))]...)
	}
	if g.chance(2) {
		return append(b, numberForms[g.n(len(numberForms))]...)
	}
	if g.chance(2) {
		b = append(b, '-')
	}
	digits := 1 + g.n(24)
	b = append(b, byte('1'+g.n(9)))
	for i := 1; i < digits; i++ {
		b = append(b, byte('0'+g.n(10)))
	}
	if g.chance(2) {
		b = append(b, '.')
		for i := 0; i <= g.n(20); i++ {
			b = append(b, byte('0'+g.n(10)))
		}
	}
	if g.chance(2) {
		b = append(b, "eE"[g.n(2)])
		if g.chance(2) {
			b = append(b, "+-"[g.n(2)])
		}
		b = strconv.AppendInt(b, int64(g.n(1000)), 10)
	}
	return b
}

// space writes JSON whitespace, sometimes none.
func (g *gen) space(b []byte) []byte {
	if g.chance(4) {
		for i := g.n(3); i >= 0; i-- {
			b = append(b, " \t\n\r"[g.n(4)])
		}
	}
	return b
}

// Shape is the overall form of a generated document.
type Shape uint8

const (
	ShapeTree   Shape = iota // a random tree
	ShapeFields              // an object of scalar fields: a tool's arguments
	ShapeWide                // one container holding many small nodes
	ShapeDeep                // a chain of nested containers
	ShapeScalar              // one string, number or literal
	numShapes
)

// Document generates one JSON document from data.
func Document(data []byte, opt Options) []byte {
	g := newGen(data, opt)
	return g.document(Shape(g.n(int(numShapes))))
}

// DocumentShape generates a document of the given shape from data.
func DocumentShape(data []byte, shape Shape, opt Options) []byte {
	return newGen(data, opt).document(shape)
}

func (g *gen) document(shape Shape) []byte {
	b := g.space(nil)
	switch shape {
	case ShapeFields:
		b = g.object(b, 1, func(b []byte, depth int) []byte { return g.scalar(b) })
	case ShapeWide:
		small := func(b []byte, depth int) []byte {
			if g.chance(4) {
				i := 2 * g.n(2)
				return append(b, "{}[]"[i:i+2]...)
			}
			return g.scalar(b)
		}
		if g.chance(2) {
			b = g.array(b, 1, small)
		} else {
			b = g.object(b, 1, small)
		}
	case ShapeDeep:
		b = g.deep(b)
	case ShapeScalar:
		g.nodes++
		b = g.scalar(b)
	default:
		b = g.value(b, 0)
	}
	b = g.space(b)
	if g.opt.Hostile && g.chance(8) {
		switch g.n(3) {
		case 0:
			b = append(b, " {}"[g.n(3)]) // trailing bytes
		case 1:
			if len(b) > 0 {
				b = b[:g.n(len(b))] // truncated
			}
		default:
			b = append(b, 0) // a NUL after the value
		}
	}
	return b
}

func (g *gen) deep(b []byte) []byte {
	depth := 1 + g.n(g.opt.MaxDepth)
	if g.chance(4) {
		depth = g.opt.MaxDepth
	}
	closers := make([]byte, 0, depth)
	for i := 0; i < depth; i++ {
		g.nodes++
		if g.chance(2) {
			b = append(b, '[')
			closers = append(closers, ']')
		} else {
			g.nodes++
			b = append(b, '{')
			b = g.appendString(b, g.runes(g.opt.MaxString/8+1), g.esc)
			b = append(b, ':')
			closers = append(closers, '}')
		}
	}
	g.nodes++
	b = g.scalar(b)
	for i := len(closers) - 1; i >= 0; i-- {
		b = append(b, closers[i])
	}
	return b
}

// value writes any value, recursing while nodes and depth allow.
func (g *gen) value(b []byte, depth int) []byte {
	g.nodes++
	if depth < g.opt.MaxDepth && g.nodes < g.opt.MaxNodes && g.chance(3) {
		if g.chance(2) {
			return g.array(b, depth+1, g.value)
		}
		return g.object(b, depth+1, g.value)
	}
	return g.scalar(b)
}

func (g *gen) scalar(b []byte) []byte {
	switch g.n(6) {
	case 0, 1, 2:
		return g.appendString(b, g.runes(g.opt.MaxString), g.esc)
	case 3, 4:
		return g.number(b)
	}
	lit := [...]string{"true", "false", "null"}[g.n(3)]
	if g.opt.Hostile && g.chance(16) {
		lit = [...]string{"True", "nul", "None", "undefined"}[g.n(4)]
	}
	return append(b, lit...)
}

func (g *gen) members(depth int) int {
	left := g.opt.MaxNodes - g.nodes
	if left <= 0 {
		return 0
	}
	k := g.n(min(left, 16) + 1)
	if g.chance(8) {
		k = left // as wide as the budget allows
	}
	return k
}

func (g *gen) array(b []byte, depth int, elem func([]byte, int) []byte) []byte {
	b = append(b, '[')
	k := g.members(depth)
	for i := 0; i < k && g.nodes < g.opt.MaxNodes; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = g.space(b)
		g.nodes++
		b = elem(b, depth)
		b = g.space(b)
	}
	if g.opt.Hostile && g.chance(32) {
		b = append(b, ',') // trailing comma
	}
	return append(b, ']')
}

func (g *gen) object(b []byte, depth int, elem func([]byte, int) []byte) []byte {
	b = append(b, '{')
	k := g.members(depth) / 2
	seen := make(map[string]bool, k)
	var names [][]rune
	for i := 0; i < k && g.nodes < g.opt.MaxNodes; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = g.space(b)
		var name []rune
		if g.opt.Hostile && len(names) > 0 && g.chance(8) {
			name = names[g.n(len(names))] // a duplicate, perhaps escaped differently below
		} else {
			for tries := 0; ; tries++ {
				name = g.runes(g.opt.MaxString / 4)
				if !seen[string(name)] {
					break
				}
				if tries == 3 {
					for seen[string(name)] {
						name = append(name, '#')
					}
					break
				}
			}
		}
		seen[string(name)] = true
		names = append(names, name)
		esc := g.esc
		if g.chance(4) {
			esc = Escape(g.n(int(numEscapes)))
		}
		g.nodes += 2
		b = g.appendString(b, name, esc)
		b = g.space(b)
		b = append(b, ':')
		b = g.space(b)
		b = elem(b, depth)
		b = g.space(b)
	}
	return append(b, '}')
}

// String generates one string from data: its code points only, no quotes,
// always valid UTF-8 without surrogates. maxRunes bounds its length.
func String(data []byte, maxRunes int) string {
	g := newGen(data, Options{MaxString: maxRunes})
	return string(g.runes(g.opt.MaxString))
}
