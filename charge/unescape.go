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
		var n int
		if i, n = escapeRun(doc, i); i < 0 {
			return -1, 0
		}
		decoded += n
		if i > q { // the quote was escaped (\"): the closing one lies further
			e := bytes.IndexByte(doc[i:], '"')
			if e < 0 {
				return -1, 0
			}
			q = i + e
		}
	}
}

// escapeRun reads the run of escapes at doc[i] (a backslash) and returns where
// it ends and the length it decodes to, or -1 at an escape the gate refuses.
// A \uXXXX below the surrogates (most \u escapes) is read inline, anything
// else through escapeAt.
func escapeRun(doc []byte, i int) (end, decoded int) {
	for i < len(doc) && doc[i] == '\\' {
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
	return i, decoded
}

// appendUnescaped appends the decoded form of validated string content: the
// bytes between escapes as they are, each run of escapes by appendEscapeRun.
// On content the gate did not admit it stops at the first escape it cannot
// read and appends the rest as it is.
func appendUnescaped(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		j := bytes.IndexByte(raw[i:], '\\')
		if j < 0 {
			return append(dst, raw[i:]...)
		}
		dst = append(dst, raw[i:i+j]...)
		var ok bool
		if dst, i, ok = appendEscapeRun(dst, raw, i+j); !ok {
			return append(dst, raw[i:]...)
		}
	}
	return dst
}

// appendEscapeRun decodes the run of escapes at raw[i] (a backslash) onto dst
// and returns where it ends; ok is false, with i at the escape, when an
// escape is one the gate refuses. A \uXXXX below the surrogates is decoded
// inline, anything else through escapeAt.
func appendEscapeRun(dst, raw []byte, i int) (_ []byte, end int, ok bool) {
	for i < len(raw) && raw[i] == '\\' {
		if i+6 <= len(raw) && raw[i+1] == 'u' {
			if r := hex4Fast(raw[i:i+6], 2); r >= 0 && r < 0xd800 {
				switch {
				case r < 0x80:
					dst = append(dst, byte(r))
				case r < 0x800:
					dst = append(dst, 0xc0|byte(r>>6), 0x80|byte(r)&0x3f)
				default:
					dst = append(dst, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
				}
				i += 6
				continue
			}
		}
		r, k := escapeAt(raw, i)
		if k == 0 {
			return dst, i, false
		}
		dst = utf8.AppendRune(dst, r)
		i += k
	}
	return dst, i, true
}
