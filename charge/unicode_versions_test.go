package charge_test

import (
	"fmt"
	"strconv"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// goPrint is CPython's printability rule evaluated on the toolchain's unicode
// tables: assigned, not Other (C) and not Separator (Z), or U+0020. Go's
// unicode.C has no Cn, so "assigned and not C/Z" is "in L, M, N, P or S".
func goPrint(r rune) bool {
	return r == ' ' || unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

// goAssigned reports whether the toolchain's tables give r a category other
// than Cn (which Go 1.25 and later also tabulate).
func goAssigned(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z,
		unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// unicode151Over150 lists the code points Unicode 15.1.0 assigned that 15.0.0
// left unassigned: 627 characters, all printable (So, Lo).
var unicode151Over150 = [][2]rune{
	{0x2FFC, 0x2FFF},   // Ideographic Description Characters (So)
	{0x31EF, 0x31EF},   // CJK STROKE HXG (So)
	{0x2EBF0, 0x2EE5D}, // CJK Unified Ideographs Extension I (Lo)
}

// TestPythonIsPrintVersusGoUnicode compares the python dialect's printability
// (Unicode 15.1.0 on every toolchain) with the same rule on the toolchain's
// tables (the go dialect's, strconv.IsPrint). On any toolchain every
// difference must be a code point one of the two Unicode versions leaves
// unassigned, never a character whose category moved between C/Z and the
// rest; on Go's Unicode 15.0.0 the difference is exactly what 15.1.0 added.
func TestPythonIsPrintVersusGoUnicode(t *testing.T) {
	var pyOnly, goOnly []rune
	for r := rune(0); r <= utf8.MaxRune; r++ {
		py, g := charge.PythonIsPrint(r), goPrint(r)
		// The rule as written must be the one unicode.IsPrint and
		// strconv.IsPrint apply (the go dialect's), on this toolchain too.
		if u, s := unicode.IsPrint(r), strconv.IsPrint(r); u != g || s != g {
			t.Errorf("U+%04X: goPrint = %v, unicode.IsPrint = %v, strconv.IsPrint = %v", r, g, u, s)
		}
		cat, err := reference.GeneralCategory(r)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case py && !g:
			pyOnly = append(pyOnly, r)
			if goAssigned(r) {
				t.Errorf("U+%04X: printable in Unicode %s (%s), assigned but not printable in Go's Unicode %s", r, charge.PythonUnicodeVersion, cat, unicode.Version)
			}
		case g && !py:
			goOnly = append(goOnly, r)
			if cat != "Cn" {
				t.Errorf("U+%04X: printable in Go's Unicode %s, %s (not printable) in Unicode %s", r, unicode.Version, cat, charge.PythonUnicodeVersion)
			}
		}
	}
	if unicode.Version == "15.0.0" {
		n := 0
		for _, rg := range unicode151Over150 {
			for r := rg[0]; r <= rg[1]; r++ {
				if !charge.PythonIsPrint(r) || goPrint(r) {
					t.Errorf("U+%04X: new in Unicode 15.1.0, not in the difference", r)
				}
				n++
			}
		}
		if len(pyOnly) != n || len(goOnly) != 0 {
			t.Errorf("on Go's Unicode 15.0.0: %d printable only in 15.1.0 (want the %d it added), %d only in Go's (want 0)", len(pyOnly), n, len(goOnly))
		}
	}
	t.Logf("python dialect (Unicode %s) vs Go's Unicode %s: %d printable only in the python dialect %s, %d only in Go's",
		charge.PythonUnicodeVersion, unicode.Version, len(pyOnly), summarize(pyOnly), len(goOnly))
	for _, r := range []rune{-1, -0x80, 0x110000, 0x7FFFFFFF, -0x80000000} {
		t.Run(fmt.Sprintf("invalid_%#x", r), func(t *testing.T) {
			if charge.PythonIsPrint(r) {
				t.Errorf("PythonIsPrint(%#x) = true for an invalid rune", r)
			}
		})
	}
}

// summarize names the first and last of a set of code points.
func summarize(rs []rune) string {
	if len(rs) == 0 {
		return "{}"
	}
	return fmt.Sprintf("{U+%04X..U+%04X}", rs[0], rs[len(rs)-1])
}
