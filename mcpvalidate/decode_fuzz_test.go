package mcpvalidate

import (
	"strings"
	"testing"
)

// FuzzTree: whatever the gate admits, the decoder gives exactly what
// encoding/json (UseNumber) gives; whatever it refuses, the decoder returns
// without panicking. Each input is tried as a raw document, and a short
// input as keepStack+1 elements of an array, first in an enclosing array or
// after one of its elements (the decoder's stack grown past keepStack, taken
// by the array or copied). boundlab's fuzz package holds the same decoder to
// sonic too, over generated documents (FuzzDecoderAgainstPeers).
func FuzzTree(f *testing.F) {
	for _, c := range treeCases() {
		f.Add([]byte(c))
	}
	for _, c := range []string{`"\ud800"`, `{"a":1,"a":2}`, "\"\xff\"", `[1,`, `"\u00e9\"`, `{"\u0061":1,"a":2}`} {
		f.Add([]byte(c))
	}
	g := defaultGate(f)
	depth := defaultDepth
	try := func(t *testing.T, doc []byte) {
		if _, err := g.Check(doc); err != nil {
			tree(doc, depth, 0) // undefined, but returns
			return
		}
		sameTree(t, doc, depth)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		try(t, data)
		if len(data) <= 16 {
			many := "[" + strings.Repeat(string(data)+",", keepStack) + string(data) + "]"
			if len(data)%2 == 0 {
				try(t, []byte("["+many+"]"))
			} else {
				try(t, []byte("[0,"+many+"]"))
			}
		}
	})
}
