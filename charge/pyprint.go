package charge

import "slices"

//go:generate go run ./internal/gen/pyprint -o tables_python15.1.0.go

// pythonIsPrint reports whether CPython 3.13 calls the one-character string
// chr(r) printable, that is whether chr(r).isprintable() is True and repr()
// leaves r unescaped (when r is not a quote or backslash).
//
// The promise: for every r in 0..0x10FFFF the result equals CPython 3.13's
// str.isprintable() under Unicode 15.1.0: r is printable unless its
// General_Category is Cc, Cf, Cs, Co, Cn, Zs, Zl or Zp, but U+0020 SPACE is
// printable. Unassigned code points (Cn) and surrogates (Cs) are not
// printable; runes outside 0..0x10FFFF report false.
//
// Where it ends: the tables are Unicode 15.1.0 only (PythonUnicodeVersion);
// CPython versions built on other Unicode versions disagree on the code
// points assigned in between. It is not strconv.IsPrint or unicode.IsPrint:
// those apply the same rule to Go's own Unicode tables (15.0.0 as of Go
// 1.26), which call the 627 code points new in 15.1.0 (U+2FFC..U+2FFF,
// U+31EF, U+2EBF0..U+2EE5D) not printable.
func pythonIsPrint(r rune) bool {
	// Small enough to inline, so ASCII costs no call.
	if r < 0x80 {
		return 0x20 <= r && r < 0x7f
	}
	return pythonIsPrintTable(r)
}

// PythonIsPrint is CPython 3.13's str.isprintable() for the one-character
// string chr(r), under Unicode 15.1.0 (see pythonIsPrint).
func PythonIsPrint(r rune) bool { return pythonIsPrint(r) }

// pythonIsPrintTable is pythonIsPrint for r >= 0x80: a binary search of the
// generated range tables.
func pythonIsPrintTable(r rune) bool {
	switch {
	case r <= 0xFFFF:
		return inRanges(pythonPrint16, uint16(r))
	case r <= 0x10FFFF:
		return inRanges(pythonPrint32, uint32(r))
	}
	return false
}

// inRanges reports whether x lies in one of the sorted [lo, hi] pairs of t:
// the first entry >= x is either a range's lo equal to x, or a range's hi
// (odd index), so x is inside that range.
func inRanges[T uint16 | uint32](t []T, x T) bool {
	i, found := slices.BinarySearch(t, x)
	return i < len(t) && (found || i&1 == 1)
}
