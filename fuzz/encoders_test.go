package fuzz

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
)

// Independent encoders for the Python and JS families, written from their
// specifications rather than from charge's per-rune table, so the modelled
// wire width is checked against something that could disagree with it.

// pyEscapeDct is CPython's Lib/json/encoder.py ESCAPE_DCT.
var pyEscapeDct = func() map[string]string {
	m := map[string]string{`\`: `\\`, `"`: `\"`, "\b": `\b`, "\f": `\f`, "\n": `\n`, "\r": `\r`, "\t": `\t`}
	for i := 0; i < 0x20; i++ {
		if _, ok := m[string(rune(i))]; !ok {
			m[string(rune(i))] = fmt.Sprintf(`\u%04x`, i)
		}
	}
	return m
}()

var (
	pyEscape      = regexp.MustCompile(`[\x00-\x1f\\"\x08\x0c\n\r\t]`) // ESCAPE
	pyEscapeASCII = regexp.MustCompile(`([\\"]|[^\ -~])`)              // ESCAPE_ASCII
)

// pyEncodeBasestring is json.encoder.py_encode_basestring (ensure_ascii=False)
// without its enclosing quotes.
func pyEncodeBasestring(s string) string {
	return pyEscape.ReplaceAllStringFunc(s, func(m string) string { return pyEscapeDct[m] })
}

// pyEncodeBasestringASCII is json.encoder.py_encode_basestring_ascii (the
// default) without its enclosing quotes.
func pyEncodeBasestringASCII(s string) string {
	return pyEscapeASCII.ReplaceAllStringFunc(s, func(m string) string {
		if e, ok := pyEscapeDct[m]; ok {
			return e
		}
		n, _ := utf8.DecodeRuneInString(m)
		if n < 0x10000 {
			return fmt.Sprintf(`\u%04x`, n)
		}
		n -= 0x10000
		return fmt.Sprintf(`\u%04x\u%04x`, 0xd800|((n>>10)&0x3ff), 0xdc00|(n&0x3ff))
	})
}

// jsQuoteJSONString is ECMA-262's QuoteJSONString (JSON.stringify) for a
// well-formed string, without its quotes.
func jsQuoteJSONString(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// goMarshalString is what encoding/json puts on the wire for s, without quotes.
func goMarshalString(s string) string {
	out, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(out[1 : len(out)-1])
}

// checkEncoders compares each family's modelled width with real output.
func checkEncoders(t *testing.T, s string) {
	t.Helper()
	real := map[charge.Encoder][]struct {
		name string
		wire string
	}{
		charge.GoJSON:      {{"encoding/json.Marshal", goMarshalString(s)}},
		charge.EnsureASCII: {{"py_encode_basestring_ascii", pyEncodeBasestringASCII(s)}},
		charge.Raw:         {{"py_encode_basestring", pyEncodeBasestring(s)}, {"JSON.stringify", jsQuoteJSONString(s)}},
	}
	for _, e := range charge.Encoders() {
		model := e.StringWireBytes(s)
		for _, impl := range real[e] {
			if len(impl.wire) != model {
				t.Fatalf("%v: modelled %d wire bytes, %s wrote %d for %+q", e, model, impl.name, len(impl.wire), s)
			}
		}
		// The body cap is derived from the class table, not from
		// RuneWireBytes: they must agree on every code point too.
		for _, r := range s {
			c, ok := charge.WireClassOf(r)
			if !ok || c.Wire(e) != e.RuneWireBytes(r) || c.Landed != utf8.RuneLen(r) {
				t.Fatalf("%v: %U: class %q says %d wire/%d landed, RuneWireBytes %d", e, r, c.Name, c.Wire(e), c.Landed, e.RuneWireBytes(r))
			}
		}
	}
}

// FuzzEncoderWidths: every encoder family's modelled wire width equals a real
// encoder's output — encoding/json for GoJSON; ports of CPython's json
// encoder and of ECMA-262 JSON.stringify for the Python/JS families.
func FuzzEncoderWidths(f *testing.F) {
	for _, s := range []string{"", "a", `"\`, "\x00\x1f\x7f", "<>&", "\u2028\u2029", "\u0600", "\u00ad\u0085",
		"中文", "😀", "\U000e0001", "\ufffe\uffff", "~/'", "\b\f\n\r\t"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if utf8.Valid(data) {
			checkEncoders(t, string(data))
		}
		checkEncoders(t, String(data, 256))
	})
}

// Every wire class, through every independent encoder, at one example each
// and at its extremes.
func TestEncodersOnEveryClass(t *testing.T) {
	for _, c := range charge.WireClasses() {
		t.Run(fmt.Sprintf("class_U%04X", c.Example), func(t *testing.T) { // the class by its example code point
			checkEncoders(t, strings.Repeat(string(c.Example), 3))
		})
	}
	for _, r := range []rune{0, 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xffff, 0x10000, utf8.MaxRune} {
		t.Run(fmt.Sprintf("U%04X", r), func(t *testing.T) { checkEncoders(t, string(r)) })
	}
}

// pythonWithJSON finds a CPython: $BOUNDLAB_PYTHON (the one variable every
// package that runs CPython reads), then pyenv's 3.13.0, then python3.
func pythonWithJSON() string {
	if p := os.Getenv("BOUNDLAB_PYTHON"); p != "" {
		return p
	}
	if root := os.Getenv("PYENV_ROOT"); root != "" {
		if p := filepath.Join(root, "versions", "3.13.0", "bin", "python3"); fileExists(p) {
			return p
		}
	}
	p, _ := exec.LookPath("python3")
	return p
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// The ports above against CPython itself, over generated strings from every
// class: json.dumps with ensure_ascii on and off.
func TestPythonPortsMatchCPython(t *testing.T) {
	py := pythonWithJSON()
	if py == "" {
		t.Skip("no CPython found (tried $BOUNDLAB_PYTHON, $PYENV_ROOT/versions/3.13.0, python3 on PATH); the ports stand unchecked against CPython")
	}
	var in, names []string // names: each string's subtest, by its seed or its class
	for i := 0; i < 400; i++ {
		in = append(in, String(seedBytes(i), 48))
		names = append(names, fmt.Sprintf("seed_%d", i))
	}
	for _, c := range charge.WireClasses() {
		in = append(in, string(c.Example))
		names = append(names, fmt.Sprintf("class_U%04X", c.Example))
	}
	payload, _ := json.Marshal(in)
	const script = `import json,sys
for s in json.loads(sys.stdin.read()):
    print(len(json.dumps(s)) - 2, len(json.dumps(s, ensure_ascii=False).encode("utf-8")) - 2)`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(string(payload))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", py, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(in) {
		t.Fatalf("%s printed %d lines for %d strings", py, len(lines), len(in))
	}
	// One CPython process answered for every string; each answer is held to
	// the ports in a subtest.
	for i, s := range in {
		t.Run(names[i], func(t *testing.T) {
			var ascii, raw int
			fmt.Sscan(lines[i], &ascii, &raw)
			if got := len(pyEncodeBasestringASCII(s)); got != ascii {
				t.Errorf("%+q: port ensure_ascii %d, CPython %d", s, got, ascii)
			}
			if got := len(pyEncodeBasestring(s)); got != raw {
				t.Errorf("%+q: port raw %d, CPython %d", s, got, raw)
			}
		})
	}
	t.Logf("%d strings: ports agree with %s", len(in), py)
}
