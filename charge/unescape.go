package charge

import (
	"bytes"
	"unicode/utf8"
)

// AppendUnescaped appends the decoded content of a JSON string the gate
// admitted (raw: the bytes between its quotes) to dst: the gate's own escape
// decoder, for a caller that reads strings inside a document the gate scanned
// (a JSON-RPC envelope's member names). On content the gate did not admit the
// result is undefined; check it with UnescapedLen first.
func AppendUnescaped(dst, raw []byte) []byte { return appendUnescaped(dst, raw) }

// UnescapedLen is how many bytes AppendUnescaped appends for raw (the bytes
// between a string's quotes), computed from its escapes alone — each decoded
// by the rule the gate checks them with — so a decoder can allocate a
// string's exact size before decoding it. It returns -1 when raw holds an
// escape the gate refuses (a letter JSON has no escape for, bad hex, a lone
// or reversed surrogate, an escape cut short): for such content
// AppendUnescaped's result is undefined. It does not check the UTF-8 of the
// bytes between escapes, which AppendUnescaped copies as they are.
func UnescapedLen(raw []byte) int {
	n := len(raw)
	i := bytes.IndexByte(raw, '\\')
	if i < 0 {
		return n
	}
	for {
		r, k := escapeAt(raw, i)
		if k == 0 {
			return -1
		}
		n -= k - utf8.RuneLen(r)
		i += k
		if i < len(raw) && raw[i] == '\\' {
			continue // a run of escapes: no search between them
		}
		j := bytes.IndexByte(raw[i:], '\\')
		if j < 0 {
			return n
		}
		i += j
	}
}
