package charge

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dialect is how a validator's error messages render an instance, and the unit
// the rendering is counted in.
type Dialect uint8

const (
	// Python is CPython 3.13's repr() of the value json.loads builds, counted in
	// characters (code points), with printability from Unicode 15.1.0.
	Python Dialect = iota + 1
	// Go is what github.com/santhosh-tekuri/jsonschema/v6 renders (kind.quote:
	// Go %q, then \" -> " and ' -> \'), counted in bytes, with printability from
	// strconv.IsPrint (the Unicode version Go ships, unicode.Version).
	Go
)

// Dialects returns every dialect, in a stable order, in a fresh slice.
func Dialects() []Dialect { return []Dialect{Python, Go} }

// ParseDialect maps "python" or "go" to its Dialect.
func ParseDialect(s string) (Dialect, error) {
	switch s {
	case "python":
		return Python, nil
	case "go":
		return Go, nil
	}
	return 0, fmt.Errorf("unknown dialect %q (want python or go)", s)
}

// String is the dialect's name, the one ParseDialect reads.
func (d Dialect) String() string {
	switch d {
	case Python:
		return "python"
	case Go:
		return "go"
	}
	return "dialect(" + strconv.Itoa(int(d)) + ")"
}

// Unit is what the dialect's widths count.
func (d Dialect) Unit() string {
	if d == Python {
		return "characters"
	}
	return "bytes"
}

// UnicodeVersion is the Unicode version the dialect's printability follows.
func (d Dialect) UnicodeVersion() string {
	if d == Python {
		return PythonUnicodeVersion
	}
	return unicode.Version
}

// RenderClass is how a dialect renders one code point inside a string.
type RenderClass uint8

const (
	// Printable code points render as themselves.
	Printable RenderClass = iota + 1
	// Quote is a quote character whose cost depends on the dialect's quoting
	// rule: Python's ' (1, or 2 when the string also holds "), Go's ' (always 2).
	Quote
	// ShortEscape is a two-character escape: \\ \t \n \r (and Go's \a \b \f \v).
	ShortEscape
	// HexEscape is \xNN.
	HexEscape
	// UEscape4 is \uNNNN.
	UEscape4
	// UEscape8 is \UNNNNNNNN.
	UEscape8
)

// String names the class as tables and sweeps print it.
func (c RenderClass) String() string {
	switch c {
	case Printable:
		return "printable"
	case Quote:
		return "quote"
	case ShortEscape:
		return "short-escape"
	case HexEscape:
		return `\xNN`
	case UEscape4:
		return `\uNNNN`
	case UEscape8:
		return `\UNNNNNNNN`
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// RuneClass is the class the dialect renders r in, inside a string.
// r must be a Unicode scalar value (no surrogates); the gate guarantees that for
// every string it admits.
func (d Dialect) RuneClass(r rune) RenderClass {
	if d == Python {
		switch {
		case r == '\'':
			return Quote
		case r == '\\' || r == '\t' || r == '\n' || r == '\r':
			return ShortEscape
		case pythonIsPrint(r):
			return Printable
		case r < 0x100:
			return HexEscape
		case r < 0x10000:
			return UEscape4
		}
		return UEscape8
	}
	switch {
	case r == '\'':
		return Quote
	case r == '"':
		return Printable // %q writes \", which quote() turns back into "
	case r == '\\' || r == '\a' || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t' || r == '\v':
		return ShortEscape
	case strconv.IsPrint(r):
		return Printable
	case r < ' ' || r == 0x7f:
		return HexEscape
	case r < 0x10000:
		return UEscape4
	}
	return UEscape8
}

// RuneWidth is the width r takes inside a rendered string, in the dialect's
// unit. For Python's ' it is the width in a string that holds no ": the quote
// rule is applied per string by StringWidth.
func (d Dialect) RuneWidth(r rune) int { return d.widthAs(r, d.RuneClass(r)) }

// widthAs is RuneWidth of r, whose class c is: for a caller that needs both.
func (d Dialect) widthAs(r rune, c RenderClass) int {
	if c == Printable {
		if d == Go {
			return utf8.RuneLen(r)
		}
		return 1
	}
	return d.classWidth(c)
}

// classWidth is the width of every non-printable class; for Printable it is
// the Python width (Go's depends on the code point's UTF-8 length).
func (d Dialect) classWidth(c RenderClass) int {
	switch c {
	case Printable:
		return 1
	case Quote:
		if d == Go {
			return 2
		}
		return 1
	case ShortEscape:
		return 2
	case HexEscape:
		return 4
	case UEscape4:
		return 6
	}
	return 10
}

// StringWidth is the exact width of s as the dialect renders it, without the
// two enclosing quotes (those are punctuation; see PerNodeMax). s must be valid
// UTF-8 without surrogates.
func (d Dialect) StringWidth(s string) int {
	w, singles, doubles := 0, 0, false
	for _, r := range s {
		w += d.RuneWidth(r)
		switch r {
		case '\'':
			singles++
		case '"':
			doubles = true
		}
	}
	if d == Python && doubles {
		// repr picks ' as the delimiter when the string holds ", and then
		// escapes every ' as \'.
		w += singles
	}
	if d == Go && strings.HasSuffix(s, `\`) {
		// v6's quote runs strings.ReplaceAll(%q, `\"`, `"`) over the whole %q
		// output, closing quote included: the second byte of a final `\\`
		// pairs with the closing quote, so the render is one byte shorter
		// (a lone backslash renders as '\').
		w--
	}
	return w
}

// NameWidth is the exact width of a member name as the dialect renders it at
// its widest, without quotes. Python renders a name as repr, like any string.
// jsonschema/v6 renders a name two ways: quoted alone (additionalProperties,
// propertyNames) and as an RFC 6901 segment of every error's quoted location,
// where ~ and / become ~0 and ~1 and no trailing-backslash byte is lost.
func (d Dialect) NameWidth(s string) int {
	w := d.StringWidth(s)
	if d == Go {
		if strings.HasSuffix(s, `\`) {
			w++
		}
		w += strings.Count(s, "~") + strings.Count(s, "/")
	}
	return w
}

// Literal widths: how each dialect renders true, false and null.
func (d Dialect) literalWidth(lit byte) int {
	switch lit {
	case 't':
		return 4 // True, true
	case 'f':
		return 5 // False, false
	}
	if d == Python {
		return 4 // None
	}
	return 5 // <nil>: fmt %v of a nil interface, what jsonschema/v6's display prints
}

// LiteralWidth is the width of the JSON literal "true", "false" or "null".
func (d Dialect) LiteralWidth(lit string) int {
	if lit == "" {
		return 0
	}
	return d.literalWidth(lit[0])
}
