package charge

import (
	"slices"
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

// allBounds is every bound; MaxRefusalBytes is computed over it, so it is
// unexported and Bounds hands out copies.
var allBounds = [...]Bound{BoundSyntax, BoundUTF8, BoundSurrogate, BoundControl, BoundDuplicateName,
	BoundTrailing, BoundNesting, BoundNodes, BoundNumberBytes, BoundNumberExponent, BoundCharge}

// Bounds returns every bound, in a stable order, in a fresh slice.
func Bounds() []Bound { return slices.Clone(allBounds[:]) }

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

// String is the bound's name, the one a refusal's text gives after "bound".
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
func (r *Refusal) Error() string { return r.describe("arguments refused: document") }

// describe is the refusal's text with subject in front of the bound's text.
func (r *Refusal) describe(subject string) string {
	var b strings.Builder
	b.WriteString(subject)
	b.WriteByte(' ')
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
		b.WriteByte('"')
		b.WriteString(r.Pointer)
		b.WriteByte('"')
	}
	b.WriteString(", byte ")
	b.WriteString(strconv.Itoa(r.Offset))
	return b.String()
}

// MaxRefusalBytes is the longest Error() text any refusal renders, computed
// from the templates, the widest int64 limit and the pointer ceiling (the
// pointer is already display-escaped, so it is written between quotes as is).
func MaxRefusalBytes() int {
	longest := 0
	for _, b := range allBounds {
		n := len("arguments refused: document ") + len(boundText[b]) + len(" (bound ") + len(b.String()) + len(") at ")
		if b.Limited() {
			n += 1 + 20 + 1 + len("characters")
		}
		longest = max(longest, n)
	}
	return longest + 2 + MaxPointerBytes + len(", byte ") + 20
}
