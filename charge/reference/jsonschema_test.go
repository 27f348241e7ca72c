package reference_test

import (
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// patternSchema fails every non-empty string on "pattern", the keyword whose
// message quotes the whole instance.
func patternSchema(t testing.TB) *jsonschema.Schema {
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///p.json", map[string]any{"type": "string", "pattern": "^$"}); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///p.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// renderedByV6 is how many bytes jsonschema/v6's Error() spends on the content
// of s (its quotes excluded), measured as the message's length less the length
// of the same message for "a", whose content renders as the one byte a.
func renderedByV6(t testing.TB, sch *jsonschema.Schema, s string) int64 {
	err := sch.Validate(s)
	if err == nil {
		t.Fatalf("U+%04X: the pattern did not fail", []rune(s)[0])
	}
	base := sch.Validate("a")
	return int64(len(err.Error()) - (len(base.Error()) - 1))
}

// TestTheGoDialectIsWhatJsonschemaV6Renders drives a failing pattern with every
// code point, and with strings mixing quotes and backslashes, through the real
// library and compares the bytes it renders with charge's Go width.
func TestTheGoDialectIsWhatJsonschemaV6Renders(t *testing.T) {
	sch := patternSchema(t)
	check := func(t *testing.T, s string) {
		t.Helper()
		got := renderedByV6(t, sch, s) // the string's content, without its quotes
		if w := int64(charge.Go.StringWidth(s)); w != got {
			t.Errorf("%q: charge.Go width %d, jsonschema/v6 rendered %d", s, w, got)
		}
		if ref := reference.Width(charge.Go, reference.GoString(s)) - 2; ref != got {
			t.Errorf("%q: reference width %d, jsonschema/v6 rendered %d", s, ref, got)
		}
	}
	// ap is an apostrophe ('), q a quote ("), bs a backslash (\).
	for _, c := range []struct{ name, s string }{
		{"ap", `'`}, {"q", `"`}, {"bs", `\`}, {"a_bs", `a\`}, {"bs_bs", `\\`}, {"ap_q_bs", `'"\`},
		{"its_x_bs_n", `it's "x" \n`}, {"del_nul_ap_q_bs", "\x7f\x00'\"\\"}, {"U1F600_bs", "\U0001F600\\"}, {"bs_q", `\"`},
	} {
		t.Run(c.name, func(t *testing.T) { check(t, c.s) })
	}
}

// TestEveryCodePointIsWhatJsonschemaV6Renders validates one array holding every
// scalar value as its own string against items:{pattern:"^$"}, and reads each
// failing item's message as the library renders it (the error kind's
// LocalizedString, which Error() prefixes with the location).
func TestEveryCodePointIsWhatJsonschemaV6Renders(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: skipping the 1,112,064-item jsonschema/v6 sweep (~8 s)")
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///items.json", map[string]any{"items": map[string]any{"pattern": "^$"}}); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem:///items.json")
	if err != nil {
		t.Fatal(err)
	}
	var items []any
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r < 0xd800 || r >= 0xe000 {
			items = append(items, string(r))
		}
	}
	verr, ok := sch.Validate(items).(*jsonschema.ValidationError)
	if !ok {
		t.Fatal("the array did not fail")
	}
	p := message.NewPrinter(language.English)
	suffix := len(" does not match pattern '^$'")
	seen, bad := 0, 0
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if _, leaf := e.ErrorKind.(*kind.Pattern); leaf {
			seen++
			i, err := strconv.Atoi(e.InstanceLocation[0])
			if err != nil {
				t.Fatal(err)
			}
			s := items[i].(string)
			got := int64(len(e.ErrorKind.LocalizedString(p)) - suffix - 2)
			if w := int64(charge.Go.StringWidth(s)); w != got && bad < 10 {
				bad++
				t.Errorf("%q: charge.Go width %d, jsonschema/v6 rendered %d", s, w, got)
			}
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(verr)
	if seen != len(items) {
		t.Fatalf("read %d pattern failures, want one per code point (%d)", seen, len(items))
	}
}
