package charge

import (
	"bytes"
	"math/bits"
	"strings"
	"testing"
)

// TestPointerBytesEveryPlace: pointerBytes, which counts a name's ~ and / a
// word at a time, counts what a byte loop counts for names of 0 to 40 bytes
// with ~ or / at every place, bytes past 0x7f beside it, and ~ and / just
// past the name's end (which the last word's mask leaves out), with 0 to 17
// bytes after the name so the word path and the byte-by-byte tail both run
// (and, for a short or empty name, whole words of the document lie past it).
func TestPointerBytesEveryPlace(t *testing.T) {
	for n := 0; n <= 40; n++ {
		for p := -1; p < n; p++ {
			for _, c := range []byte{'~', '/'} {
				name := bytes.Repeat([]byte{'a'}, n)
				if p >= 0 {
					name[p] = c
					if p+1 < n {
						name[p+1] = 0xff
					}
				}
				want := bytes.Count(name, []byte{'~'}) + bytes.Count(name, []byte{'/'})
				for after := 0; after <= 17; after++ {
					doc := append(append([]byte(`"`), name...), strings.Repeat("~/", 9)[:after]...)
					if got := pointerBytes(doc, 1, 1+n); got != want {
						t.Fatalf("pointerBytes(%q, then %d bytes) = %d, want %d", name, after, got, want)
					}
				}
			}
		}
	}
}

// TestNameKeyEveryLength: nameKey is the name's first eight bytes with zero
// above a shorter one, whether read as a word or, near the document's end,
// byte by byte.
func TestNameKeyEveryLength(t *testing.T) {
	for n := 0; n <= 10; n++ {
		name := []byte("abcdefghij"[:n])
		var want uint64
		for i := min(n, 8) - 1; i >= 0; i-- {
			want = want<<8 | uint64(name[i])
		}
		for after := 0; after <= 9; after++ {
			doc := append(append([]byte(nil), name...), strings.Repeat("z", after)...)
			if got := nameKey(doc, 0, n); got != want {
				t.Errorf("nameKey(%q, then %d bytes) = %#x, want %#x", name, after, got, want)
			}
		}
	}
}

// TestNameBitCollisions: two different names that set the same nameBit (so
// the second is compared with the first) are both admitted, and a third equal
// to either is refused; a name whose bit is clear is admitted without
// comparisons, and an unescaped name after an escaped spelling of it is
// refused although the escaped one's raw bytes set another bit.
func TestNameBitCollisions(t *testing.T) {
	g, err := NewGate(Go, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	first := "n0"
	firstBit := nameBit(nameKey([]byte(first), 0, 2), 2)
	second := ""
	for i := 1; i < 1000 && second == ""; i++ {
		if c := "n" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)); nameBit(nameKey([]byte(c), 0, 3), 3) == firstBit {
			second = c // a different length: the bit alone does not tell them apart
		}
	}
	same := ""
	for i := 1; i < 10000 && same == ""; i++ {
		if c := string(rune('a'+i%26)) + string(rune('a'+i/26%26)); c != first && nameBit(nameKey([]byte(c), 0, 2), 2) == firstBit {
			same = c // the same length
		}
	}
	if second == "" || same == "" {
		t.Fatal("no colliding names found")
	}
	for _, c := range []struct{ name, other string }{{"other_length", second}, {"same_length", same}} {
		t.Run(c.name, func(t *testing.T) {
			doc := `{"` + first + `":1,"` + c.other + `":2}`
			if _, err := g.Check([]byte(doc)); err != nil {
				t.Errorf("%s: %v", doc, err)
			}
			doc = `{"` + first + `":1,"` + c.other + `":2,"` + c.other + `":3}`
			if _, err := g.Check([]byte(doc)); err == nil {
				t.Errorf("%s admitted", doc)
			}
		})
	}
	if _, err := g.Check([]byte(`{"\u006e0":1,"n0":2}`)); err == nil {
		t.Errorf("an escaped spelling and then the name admitted")
	}
}

// TestNameBitSpreadsNames: frame.seen only spares comparisons if different
// names set different bits. The 676 two-letter names set at least 48 of the
// 64 bits, and the 26 one-letter names at least 12 (a bit that every name
// sets, or a handful of bits, would send every later name to the comparisons;
// the answers would stay right, the filter would do nothing).
func TestNameBitSpreadsNames(t *testing.T) {
	var two, one uint64
	for a := byte('a'); a <= 'z'; a++ {
		one |= nameBit(nameKey([]byte{a}, 0, 1), 1)
		for b := byte('a'); b <= 'z'; b++ {
			two |= nameBit(nameKey([]byte{a, b}, 0, 2), 2)
		}
	}
	if n := bits.OnesCount64(two); n < 48 {
		t.Errorf("the two-letter names set %d distinct bits, want at least 48", n)
	}
	if n := bits.OnesCount64(one); n < 12 {
		t.Errorf("the one-letter names set %d distinct bits, want at least 12", n)
	}
}
