package charge

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Display rules for anything a caller wrote that a refusal must name (member
// names in a pointer, a tool name): printable ASCII other than " and \ as
// itself, " and \ backslash-escaped, every other code point (controls, DEL,
// non-ASCII, bytes that are not UTF-8) as \uXXXX — an astral one as a
// surrogate pair, an invalid byte as \ufffd — cut at a byte limit with a "..."
// mark. The output is printable ASCII and can sit between double quotes as is.
const (
	// KeyCut is how many display bytes of one member name a pointer shows.
	KeyCut = 32
	// PointerSegments is how many segments a pointer shows; a deeper one shows
	// its first and last PointerSegments/2 around "/...".
	PointerSegments = 16
	cutMarker       = "..."
	elisionMarker   = "/..."
)

// MaxPointerBytes is the longest DisplayPointer can render.
const MaxPointerBytes = PointerSegments*(1+KeyCut+len(cutMarker)) + len(elisionMarker)

// DisplayText renders s under the display rules, cut at limit bytes. It reads
// at most limit+1 code points of s, so its cost is bounded whatever len(s) is.
func DisplayText(s string, limit int) string {
	var b strings.Builder
	appendDisplay(&b, s, limit)
	return b.String()
}

func appendDisplay(b *strings.Builder, s string, limit int) {
	n := 0
	var buf [12]byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		piece := buf[:0]
		switch {
		case r == '"' || r == '\\':
			piece = append(piece, '\\', byte(r))
		case r >= 0x20 && r < 0x7f:
			piece = append(piece, byte(r))
		case r < 0x10000:
			piece = appendU(piece, r)
		default:
			r -= 0x10000
			piece = appendU(appendU(piece, 0xd800+(r>>10)&0x3ff), 0xdc00+r&0x3ff)
		}
		if n+len(piece) > limit {
			b.WriteString(cutMarker)
			return
		}
		b.Write(piece)
		n += len(piece)
	}
}

func appendU(dst []byte, r rune) []byte {
	const digits = "0123456789abcdef"
	return append(dst, '\\', 'u', digits[r>>12&0xf], digits[r>>8&0xf], digits[r>>4&0xf], digits[r&0xf])
}

// DisplayPointer renders an instance location — member names unescaped, array
// indices in decimal — as an RFC 6901 pointer under the display rules: each
// token ~-escaped (~0, ~1), then display-escaped and cut at KeyCut bytes; a
// location deeper than PointerSegments keeps its first and last halves around
// "/...". The result is at most MaxPointerBytes long.
func DisplayPointer(tokens []string) string {
	var b strings.Builder
	emit := func(tok string) {
		b.WriteByte('/')
		// Every code point displays as at least one byte, so KeyCut+1 of them
		// are enough to decide the cut; the rest is never copied.
		n := 0
		for i := range tok {
			if n > KeyCut {
				tok = tok[:i]
				break
			}
			n++
		}
		appendDisplay(&b, strings.NewReplacer("~", "~0", "/", "~1").Replace(tok), KeyCut)
	}
	if len(tokens) <= PointerSegments {
		for _, t := range tokens {
			emit(t)
		}
		return b.String()
	}
	half := PointerSegments / 2
	for _, t := range tokens[:half] {
		emit(t)
	}
	b.WriteString(elisionMarker)
	for _, t := range tokens[len(tokens)-half:] {
		emit(t)
	}
	return b.String()
}

// indexToken is an array index as a pointer token.
func indexToken(i int) string { return strconv.Itoa(i) }
