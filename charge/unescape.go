package charge

import (
	"bytes"
	"unicode/utf8"
)

// AppendUnescaped appends the decoded content of a JSON string the gate
// admitted (raw: the bytes between its quotes) to dst: the gate's own escape
// decoder, for a caller that reads strings inside a document the gate scanned
// (a JSON-RPC envelope's member names). On content the gate did not admit the
// result is undefined; StringSpan says whether the escapes are sound.
func AppendUnescaped(dst, raw []byte) []byte { return appendUnescaped(dst, raw) }

// StringSpan reads the string whose content starts at doc[i] (just past its
// opening quote) in a document the gate admitted, and returns the index of
// its closing quote and the length in bytes of its decoded content — what
// AppendUnescaped appends for doc[i:end] — so a decoder can allocate a string
// at its exact size before decoding it, and knows it holds no escape when
// decoded == end-i (every escape is longer than what it stands for). Each
// escape is decoded by the rule the gate checks it with.
//
// end is -1 when no closing quote follows or an escape is one the gate
// refuses (a letter JSON has no escape for, bad hex, a lone or reversed
// surrogate, an escape cut short). Raw bytes are not checked: the UTF-8 and
// control characters between escapes are the gate's to refuse.
func StringSpan(doc []byte, i int) (end, decoded int) {
	if i < 0 || i > len(doc) {
		return -1, 0
	}
	// The first quote closes the string unless an escape holds it; look for
	// backslashes only before it, and for the next quote only past an
	// escaped one, so each byte is searched once.
	q := bytes.IndexByte(doc[i:], '"')
	if q < 0 {
		return -1, 0
	}
	q += i
	for {
		b := bytes.IndexByte(doc[i:q], '\\')
		if b < 0 {
			return q, decoded + q - i
		}
		decoded += b
		i += b
		for i < len(doc) && doc[i] == '\\' { // a run of escapes, read without a search
			// A \uXXXX below the surrogates (most \u escapes) inline;
			// everything else through escapeAt.
			if i+6 <= len(doc) && doc[i+1] == 'u' {
				if r := hex4Fast(doc[i:i+6], 2); r >= 0 && r < 0xd800 {
					switch {
					case r < 0x80:
						decoded++
					case r < 0x800:
						decoded += 2
					default:
						decoded += 3
					}
					i += 6
					continue
				}
			}
			r, k := escapeAt(doc, i)
			if k == 0 {
				return -1, 0
			}
			decoded += utf8.RuneLen(r)
			i += k
		}
		if i > q { // the quote was escaped (\"): the closing one lies further
			e := bytes.IndexByte(doc[i:], '"')
			if e < 0 {
				return -1, 0
			}
			q = i + e
		}
	}
}
