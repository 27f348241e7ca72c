package charge_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// TestEscapeDenseStringsAgreeWithTheEscapeLoop: documents of escape-dense
// strings (two-byte escapes and short plain runs, odd bytes, runs of
// backslashes, now and then a \u escape, a surrogate pair or a multi-byte
// code point) are charged as the reference charges them, and, under
// budgets at and just below their charge, refused exactly where a gate
// whose strings are read one byte a chunk (which never takes the
// escape-run path: its blocks need 32 bytes of the chunk) refuses them,
// with the same bound, offset and pointer. (A refusal's Report.Charge is
// what the scan had counted when it noticed, which the chunk size moves:
// only an admission's Report is compared.)
func TestEscapeDenseStringsAgreeWithTheEscapeLoop(t *testing.T) {
	tokens := []string{"a", "Z", " ", "'", "\x7f", "~", "/", ":", `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\\\"`}
	rare := []string{`\u00e9`, `\ud83d\ude00`, `\u005c`, `\u0027`, "é", "中", "😀"}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		rng := rand.New(rand.NewPCG(27, uint64(d)+1))
		full := gate(t, d, charge.DefaultLimits())
		for n := 0; n < 300; n++ {
			str := func() string {
				var b strings.Builder
				for l := rng.IntN(150); b.Len() < l; {
					if rng.IntN(40) == 0 {
						b.WriteString(rare[rng.IntN(len(rare))])
					}
					b.WriteString(tokens[rng.IntN(len(tokens))])
				}
				return b.String()
			}
			doc := []byte(`{"` + str() + `":["` + str() + `","` + str() + `"]}`)
			v, err := reference.Decode(doc)
			if err != nil {
				t.Fatalf("%s: the reference cannot decode it: %v", doc, err)
			}
			rep, ref := check(t, full, doc)
			if ref != nil || rep.Charge != reference.Charge(d, v) {
				t.Fatalf("%v %s: charge %d (%v), reference %d", d, doc, rep.Charge, ref, reference.Charge(d, v))
			}
			for _, cut := range []int64{0, 1, 2, 3, 1 + rng.Int64N(rep.Charge)} {
				l := charge.DefaultLimits()
				l.MaxParamsRenderedChars = rep.Charge - cut
				if l.Validate() != nil {
					continue
				}
				fast, slow := gate(t, d, l), gate(t, d, l)
				charge.SetChunkBytes(slow, 1)
				frep, fref := check(t, fast, doc)
				srep, sref := check(t, slow, doc)
				if (fref == nil) != (sref == nil) || (fref != nil && *fref != *sref) || (fref == nil && frep != srep) {
					t.Fatalf("%v %s, budget %d: %v %+v; read a byte a chunk: %v %+v", d, doc, l.MaxParamsRenderedChars, fref, frep, sref, srep)
				}
				if cut == 0 && fref != nil {
					t.Fatalf("%v %s: refused at its own charge %d: %v", d, doc, rep.Charge, fref)
				}
				if cut > 0 && (fref == nil || fref.Bound != charge.BoundCharge) {
					t.Fatalf("%v %s: budget %d below its charge %d: %v", d, doc, l.MaxParamsRenderedChars, rep.Charge, fref)
				}
			}
		}
	})
}

// TestEscapedStringsAreRefusedAtTheTokenThatPassesTheBudget: a string of
// plain bytes, two-byte escapes, \u escapes of BMP code points and
// surrogate pairs (printable and not) and raw multi-byte code points,
// under every budget below its charge, is refused with BoundCharge at the
// first byte of the token whose width, read from Dialect.RuneWidth of what
// it stands for, passes the budget: a surrogate pair at its first
// backslash, wherever the run of \u escapes it is in started.
func TestEscapedStringsAreRefusedAtTheTokenThatPassesTheBudget(t *testing.T) {
	tokens := []struct {
		wire string
		r    rune
	}{
		{"a", 'a'}, {" ", ' '}, {"\x7f", 0x7f}, {`\n`, '\n'}, {`\t`, '\t'}, {`\/`, '/'},
		{`\u00e9`, 'é'}, {`\u4e2d`, '中'}, {`\u0600`, 0x600}, {`\ud83d\ude00`, 0x1f600}, {`\udb40\udc01`, 0xe0001},
		{"é", 'é'}, {"中", '中'},
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		rng := rand.New(rand.NewPCG(27, uint64(d)+2))
		for n := 0; n < 60; n++ {
			var doc strings.Builder
			var starts []int
			var ends []int64 // the width up to each token's end
			var w int64
			doc.WriteString(`"`)
			for k := 10 + rng.IntN(60); k > 0; k-- {
				tok := tokens[rng.IntN(len(tokens))]
				if rng.IntN(3) == 0 { // runs of one kind
					tok = tokens[6+rng.IntN(5)]
				}
				starts = append(starts, doc.Len())
				doc.WriteString(tok.wire)
				w += int64(d.RuneWidth(tok.r))
				ends = append(ends, w)
			}
			doc.WriteString(`"`)
			for k := range ends {
				budget := ends[k] - 1 // the k-th token passes it
				l := charge.DefaultLimits()
				l.MaxParamsRenderedChars = budget
				if l.Validate() != nil {
					continue
				}
				_, ref := check(t, gate(t, d, l), []byte(doc.String()))
				if ref == nil || ref.Bound != charge.BoundCharge || ref.Offset != starts[k] {
					t.Fatalf("%v %q, budget %d: %v, want charge at %d", d, doc.String(), budget, ref, starts[k])
				}
			}
		}
	})
}

// TestEscapeDenseStringsCutShort: a document that ends inside an
// escape-dense string, after every one of its first 100 bytes (mid-escape,
// just after a letter, at and past a block's end, just after the letter of
// an escape that crosses a block's end), is refused as the gate
// that never takes the escape-run path refuses it — a syntax error at the
// end, or a bad escape where it starts — and never read past its end.
func TestEscapeDenseStringsCutShort(t *testing.T) {
	for _, body := range []string{strings.Repeat(`\b`, 60), `\bx` + strings.Repeat(`\b`, 60), strings.Repeat(`\b\b00`, 20), strings.Repeat(`ab\\\"`, 20), strings.Repeat(`\n\t\/x'`, 20)} {
		t.Run(charge.CaseName(body[:12]), func(t *testing.T) {
			forDialects(t, func(t *testing.T, d charge.Dialect) {
				fast, slow := gate(t, d, charge.DefaultLimits()), gate(t, d, charge.DefaultLimits())
				charge.SetChunkBytes(slow, 1)
				for n := 0; n <= 100 && n <= len(body); n++ {
					doc := []byte(`"` + body[:n])
					_, fref := check(t, fast, doc)
					_, sref := check(t, slow, doc)
					if fref == nil || sref == nil || *fref != *sref {
						t.Fatalf("%v %q: %v; read a byte a chunk: %v", d, doc, fref, sref)
					}
				}
			})
		})
	}
}
