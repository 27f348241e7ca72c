package charge_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
)

// escapeForms are the ways JSON writes r inside a string: \u escapes in lower
// and upper case hex (a surrogate pair past the BMP), a two-byte escape where
// one exists, and raw UTF-8 where JSON allows it.
func escapeForms(r rune) []string {
	u := func(digits string, v rune) string {
		return `\u` + string([]byte{digits[v>>12&0xf], digits[v>>8&0xf], digits[v>>4&0xf], digits[v&0xf]})
	}
	var forms []string
	for _, digits := range []string{"0123456789abcdef", "0123456789ABCDEF"} {
		if r < 0x10000 {
			forms = append(forms, u(digits, r))
		} else {
			s := r - 0x10000
			forms = append(forms, u(digits, 0xd800+s>>10)+u(digits, 0xdc00+s&0x3ff))
		}
	}
	if e, ok := twoByteEscapes[r]; ok {
		forms = append(forms, e)
	}
	if r >= 0x20 && r != '"' && r != '\\' {
		forms = append(forms, string(r))
	}
	return forms
}

var twoByteEscapes = map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}

// For every Unicode scalar value in every form JSON writes it — alone,
// between plain bytes, and twice in a run — StringSpan finds the closing
// quote and the decoded length, and AppendUnescaped decodes it to r's UTF-8.
// (mcpvalidate's TestTreeEveryScalarValue holds the same forms to
// encoding/json.)
func TestStringSpanAndUnescapeEveryScalarValue(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: a sweep on one goroutine, which the full run holds")
	}
	var buf []byte
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xd800 && r < 0xe000 {
			continue
		}
		ch := string(r)
		for _, f := range escapeForms(r) {
			for _, c := range [][2]string{{f, ch}, {"a" + f + "b", "a" + ch + "b"}, {f + f, ch + ch}} {
				doc := []byte(`"` + c[0] + `",0]`)
				end, n := charge.StringSpan(doc, 1)
				if end != len(doc)-4 || n != len(c[1]) {
					t.Fatalf("U+%04X %q: StringSpan %d, %d; want %d, %d", r, c[0], end, n, len(doc)-4, len(c[1]))
				}
				if buf = charge.AppendUnescaped(buf[:0], doc[1:end]); string(buf) != c[1] {
					t.Fatalf("U+%04X %q: AppendUnescaped %q, want %q", r, c[0], buf, c[1])
				}
			}
		}
	}
}

// A quote a backslash escapes does not end the string; one after an escaped
// backslash does.
func TestStringSpanEscapedQuotes(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		end, len  int
	}{
		{"escaped_quote_inside", `"a\"b"`, 5, 3}, {"escaped_quote", `"\""`, 3, 1}, {"escaped_backslash", `"\\"`, 3, 1},
		{"escaped_backslash_and_quote", `"\\\""`, 5, 2}, {"quote_after_escaped_backslash", `"a\\"b"`, 4, 2},
		{"three_escaped_quotes", `"\"\"\""`, 7, 3}, {"u0022", `"\u0022"`, 7, 1}, {"empty", `""`, 1, 0}, {"x", `"x"`, 2, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if end, n := charge.StringSpan([]byte(c.doc), 1); end != c.end || n != c.len {
				t.Errorf("%s: %d, %d; want %d, %d", c.doc, end, n, c.end, c.len)
			}
		})
	}
}

// Every escape the gate refuses, StringSpan refuses (end -1): letters JSON has
// no escape for, bad hex at each position, lone and reversed surrogates,
// escapes cut short by the document's end, and a string never closed.
func TestStringSpanRefusesWhatTheGateRefuses(t *testing.T) {
	g := gate(t, charge.Go, charge.DefaultLimits())
	type escape struct{ name, esc string }
	var bad []escape
	for c := 0; c < 0x80; c++ {
		if !strings.ContainsRune(`"\/bfnrtu`, rune(c)) {
			bad = append(bad, escape{fmt.Sprintf("backslash_U%04X", c), `\` + string(rune(c))})
		}
	}
	for i := range 4 {
		for _, x := range []struct{ name, b string }{{"g", "g"}, {"G", "G"}, {"space", " "}, {"quote", `"`}, {"backslash", "\\"}} {
			bad = append(bad, escape{fmt.Sprintf("hex_%d_%s", i, x.name), `\u` + "0041"[:i] + x.b + "0041"[i+1:]})
		}
	}
	bad = append(bad, escape{"ud800", `\ud800`}, escape{"udbff", `\udbff`}, escape{"udc00", `\udc00`}, escape{"udfff", `\udfff`},
		escape{"ud800_u0041", `\ud800\u0041`}, escape{"ud800_ud800", `\ud800\ud800`}, escape{"udc00_ud800", `\udc00\ud800`},
		escape{"ud800_n", `\ud800\n`}, escape{"ud800_x", `\ud800x`}, escape{"ud800_udc0g", `\ud800\udc0g`}, escape{"ud800_backslash", `\ud800\`})
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			for _, doc := range []string{`"` + b.esc + `"`, `"a` + b.esc + `b"`} {
				if _, err := g.Check([]byte(doc)); err == nil {
					t.Fatalf("the gate admits %s", doc)
				}
				if end, _ := charge.StringSpan([]byte(doc), 1); end != -1 {
					t.Errorf("%s: StringSpan ends at %d", doc, end)
				}
			}
		})
	}
	for _, c := range []struct{ name, doc string }{
		{"cut_quote", `"`}, {"cut_abc", `"abc`}, {"cut_escaped_quote", `"a\"`}, {"cut_u00", `"\u00`}, {"cut_u00e", `"\u00e`},
		{"cut_ud83d_ude0", `"\ud83d\ude0`}, {"cut_backslash", `"\`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if end, _ := charge.StringSpan([]byte(c.doc), 1); end != -1 {
				t.Errorf("%s: StringSpan ends at %d", c.doc, end)
			}
		})
	}
	for _, i := range []int{-1, 2} {
		t.Run(fmt.Sprintf("start_%d", i), func(t *testing.T) {
			if end, _ := charge.StringSpan([]byte(`"`), i); end != -1 {
				t.Errorf("start %d: StringSpan ends at %d", i, end)
			}
		})
	}
}

// escapeEdges are string contents the inline \u paths could misread: a
// two-byte escape followed by four hex digits (also after a 'u'), the first
// high surrogate starting a pair, and the edges of the BMP's surrogate gap.
var escapeEdges = []struct{ name, raw string }{
	{"n_then_1234", `\n1234`}, {"t_then_00e9", `\t00e9`}, {"quote_then_abcd", `\"abcd`}, {"backslash_then_0041", `\\0041`},
	{"slash_then_d800", `\/d800`}, {"u_n_then_1234", `u\n1234`}, {"u_then_u00e9", `u\u00e9`},
	{"ud800_udc00", `\ud800\udc00`}, {"udbff_udfff", `\udbff\udfff`}, {"ud7ff", `\ud7ff`}, {"ue000", `\ue000`},
	{"u0041_n_then_0041", `\u0041\n0041`},
}

// TestStringSpanAtTheEscapeFastPathsEdges: StringSpan against encoding/json
// where its inline \u path could take what is not a \u escape — a two-byte
// escape followed by four hex digits (also after a 'u'), the first high
// surrogate starting a pair — and, cut by a quote, a \u escape too short to
// read, which must be refused without reading past the document.
func TestStringSpanAtTheEscapeFastPathsEdges(t *testing.T) {
	for _, e := range escapeEdges {
		t.Run(e.name, func(t *testing.T) {
			doc := `"` + e.raw + `"`
			var s string
			if err := json.Unmarshal([]byte(doc), &s); err != nil {
				t.Fatalf("%s: encoding/json refuses it: %v", doc, err)
			}
			if end, n := charge.StringSpan([]byte(doc), 1); end != len(doc)-1 || n != len(s) {
				t.Errorf("StringSpan(%s) = %d, %d; want %d, %d", doc, end, n, len(doc)-1, len(s))
			}
		})
	}
	refused := []string{`"\u"`, `"\u0"`, `"\u00"`, `"\u00e"`, `"\ud800"`, `"\ud800\u0041"`, `"\x00e9"`, `"\U00e9"`}
	for _, doc := range refused {
		t.Run("refused_"+caseName(doc), func(t *testing.T) {
			b := []byte(doc)
			b = b[:len(b):len(b)] // nothing past the document to read by mistake
			if end, _ := charge.StringSpan(b, 1); end != -1 {
				t.Errorf("StringSpan(%s) = %d; want -1", doc, end)
			}
		})
	}
}

// TestAppendUnescapedAtTheEscapeFastPathsEdges: AppendUnescaped at the same
// edges, against encoding/json; on content the gate refuses (an escape cut
// short, bad hex) it appends the rest as it is from the escape it cannot
// read, and reads nothing past the content.
func TestAppendUnescapedAtTheEscapeFastPathsEdges(t *testing.T) {
	for _, e := range escapeEdges {
		t.Run(e.name, func(t *testing.T) {
			raw := e.raw
			var s string
			if err := json.Unmarshal([]byte(`"`+raw+`"`), &s); err != nil {
				t.Fatalf("%s: encoding/json refuses it: %v", raw, err)
			}
			if got := string(charge.AppendUnescaped(nil, []byte(raw))); got != s {
				t.Errorf("AppendUnescaped(%s) = %q; want %q", raw, got, s)
			}
		})
	}
	for _, c := range []struct{ raw, want string }{
		{`\u`, `\u`}, {`\u0`, `\u0`}, {`\u00`, `\u00`}, {`\u00e`, `\u00e`},
		{`ab\u00g9cd`, `ab\u00g9cd`}, {`\u0041\u00g9`, `A\u00g9`}, {`\x00e9`, `\x00e9`},
	} {
		t.Run("unreadable_"+caseName(c.raw), func(t *testing.T) {
			b := []byte(c.raw)
			b = b[:len(b):len(b)]
			if got := string(charge.AppendUnescaped(nil, b)); got != c.want {
				t.Errorf("AppendUnescaped(%s) = %q; want %q", c.raw, got, c.want)
			}
		})
	}
}
