package charge_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
)

// The wire classes partition the Unicode scalar values: each value is in
// exactly one class, each class holds Count values and its Example, and each
// value's landed bytes are its UTF-8 length. Checked here, over every code
// point, with the classes' own predicates (package sweeps proves the same
// model against the encoders; this keeps charge's own tests from leaning on
// it). The one-byte classes are also held to encoding/json's escaping: a
// value it escapes costs more than one wire byte under the go encoder.
func TestWireClassesPartitionTheScalarValues(t *testing.T) {
	classes := charge.WireClasses()
	counts := make([]int, len(classes))
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xd800 && r < 0xe000 {
			for _, c := range classes {
				if c.Contains(r) {
					t.Fatalf("surrogate %U is in class %q", r, c.Name)
				}
			}
			continue
		}
		in := -1
		for i, c := range classes {
			if c.Contains(r) {
				if in >= 0 {
					t.Fatalf("%U is in %q and in %q", r, classes[in].Name, c.Name)
				}
				in = i
			}
		}
		if in < 0 {
			t.Fatalf("%U is in no class", r)
		}
		counts[in]++
		if got, want := classes[in].Landed, utf8.RuneLen(r); got != want {
			t.Fatalf("%U: class %q lands %d bytes, UTF-8 has %d", r, classes[in].Name, got, want)
		}
		if byClass, ok := charge.WireClassOf(r); !ok || byClass.Name != classes[in].Name {
			t.Fatalf("WireClassOf(%U) = %q, %v; the predicates say %q", r, byClass.Name, ok, classes[in].Name)
		}
	}
	for i, c := range classes {
		t.Run(caseName(c.Name), func(t *testing.T) {
			if counts[i] != c.Count {
				t.Errorf("class %q: %d code points, Count says %d", c.Name, counts[i], c.Count)
			}
			if !c.Contains(c.Example) {
				t.Errorf("class %q does not hold its example %U", c.Name, c.Example)
			}
		})
	}
	// Below 0x80, which values Go's encoding/json (HTML escaping on) writes
	// as more than their one byte.
	for r := rune(0); r < 0x80; r++ {
		b, _ := json.Marshal(string(r))
		escaped := len(b)-2 > 1
		c, _ := charge.WireClassOf(r)
		wide := false
		for _, e := range charge.Encoders() {
			if c.Wire(e) > 1 {
				wide = true
			}
		}
		if escaped && !wide {
			t.Errorf("%U: encoding/json escapes it (%s) but class %q is one wire byte under every encoder", r, b, c.Name)
		}
	}
}
