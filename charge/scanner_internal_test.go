package charge

import (
	"fmt"
	"strings"
	"testing"
)

// TestDecodeRuneRefusesWhatIsNotUTF8: decodeRune's contract, byte for byte: a
// valid multi-byte sequence decodes (U+FFFD itself included), and an invalid
// lead, a cut sequence, an overlong form, a surrogate and a value past
// U+10FFFF give n == 0. (The string scan only hands it validated bytes; the
// contract is held here, where a caller that did not would be caught.)
func TestDecodeRuneRefusesWhatIsNotUTF8(t *testing.T) {
	for _, c := range []struct {
		in string
		r  rune
		n  int
	}{
		{"é", 'é', 2}, {"中", '中', 3}, {"😀", '😀', 4}, {"\uFFFD", '\uFFFD', 3}, {"\U0010FFFF", 0x10FFFF, 4},
		{"\xff", 0, 0}, {"\x80", 0, 0}, {"\xc3", 0, 0}, {"\xe4\xb8", 0, 0}, {"\xc0\xaf", 0, 0},
		{"\xed\xa0\x80", 0, 0}, {"\xf4\x90\x80\x80", 0, 0},
	} {
		if r, n := decodeRune([]byte(c.in)); r != c.r || n != c.n {
			t.Errorf("decodeRune(%q) = %U, %d; want %U, %d", c.in, r, n, c.r, c.n)
		}
	}
}

// TestAnObjectsNamesAreIndexedAtLinearNames: an object's duplicate check
// compares a new name with each earlier one only while the object holds
// fewer than linearNames names; at linearNames its names go into the hash
// index, so a document of many names costs linear time, not quadratic. Held
// for the root object and for one nested after names of enclosing objects
// (whose names sit before it in the scanner's list).
func TestAnObjectsNamesAreIndexedAtLinearNames(t *testing.T) {
	g, err := NewGate(Python, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, outer := range []string{``, `"a":1,"b":2,"c":`} {
		for _, names := range []int{linearNames - 1, linearNames} {
			var b strings.Builder
			b.WriteString("{" + outer)
			if outer != "" {
				b.WriteString("{")
			}
			for i := range names {
				fmt.Fprintf(&b, `"k%d":0,`, i)
			}
			doc := strings.TrimSuffix(b.String(), ",") // cut before the object closes
			s := new(scanner)
			s.reset(g, []byte(doc))
			if ref := s.run(); ref == nil || ref.Bound != BoundSyntax || ref.Offset != len(doc) {
				t.Fatalf("%s: %v, want the cut at its end", doc, ref)
			}
			f := s.stack[len(s.stack)-1]
			if held := len(s.list) - int(f.namesAt); held != names || f.mapped != (names >= linearNames) {
				t.Errorf("outer %q, %d names: the object holds %d, indexed %v", outer, names, held, f.mapped)
			}
			s.release()
		}
	}
}

// TestTheNameIndexIsSizedForTheMostNames: the index is sized once, when an
// object first passes linearNames names, for the most names a document
// within MaxParamsNodes can hold (each needs a value, so fewer than half the
// nodes) at a load factor of at most one half — and no more than twice that
// (a power of two, at least 1024 slots): its memory stays with the limit.
func TestTheNameIndexIsSizedForTheMostNames(t *testing.T) {
	for _, nodes := range []int{40, 2050, 4097, 100_000, 1 << 20} {
		l := DefaultLimits()
		l.MaxParamsNodes = nodes
		g, err := NewGate(Go, l)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteByte('{')
		for i := range linearNames {
			fmt.Fprintf(&b, `"k%d":0,`, i)
		}
		s := new(scanner)
		s.reset(g, []byte(b.String()))
		s.run()
		mostNames := (nodes - 1) / 2
		need := 1024
		for need < 2*mostNames {
			need <<= 1
		}
		if n := len(s.index.slots); n < 2*mostNames || n > 2*need {
			t.Errorf("MaxParamsNodes %d (at most %d names): %d slots, want %d..%d", nodes, mostNames, n, max(2*mostNames, 1024), 2*need)
		}
		s.release()
	}
}
