package charge

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"unicode/utf8"
)

// These tests hold the word-at-a-time string paths of widths.go to their
// documented contracts, each against a byte-at-a-time reading of the same
// tables (t.ascii, t.of), which the gate's slow path and RuneWidth share. The
// lengths sit around the word (8), the double word (16), four words (32) and
// plainRunWords' long-run switch to bytes.Count (512), with every offset and end position near them.

// refPlain is plain's contract read one code point at a time: charge the
// ASCII bytes with a nonzero ascii width and valid UTF-8 sequences starting
// before end (one may run past end, never past doc); stop at anything else.
func refPlain(t *widthTable, doc []byte, i, end int) (int, int64) {
	var w int64
	for i < end {
		c := doc[i]
		if c < utf8.RuneSelf {
			if t.ascii[c] == 0 {
				break
			}
			w += int64(t.ascii[c])
			i++
			continue
		}
		r, n := utf8.DecodeRune(doc[i:])
		if r == utf8.RuneError && n <= 1 {
			break // invalid, truncated, overlong or a surrogate
		}
		w += int64(t.of(r))
		i += n
	}
	return i, w
}

// plainBytes are the ASCII bytes a plain run holds, the odd bytes (' and DEL)
// several times over so that most words hold one.
func plainBytes(t *widthTable) []byte {
	var b []byte
	for c := 0x20; c <= 0x7f; c++ {
		if t.ascii[c] != 0 {
			b = append(b, byte(c))
		}
	}
	for range 12 {
		b = append(b, '\'', 0x7f)
	}
	return b
}

func randomPlain(rng *rand.Rand, alphabet []byte, n int) []byte {
	b := make([]byte, n)
	for k := range b {
		b[k] = alphabet[rng.IntN(len(alphabet))]
	}
	return b
}

// TestShortPlainReadsAtMostFourWords: shortPlain's n is the content's length
// exactly when four words of doc (each whole inside doc) hold the plain content
// and its closing quote, and -1 otherwise; w is the content's width. Each
// length is tried with odd bytes, with none (the first word's short path),
// and with one last; cut short by the document's end; and under a table
// whose word path is off.
func TestShortPlainReadsAtMostFourWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 58))
	for _, d := range Dialects() {
		wt := widthsFor(d)
		alphabet := plainBytes(wt)
		var even []byte // no odd byte
		for _, c := range alphabet {
			if wt.ascii[c] == 1 {
				even = append(even, c)
			}
		}
		// The contents are drawn here, before the dialect's subtest, so that
		// -run picking one dialect gives it the contents a whole run does.
		contents := make([][][]byte, 41)
		for n := range contents {
			contents[n] = [][]byte{randomPlain(rng, alphabet, n), randomPlain(rng, even, n), append(randomPlain(rng, even, n), wt.odd[0])[1:]}
		}
		t.Run(d.String(), func(t *testing.T) { shortPlainReadsAtMostFourWords(t, d, wt, contents) })
	}
}

func shortPlainReadsAtMostFourWords(t *testing.T, d Dialect, wt *widthTable, contents [][][]byte) {
	off := *wt
	off.words = false
	for n := 0; n <= 40; n++ {
		for _, content := range contents[n] {
			if len(content) < n {
				continue
			}
			for at := 0; at <= 8; at++ {
				cut := slices.Concat(make([]byte, at), content)
				if gn, _, _ := wt.shortPlain(cut, at); gn != -1 {
					t.Fatalf("%v: shortPlain of %d plain bytes at %d with no closing quote = %d, want -1", d, n, at, gn)
				}
			}
			var want int64
			for _, c := range content {
				want += int64(wt.ascii[c])
			}
			for at := 0; at <= 8; at++ {
				for pad := 0; pad <= 9; pad++ {
					doc := slices.Concat([]byte("{\"k\":\""[:min(at, 6)]), make([]byte, max(at-6, 0)), content, []byte{'"'}, []byte("}}}}}}}}}")[:pad])
					fits := n < 32 && at+8*(n/8+1) <= len(doc)
					gn, gw, gk := wt.shortPlain(doc, at)
					switch {
					case fits && (gn != n || gw != want || gk != nameKey(doc, at, at+n)):
						t.Fatalf("%v: shortPlain of %d plain bytes at %d, %d bytes after the quote = (%d, %d, %#x), want (%d, %d, %#x)", d, n, at, pad, gn, gw, gk, n, want, nameKey(doc, at, at+n))
					case !fits && gn != -1:
						t.Fatalf("%v: shortPlain of %d plain bytes at %d, %d bytes after the quote = %d, want -1 (four words of the document do not hold it)", d, n, at, pad, gn)
					}
					// A stop byte inside the content: never a short plain string.
					for s := 0; s < n; s++ {
						for _, stop := range []byte{'\\', 0x1f, 0xc3, '"' + 0x80} {
							bad := slices.Clone(doc)
							bad[at+s] = stop
							if gn, _, _ := wt.shortPlain(bad, at); gn != -1 {
								t.Fatalf("%v: shortPlain with %#x at content byte %d of %d = %d, want -1", d, stop, s, n, gn)
							}
						}
					}
					if gn, _, _ := off.shortPlain(doc, at); gn != -1 {
						t.Fatalf("%v: shortPlain with the word path off = %d, want -1", d, gn)
					}
				}
			}
		}
	}
}

// TestPlainRunIsTheRunsWidth: plainRun and plainRunWords on a whole plain
// run give its length and what its bytes cost — runs short and long (across
// the 512-byte switch to bytes.Count), empty, at the document's start and
// end, and followed by up to 17 more plain bytes outside the slice.
func TestPlainRunIsTheRunsWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 86))
	lengths := []int{0, 1, 2, 3, 6, 7, 8, 9, 10, 15, 16, 17, 23, 24, 25, 31, 32, 33, 63, 64, 65, 511, 512, 513, 520}
	for _, d := range Dialects() {
		wt := widthsFor(d)
		alphabet := plainBytes(wt)
		// The documents are drawn here, in the order the subtest reads them,
		// so that -run picking one dialect gives it what a whole run does.
		var docs [][]byte
		for _, n := range lengths {
			for from := 0; from <= 8; from++ {
				for after := 0; after <= 17; after++ {
					docs = append(docs, randomPlain(rng, alphabet, from+n+after))
				}
			}
		}
		t.Run(d.String(), func(t *testing.T) {
			next := 0
			for _, n := range lengths {
				for from := 0; from <= 8; from++ {
					for after := 0; after <= 17; after++ {
						doc := docs[next]
						next++
						var want int64
						for _, c := range doc[from : from+n] {
							want += int64(wt.ascii[c])
						}
						run := doc[from : from+n]
						if gn, got := wt.plainRunWords(run); gn != n || got != want {
							t.Fatalf("%v: plainRunWords of a %d-byte run at %d, %d bytes after it = %d, %d, want %d, %d", d, n, from, after, gn, got, n, want)
						}
						if gn, got := wt.plainRun(run); gn != n || got != want {
							t.Fatalf("%v: plainRun of a %d-byte run at %d, %d bytes after it = %d, %d, want %d, %d", d, n, from, after, gn, got, n, want)
						}
					}
				}
			}
		})
	}
}

// stringDocs are the documents plain and multi are driven over: runs of one
// kind of code point (ASCII, 2-, 3- and 4-byte, sized around 8, 16 and 512
// bytes), and mixes of every kind with the odd ASCII bytes and, now and then, a
// byte that stops the scan.
func stringDocs(rng *rand.Rand, alphabet []byte) [][]byte {
	kinds := [][]rune{
		{'a', '\'', 0x7f, ' ', '~'},
		{0x80, 0xe9, 0x600, 0x7ff},
		{0x800, 0x4e2d, 0xd7ff, 0xe000, 0x2028, 0xfffd, 0xffff},
		{0x10000, 0x1f600, 0xe0001, 0x10ffff},
	}
	stops := [][]byte{{'"'}, {'\\'}, {0x01}, {0x80}, {0xc0, 0xaf}, {0xed, 0xa0, 0x80}, {0xf4, 0x90, 0x80, 0x80}, {0xe4, 0xb8}, {0xff}}
	var docs [][]byte
	for _, rs := range kinds {
		for _, size := range []int{7, 8, 9, 15, 16, 17, 24, 33, 511, 512, 513} {
			var b []byte
			for len(b) < size {
				b = utf8.AppendRune(b, rs[rng.IntN(len(rs))])
			}
			docs = append(docs, b)
		}
	}
	for k := range 24 {
		var b []byte
		size := []int{17, 40, 96, 530}[k%4]
		for len(b) < size {
			switch x := rng.IntN(40); {
			case x == 0:
				b = append(b, stops[rng.IntN(len(stops))]...)
			case x < 20:
				b = append(b, randomPlain(rng, alphabet, 1+rng.IntN(12))...)
			default:
				rs := kinds[1+rng.IntN(3)]
				for range 1 + rng.IntN(6) {
					b = utf8.AppendRune(b, rs[rng.IntN(len(rs))])
				}
			}
		}
		docs = append(docs, b)
	}
	return docs
}

// ends are the end positions tried for a scan from i: every one on a short
// document, and on a long one those near i, near the document's end and near
// 512 bytes on, and every seventh.
func ends(doc []byte, i int) []int {
	var e []int
	for end := i; end <= len(doc); end++ {
		if len(doc) <= 64 || end-i <= 40 || len(doc)-end <= 40 || (end-i >= 500 && end-i <= 530) || end%7 == 0 {
			e = append(e, end)
		}
	}
	return e
}

// TestPlainMatchesTheByteAtATimeReading: plain stops where refPlain stops and
// charges what it charges, from every start in the first 10 bytes to every
// end (ends).
func TestPlainMatchesTheByteAtATimeReading(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 117))
	for _, d := range Dialects() {
		wt := widthsFor(d)
		docs := stringDocs(rng, plainBytes(wt)) // drawn before the subtest: the same however -run picks
		t.Run(d.String(), func(t *testing.T) {
			for _, doc := range docs {
				for i := 0; i <= min(9, len(doc)); i++ {
					for _, end := range ends(doc, i) {
						gi, gw := wt.plain(doc, i, end)
						ri, rw := refPlain(wt, doc, i, end)
						if gi != ri || gw != rw {
							t.Fatalf("%v: plain(%q, %d, %d) = (%d, %d), want (%d, %d)", d, doc, i, end, gi, gw, ri, rw)
						}
					}
				}
			}
		})
	}
}

// TestMultiStopsOnlyWhereItSays: multi, from a multi-byte lead, charges what
// refPlain charges up to where it stops, and stops where refPlain stops or
// after a few ASCII bytes in a row: never at a valid multi-byte code point
// before end, never after a whole word (8) of ASCII in a row, which plain's
// word loop takes on (64 where the vector path reads blocks).
func TestMultiStopsOnlyWhereItSays(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 274))
	// The vector path reads a 32-byte block whole when it holds a byte past
	// ASCII: up to 31 ASCII bytes in a row at one block's end and 31 at the
	// next one's start.
	maxASCII := 8
	if vectorRuns {
		maxASCII = 64
	}
	for _, d := range Dialects() {
		wt := widthsFor(d)
		docs := stringDocs(rng, plainBytes(wt)) // drawn before the subtest: the same however -run picks
		t.Run(d.String(), func(t *testing.T) { multiStopsOnlyWhereItSays(t, d, wt, docs, maxASCII) })
	}
}

func multiStopsOnlyWhereItSays(t *testing.T, d Dialect, wt *widthTable, docs [][]byte, maxASCII int) {
	for _, doc := range docs {
		for i := 0; i < min(12, len(doc)); i++ {
			if doc[i] < 0xc2 {
				continue
			}
			for _, end := range ends(doc, i) {
				if end == i {
					continue
				}
				gi, gw := wt.multi(doc, i, end)
				ri, _ := refPlain(wt, doc, i, end)
				if gi > ri {
					t.Fatalf("%v: multi(%q, %d, %d) stopped at %d, past %d", d, doc, i, end, gi, ri)
				}
				if pi, pw := refPlain(wt, doc, i, gi); pi != gi || pw != gw {
					t.Fatalf("%v: multi(%q, %d, %d) = (%d, %d), but the code points from %d to %d are (%d, %d)", d, doc, i, end, gi, gw, i, gi, pi, pw)
				}
				if gi < ri && (doc[gi-1] >= utf8.RuneSelf || doc[gi] >= utf8.RuneSelf) {
					t.Fatalf("%v: multi(%q, %d, %d) stopped at %d, not inside an ASCII run (the scan goes on to %d)", d, doc, i, end, gi, ri)
				}
				run := 0
				for _, c := range doc[i:gi] {
					if run++; c >= utf8.RuneSelf {
						run = 0
					}
					if run >= maxASCII {
						t.Fatalf("%v: multi(%q, %d, %d) took %d ASCII bytes in a row (it stopped at %d)", d, doc, i, end, maxASCII, gi)
					}
				}
			}
		}
	}
}

// TestDeriveFastPathsHoldsTheOddBytes: odd and oddExtra hold every printable
// ASCII byte whose width is other than one, and words is true, for each
// dialect's table; a table with three such bytes turns the word path off
// (words false) instead of losing one.
func TestDeriveFastPathsHoldsTheOddBytes(t *testing.T) {
	check := func(t *testing.T, name string, wt *widthTable) {
		t.Helper()
		var odd []byte
		for c := 0x20; c <= 0x7f; c++ {
			if w := wt.ascii[c]; w != 0 && w != 1 {
				odd = append(odd, byte(c))
			}
		}
		if wt.words != (len(odd) <= 2) {
			t.Fatalf("%s: %d bytes cost other than one (%q), words = %v", name, len(odd), odd, wt.words)
		}
		if !wt.words {
			return
		}
		for k := range 2 {
			rep := wt.odd[k]
			if k < len(odd) {
				if wt.odd[k] != odd[k] || wt.oddExtra[k] != int64(wt.ascii[odd[k]])-1 {
					t.Fatalf("%s: odd[%d] = %q costing %d over one, want %q costing %d", name, k, wt.odd[k], wt.oddExtra[k], odd[k], int64(wt.ascii[odd[k]])-1)
				}
			} else if wt.oddExtra[k] != 0 || wt.ascii[rep] != 0 {
				t.Fatalf("%s: the unused odd[%d] = %q costs %d (ascii %d), want a stop byte costing 0", name, k, rep, wt.oddExtra[k], wt.ascii[rep])
			}
			if wt.oddRep[k] != ones*uint64(rep) {
				t.Fatalf("%s: oddRep[%d] = %#x, want %q in every byte", name, k, wt.oddRep[k], rep)
			}
		}
	}
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			wt := widthsFor(d)
			if !wt.words {
				t.Fatalf("%v: the word path is off", d)
			}
			check(t, d.String(), wt)
		})
	}
	for n := 0; n <= 3; n++ {
		name := strconv.Itoa(n) + "_odd_bytes"
		t.Run(name, func(t *testing.T) {
			wt := new(widthTable)
			for c := 0x20; c <= 0x7f; c++ {
				wt.ascii[c] = 1
			}
			wt.ascii['"'], wt.ascii['\\'] = 0, 0
			for k := range n {
				wt.ascii["#'~"[k]] = uint8(2 + k)
			}
			wt.deriveFastPaths()
			check(t, name, wt)
		})
	}
}

// TestShortIntsIsEveryShortIntegerRenderingAsItself: the gate charges a one-
// to three-digit integer its length without NumberWidth only when shortInts
// says every such literal renders as itself in the dialect.
func TestShortIntsIsEveryShortIntegerRenderingAsItself(t *testing.T) {
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			want := true
			for n := range 1000 {
				lit := strconv.AppendInt(nil, int64(n), 10)
				want = want && d.NumberWidth(lit) == len(lit)
			}
			if got := widthsFor(d).shortInts; got != want {
				t.Fatalf("%v: shortInts = %v, want %v", d, got, want)
			}
		})
	}
}
