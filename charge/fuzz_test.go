package charge_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// FuzzGate holds the gate to its promises over arbitrary bytes:
//   - it never panics;
//   - an admitted document is one encoding/json decodes, its charge equals the
//     reference renderer's sum over its leaves and names, its node count equals
//     the reference's, and its whole reference render fits
//     charge + nodes*PerNodeMax;
//   - a strictness refusal is of a document encoding/json rejects, or one
//     I-JSON (RFC 7493) forbids: invalid UTF-8, a lone surrogate, a repeated
//     name;
//   - a refusal is printable ASCII within MaxRefusalBytes.
func FuzzGate(f *testing.F) {
	for _, seed := range []string{
		`{"query":"hello","limit":10}`, `[1,-0,2.5e-7,1e16,true,false,null]`, `"it's \"q\" \\"`,
		`{"a":{"b":[{"c":"\u0600\u007f\ud83d\ude00"}]}}`, "\"\x7f\u00ad\U000e0001\"", `{"a":1,"a":2}`,
		`"\ud800"`, "\"\xff\"", `[[[[[[[[]]]]]]]]`, `{"\\":"\\\\","'":"''"}`, `-0.0`, `1e999`, `123456789e-30`,
	} {
		f.Add([]byte(seed))
	}
	l := charge.DefaultLimits()
	l.MaxParamsRenderedChars = 4096 // small enough that fuzzing reaches the charge bound
	l.MaxParamsNodes = 256
	l.MaxParamsNesting = 16
	gates := map[charge.Dialect]*charge.Gate{}
	for _, d := range charge.Dialects() {
		gates[d] = gate(f, d, l)
	}
	iJSONOnly := map[charge.Bound]bool{charge.BoundUTF8: true, charge.BoundSurrogate: true, charge.BoundDuplicateName: true}
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, d := range charge.Dialects() {
			rep, ref := check(t, gates[d], doc)
			if ref != nil {
				msg := ref.Error()
				if len(msg) > charge.MaxRefusalBytes() {
					t.Fatalf("%s: refusal of %d bytes past MaxRefusalBytes %d", d, len(msg), charge.MaxRefusalBytes())
				}
				if strings.ContainsFunc(msg, func(r rune) bool { return r < 0x20 || r >= 0x7f }) {
					t.Fatalf("%s: refusal holds a byte outside printable ASCII: %q", d, msg)
				}
				if !ref.Bound.Limited() && json.Valid(doc) && !iJSONOnly[ref.Bound] {
					t.Fatalf("%s: refused as %s (%v), but encoding/json accepts it and I-JSON allows it", d, ref.Bound, ref)
				}
				continue
			}
			v, err := reference.Decode(doc)
			if err != nil {
				t.Fatalf("%s: admitted, but encoding/json refuses it: %v", d, err)
			}
			if want := reference.Charge(d, v); rep.Charge != want {
				t.Fatalf("%s: charge %d, reference %d", d, rep.Charge, want)
			}
			if want := reference.Nodes(v); rep.Nodes != want {
				t.Fatalf("%s: %d nodes, reference %d", d, rep.Nodes, want)
			}
			whole := reference.Width(d, reference.Render(d, v))
			if ceiling := rep.Charge + int64(rep.Nodes*d.PerNodeMax()); whole > ceiling {
				t.Fatalf("%s: whole render %d past charge %d + %d nodes x %d", d, whole, rep.Charge, rep.Nodes, d.PerNodeMax())
			}
		}
	})
}
