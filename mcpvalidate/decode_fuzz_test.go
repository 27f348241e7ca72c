package mcpvalidate

import (
	"testing"
)

// FuzzTree: whatever the gate admits, the decoder gives exactly what
// encoding/json (UseNumber) and sonic give; whatever it refuses, the decoder
// returns without panicking.
func FuzzTree(f *testing.F) {
	for _, c := range treeCases() {
		f.Add([]byte(c))
	}
	for _, c := range []string{`"\ud800"`, `{"a":1,"a":2}`, "\"\xff\"", `[1,`, `"\u00e9\"`, `{"\u0061":1,"a":2}`} {
		f.Add([]byte(c))
	}
	g := defaultGate(f)
	depth := defaultDepth
	f.Fuzz(func(t *testing.T, doc []byte) {
		if _, err := g.Check(doc); err != nil {
			tree(doc, depth) // undefined, but returns
			return
		}
		sameTree(t, doc, depth)
	})
}
