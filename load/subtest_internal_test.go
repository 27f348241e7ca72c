package load

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
)

// caseName makes s (a document, a literal, a class's name) a subtest name
// that -run matches as written: within each space-separated word, every run
// of characters other than letters, digits, '.', '-' and '=' becomes one
// '_' (none at the word's ends), "U+" before a hex digit becomes "U", and a
// word left empty is spelled as its code points (U0022); words are joined by
// '_'. Where that would not tell a table's cases apart, the table names its
// cases itself.
func caseName(s string) string {
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

// TestCaseName holds caseName to its doc: a name -run can select, and
// different cases kept apart.
func TestCaseName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"C0 \\b \\t \\n \\f \\r", "C0_b_t_n_f_r"},
		{`" and \`, "U0022_and_U005C"},
		{"< > &", "U003C_U003E_U0026"},
		{"U+2028 U+2029", "U2028_U2029"},
		{`"\ud800\udc00"`, "ud800_udc00"},
		{`1e+0`, "1e_0"},
		{"nodes, a name", "nodes_a_name"},
		{`-1.5e-3`, "-1.5e-3"},
		{``, "empty"},
		{"\xff", "UFFFD"},
		{`é\u00e9 中😀`, "é_u00e9_中"},
	} {
		t.Run(c.want, func(t *testing.T) {
			if got := caseName(c.in); got != c.want {
				t.Errorf("caseName(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
