package charge

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// The vector path (multiBlocks over multiblock_amd64.s) against refPlain,
// the one-code-point-at-a-time reading through utf8.DecodeRune and the
// width tables. Where the build has no vector path the tests say so and
// skip; the portable path is what refPlain is held to elsewhere.

func skipWithoutBlocks(t *testing.T) {
	t.Helper()
	if !vectorRuns {
		t.Skip("no vector path in this build (not amd64, purego, or no AVX2): multiBlocks never runs")
	}
}

// blockRun charges doc[i:] through multiBlocks as multi would, segment by
// segment, and holds every segment the vector path took to refPlain's
// reading of the same bytes. Where a block is declined it steps one code
// point on by refPlain, and stops for good at a byte refPlain stops at. It
// returns how many bytes the vector path took.
func blockRun(t *testing.T, d Dialect, wt *widthTable, doc []byte, i int) (taken int) {
	t.Helper()
	for i < len(doc) {
		j, w := wt.multiBlocks(doc, i, len(doc))
		if j > i {
			if ri, rw := refPlain(wt, doc, i, j); ri != j || rw != w {
				t.Fatalf("%v: multiBlocks(doc, %d) = (%d, %d); refPlain reads %q as (%d, %d)", d, i, j, w, doc[i:j], ri, rw)
			}
			if j < len(doc) && doc[j] >= 0x80 && doc[j] < 0xc0 {
				t.Fatalf("%v: multiBlocks(doc, %d) stopped at %d, inside a code point", d, i, j)
			}
			taken += j - i
			i = j
			continue
		}
		_, n := utf8.DecodeRune(doc[i:])
		if k, _ := refPlain(wt, doc, i, i+1); k == i {
			return taken
		}
		i += n
	}
	return taken
}

// TestMultiBlocksChargeEveryCodePoint: every code point that a string holds
// raw (all scalar values but " \ and C0), each among unflagged filler of
// varying length so that it meets the flag lookup, the flagged code point's
// table read, both 128-bit lanes and the block's last three places, is
// charged by the vector path what refPlain charges it. The vector path must
// take nearly the whole document, or the test proves nothing.
func TestMultiBlocksChargeEveryCodePoint(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: a sweep on one goroutine, which the full run holds")
	}
	skipWithoutBlocks(t)
	fillers := []string{"é", "ab", "中", "aé", "xyz", "éé", "a中", "éab"}
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			wt := widthsFor(d)
			for shift := range 3 {
				doc := []byte(`{"s":"` + strings.Repeat("é", shift))
				k := 0
				for r := rune(0x20); r <= utf8.MaxRune; r++ {
					if r == '"' || r == '\\' || (r >= 0xd800 && r < 0xe000) {
						continue
					}
					doc = utf8.AppendRune(doc, r)
					doc = append(doc, fillers[k%len(fillers)]...)
					k++
				}
				doc = append(doc, `"}`...)
				taken := blockRun(t, d, wt, doc, 6)
				if taken < len(doc)*9/10 {
					t.Fatalf("%v, shift %d: the vector path took %d of %d bytes", d, shift, taken, len(doc))
				}
			}
		})
	}
}

// TestMultiBlocksEndOnAWholeCodePoint: a code point of each length at every
// place of a block (0 to 35, so across the block's end), among code points of
// each length or just before an escape, is charged whole or left whole to
// the next block, and the path never stops inside it.
func TestMultiBlocksEndOnAWholeCodePoint(t *testing.T) {
	skipWithoutBlocks(t)
	probes := []string{"é", "\u0600", "中", "\u2028", "😀", "\U000e0001", "\x7f", "'"}
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			wt := widthsFor(d)
			for _, probe := range probes {
				t.Run(fmt.Sprintf("U%04X", []rune(probe)[0]), func(t *testing.T) {
					for _, fill := range []string{"a", "é", "中"} {
						for at := 0; at < 36; at++ {
							// The probe is followed by more of the run, or by an
							// escape that makes the next block the path's last.
							for _, after := range []string{"", `\n`} {
								pre := `"aa`
								body := "é" + strings.Repeat("a", at)
								doc := []byte(pre + body + probe + after + strings.Repeat(fill, 40) + `"`)
								if blockRun(t, d, wt, doc, len(pre)) == 0 && after == "" {
									t.Fatalf("%v: the vector path took nothing of %q", d, doc)
								}
							}
						}
					}
				})
			}
		})
	}
}

// TestMultiBlocksReadToTheFirstStop: a block that holds a stop byte (" \
// or any C0 byte) is charged up to it, wherever in the block it is, after
// code points of every length, in both dialects and with the fine flags
// (a run that begins with U+0915), as the run's first block and as the
// block after a whole one: taken whole (but for a first block whose first
// word holds the stop), and what refPlain charges. What follows the stop in
// the block is not charged and cannot decline it: more flagged code points
// than a block may hold, odd bytes, invalid UTF-8. A sequence the stop
// cuts short declines the block (the scalar loop refuses it).
func TestMultiBlocksReadToTheFirstStop(t *testing.T) {
	skipWithoutBlocks(t)
	stopBytes := []byte{'"', '\\'}
	for c := byte(0); c < 0x20; c++ {
		stopBytes = append(stopBytes, c)
	}
	fills := []string{"a", "é", "中", "😀", "\u0600", "'", "\x7f", "\U000e0001"}
	cuts := []string{"", "\xc3", "\xe4", "\xe4\xb8", "\xf0", "\xf0\x9f", "\xf0\x9f\x98"}
	tails := []string{
		strings.Repeat("\u0600", 8) + "\x7f'",              // flagged code points past maxFlagged
		"\x7f'\x7f'\xff\xfe\xc3" + strings.Repeat("'", 20), // odd bytes, invalid UTF-8
	}
	for _, d := range Dialects() {
		wt := widthsFor(d)
		for _, lead := range []string{"é", "क", "é" + strings.Repeat("é", 16), "क" + strings.Repeat("क", 10) + "é"} {
			for _, stop := range stopBytes {
				for at := 1; at < 32; at++ {
					for _, cut := range cuts {
						// A long lead is a whole first block; the stop is
						// then in the second.
						first := len(lead) / 32 * 32
						if len(lead)-first+len(cut) > at {
							continue
						}
						var fill []byte
						for k := 0; len(lead)-first+len(fill)+len(cut) < at; k++ {
							f := fills[k%len(fills)]
							if len(lead)-first+len(fill)+len(cut)+len(f) > at {
								f = "a"
							}
							fill = append(fill, f...)
						}
						for _, tail := range tails {
							pre := `{"s":"`
							doc := []byte(pre + lead + string(fill) + cut)
							doc = append(doc, stop)
							doc = append(doc, tail+strings.Repeat("é", 24)+`"}`...)
							i := len(pre)
							ri, rw := refPlain(wt, doc, i, len(doc))
							j, w := wt.multiBlocks(doc, i, len(doc))
							switch {
							case cut == "" && (at >= 8 || first > 0) && (j != ri || w != rw):
								t.Fatalf("%v: multiBlocks(%q) = (%d, %d); refPlain reads to the stop at %d as (%d, %d)", d, doc, j, w, ri, ri, rw)
							case cut == "" && j != i && (j != ri || w != rw):
								t.Fatalf("%v: multiBlocks(%q) = (%d, %d); refPlain reads (%d, %d)", d, doc, j, w, ri, rw)
							case cut != "" && (j > ri || (first == 0 && j != i)):
								t.Fatalf("%v: multiBlocks(%q) took a block to %d, past the sequence the stop cuts short (refPlain stops at %d)", d, doc, j, ri)
							case j > i && (j > ri || w != func() int64 { _, pw := refPlain(wt, doc, i, j); return pw }()):
								t.Fatalf("%v: multiBlocks(%q) = (%d, %d); refPlain stops at %d", d, doc, j, w, ri)
							}
						}
					}
				}
			}
		}
	}
}

// TestMultiBlocksRefuseEveryBadPair: every pair of a byte past ASCII and any
// byte, followed by two of a few bytes that continue or end a sequence, in
// a block of otherwise valid text and at two places (each 128-bit lane), is
// never taken past where refPlain stops: the validation declines the block
// and the scalar loop refuses at the exact byte.
func TestMultiBlocksRefuseEveryBadPair(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: a sweep on one goroutine, which the full run holds")
	}
	skipWithoutBlocks(t)
	// Past the second byte only whether a byte continues matters: every
	// range a sequence's bytes must keep is its second byte's.
	thens := []byte{0x80, 0xbf, 'a', 0xc3}
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			wt := widthsFor(d)
			for _, at := range []int{5, 21} {
				doc := []byte(`{"s":"` + strings.Repeat("é", 40))
				lead := 6 + 2*(at/2)
				for b0 := 0x80; b0 <= 0xff; b0++ {
					for b1 := 0; b1 <= 0xff; b1++ {
						for _, b2 := range thens {
							for _, b3 := range thens {
								doc := doc[:lead]
								doc = append(doc, byte(b0), byte(b1), b2, b3)
								doc = append(doc, strings.Repeat("é", 24)...)
								doc = append(doc, `"}`...)
								ri, _ := refPlain(wt, doc, 6, len(doc))
								gi, gw := wt.multi(doc, 6, len(doc))
								if pi, pw := refPlain(wt, doc, 6, gi); gi > ri || pi != gi || pw != gw {
									t.Fatalf("%v: multi over % x at %d = (%d, %d); refPlain stops at %d", d, []byte{byte(b0), byte(b1), b2, b3}, lead, gi, gw, ri)
								}
							}
						}
					}
				}
			}
		})
	}
}

// TestAstralBlocksCountEveryCodePoint: astralBlockAVX2 over every astral code
// point, eight at a time in order (so each in one dword of a block, every
// dword holding every eighth one), counts as printable exactly those the
// dialect classes Printable, read from Dialect.RuneClass, not the table the
// gather reads; and multi charges a run of them what refPlain does.
func TestAstralBlocksCountEveryCodePoint(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: a sweep on one goroutine, which the full run holds")
	}
	skipWithoutBlocks(t)
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			wt := widthsFor(d)
			for shift := range 2 {
				var doc []byte
				for r := rune(0x10000 + shift); r <= utf8.MaxRune; r++ {
					doc = utf8.AppendRune(doc, r)
				}
				for k := 0; k+32 <= len(doc); k += 32 {
					p, ok := astralBlockAVX2((*[32]byte)(doc[k:k+32]), &wt.astral[0])
					want := 0
					for j := k; j < k+32; j += 4 {
						r, _ := utf8.DecodeRune(doc[j:])
						if d.RuneClass(r) == Printable {
							want++
						}
					}
					if !ok || int(p) != want {
						t.Fatalf("%v: astralBlockAVX2(% x) = (%d, %v), want (%d, true)", d, doc[k:k+32], p, ok, want)
					}
				}
				doc = append(append([]byte(`"`), doc...), '"')
				gi, gw := wt.multi(doc, 1, len(doc))
				if ri, rw := refPlain(wt, doc, 1, len(doc)); gi != ri || gw != rw {
					t.Fatalf("%v, shift %d: multi over every astral code point = (%d, %d), refPlain (%d, %d)", d, shift, gi, gw, ri, rw)
				}
			}
		})
	}
}

// TestAstralBlocksRefuseEveryBadSequence: a four-byte lead or past (0xf0 to
// 0xff) followed by any byte and two of a few, in each dword of a block of
// valid astral code points, is declined unless it is a valid astral code
// point, and then counted as the dialect classes it.
func TestAstralBlocksRefuseEveryBadSequence(t *testing.T) {
	skipWithoutBlocks(t)
	thens := []byte{0x80, 0xbf, 'a', 0xf0}
	d := Go
	wt := widthsFor(d)
	valid := []byte(strings.Repeat("😀", 8))
	for slot := range 8 {
		for b0 := 0xf0; b0 <= 0xff; b0++ {
			for b1 := 0; b1 <= 0xff; b1++ {
				for _, b2 := range thens {
					for _, b3 := range thens {
						blk := [32]byte(valid)
						seq := []byte{byte(b0), byte(b1), b2, b3}
						copy(blk[4*slot:], seq)
						p, ok := astralBlockAVX2(&blk, &wt.astral[0])
						r, n := utf8.DecodeRune(seq)
						if wantOK := n == 4; ok != wantOK {
							t.Fatalf("astralBlockAVX2 with % x in dword %d: ok = %v, want %v", seq, slot, ok, wantOK)
						}
						want := 7
						if d.RuneClass(r) == Printable {
							want++
						}
						if ok && int(p) != want {
							t.Fatalf("astralBlockAVX2 with % x in dword %d: %d printable, want %d", seq, slot, p, want)
						}
					}
				}
			}
		}
	}
}

// TestQuoteOrControlEveryByte: quoteOrControl, the word test multiBlocks
// makes before its first block, says exactly whether a word holds a quote, a
// backslash or a C0 byte: each of the 256 bytes at each place of a word of
// each byte that is none of them, and random words against a byte at a time.
func TestQuoteOrControlEveryByte(t *testing.T) {
	match := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }
	for f := 0; f < 256; f++ {
		if match(byte(f)) {
			continue
		}
		for c := 0; c < 256; c++ {
			for k := 0; k < 8; k++ {
				x := uint64(ones*uint64(f))&^(0xff<<(8*k)) | uint64(c)<<(8*k)
				if got := quoteOrControl(x); got != match(byte(c)) {
					t.Fatalf("quoteOrControl(%#016x) = %v: byte %#x at place %d among %#x", x, got, c, k, f)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		x := rng.Uint64()
		want := false
		for k := 0; k < 8; k++ {
			want = want || match(byte(x>>(8*k)))
		}
		if quoteOrControl(x) != want {
			t.Fatalf("quoteOrControl(%#016x) = %v", x, !want)
		}
	}
}

// TestFineBlocksTakeWholeScripts: with the fine flags, runs of Devanagari
// (U+0900..U+097F) and of katakana (U+30C0..U+30FF), each script's every
// code point in turn, are read by the vector path nearly whole, in both
// dialects: their leads' groups of 64 hold no code point that costs other
// than its length's usual width, where the lead3 flags mark every one of
// them (so a block of them is declined for its flags).
func TestFineBlocksTakeWholeScripts(t *testing.T) {
	skipWithoutBlocks(t)
	for _, script := range [][2]rune{{0x900, 0x980}, {0x30c0, 0x3100}} {
		doc := []byte(`{"s":"`)
		for len(doc) < 4096 {
			for r := script[0]; r < script[1]; r++ {
				doc = utf8.AppendRune(doc, r)
			}
		}
		doc = append(doc, `"}`...)
		for _, d := range Dialects() {
			wt := widthsFor(d)
			if taken := blockRun(t, d, wt, doc, 6); taken < len(doc)*9/10 {
				t.Errorf("%v: U+%04X..U+%04X: the fine vector path took %d of %d bytes", d, script[0], script[1]-1, taken, len(doc))
			}
		}
	}
}

// TestFineBlocksChargeEveryCodePoint: every code point of leads 0xe0 and
// 0xe3 (U+0800..U+0FFF, U+3000..U+3FFF), the only ones the fine flags read
// otherwise, among fillers of those leads (so that every run, and every
// read after a declined block, begins with one and is read with the fine
// flags), is charged by the vector path what refPlain charges it; and the
// path takes most of the document.
func TestFineBlocksChargeEveryCodePoint(t *testing.T) {
	skipWithoutBlocks(t)
	fillers := []string{"क", "कक", "ダ", "कダ", "ダダダ"}
	for _, d := range Dialects() {
		wt := widthsFor(d)
		for shift := range 3 {
			doc := []byte(`{"s":"` + strings.Repeat("क", shift+1))
			k := 0
			for _, span := range [][2]rune{{0x800, 0x1000}, {0x3000, 0x4000}} {
				for r := span[0]; r < span[1]; r++ {
					doc = utf8.AppendRune(doc, r)
					doc = append(doc, fillers[k%len(fillers)]...)
					k++
				}
			}
			doc = append(doc, `"}`...)
			if taken := blockRun(t, d, wt, doc, 6); taken < len(doc)*3/4 {
				t.Fatalf("%v, shift %d: the vector path took %d of %d bytes", d, shift, taken, len(doc))
			}
		}
	}
}
