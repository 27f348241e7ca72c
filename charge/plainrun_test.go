package charge

import (
	"math/rand/v2"
	"testing"
)

// referencePlainRun is plainRun one byte at a time from the ASCII widths
// alone: a run is the bytes below 0x80 whose width is not zero.
func referencePlainRun(t *widthTable, b []byte) (n int, w int64) {
	for n < len(b) && b[n] < 0x80 && t.ascii[b[n]] != 0 {
		w += int64(t.ascii[b[n]])
		n++
	}
	return n, w
}

// plainRunCases are runs of every length up to 80 and a few long ones,
// built of printable ASCII heavy in each dialect's odd bytes, each closed by
// every byte value in turn (and once by the end of the slice).
func plainRunCases(yield func([]byte) bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	fill := []byte("a ~'\x7f'\x7f!Z")
	for _, n := range append(seq(0, 80), 95, 96, 97, 511, 512, 513, 1000, 4099) {
		run := make([]byte, n, n+1)
		for i := range run {
			run[i] = fill[rng.IntN(len(fill))]
		}
		if !yield(run) {
			return
		}
		for c := 0; c < 256; c++ {
			if !yield(append(run[:n:n], byte(c), 'a', 'b')) {
				return
			}
		}
	}
}

func seq(from, to int) []int {
	var s []int
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

// TestPlainRunPathsAgree holds the vector path, the portable word path and
// plainRun itself to a byte-at-a-time reference, in both dialects, on runs
// of every length to 80 (every place in a 32-byte block and an 8-byte word)
// closed by each of the 256 byte values.
func TestPlainRunPathsAgree(t *testing.T) {
	if !vectorRuns {
		t.Log("no vector path on this CPU or build: the portable path only")
	}
	for _, d := range []Dialect{Python, Go} {
		t.Run(d.String(), func(t *testing.T) { plainRunPathsAgree(t, d) })
	}
}

// plainRunPathsAgree is TestPlainRunPathsAgree for one dialect (the cases
// draw from their own seed: the same whichever dialects run).
func plainRunPathsAgree(t *testing.T, d Dialect) {
	tab := widthsFor(d)
	plainRunCases(func(b []byte) bool {
		wantN, wantW := referencePlainRun(tab, b)
		if n, w := tab.plainRun(b); n != wantN || w != wantW {
			t.Errorf("%v plainRun(%q) = %d, %d; want %d, %d", d, b, n, w, wantN, wantW)
			return false
		}
		if n, w := tab.plainRunWords(b); n != wantN || w != wantW {
			t.Errorf("%v plainRunWords(%q) = %d, %d; want %d, %d", d, b, n, w, wantN, wantW)
			return false
		}
		if vectorRuns && len(b) >= 32 {
			n, c0, c1 := plainRunAVX2(b, tab.odd[0], tab.odd[1])
			stopped := n < len(b) && stopByte(b[n])
			if n > wantN || (!stopped && n < len(b)-31) || (stopped && n != wantN) {
				t.Errorf("%v plainRunAVX2(%q) stopped at %d; the run is %d", d, b, n, wantN)
				return false
			}
			if c0 != countOf(b[:n], tab.odd[0]) || c1 != countOf(b[:n], tab.odd[1]) {
				t.Errorf("%v plainRunAVX2(%q) counted %d, %d odd bytes", d, b, c0, c1)
				return false
			}
		}
		return true
	})
}

func countOf(b []byte, c byte) (k int) {
	for _, x := range b {
		if x == c {
			k++
		}
	}
	return k
}

// TestStopByteEveryByte: stopByte and the word mask stops agree with the
// ASCII widths on all 256 bytes, as a word's lowest byte and in every place.
func TestStopByteEveryByte(t *testing.T) {
	tab := widthsFor(Python)
	for c := 0; c < 256; c++ {
		want := c >= 0x80 || tab.ascii[c] == 0
		if stopByte(byte(c)) != want {
			t.Errorf("stopByte(%#x) = %v", c, !want)
		}
		for k := 0; k < 8; k++ {
			x := uint64(ones*'a')&^(0xff<<(8*k)) | uint64(c)<<(8*k)
			if got := stops(x) != 0 && bitsTrailingByte(stops(x)) == k; got != want {
				t.Errorf("stops with %#x at byte %d: first stop there = %v, want %v", c, k, got, want)
			}
		}
	}
}

func bitsTrailingByte(x uint64) int {
	for k := 0; k < 8; k++ {
		if x&(0x80<<(8*k)) != 0 {
			return k
		}
	}
	return 8
}
