package charge

import (
	"strconv"
	"strings"
)

// Bound names what a refused document passed.
type Bound uint8

const (
	BoundSyntax         Bound = iota + 1 // not RFC 8259 JSON
	BoundUTF8                            // a byte sequence that is not UTF-8
	BoundSurrogate                       // a \u escape naming a lone surrogate
	BoundControl                         // a raw control character inside a string
	BoundDuplicateName                   // a member name repeated in one object, after unescaping
	BoundTrailing                        // bytes after the document's value
	BoundNesting                         // Limits.MaxParamsNesting
	BoundNodes                           // Limits.MaxParamsNodes
	BoundNumberBytes                     // Limits.MaxNumberBytes
	BoundNumberExponent                  // Limits.MaxNumberExponent
	BoundCharge                          // Limits.MaxParamsRenderedChars
)

// Bounds lists every bound, in a stable order.
var Bounds = []Bound{BoundSyntax, BoundUTF8, BoundSurrogate, BoundControl, BoundDuplicateName,
	BoundTrailing, BoundNesting, BoundNodes, BoundNumberBytes, BoundNumberExponent, BoundCharge}

var boundNames = [...]string{
	BoundSyntax:         "syntax",
	BoundUTF8:           "utf8",
	BoundSurrogate:      "surrogate",
	BoundControl:        "control-character",
	BoundDuplicateName:  "duplicate-name",
	BoundTrailing:       "trailing-bytes",
	BoundNesting:        "nesting",
	BoundNodes:          "nodes",
	BoundNumberBytes:    "number-length",
	BoundNumberExponent: "number-exponent",
	BoundCharge:         "charge",
}

var boundText = [...]string{
	BoundSyntax:         "is not JSON (RFC 8259)",
	BoundUTF8:           "holds bytes that are not UTF-8",
	BoundSurrogate:      "escapes a lone surrogate",
	BoundControl:        "holds a raw control character in a string",
	BoundDuplicateName:  "repeats a member name in one object",
	BoundTrailing:       "has bytes after its value",
	BoundNesting:        "nests deeper than",
	BoundNodes:          "holds more nodes than",
	BoundNumberBytes:    "has a number token longer than",
	BoundNumberExponent: "has a number exponent larger than",
	BoundCharge:         "renders wider than",
}

func (b Bound) String() string {
	if int(b) < len(boundNames) && boundNames[b] != "" {
		return boundNames[b]
	}
	return "bound(" + strconv.Itoa(int(b)) + ")"
}

// Limited reports whether the bound is a configured limit (rather than a
// strictness rule, whose limit is 0).
func (b Bound) Limited() bool { return b >= BoundNesting }

// Refusal is the gate's answer to a document it will not admit. It names the
// bound, the limit and where the bound tripped; it never holds a caller value.
type Refusal struct {
	Bound   Bound
	Limit   int64  // the configured limit; 0 for a strictness rule
	Unit    string // what Limit counts
	Pointer string // RFC 6901 pointer to the member or element being read, display-escaped and cut
	Offset  int    // byte offset in the document where the bound tripped
}

// Error renders the refusal from fixed templates, the limit, the offset and the
// already-escaped pointer: never from the document's bytes.
func (r *Refusal) Error() string {
	var b strings.Builder
	b.WriteString("arguments refused: document ")
	b.WriteString(boundText[r.Bound])
	if r.Bound.Limited() {
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(r.Limit, 10))
		b.WriteByte(' ')
		b.WriteString(r.Unit)
	}
	b.WriteString(" (bound ")
	b.WriteString(r.Bound.String())
	b.WriteString(") at ")
	if r.Pointer == "" {
		b.WriteString("the root")
	} else {
		b.WriteString(strconv.Quote(r.Pointer))
	}
	b.WriteString(", byte ")
	b.WriteString(strconv.Itoa(r.Offset))
	return b.String()
}

// Pointer display rules: a member name is unescaped, RFC 6901-escaped (~0, ~1),
// then every byte outside printable ASCII is written as a \u escape, and the
// result is cut at KeyCut bytes. A pointer deeper than PointerSegments shows its
// first and last PointerSegments/2 segments around an elision marker.
const (
	KeyCut          = 32
	PointerSegments = 16
	cutMarker       = "..."
	elisionMarker   = "/..."
)

// MaxPointerBytes is the longest Pointer a refusal can carry.
const MaxPointerBytes = PointerSegments*(1+KeyCut+len(cutMarker)) + len(elisionMarker)

// MaxRefusalBytes is the longest Error() text any refusal renders, computed
// from the templates, the widest int64 limit and the pointer ceiling. The
// pointer is printable ASCII, which strconv.Quote grows by at most 2x (a
// display escape's backslash becomes \\) plus its two quotes.
func MaxRefusalBytes() int {
	longest := 0
	for _, b := range Bounds {
		n := len("arguments refused: document ") + len(boundText[b]) + len(" (bound ") + len(b.String()) + len(") at ")
		if b.Limited() {
			n += 1 + 20 + 1 + len("characters")
		}
		longest = max(longest, n)
	}
	return longest + 2 + 2*MaxPointerBytes + len(", byte ") + 20
}

// displaySegment renders one unescaped member name for a pointer.
func displaySegment(b *strings.Builder, name string) {
	n := 0
	for _, r := range name {
		var piece string
		switch {
		case r == '~':
			piece = "~0"
		case r == '/':
			piece = "~1"
		case r == '\\':
			piece = `\\`
		case r >= 0x20 && r < 0x7f:
			if n+1 > KeyCut {
				b.WriteString(cutMarker)
				return
			}
			b.WriteRune(r)
			n++
			continue
		case r < 0x10000:
			piece = `\u` + hex4(uint32(r))
		default:
			r1, r2 := utf16Pair(r)
			piece = `\u` + hex4(uint32(r1)) + `\u` + hex4(uint32(r2))
		}
		if n+len(piece) > KeyCut {
			b.WriteString(cutMarker)
			return
		}
		b.WriteString(piece)
		n += len(piece)
	}
}

func hex4(v uint32) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[v>>12&0xf], digits[v>>8&0xf], digits[v>>4&0xf], digits[v&0xf]})
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
