package charge_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// scanSamples are code points of every sequence length and width class the
// string scan has a path for.
var scanSamples = []rune{'é', 0x0600, 0x07ff, '中', 0x2028, 0xfffd, 0xe000, '😀', 0xe0001, 0x10ffff}

// TestCutSequencesAreRefusedAtTheirLead: a multi-byte sequence cut short by
// the document's end or by a byte that is no continuation is refused as
// UTF-8 at its lead, after ASCII or DEL runs of every alignment, whatever
// the chunk size — and never scanned forever.
func TestCutSequencesAreRefusedAtTheirLead(t *testing.T) {
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		for _, chunk := range []int{1, 2, 3, 7, 8, 16, 1 << 16} {
			t.Run(fmt.Sprintf("chunk_%d", chunk), func(t *testing.T) {
				g := gate(t, d, charge.DefaultLimits())
				charge.SetChunkBytes(g, chunk)
				for _, fill := range []string{"a", "\x7f", "'", "é"} {
					for align := range 18 {
						pre := `"` + strings.Repeat(fill, align)
						for _, r := range scanSamples {
							enc := string(r)
							for cut := 1; cut < len(enc); cut++ {
								for _, tail := range []string{"", `"`, `a"`, "\xc3\xa9\"", "中\""} {
									doc := pre + enc[:cut] + tail
									_, ref := check(t, g, []byte(doc))
									if ref == nil || ref.Bound != charge.BoundUTF8 || ref.Offset != len(pre) {
										t.Fatalf("%s chunk %d: %q cut to %d bytes after %d %q, then %q: got %v, want utf8 at %d", d, chunk, enc, cut, align, fill, tail, ref, len(pre))
									}
								}
							}
						}
					}
				}
			})
		}
	})
}

// TestChunkSizeChangesNothing: the same documents, scanned with chunks of 1
// to 19 bytes and with the default, under every budget from 0 to one past
// their charge, give the same verdict, bound, offset and report — but for a
// charge refusal's Report.Charge, which counts how far the scan had read
// (Report documents it) and only has to exceed the budget.
func TestChunkSizeChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: a sweep on one goroutine, which the full run holds")
	}
	type named struct{ name, doc string }
	var docs []named
	for _, r := range scanSamples {
		docs = append(docs, named{fmt.Sprintf("U%04X", r), `{"k` + string(r) + `":"` + strings.Repeat("ab'"+string(r)+"\x7f", 5) + `\"\\\u00e9\ud83d\ude00x"}`})
	}
	docs = append(docs, named{"ascii_and_del", `["` + strings.Repeat("plain ascii text ", 4) + `", "` + strings.Repeat("\x7f", 40) + `", 12345, true]`},
		named{"mixed", `"mixed a` + "é中😀\u0600\x7f<'\u2028~" + `tail\\"`})
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		for _, c := range docs {
			t.Run(c.name, func(t *testing.T) {
				doc := c.doc
				full, ref := check(t, gate(t, d, charge.DefaultLimits()), []byte(doc))
				if ref != nil {
					t.Fatalf("%s: %q refused under the defaults: %v", d, doc, ref)
				}
				for budget := int64(1); budget <= full.Charge+1; budget++ {
					l := charge.DefaultLimits()
					l.MaxParamsRenderedChars = budget
					want, wantRef := check(t, gate(t, d, l), []byte(doc))
					for chunk := 1; chunk < 20; chunk++ {
						g := gate(t, d, l)
						charge.SetChunkBytes(g, chunk)
						got, gotRef := check(t, g, []byte(doc))
						if gotRef != nil && gotRef.Bound == charge.BoundCharge && got.Charge > budget {
							got.Charge = want.Charge
						}
						if got != want || (gotRef == nil) != (wantRef == nil) || (gotRef != nil && (gotRef.Bound != wantRef.Bound || gotRef.Offset != wantRef.Offset || gotRef.Pointer != wantRef.Pointer)) {
							t.Fatalf("%s budget %d chunk %d %q: %+v %v, default chunk %+v %v", d, budget, chunk, doc, got, gotRef, want, wantRef)
						}
					}
				}
			})
		}
	})
}

// TestPlainRunsOfEveryLengthAreChargedExactly: runs of printable ASCII with
// the odd bytes (DEL, ') sprinkled at every spacing, of every length up to
// past where the word loop hands the count to bytes.Count, charge what the
// reference renders, alone and between escapes.
func TestPlainRunsOfEveryLengthAreChargedExactly(t *testing.T) {
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for spacing := 1; spacing <= 9; spacing += 4 {
			t.Run(fmt.Sprintf("del_every_%d", spacing), func(t *testing.T) { plainRunsOfEveryLength(t, d, g, spacing) })
		}
	})
}

// plainRunsOfEveryLength is TestPlainRunsOfEveryLengthAreChargedExactly for
// one dialect and one spacing of DEL.
func plainRunsOfEveryLength(t *testing.T, d charge.Dialect, g *charge.Gate, spacing int) {
	var b strings.Builder
	for i := 0; b.Len() < 1100; i++ {
		switch {
		case i%spacing == 0:
			b.WriteByte(0x7f)
		case i%(spacing+2) == 0:
			b.WriteByte('\'')
		default:
			b.WriteByte(byte('a' + i%26))
		}
	}
	run := b.String()
	for n := 0; n <= len(run); n += 1 + n/16 {
		s := run[:n]
		for _, doc := range []string{`"` + s + `"`, `"\n` + s + `\t"`} {
			rep, ref := check(t, g, []byte(doc))
			want := refWidth(d, s)
			if doc[1] == '\\' {
				want += 4 // the two escapes
			}
			if ref != nil || rep.Charge != want {
				t.Fatalf("%s: a run of %d (odd every %d) charged %d (%v), reference %d", d, n, spacing, rep.Charge, ref, want)
			}
		}
	}
}

// TestInvalidSequencesInsideRunsAreRefusedWhereTheyStart: an overlong form, a
// surrogate, a value past U+10FFFF or a bad continuation, placed at every
// position among runs of valid sequences of its own length (where the scan
// takes two or four sequences at once), is refused as UTF-8 at its first byte.
func TestInvalidSequencesInsideRunsAreRefusedWhereTheyStart(t *testing.T) {
	cases := []struct {
		valid string
		bad   []string
	}{
		{"\u0600", []string{"\xc0\x80", "\xc1\xbf", "\xd8\x40", "\xd8\xc0"}},
		{"中", []string{"\xe0\x80\x80", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf", "\xe4\x40\xad", "\xe4\xb8\x40"}},
		{"😀", []string{"\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf0\x9f\x98\x40"}},
	}
	// Each bad sequence is a subtest named by its bytes in hex, under the
	// dialect.
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for _, c := range cases {
			for _, bad := range c.bad {
				t.Run(fmt.Sprintf("%x", bad), func(t *testing.T) {
					for before := 0; before < 6; before++ {
						pre := `"` + strings.Repeat(c.valid, before)
						doc := pre + bad + strings.Repeat(c.valid, 5) + `"`
						_, ref := check(t, g, []byte(doc))
						if ref == nil || ref.Bound != charge.BoundUTF8 || ref.Offset != len(pre) {
							t.Fatalf("%s: %q after %d %q: got %v, want utf8 at %d", d, bad, before, c.valid, ref, len(pre))
						}
					}
				})
			}
		}
	})
}

// TestBadSequencesAmongTheirLengthAreRefusedAtTheirLead: a sequence that is
// overlong, a surrogate, past U+10FFFF or led by a byte that leads nothing,
// placed among valid code points of its own length (so in every place of the
// loops that take two or four such code points at a time, with one valid
// code point of its length after it), is refused as UTF-8 at its lead.
func TestBadSequencesAmongTheirLengthAreRefusedAtTheirLead(t *testing.T) {
	cases := []struct {
		valid []string // valid code points of the bad sequence's length
		bad   []string
	}{
		{[]string{"é", "\u07ff", "\u0600"}, []string{"\xc0\x80", "\xc1\xbf"}},
		{[]string{"中", "\u0800", "\ufffd", "\ue000"}, []string{"\xe0\x80\x80", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf"}},
		{[]string{"😀", "\U00010000", "\U0010ffff", "\U000e0001"}, []string{"\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf7\xbf\xbf\xbf", "\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80"}},
	}
	// Each bad sequence is a subtest named by its bytes in hex, under the
	// dialect.
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for _, c := range cases {
			for _, bad := range c.bad {
				t.Run(fmt.Sprintf("%x", bad), func(t *testing.T) {
					for before := range 5 {
						for _, v := range c.valid {
							pre := `"` + strings.Repeat(v, before)
							doc := pre + bad + v + strings.Repeat(v, 4) + `"`
							_, ref := check(t, g, []byte(doc))
							if ref == nil || ref.Bound != charge.BoundUTF8 || ref.Offset != len(pre) {
								t.Fatalf("%s: %q after %d of %q: got %v, want utf8 at %d", d, bad, before, v, ref, len(pre))
							}
						}
					}
				})
			}
		}
	})
}
