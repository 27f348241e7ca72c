package fuzz

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/internal/labhooks"
	_ "github.com/theurian/boundlab/mcpvalidate" // sets labhooks
)

// FuzzDecoderAgainstPeers: whatever the gate admits, mcpvalidate's decoder
// (labhooks.Tree) gives exactly what encoding/json (UseNumber) and sonic
// give, value for value and type for type; whatever the gate refuses, the
// decoder returns without panicking. Each input is tried raw and as the seed
// of a generated document (Document: escapes of every kind, surrogate pairs,
// numbers, nesting to the bound), plain and hostile, and a short input as
// KeepStack+1 elements of an array (the decoder's stack grown past what it
// keeps). mcpvalidate's own FuzzTree holds the decoder to encoding/json; this
// target adds the generator and sonic, which the production package's tests
// may not import.
func FuzzDecoderAgainstPeers(f *testing.F) {
	for _, c := range []string{`{}`, `{"a":[1,2.5e3,"\u00e9"],"b":{"c":null}}`, `"\ud83d\ude00"`, `[true,false,-0]`,
		`"\ud800"`, `{"a":1,"a":2}`, "\"\xff\"", `[1,`, `"\u00e9\"`, `{"\u0061":1,"a":2}`} {
		f.Add([]byte(c))
	}
	// Built once per process, as go test builds it: OSS-Fuzz's builder calls
	// the target once per input, and building it was most of an input's time.
	peersGateOnce.Do(func() { peersGate, peersGateErr = charge.NewGate(charge.Go, charge.DefaultLimits()) })
	g, err := peersGate, peersGateErr
	if err != nil {
		f.Fatal(err)
	}
	depth := charge.DefaultLimits().MaxParamsNesting
	try := func(t *testing.T, doc []byte) {
		if _, err := g.Check(doc); err != nil {
			_, _ = labhooks.Tree(doc) // refused by the gate: must only return
			return
		}
		got, err := labhooks.Tree(doc)
		if err != nil {
			t.Fatalf("%.80q: the gate admits it, the decoder refuses: %v", doc, err)
		}
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("%.80q: encoding/json: %v", doc, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%.80q: decoder %#.200v, encoding/json %#.200v", doc, got, want)
		}
		var s any
		if err := sonicAPI.Unmarshal(doc, &s); err != nil || !reflect.DeepEqual(got, s) {
			t.Fatalf("%.80q: decoder %#.200v, sonic %#.200v (%v)", doc, got, s, err)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		try(t, data)
		try(t, Document(data, Options{MaxDepth: depth + 1, MaxString: 256}))
		try(t, Document(data, Options{MaxDepth: depth + 1, Hostile: true}))
		if len(data) <= 16 {
			many := "[" + strings.Repeat(string(data)+",", labhooks.KeepStack) + string(data) + "]"
			if len(data)%2 == 0 {
				try(t, []byte("["+many+"]"))
			} else {
				try(t, []byte("[0,"+many+"]"))
			}
		}
	})
}

var (
	peersGateOnce sync.Once
	peersGate     *charge.Gate // FuzzDecoderAgainstPeers'
	peersGateErr  error
)
