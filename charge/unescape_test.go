package charge_test

import (
	"encoding/json"
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
		doc      string
		end, len int
	}{
		{`"a\"b"`, 5, 3}, {`"\""`, 3, 1}, {`"\\"`, 3, 1}, {`"\\\""`, 5, 2}, {`"a\\"b"`, 4, 2},
		{`"\"\"\""`, 7, 3}, {`"\u0022"`, 7, 1}, {`""`, 1, 0}, {`"x"`, 2, 1},
	} {
		if end, n := charge.StringSpan([]byte(c.doc), 1); end != c.end || n != c.len {
			t.Errorf("%s: %d, %d; want %d, %d", c.doc, end, n, c.end, c.len)
		}
	}
}

// Every escape the gate refuses, StringSpan refuses (end -1): letters JSON has
// no escape for, bad hex at each position, lone and reversed surrogates,
// escapes cut short by the document's end, and a string never closed.
func TestStringSpanRefusesWhatTheGateRefuses(t *testing.T) {
	g := gate(t, charge.Go, charge.DefaultLimits())
	var bad []string
	for c := 0; c < 0x80; c++ {
		if !strings.ContainsRune(`"\/bfnrtu`, rune(c)) {
			bad = append(bad, `\`+string(rune(c)))
		}
	}
	for i := range 4 {
		for _, x := range []string{"g", "G", " ", `"`, "\\"} {
			bad = append(bad, `\u`+"0041"[:i]+x+"0041"[i+1:])
		}
	}
	bad = append(bad, `\ud800`, `\udbff`, `\udc00`, `\udfff`, `\ud800\u0041`, `\ud800\ud800`, `\udc00\ud800`,
		`\ud800\n`, `\ud800x`, `\ud800\udc0g`, `\ud800\`)
	for _, b := range bad {
		for _, doc := range []string{`"` + b + `"`, `"a` + b + `b"`} {
			if _, err := g.Check([]byte(doc)); err == nil {
				t.Fatalf("the gate admits %s", doc)
			}
			if end, _ := charge.StringSpan([]byte(doc), 1); end != -1 {
				t.Errorf("%s: StringSpan ends at %d", doc, end)
			}
		}
	}
	for _, doc := range []string{`"`, `"abc`, `"a\"`, `"\u00`, `"\u00e`, `"\ud83d\ude0`, `"\`} {
		if end, _ := charge.StringSpan([]byte(doc), 1); end != -1 {
			t.Errorf("%s: StringSpan ends at %d", doc, end)
		}
	}
	for _, i := range []int{-1, 2} {
		if end, _ := charge.StringSpan([]byte(`"`), i); end != -1 {
			t.Errorf("start %d: StringSpan ends at %d", i, end)
		}
	}
}

// escapeEdges are string contents the inline \u paths could misread: a
// two-byte escape followed by four hex digits (also after a 'u'), the first
// high surrogate starting a pair, and the edges of the BMP's surrogate gap.
var escapeEdges = []string{`\n1234`, `\t00e9`, `\"abcd`, `\\0041`, `\/d800`, `u\n1234`, `u\u00e9`,
	`\ud800\udc00`, `\udbff\udfff`, `\ud7ff`, `\ue000`, `\u0041\n0041`}

// TestStringSpanAtTheEscapeFastPathsEdges: StringSpan against encoding/json
// where its inline \u path could take what is not a \u escape — a two-byte
// escape followed by four hex digits (also after a 'u'), the first high
// surrogate starting a pair — and, cut by a quote, a \u escape too short to
// read, which must be refused without reading past the document.
func TestStringSpanAtTheEscapeFastPathsEdges(t *testing.T) {
	for _, raw := range escapeEdges {
		doc := `"` + raw + `"`
		var s string
		if err := json.Unmarshal([]byte(doc), &s); err != nil {
			t.Fatalf("%s: encoding/json refuses it: %v", doc, err)
		}
		if end, n := charge.StringSpan([]byte(doc), 1); end != len(doc)-1 || n != len(s) {
			t.Errorf("StringSpan(%s) = %d, %d; want %d, %d", doc, end, n, len(doc)-1, len(s))
		}
	}
	refused := []string{`"\u"`, `"\u0"`, `"\u00"`, `"\u00e"`, `"\ud800"`, `"\ud800\u0041"`, `"\x00e9"`, `"\U00e9"`}
	for _, doc := range refused {
		b := []byte(doc)
		b = b[:len(b):len(b)] // nothing past the document to read by mistake
		if end, _ := charge.StringSpan(b, 1); end != -1 {
			t.Errorf("StringSpan(%s) = %d; want -1", doc, end)
		}
	}
}

// TestAppendUnescapedAtTheEscapeFastPathsEdges: AppendUnescaped at the same
// edges, against encoding/json; on content the gate refuses (an escape cut
// short, bad hex) it appends the rest as it is from the escape it cannot
// read, and reads nothing past the content.
func TestAppendUnescapedAtTheEscapeFastPathsEdges(t *testing.T) {
	for _, raw := range escapeEdges {
		var s string
		if err := json.Unmarshal([]byte(`"`+raw+`"`), &s); err != nil {
			t.Fatalf("%s: encoding/json refuses it: %v", raw, err)
		}
		if got := string(charge.AppendUnescaped(nil, []byte(raw))); got != s {
			t.Errorf("AppendUnescaped(%s) = %q; want %q", raw, got, s)
		}
	}
	for _, c := range []struct{ raw, want string }{
		{`\u`, `\u`}, {`\u0`, `\u0`}, {`\u00`, `\u00`}, {`\u00e`, `\u00e`},
		{`ab\u00g9cd`, `ab\u00g9cd`}, {`\u0041\u00g9`, `A\u00g9`}, {`\x00e9`, `\x00e9`},
	} {
		b := []byte(c.raw)
		b = b[:len(b):len(b)]
		if got := string(charge.AppendUnescaped(nil, b)); got != c.want {
			t.Errorf("AppendUnescaped(%s) = %q; want %q", c.raw, got, c.want)
		}
	}
}
