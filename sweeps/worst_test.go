package sweeps

import (
	"fmt"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// TestMixIsTheIntegerOptimum holds Mix's residue search to brute force over
// small caps and budgets, for every pair of a handful of classes that differ
// in charge, wire and width, under both rules and both dialects.
func TestMixIsTheIntegerOptimum(t *testing.T) {
	s := Shared()
	for _, d := range charge.Dialects() {
		t.Run(d.String(), func(t *testing.T) { mixIsTheIntegerOptimum(t, s, d) })
	}
}

// mixIsTheIntegerOptimum is TestMixIsTheIntegerOptimum for one dialect: one
// subtest per rule, encoder and cap; the pairs of classes stay a loop, a
// failure naming the pair.
func mixIsTheIntegerOptimum(t *testing.T, s *Sweep, d charge.Dialect) {
	rows, err := s.Table(d)
	if err != nil {
		t.Fatal(err)
	}
	var pick []ClassRow
	for _, r := range rows {
		switch r.Example {
		case 'a', 0x7f, 0x600, 0x1000c, 0x1f600, '\\', 0x01:
			pick = append(pick, r)
		}
	}
	for _, rule := range []Rule{CodePointRule, ExactRule} {
		t.Run(rule.String(), func(t *testing.T) {
			for _, e := range []charge.Encoder{charge.Raw, charge.EnsureASCII, charge.GoJSON} {
				t.Run(e.String(), func(t *testing.T) {
					for _, caps := range [][2]int64{{300, 97}, {260, 61}, {400, 200}} {
						t.Run(fmt.Sprintf("room_%d_budget_%d", caps[0], caps[1]), func(t *testing.T) {
							mixAgainstBruteForce(t, d, rule, e, caps, pick)
						})
					}
				})
			}
		})
	}
}

// mixAgainstBruteForce holds Mix to brute force for every pair of the picked
// classes under one rule, encoder and cap.
func mixAgainstBruteForce(t *testing.T, d charge.Dialect, rule Rule, e charge.Encoder, caps [2]int64, pick []ClassRow) {
	sc := Scenario{ID: "t", Dialect: d, Encoder: e, Rule: rule, Budget: caps[1]}
	for _, a := range pick {
		for _, b := range pick {
			if a.Example == b.Example {
				continue
			}
			st, err := newSetting(sc, []rune{a.Example, b.Example})
			if err != nil {
				t.Fatal(err)
			}
			sc.Transport = st.envelope + caps[0]
			st.room = caps[0]
			got, ok, err := Mix(sc, a, b)
			if err != nil {
				t.Fatal(err)
			}
			best := int64(-1)
			fits := func(n []int64) bool {
				return st.charge.at(n) <= st.budget && st.wire[0]*n[0]+st.wire[1]*n[1] <= st.room
			}
			for x := int64(1); fits([]int64{x, 1}); x++ {
				for y := int64(1); fits([]int64{x, y}); y++ {
					best = max(best, st.render.at([]int64{x, y}))
				}
			}
			if (best >= 0) != ok || (ok && got.Render != best) {
				t.Fatalf("%s %s %s cap %v, %s+%s: Mix %d (ok %v), brute force %d", d, e, rule, caps,
					RuneName(a.Example), RuneName(b.Example), got.Render, ok, best)
			}
		}
	}
}

// TestTheOracleParseRefusesToResynchronise feeds attribute an output that
// drops a separator: it must report a mismatch, not attribute the rest.
func TestTheOracleParseRefusesToResynchronise(t *testing.T) {
	w := newWorker(&Sweep{})
	n := 0
	w.attribute([]rune{'a', 0x7f, 'b'}, `a \x7fb `, func(rune, string) { n++ }, reprSegment)
	if w.count == 0 || !strings.Contains(w.mismatches[0].Oracle, "unparseable") {
		t.Fatalf("a missing separator went unreported: %+v", w.mismatches)
	}
	if n != 1 {
		t.Fatalf("attributed %d segments past the fault, want only the one before it", n)
	}
}
