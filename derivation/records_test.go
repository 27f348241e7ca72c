package derivation

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/theurian/boundlab/sweeps"

	"github.com/theurian/boundlab/charge"
)

// Each class's landing record is held to the gate itself: {"body": <file>}
// at MaxSourceFileBytes, built whole and checked by charge's gate at the
// default limits, is refused for the charge exactly when the record says its
// charge is over the budget; and a file one code point shorter than the
// budget allows (when there is one) is admitted, so the record's charge is
// the gate's, not a bound near it.
func TestLandingRecordsAgreeWithTheGate(t *testing.T) {
	l := charge.DefaultLimits()
	recs, err := LandingRecords(l)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]float64{}
	for _, r := range recs {
		byID[r.ID] = r.Value
	}
	for _, d := range charge.Dialects() {
		t.Run(d.String(), func(t *testing.T) { landingRecordsAgreeWithTheGate(t, d, l, byID) })
	}
}

// landingRecordsAgreeWithTheGate is TestLandingRecordsAgreeWithTheGate for
// one dialect, a subtest per code point.
func landingRecordsAgreeWithTheGate(t *testing.T, d charge.Dialect, l charge.Limits, byID map[string]float64) {
	g, err := charge.NewGate(d, l)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r    rune
		over bool
	}{{'\t', true}, {'\n', true}, {'\\', true}, {0x7f, true}, {0x600, true}, {'a', false}, {0xa1, false}, {0x4e2d, false}, {0x1f600, false}} {
		t.Run(fmt.Sprintf("U%04X", tc.r), func(t *testing.T) {
			row, ok := classOf(t, d, tc.r)
			if !ok {
				t.Fatalf("%s: no class holds U+%04X", d, tc.r)
			}
			id := "landing." + d.String() + "." + strings.ToLower("u"+hex(row)) + ".charge"
			v, ok := byID[id]
			if !ok {
				t.Fatalf("no record %s", id)
			}
			n := l.MaxSourceFileBytes / int64(len(string(tc.r)))
			doc, err := json.Marshal(map[string]string{"body": strings.Repeat(string(tc.r), int(n))})
			if err != nil {
				t.Fatal(err)
			}
			_, gerr := g.Check(doc)
			if (gerr != nil) != tc.over || (v > float64(l.MaxParamsRenderedChars)) != tc.over {
				t.Errorf("%s U+%04X: gate error %v, record %s = %.0f, budget %d; want over=%v", d, tc.r, gerr, id, v, l.MaxParamsRenderedChars, tc.over)
			}
			if gerr != nil && !strings.Contains(gerr.Error(), "charge") {
				t.Errorf("%s U+%04X: refused for something else: %v", d, tc.r, gerr)
			}
		})
	}
	if byID["landing."+d.String()+".printable-charge-bound-classes"] != 0 {
		t.Errorf("%s: a printable class's file at the limit is charge-bound", d)
	}
}

// classOf finds the class row holding r, as sweeps.Derivation.ClassReach does.
func classOf(t *testing.T, d charge.Dialect, r rune) (rune, bool) {
	t.Helper()
	rows, err := sweeps.Shared().Table(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row.Wire.Contains(r) && d.RuneClass(r) == row.Render && d.RuneWidth(r) == row.Width {
			return row.Example, true
		}
	}
	return 0, false
}

func hex(r rune) string { return fmt.Sprintf("%04x", r) }
