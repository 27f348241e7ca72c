// Package reference renders JSON values the way each charge dialect's validator
// does, slowly and literally, so the fast widths in package charge can be
// checked against something written separately from them.
//
// The Python renderer follows CPython 3.13's unicode_repr, float_repr and
// long_to_decimal_string step by step, building the text. Its printability
// comes from Unicode 15.1.0's own general categories (the UCD's
// DerivedGeneralCategory, embedded from testdata/ucd-15.1.0 and parsed here),
// not from charge's generated table, which is built from another package of
// the same data by another program, so an error in that table shows up as a
// disagreement; and not from Go's unicode package, whose version moves with
// the toolchain (15.0.0 in Go 1.26, 17.0.0 in Go 1.27). The Go renderer
// calls the same code jsonschema/v6 runs: its kind package's quote (fmt's %q,
// then \" -> " and ' -> \'), RFC 6901 escaping for names in a location, and
// x/text's English %v of the float64 a big.Rat rounds to.
//
// What it does not promise: speed (it allocates every string it renders), or
// fidelity to a CPython built on any Unicode version other than 15.1.0.
package reference

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/theurian/boundlab/charge"
)

// Decode parses doc the way the lab's checks read documents: encoding/json
// with UseNumber, so numbers keep their literal text.
func Decode(doc []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(doc)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("reference: trailing data")
	}
	return v, nil
}

// PythonPrintable is CPython 3.13's str.isprintable() for one code point:
// printable unless its Unicode 15.1.0 General_Category is Other (Cc Cf Cs Co
// Cn) or Separator (Zs Zl Zp), U+0020 SPACE apart (CPython's
// Tools/unicode/makeunicodedata.py). It panics only if the embedded UCD data
// is damaged, which TestUCDData rules out for the committed copy.
func PythonPrintable(r rune) bool {
	if r == ' ' {
		return true
	}
	cat, err := GeneralCategory(r)
	if err != nil {
		panic(err)
	}
	return cat != "" && cat[0] != 'C' && cat[0] != 'Z'
}

// PythonString is repr(s) in CPython 3.13.
func PythonString(s string) string {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteRune(quote)
	for _, ch := range s {
		switch {
		case ch == quote || ch == '\\':
			b.WriteByte('\\')
			b.WriteRune(ch)
		case ch == '\t':
			b.WriteString(`\t`)
		case ch == '\n':
			b.WriteString(`\n`)
		case ch == '\r':
			b.WriteString(`\r`)
		case ch < ' ' || ch == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, ch)
		case ch < 0x7f:
			b.WriteRune(ch)
		case PythonPrintable(ch):
			b.WriteRune(ch)
		case ch <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, ch)
		case ch <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, ch)
		default:
			fmt.Fprintf(&b, `\U%08x`, ch)
		}
	}
	b.WriteRune(quote)
	return b.String()
}

// GoString is jsonschema/v6's kind.quote(s), copied from v6.0.3's kind/kind.go.
func GoString(s string) string {
	s = fmt.Sprintf("%q", s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}

// String renders s with its quotes, in dialect d.
func String(d charge.Dialect, s string) string {
	if d == charge.Python {
		return PythonString(s)
	}
	return GoString(s)
}

// Width counts text in the dialect's unit: code points for Python, bytes for Go.
func Width(d charge.Dialect, text string) int64 {
	if d == charge.Python {
		return int64(utf8.RuneCountInString(text))
	}
	return int64(len(text))
}

// PythonNumber is repr of what json.loads makes of a number literal.
func PythonNumber(lit string) string {
	if !strings.ContainsAny(lit, ".eE") {
		n, ok := new(big.Int).SetString(lit, 10)
		if !ok {
			panic("reference: not an integer literal")
		}
		return n.String()
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		panic("reference: not a number literal")
	}
	return PythonFloat(f)
}

// PythonFloat is repr(f): shortest round-trip digits, fixed notation for
// decimal exponents in [-4, 16), otherwise d.ddde±XX.
func PythonFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	sci := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expText, _ := strings.Cut(sci, "e")
	exp, _ := strconv.Atoi(expText)
	if exp >= -4 && exp < 16 {
		fixed := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(fixed, ".") {
			fixed += ".0"
		}
		return fixed
	}
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	return fmt.Sprintf("%se%s%02d", mant, sign, exp)
}

// GoNumber is the widest way jsonschema/v6 prints a json.Number: display()'s
// literal text, or what its minimum, maximum, exclusive-bound and multipleOf
// messages print — %v of the float64 its big.Rat rounds to, through the same
// x/text English printer v6's Error() uses.
func GoNumber(lit string) string {
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		panic("reference: not a number literal")
	}
	f, _ := r.Float64()
	v := englishPrinter.Sprintf("%v", f)
	if len(v) > len(lit) {
		return v
	}
	return lit
}

// englishPrinter is jsonschema/v6's defaultPrinter.
var englishPrinter = message.NewPrinter(language.English)

// GoName is the widest way jsonschema/v6 prints a member name: quoted alone,
// or as a segment of a quoted RFC 6901 location, followed by more of the
// location.
func GoName(name string) string {
	alone := GoString(name)
	segment := GoString(strings.NewReplacer("~", "~0", "/", "~1").Replace(name) + "/")
	segment = segment[:len(segment)-2] + "'" // drop the following slash
	if len(segment) > len(alone) {
		return segment
	}
	return alone
}

// Name renders a member name at its widest, with its quotes.
func Name(d charge.Dialect, name string) string {
	if d == charge.Python {
		return PythonString(name)
	}
	return GoName(name)
}

// Render renders a decoded value as a whole. Python: repr of what json.loads
// builds. Go: every node's display() — "value" for a container, its members'
// names quoted — concatenated, since v6 never prints a container's contents.
func Render(d charge.Dialect, v any) string {
	var b strings.Builder
	render(&b, d, v)
	return b.String()
}

func render(b *strings.Builder, d charge.Dialect, v any) {
	switch v := v.(type) {
	case map[string]any:
		names := sortedNames(v)
		if d == charge.Go {
			b.WriteString("value")
			for _, k := range names {
				b.WriteString(GoName(k))
				render(b, d, v[k])
			}
			return
		}
		b.WriteByte('{')
		for i, k := range names {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(PythonString(k))
			b.WriteString(": ")
			render(b, d, v[k])
		}
		b.WriteByte('}')
	case []any:
		if d == charge.Go {
			b.WriteString("value")
			for _, e := range v {
				render(b, d, e)
			}
			return
		}
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			render(b, d, e)
		}
		b.WriteByte(']')
	default:
		b.WriteString(leaf(d, v))
	}
}

// leaf renders one scalar.
func leaf(d charge.Dialect, v any) string {
	switch v := v.(type) {
	case string:
		return String(d, v)
	case json.Number:
		if d == charge.Python {
			return PythonNumber(string(v))
		}
		return GoNumber(string(v))
	case bool:
		if d == charge.Python {
			if v {
				return "True"
			}
			return "False"
		}
		return fmt.Sprintf("%v", v)
	case nil:
		if d == charge.Python {
			return "None"
		}
		return fmt.Sprintf("%v", v)
	}
	panic(fmt.Sprintf("reference: unexpected %T", v))
}

func sortedNames(m map[string]any) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Charge is the sum, over every member name and leaf, of its reference render's
// width — a string's without its two quotes. It is what the gate's charge must
// equal.
func Charge(d charge.Dialect, v any) int64 {
	switch v := v.(type) {
	case map[string]any:
		var sum int64
		for k, e := range v {
			sum += Width(d, Name(d, k)) - 2 + Charge(d, e)
		}
		return sum
	case []any:
		var sum int64
		for _, e := range v {
			sum += Charge(d, e)
		}
		return sum
	case string:
		return Width(d, String(d, v)) - 2
	}
	return Width(d, leaf(d, v))
}

// Nodes counts containers, member names and values.
func Nodes(v any) int {
	switch v := v.(type) {
	case map[string]any:
		n := 1
		for _, e := range v {
			n += 1 + Nodes(e)
		}
		return n
	case []any:
		n := 1
		for _, e := range v {
			n += Nodes(e)
		}
		return n
	}
	return 1
}

// Depth is how deep containers nest: 0 for a scalar, 1 for a flat container.
func Depth(v any) int {
	d := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			d = max(d, Depth(e))
		}
	case []any:
		for _, e := range v {
			d = max(d, Depth(e))
		}
	default:
		return 0
	}
	return d + 1
}
