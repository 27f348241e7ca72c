package sweeps

import "unicode/utf8"

// This file is an independent port of CPython 3.13's string escaping in
// Lib/json/encoder.py (py_encode_basestring and py_encode_basestring_ascii,
// which _json.c's C accelerators reproduce byte for byte). It is written from
// that algorithm, not from charge's encoder model, so that the sweep can hold
// the model to it code point by code point:
//
//	ESCAPE       = re.compile(r'[\x00-\x1f\\"\b\f\n\r\t]')
//	ESCAPE_ASCII = re.compile(r'([\\"]|[^\ -~])')
//	ESCAPE_DCT   = {'\\': '\\\\', '"': '\\"', '\b': '\\b', '\f': '\\f',
//	                '\n': '\\n', '\r': '\\r', '\t': '\\t'}
//	for i in range(0x20): ESCAPE_DCT.setdefault(chr(i), '\\u{0:04x}'.format(i))
//
// ensure_ascii then writes any other matched code point as \uXXXX, astral ones
// as a UTF-16 surrogate pair.

const lowerHex = "0123456789abcdef"

func appendU4(dst []byte, n rune) []byte {
	return append(dst, '\\', 'u', lowerHex[n>>12&0xf], lowerHex[n>>8&0xf], lowerHex[n>>4&0xf], lowerHex[n&0xf])
}

// pyEscapeDctLookup is ESCAPE_DCT after the setdefault loop.
func pyEscapeDctLookup(dst []byte, r rune) ([]byte, bool) {
	switch r {
	case '\\':
		return append(dst, '\\', '\\'), true
	case '"':
		return append(dst, '\\', '"'), true
	case '\b':
		return append(dst, '\\', 'b'), true
	case '\f':
		return append(dst, '\\', 'f'), true
	case '\n':
		return append(dst, '\\', 'n'), true
	case '\r':
		return append(dst, '\\', 'r'), true
	case '\t':
		return append(dst, '\\', 't'), true
	}
	if r < 0x20 {
		return appendU4(dst, r), true
	}
	return dst, false
}

// AppendPyJSONRune appends what json.dumps writes for r inside a string, UTF-8
// encoded as it goes on the wire: ensure_ascii=True when ascii, else the raw
// form json.dumps(ensure_ascii=False) writes.
func AppendPyJSONRune(dst []byte, r rune, ascii bool) []byte {
	if ascii {
		// ESCAPE_ASCII matches \, " and anything outside ' '..'~'.
		if r != '\\' && r != '"' && r >= ' ' && r <= '~' {
			return append(dst, byte(r))
		}
		if out, ok := pyEscapeDctLookup(dst, r); ok {
			return out
		}
		if r < 0x10000 {
			return appendU4(dst, r)
		}
		n := r - 0x10000
		dst = appendU4(dst, 0xd800|(n>>10&0x3ff))
		return appendU4(dst, 0xdc00|(n&0x3ff))
	}
	// ESCAPE matches C0, \ and " only.
	if r < 0x20 || r == '\\' || r == '"' {
		out, _ := pyEscapeDctLookup(dst, r)
		return out
	}
	return utf8.AppendRune(dst, r)
}

// PyDumpsString is json.dumps(s, ensure_ascii=ascii) for a str s, as the UTF-8
// bytes a client sends. s must be valid UTF-8.
func PyDumpsString(s string, ascii bool) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for _, r := range s {
		b = AppendPyJSONRune(b, r, ascii)
	}
	b = append(b, '"')
	return string(b)
}
