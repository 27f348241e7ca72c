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
		t.Run(fmt.Sprintf("%x", c.in), func(t *testing.T) { // the sequence's bytes in hex
			if r, n := decodeRune([]byte(c.in)); r != c.r || n != c.n {
				t.Errorf("decodeRune(%q) = %U, %d; want %U, %d", c.in, r, n, c.r, c.n)
			}
		})
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
	for _, o := range []struct{ name, outer string }{{"root", ``}, {"nested", `"a":1,"b":2,"c":`}} {
		outer := o.outer
		t.Run(o.name, func(t *testing.T) {
			for _, names := range []int{linearNames - 1, linearNames} {
				t.Run(fmt.Sprintf("%d_names", names), func(t *testing.T) {
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
				})
			}
		})
	}
}

// TestTheNameIndexIsSizedForTheMostNames: the index is sized once, when an
// object first passes linearNames names, for the most names a document
// within MaxParamsNodes can hold (each needs a value, so fewer than half the
// nodes) at a load factor of at most one half — and no more than twice that
// (a power of two, at least 1024 slots): its memory stays with the limit.
func TestTheNameIndexIsSizedForTheMostNames(t *testing.T) {
	for _, nodes := range []int{40, 2050, 2051, 4097, 100_000, 1 << 20} {
		t.Run(fmt.Sprintf("MaxParamsNodes=%d", nodes), func(t *testing.T) {
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
		})
	}
}

// TestNameIndexProbes holds the name index to its contract with hashes chosen
// by hand (the gate's are seeded, so collisions cannot be arranged through
// it): walking next from first nominates, in probe order, every entry of the
// run of occupied slots from the hash's home that carries the hash's 16-bit
// fragment — so every entry stored under the hash, past entries of other
// fragments and of other homes, in chains that wrap past the table's end —
// and nothing once released.
func TestNameIndexProbes(t *testing.T) {
	var x nameIndex
	x.ready(10)
	size := uint64(len(x.slots))
	if size != 1024 {
		t.Fatalf("%d slots, want 1024", size)
	}
	home := func(slot, frag uint64) uint64 { return frag<<48 | slot }
	walk := func(t *testing.T, h uint64) []int32 {
		var got []int32
		for i, n := x.first(h), 0; n <= int(size); n++ {
			at, after, ok := x.next(h, i)
			if !ok {
				return got
			}
			got = append(got, at)
			i = after
		}
		t.Fatalf("the walk for %#x did not end", h)
		return nil
	}
	for _, at := range []struct {
		name  string
		start uint64
	}{{"middle", 5}, {"wrapping", size - 2}} { // in the middle, and wrapping past the end
		start := at.start
		t.Run(at.name, func(t *testing.T) {
			a, b, c := home(start, 7), home(start, 9), home(start+1, 7) // a and b share a home; a and c a fragment
			x.add(a, 1)
			x.add(b, 2)
			x.add(c, 3)
			x.add(a, 4)
			x.add(home(start, 7)|1<<20, 5) // a's home and fragment, another hash: nominated too (the caller compares names)
			// Stored in slots start..start+4: a, b, c (its home, start+1, taken
			// by b), a, and a's home and fragment under another hash.
			for _, k := range []struct {
				name string
				h    uint64
				want []int32
			}{{"a", a, []int32{1, 3, 4, 5}}, {"b", b, []int32{2}}, {"c", c, []int32{3, 4, 5}}} {
				t.Run("walk_"+k.name, func(t *testing.T) {
					if got := walk(t, k.h); fmt.Sprint(got) != fmt.Sprint(k.want) {
						t.Errorf("start %d: hash %#x nominated %v, want %v", start, k.h, got, k.want)
					}
				})
			}
			x.release()
			for _, h := range []uint64{a, b, c} {
				if got := walk(t, h); len(got) != 0 {
					t.Errorf("start %d: after release hash %#x nominated %v", start, h, got)
				}
			}
		})
	}
}

// TestNameIndexReleaseIsOneIncrement: releasing the index after a document
// bumps its generation and leaves the slots as they are (the next document
// reads them as empty); only when the 16-bit generation wraps are they
// cleared, so no slot of an old generation can match again.
func TestNameIndexReleaseIsOneIncrement(t *testing.T) {
	var x nameIndex
	x.ready(10)
	x.add(5, 1)
	gen := x.gen
	x.release()
	if x.gen != gen+1 || x.slots[5] == 0 {
		t.Errorf("release: generation %d -> %d, slot %#x; want one increment and the slot kept", gen, x.gen, x.slots[5])
	}
	x.release() // nothing added since: nothing to forget
	if x.gen != gen+1 {
		t.Errorf("an empty release moved the generation to %d", x.gen)
	}
	x.gen = fragMask
	x.add(6, 2)
	x.release()
	if x.gen != 1 || x.slots[5] != 0 || x.slots[6] != 0 {
		t.Errorf("release at the last generation: generation %d, slots %#x %#x; want 1 and cleared", x.gen, x.slots[5], x.slots[6])
	}
}
