package sweeps_test

import (
	"fmt"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/sweeps"
)

// What each encoder family writes for one code point, and its wire bytes.
func ExampleEncodeRune() {
	for _, e := range charge.Encoders() {
		for _, r := range []rune{'<', 0x7f, 0x600, 0x1f600} {
			b := sweeps.EncodeRune(e, r)
			fmt.Printf("%-12s %s %q %d\n", e, sweeps.RuneName(r), b, len(b))
		}
	}
	// Output:
	// ensure_ascii U+003C "<" 1
	// ensure_ascii U+007F "\\u007f" 6
	// ensure_ascii U+0600 "\\u0600" 6
	// ensure_ascii U+1F600 "\\ud83d\\ude00" 12
	// raw          U+003C "<" 1
	// raw          U+007F "\x7f" 1
	// raw          U+0600 "\u0600" 2
	// raw          U+1F600 "😀" 4
	// go           U+003C "\\u003c" 6
	// go           U+007F "\x7f" 1
	// go           U+0600 "\u0600" 2
	// go           U+1F600 "😀" 4
}

// The widest arguments object the exact charge admits, at the default limits.
func ExampleDocumentWorst() {
	l := charge.DefaultLimits()
	for _, d := range charge.Dialects() {
		doc := sweeps.DocumentWorst(d, l)
		fmt.Printf("%s: renders %d %s, composed ceiling %d\n", d, doc.Render, d.Unit(), charge.ComposedCeiling(d, l))
	}
	// Output:
	// python: renders 12982906 characters, composed ceiling 12982912
	// go: renders 13082909 bytes, composed ceiling 13082912
}

// A request body around a string value: its size and the bytes that are not
// the value's content.
func ExampleLeafInstance() {
	in := sweeps.LeafInstance("x", charge.Raw, []sweeps.Span{{Rune: 0x600, N: 3}})
	body, _ := in.Build()
	fmt.Println(string(body))
	fmt.Println(in.Size(), in.Envelope())
	// Output:
	// {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"propose","arguments":{"body":"؀؀؀"}}}
	// 104 98
}
