package charge_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// whitespaceRuns are the runs an encoder writes between tokens — none, a
// separator's space, a newline and indentation of spaces or of tabs of
// every length past two words, CRLF, blank lines — and runs that mix them
// (indentation switching byte midway, a run of one byte that ends in
// another).
func whitespaceRuns() []string {
	runs := []string{"", " ", "\t", "\r", "\n", "\r\n", "\n\n", "\n\r\n", " \n", "\t\n"}
	for n := 0; n <= 20; n++ {
		for _, c := range []string{" ", "\t"} {
			runs = append(runs, "\n"+strings.Repeat(c, n), "\r\n"+strings.Repeat(c, n), "\n\n"+strings.Repeat(c, n))
		}
		runs = append(runs, "\n"+strings.Repeat(" ", n)+"\t ", "\n"+strings.Repeat("\t", n)+"  ", "\n"+strings.Repeat(" ", n)+"\n"+strings.Repeat(" ", 20-n))
	}
	return runs
}

// TestWhitespaceRunsAreSkippedWhole: every run of whitespace, at every place
// between tokens and at the document's ends, is skipped to its last byte: the
// document is admitted with the compact form's report; and a byte that is no
// whitespace (a control character, or a token's first byte) put at any place
// of a run stops the skip there, so the run's bytes before it are skipped
// and the document is refused at that byte, never past it.
func TestWhitespaceRunsAreSkippedWhole(t *testing.T) {
	// The places between the tokens of a document holding every kind of
	// token; %[1]s marks each.
	const form = `%[1]s{%[1]s"a"%[1]s:%[1]s[%[1]s1%[1]s,%[1]s"b"%[1]s,%[1]strue%[1]s,%[1]s{%[1]s}%[1]s,%[1]s[%[1]s]%[1]s]%[1]s,%[1]s"c"%[1]s:%[1]snull%[1]s}%[1]s`
	places := strings.Count(form, "%[1]s")
	for _, d := range charge.Dialects() {
		g := gate(t, d, charge.DefaultLimits())
		want, ref := check(t, g, []byte(fmt.Sprintf(form, "")))
		if ref != nil {
			t.Fatalf("%s: the compact document refused: %v", d, ref)
		}
		for _, run := range whitespaceRuns() {
			// The run at every place at once, and at each alone (the last
			// one ends the document, where a word no longer fits).
			for p := -1; p < places; p++ {
				doc := placeRun(form, p, run)
				got, ref := check(t, g, []byte(doc))
				if ref != nil {
					t.Fatalf("%s: run %q at place %d: refused: %v", d, run, p, ref)
				}
				if got.Nodes != want.Nodes || got.Depth != want.Depth || got.Charge != want.Charge || got.Bytes != len(doc) {
					t.Fatalf("%s: run %q at place %d: report %+v, compact %+v", d, run, p, got, want)
				}
			}
			// A byte that is no whitespace at each place of the run, the
			// run at the place after the first name's colon and at the
			// document's end.
			for _, bad := range []byte{0x00, 0x01, 0x0b, 0x0c, 0x1f, '/', 'x', 0xff} {
				for k := 0; k <= len(run); k++ {
					broken := run[:k] + string(bad) + run[k:]
					for _, p := range []int{4, places - 1} {
						doc := placeRun(form, p, broken)
						at := strings.Index(doc, broken) + k
						_, ref := check(t, g, []byte(doc))
						if ref == nil || ref.Offset != at {
							t.Fatalf("%s: run %q at place %d: %v, want a refusal at offset %d", d, broken, p, ref, at)
						}
					}
				}
			}
		}
	}
}

// placeRun is form with run at place p (every place when p is -1) and
// nothing at the others.
func placeRun(form string, p int, run string) string {
	parts := strings.Split(form, "%[1]s")
	var b strings.Builder
	for i, part := range parts {
		b.WriteString(part)
		if i < len(parts)-1 && (p < 0 || i == p) {
			b.WriteString(run)
		}
	}
	return b.String()
}
