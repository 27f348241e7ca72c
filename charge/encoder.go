package charge

import (
	"strconv"
	"unicode/utf8"
)

// Encoder is a family of JSON encoders that put a landed string on the wire the
// same way, code point by code point.
type Encoder uint8

const (
	// EnsureASCII is Python's json.dumps default (ensure_ascii=True): every code
	// point outside ' '..'~' is escaped, astral ones as a surrogate pair.
	EnsureASCII Encoder = iota + 1
	// Raw is json.dumps(ensure_ascii=False) and JSON.stringify, what the official
	// Python and JS clients send: only " \ and C0 are escaped.
	Raw
	// GoJSON is Go's encoding/json: Raw's escapes, plus < > & U+2028 U+2029 as
	// \u00XX / \u20XX (HTML-safe escaping, on by default).
	GoJSON
)

// Encoders returns every encoder family, in a stable order, in a fresh slice.
func Encoders() []Encoder { return []Encoder{EnsureASCII, Raw, GoJSON} }

// String is the family's name as tables and records print it.
func (e Encoder) String() string {
	switch e {
	case EnsureASCII:
		return "ensure_ascii"
	case Raw:
		return "raw"
	case GoJSON:
		return "go"
	}
	return "encoder(" + strconv.Itoa(int(e)) + ")"
}

// RuneWireBytes is how many bytes the encoder puts on the wire for r inside a
// JSON string. r must be a Unicode scalar value.
func (e Encoder) RuneWireBytes(r rune) int {
	switch r {
	case '"', '\\', '\n', '\r', '\t', '\b', '\f':
		return 2 // every family uses the two-byte escapes (Go since 1.22 for \b \f)
	}
	if r < 0x20 {
		return 6 // \u00XX
	}
	switch e {
	case EnsureASCII:
		switch {
		case r < 0x7f:
			return 1
		case r < 0x10000:
			return 6 // \uXXXX, DEL included
		}
		return 12 // \uD8XX\uDCXX
	case GoJSON:
		switch r {
		case '<', '>', '&', 0x2028, 0x2029:
			return 6
		}
	}
	return utf8.RuneLen(r)
}

// StringWireBytes is the encoder's wire size of s, without the enclosing quotes.
func (e Encoder) StringWireBytes(s string) int {
	n := 0
	for _, r := range s {
		n += e.RuneWireBytes(r)
	}
	return n
}
