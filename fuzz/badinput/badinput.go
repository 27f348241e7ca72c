// Package badinput is boundlab's corpus of malformed and hostile JSON texts:
// grammar errors, depth bombs, duplicate names, invalid UTF-8, lone
// surrogates, raw controls, huge numbers, huge keys, charge and node bombs.
// Each case names the bound the gate must refuse it under (or none, when the
// gate admits it and a later stage must answer). The cases are built in code
// so the large ones (up to the body cap's scale) cost nothing in the
// repository.
//
// The corpus is driven through the gate, through mcpvalidate.Check and
// through a served tools/call by package fuzz's tests, and seeds its fuzz
// targets.
package badinput

import (
	"strings"

	"github.com/theurian/boundlab/charge"
)

// Case is one hostile text.
type Case struct {
	Name string
	Doc  []byte
	// Bound is the gate bound it must be refused under (charge.DefaultLimits,
	// either dialect); 0 when the gate admits it.
	Bound charge.Bound
}

func c(name, doc string, b charge.Bound) Case { return Case{name, []byte(doc), b} }

// Cases builds the corpus. Large is false for a corpus without the
// multi-megabyte cases (CI smoke runs).
func Cases(large bool) []Case {
	const (
		syn  = charge.BoundSyntax
		utf  = charge.BoundUTF8
		sur  = charge.BoundSurrogate
		ctl  = charge.BoundControl
		dup  = charge.BoundDuplicateName
		trl  = charge.BoundTrailing
		nest = charge.BoundNesting
		node = charge.BoundNodes
		numb = charge.BoundNumberBytes
		nume = charge.BoundNumberExponent
		chg  = charge.BoundCharge
	)
	cs := []Case{
		// Grammar.
		c("empty", "", syn),
		c("space-only", " \t\n", syn),
		c("open-brace", "{", syn),
		c("close-brace", "}", syn),
		c("trailing-comma-array", "[1,]", syn),
		c("trailing-comma-object", `{"a":1,}`, syn),
		c("missing-value", `{"a":}`, syn),
		c("missing-colon", `{"a" 1}`, syn),
		c("single-quotes", `{'a':1}`, syn),
		c("bare-key", `{a:1}`, syn),
		c("missing-comma", `[1 2]`, syn),
		c("leading-zero", `{"n":01}`, syn),
		c("bare-dot", `{"n":1.}`, syn),
		c("leading-dot", `{"n":.5}`, syn),
		c("plus-sign", `{"n":+1}`, syn),
		c("lone-minus", `{"n":-}`, syn),
		c("empty-exponent", `{"n":1e}`, syn),
		c("nan", `{"n":NaN}`, syn),
		c("infinity", `{"n":Infinity}`, syn),
		c("python-true", `{"b":True}`, syn),
		c("short-literal", `{"b":tru}`, syn),
		c("unterminated-string", `{"s":"abc`, syn),
		c("unterminated-escape", `{"s":"abc\`, syn),
		c("hex-escape", `{"s":"\x41"}`, syn),
		c("short-u-escape", `{"s":"\u12"}`, syn),
		c("bad-u-escape", `{"s":"\uZZZZ"}`, syn),
		c("comment", `/*c*/{}`, syn),
		c("byte-order-mark", "\ufeff{}", syn),
		c("extra-close", `{"a":1}}`, trl),
		c("two-documents", `{} {}`, trl),
		c("trailing-nul", "{}\x00", trl),
		c("unclosed-array", "[[]", syn),
		// Nesting.
		c("depth-65", strings.Repeat("[", 65)+strings.Repeat("]", 65), nest),
		c("depth-65-objects", strings.Repeat(`{"a":`, 65)+"0"+strings.Repeat("}", 65), nest),
		c("unclosed-100k", strings.Repeat("[", 100_000), nest),
		c("sdk-depth-998", strings.Repeat("[", 998)+strings.Repeat("]", 998), nest),
		// Duplicate names.
		c("duplicate", `{"a":1,"a":2}`, dup),
		c("duplicate-escaped", `{"a":1,"\u0061":2}`, dup),
		c("duplicate-astral-escaped", `{"😀":1,"\ud83d\ude00":2}`, dup),
		c("duplicate-nested", `{"x":{"a":1,"b":2,"a":3}}`, dup),
		c("duplicate-after-16", `{`+manyNames(17)+`,"k0":0}`, dup),
		c("case-variants-admitted", `{"a":1,"A":2}`, 0),
		// Invalid UTF-8.
		c("utf8-ff", "{\"s\":\"\xff\"}", utf),
		c("utf8-overlong-slash", "{\"s\":\"\xc0\xaf\"}", utf),
		c("utf8-encoded-surrogate", "{\"s\":\"\xed\xa0\x80\"}", utf),
		c("utf8-past-10ffff", "{\"s\":\"\xf4\x90\x80\x80\"}", utf),
		c("utf8-truncated", "{\"s\":\"\xe4\xb8\"}", utf),
		c("utf8-in-key", "{\"\xff\":1}", utf),
		// Surrogates.
		c("lone-high", `{"s":"\ud800"}`, sur),
		c("lone-low", `{"s":"\udc00"}`, sur),
		c("high-then-letter", `{"s":"\ud800\u0041"}`, sur),
		c("reversed-pair", `{"s":"\udc00\ud800"}`, sur),
		c("two-highs", `{"s":"\ud800\ud800"}`, sur),
		c("lone-surrogate-key", `{"\ud800":1}`, sur),
		// Raw controls.
		c("raw-nul", "{\"s\":\"\x00\"}", ctl),
		c("raw-newline", "{\"s\":\"a\nb\"}", ctl),
		c("raw-unit-separator", "{\"s\":\"\x1f\"}", ctl),
		c("raw-del-admitted", "{\"s\":\"\x7f\"}", 0),
		// Numbers.
		c("number-65-digits", `{"n":`+strings.Repeat("9", 65)+`}`, numb),
		c("number-exponent-1000", `{"n":1e1000}`, nume),
		c("number-exponent-1000001", `{"n":1e1000001}`, nume),
		c("number-exponent-huge-negative", `{"n":-1e-99999999}`, nume),
		c("number-exponent-999-admitted", `{"n":1e999}`, 0),
		c("number-past-binary64-admitted", `{"n":1e309}`, 0),
		c("number-100k-digits", `{"n":1`+strings.Repeat("0", 100_000)+`}`, numb),
		// Keys.
		c("key-1k", `{"`+strings.Repeat("k", 1000)+`":1}`, 0),
		c("key-tilde-slash", `{"~/~/":1}`, 0),
	}
	if large {
		cs = append(cs,
			c("nodes-100001", "["+strings.TrimSuffix(strings.Repeat("0,", 100_000), ",")+"]", node),
			c("key-1mib", `{"`+strings.Repeat("k", 1<<20)+`":1}`, 0),
			c("key-13mib", `{"`+strings.Repeat("k", 13<<20)+`":1}`, chg),
			c("key-del-4mib", "{\""+strings.Repeat("\x7f", 4<<20)+"\":1}", chg),
			c("charge-u0600", `{"s":"`+strings.Repeat("\u0600", 2_100_000)+`"}`, chg),
			c("charge-del", "{\"s\":\""+strings.Repeat("\x7f", 3_200_000)+"\"}", chg),
			c("charge-escaped-controls", `{"s":"`+strings.Repeat(`\u0001`, 3_200_000)+`"}`, chg),
		)
	}
	return cs
}

func manyNames(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k`)
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(strings.Repeat("x", i/26))
		b.WriteString(`":0`)
	}
	return strings.Replace(b.String(), `"ka"`, `"k0"`, 1)
}
