package mcpvalidate

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/theurian/boundlab/charge"
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
	// Built once per process, as go test builds it: OSS-Fuzz's builder calls
	// the target once per input, and building it was most of an input's time.
	treeGateOnce.Do(func() { treeGate = defaultGate(f) })
	g := treeGate
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

var (
	treeGateOnce sync.Once
	treeGate     *charge.Gate // FuzzTree's
)

// The helpers below are FuzzTree's, shared with the decoder's other tests.
// They live in this file, and take an interface where a test would take
// testing.TB, because OSS-Fuzz's builder (go-118-fuzz-build) compiles the
// file holding a target alone with the package's non-test files, and its
// stand-in for package testing has no TB.

// defaultDepth is the nesting bound Check decodes under by default.
var defaultDepth = charge.DefaultLimits().MaxParamsNesting

// treeCases are documents the gate admits, each reaching a different path of
// the decoder: every escape form, surrogate pairs, quotes and backslashes next
// to the closing quote, escaped and unescaped names, every number form,
// literals, empty and nested containers, white space everywhere, top-level
// scalars and nesting at the default bound.
func treeCases() []string {
	cases := []string{
		`{}`, `[]`, `""`, `0`, `-0`, `true`, `false`, `null`, `"a"`,
		` { } `, "\t[\n1 ,\r2 ]\n", `{"a":{},"b":[],"c":"","d":[{}],"e":{"f":[]}}`,
		`{"projectId":"demo","query":"schema refusal","limit":10,"taskId":"task-42"}`,
		`[0,-0,1,-1,1.5,-1.5,1e5,1E5,1e+5,1e-5,1.25E-300,-9007199254740993,123456789012345678901234567890,0.000001]`,
		`["\"","\\","\/","\b","\f","\n","\r","\t"]`,
		`["a\"","\"a","a\"b","\\\"","\"\\","\\\\\"","x\\"]`,
		`"\\"`, `"\""`, `"\\\\"`, `"a\\"`, `"\\a"`,
		`["\u0000","\u001f","\u007f","\u0080","\u07ff","\u0800","\ud7ff","\ue000","\uffff","\u00e9\u00E9","\u20AC"]`,
		`["\ud800\udc00","\uD83D\uDE00","\udbff\udfff","a\ud83d\ude00b","\ud83d\ude00\ud83d\ude00"]`,
		`{"\u006e\u0061\u006d\u0065":1,"n\u00e9":"v\u00e9","\ud83d\ude00":[],"\"":"\\","":""}`,
		`["é","日本","😀","é\u00e9é","\u00e9é\u00e9"]`,
		`{"a" : 1 , "b" :[ true ,false, null ] }`,
		`[[[[[]]]],{"a":{"b":{"c":[1,{"d":"e"}]}}}]`,
		`["` + strings.Repeat(`\u00e9`, 1000) + `","` + strings.Repeat("a", 5000) + `","` + strings.Repeat(`a\"`, 300) + `"]`,
	}
	deep := charge.DefaultLimits().MaxParamsNesting
	cases = append(cases,
		strings.Repeat("[", deep)+strings.Repeat("]", deep),
		strings.Repeat(`{"a":`, deep-1)+`{}`+strings.Repeat("}", deep-1),
		strings.Repeat(`[{"k\u00e9":`, deep/2)+`"\ud83d\ude00"`+strings.Repeat("}]", deep/2),
	)
	return cases
}

func defaultGate(t interface {
	Helper()
	Fatal(args ...any)
}) *charge.Gate {
	t.Helper()
	g, err := charge.NewGate(charge.Go, charge.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// stdTree is encoding/json's decode with UseNumber: the reference.
func stdTree(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// sameTree checks tree(doc) against encoding/json (UseNumber), value for value and type for type: with the
// node count not known, and with the count the gate gives (countNodes).
func sameTree(t interface {
	Helper()
	Fatalf(format string, args ...any)
}, doc []byte, depth int) {
	t.Helper()
	want, err := stdTree(doc)
	if err != nil {
		t.Fatalf("%.80q: encoding/json: %v", doc, err)
	}
	for _, nodes := range []int{0, countNodes(want)} {
		got, err := tree(doc, depth, nodes)
		if err != nil {
			t.Fatalf("%.80q: tree (%d nodes): %v", doc, nodes, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%.80q: tree (%d nodes) %#.200v, encoding/json %#.200v", doc, nodes, got, want)
		}
	}
}

// countNodes counts a decoded value's nodes as the gate does: containers,
// member names and values.
func countNodes(v any) int {
	n := 1
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			n += 1 + countNodes(e)
		}
	case []any:
		for _, e := range x {
			n += countNodes(e)
		}
	}
	return n
}
