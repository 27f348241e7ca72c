// Package testname names table-driven subtests so that go test's -run selects
// each as written: -run splits its pattern at '/' and reads each level as a
// regular expression, so a case's own text (a document, a code point, a
// path) is rarely a name it can match. It holds one rule, used by the tests
// of every package (standard library only). Each module of the repository
// holds this file under its own internal/testname, since a module cannot
// import another's internal packages; the lab's tests hold the copies byte
// for byte equal.
package testname

import (
	"fmt"
	"strings"
	"unicode"
)

// Case makes s (a document, a literal, a class's name) a subtest name
// that -run matches as written: within each space-separated word, every run
// of characters other than letters, digits, '.', '-' and '=' becomes one
// '_' (none at the word's ends), "U+" before a hex digit becomes "U", and a
// word left empty is spelled as its code points (U0022); words are joined by
// '_'. Where that would not tell a table's cases apart, the table names its
// cases itself.
func Case(s string) string {
	var words []string
	for _, w := range strings.Split(s, " ") {
		var b strings.Builder
		gap := false
		keep := func(r rune) {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			gap = false
			b.WriteRune(r)
		}
		rs := []rune(w)
		for i := 0; i < len(rs); i++ {
			switch r := rs[i]; {
			case r == 'U' && i+2 < len(rs) && rs[i+1] == '+' && isHex(rs[i+2]):
				keep('U')
				i++
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-' || r == '=':
				keep(r)
			default:
				gap = true
			}
		}
		if b.Len() == 0 {
			for _, r := range w {
				fmt.Fprintf(&b, "U%04X", r)
			}
		}
		if b.Len() > 0 {
			words = append(words, b.String())
		}
	}
	if len(words) == 0 {
		return "empty"
	}
	return strings.Join(words, "_")
}

func isHex(r rune) bool {
	return '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F'
}
