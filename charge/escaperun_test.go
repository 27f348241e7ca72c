package charge

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The escape-dense vector path (escapeRun over escaperun_amd64.s) against
// refEscapeRun, a token-at-a-time reading with the dialect's own RuneWidth.
// Where the build has no vector path the tests say so and skip; the escape
// loop it hands on to is what every other proof holds.

func skipWithoutEscapeRuns(t *testing.T, wt *widthTable) {
	t.Helper()
	if !vectorRuns || !wt.escRuns {
		t.Skip("no escape-run vector path in this build or dialect (not amd64, purego, or no AVX2): escapeRun never runs")
	}
}

// refEscapeRun reads doc[i:] one token at a time — a plain ASCII byte other
// than " \ and C0, or a backslash and one of the eight letters of a two-byte
// escape — and returns each token's end in order, the width of the tokens
// up to each end (ws[k] is the width of doc[i:ends[k]]), and whether an
// escaped quote is among them (qs[k]). It stops at the first other byte.
func refEscapeRun(d Dialect, doc []byte, i int) (ends []int, ws []int64, qs []bool) {
	var w int64
	q := false
	for i < len(doc) {
		c := doc[i]
		switch {
		case c == '\\':
			if i+1 >= len(doc) {
				return
			}
			r := simpleEscape[doc[i+1]]
			if r == 0 {
				return
			}
			w += int64(d.RuneWidth(r))
			q = q || r == '"'
			i += 2
		case c >= 0x20 && c < 0x80 && c != '"':
			w += int64(d.RuneWidth(rune(c)))
			i++
		default:
			return
		}
		ends, ws, qs = append(ends, i), append(ws, w), append(qs, q)
	}
	return
}

// holdEscapeRun runs escapeRun over doc from i with limit and holds it to
// refEscapeRun: it stops on a token's end; what it charged is the
// reference's width up to there; it stops where the reference does unless
// the blocks that fit before limit ran out first, and then past the last
// of them. It returns how far it read.
func holdEscapeRun(t *testing.T, d Dialect, wt *widthTable, doc []byte, i, limit int) int {
	t.Helper()
	j, w, q := wt.escapeRun(doc, i, limit)
	ends, ws, qs := refEscapeRun(d, doc, i)
	refEnd, k := i, -1
	if len(ends) > 0 {
		refEnd = ends[len(ends)-1]
	}
	for n, e := range ends {
		if e == j {
			k = n
		}
	}
	var rw int64
	rq := false
	if k >= 0 {
		rw, rq = ws[k], qs[k]
	}
	blocks := i + 32*((limit-i)/32) // where the whole blocks before limit end
	switch {
	case j != i && k < 0:
		t.Fatalf("%v: escapeRun(%q, %d, %d) stopped at %d, no token's end (the reference ends tokens at %v)", d, doc, i, limit, j, ends)
	case w != rw || q != rq:
		t.Fatalf("%v: escapeRun(%q, %d, %d) = (%d, %d, %v); the reference reads %q as (%d, %v)", d, doc, i, limit, j, w, q, doc[i:j], rw, rq)
	case j > refEnd:
		t.Fatalf("%v: escapeRun(%q, %d, %d) read to %d, past the reference's end %d", d, doc, i, limit, j, refEnd)
	case j < refEnd && j < blocks:
		t.Fatalf("%v: escapeRun(%q, %d, %d) stopped at %d, before the reference's end %d and the blocks' %d", d, doc, i, limit, j, refEnd, blocks)
	}
	return j - i
}

// TestEscapeRunsTakeEveryLetterEverywhere: a backslash followed by each of
// the 256 byte values, at every place of a block and across its end (0 to
// 40), among escapes and plain bytes that put it after an escape, after a
// plain byte and inside runs of backslashes of either parity, is read as
// the reference reads it: a valid letter charged and read past, anything
// else (u, a letter JSON has none for, a stop) stopping the stretch at its
// backslash.
func TestEscapeRunsTakeEveryLetterEverywhere(t *testing.T) {
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			wt := widthsFor(d)
			skipWithoutEscapeRuns(t, wt)
			fillers := []string{`a\n`, `\\`, `\"x`, "'\x7f", `ab\/`, `\t\\\"`}
			for _, fill := range fillers {
				for at := 0; at <= 40; at++ {
					for v := 0; v < 256; v++ {
						body := `\n` + strings.Repeat(fill, 40)[:at] // may cut an escape: then v is its letter
						doc := []byte(body + `\` + string(rune(v))[:1] + strings.Repeat(fill, 30) + `"`)
						doc[len(body)+1] = byte(v)
						holdEscapeRun(t, d, wt, doc, 0, len(doc)-1)
					}
				}
			}
		})
	}
}

// TestEscapeRunsAgreeOnMixedStretches: random stretches of plain bytes (the
// odd bytes among them), two-byte escapes, runs of backslashes, and now and
// then a stop (a quote, a control byte, a byte past ASCII, a \u escape, a
// letter JSON has no escape for), read from each of their first places and
// with limits that cut the last block, in documents that close the string
// or end inside the stretch, are charged as the reference charges them. The
// vector path must read most of the bytes, or the test proves nothing.
func TestEscapeRunsAgreeOnMixedStretches(t *testing.T) {
	tokens := []string{"a", "Z", " ", "'", "\x7f", "~", "/", `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\\\\`, `\\\"`}
	stops := []string{`"`, "\x01", "\x1f", "é", "中", `\u00e9`, `\x`, `\'`, "\xff"}
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			wt := widthsFor(d)
			skipWithoutEscapeRuns(t, wt)
			rng := rand.New(rand.NewPCG(27, uint64(d)))
			read, total := 0, 0
			for n := 0; n < 4000; n++ {
				var b strings.Builder
				b.WriteString(`\n`)
				for b.Len() < 200 {
					if rng.IntN(60) == 0 {
						b.WriteString(stops[rng.IntN(len(stops))])
					}
					b.WriteString(tokens[rng.IntN(len(tokens))])
				}
				if rng.IntN(2) == 0 {
					b.WriteString(`"`) // else the document ends in the stretch
				}
				doc := []byte(b.String())
				for _, limit := range []int{len(doc) - 1, len(doc) - 1 - rng.IntN(40)} {
					if limit < 0 {
						continue
					}
					read += holdEscapeRun(t, d, wt, doc, 0, limit)
					ends, _, _ := refEscapeRun(d, doc, 0)
					if len(ends) > 0 {
						total += min(ends[len(ends)-1], limit-32)
					}
				}
			}
			if read < total*3/4 {
				t.Fatalf("%v: the vector path read %d bytes of the %d it could have", d, read, total)
			}
		})
	}
}

// TestEscapeStartsOpenTheEscapes: escapeStarts against reading from the
// left, on every mask of sixteen bits at both ends of the word and on random
// masks of thirty-two, with and without a carried letter.
func TestEscapeStartsOpenTheEscapes(t *testing.T) {
	ref := func(bs, carry uint32) uint32 {
		var s uint32
		for k := int(carry); k < 32; k++ {
			if bs>>k&1 == 1 {
				s |= 1 << k
				k++ // its letter
			}
		}
		return s
	}
	rng := rand.New(rand.NewPCG(27, 32))
	masks := make([]uint32, 0, 3<<16)
	for m := uint32(0); m < 1<<16; m++ {
		masks = append(masks, m, m<<16, rng.Uint32())
	}
	for _, m := range masks {
		for carry := uint32(0); carry < 2; carry++ {
			if got, want := escapeStarts(m, carry), ref(m, carry); got != want {
				t.Fatalf("escapeStarts(%032b, %d) = %032b, want %032b", m, carry, got, want)
			}
		}
	}
}

// TestEscapeClassesAreTheLetters: the letter classes mark exactly the eight
// letters of two-byte escapes, the quote bit only ", and the groups exactly
// the letters whose width over two is their delta.
func TestEscapeClassesAreTheLetters(t *testing.T) {
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			wt := widthsFor(d)
			if !wt.escRuns {
				t.Skip(fmt.Sprintf("%v: the escape-run path does not charge this dialect", d))
			}
			for v := 0; v < 256; v++ {
				class := wt.esc.lo[v&0xf] & wt.esc.hi[v>>4]
				if v >= 0x80 {
					class = 0 // VPSHUFB: an index with its top bit set reads zero; the high nibble is masked, so hi[8..15] must be zero
					if wt.esc.hi[v>>4] != 0 {
						t.Fatalf("%v: hi[%x] is %08b, not zero", d, v>>4, wt.esc.hi[v>>4])
					}
				}
				r := simpleEscape[v]
				if (class != 0) != (r != 0) || (class&wt.esc.quote != 0) != (v == '"') {
					t.Fatalf("%v: byte %#x has class %08b (quote bit %08b)", d, v, class, wt.esc.quote)
				}
				var delta int64
				for g, bits := range wt.esc.group {
					if class&bits != 0 {
						delta += wt.escDelta[g]
					}
				}
				if r != 0 && delta != int64(d.RuneWidth(r))-2 {
					t.Fatalf("%v: letter %q: groups give %d over two, RuneWidth %d", d, rune(v), delta, d.RuneWidth(r))
				}
			}
		})
	}
}
