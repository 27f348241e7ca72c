package charge_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// TestCheckAllocatesNothingOnceWarm: a gate reuses its scanners, their frame
// stack sized once to MaxParamsNesting, so admitting a document allocates
// nothing once a scanner is warm — at the default limits and with a stack
// that is exactly full. (The race detector's sync.Pool drops items at random,
// so the count is only held without it.)
func TestCheckAllocatesNothingOnceWarm(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items: allocations are not the gate's")
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		for _, nesting := range []int{charge.DefaultLimits().MaxParamsNesting, 3} {
			t.Run(fmt.Sprintf("MaxParamsNesting=%d", nesting), func(t *testing.T) {
				l := charge.DefaultLimits()
				l.MaxParamsNesting = nesting
				g := gate(t, d, l)
				for _, c := range []struct{ name, doc string }{
					{"every_kind", `{"a":[1,"x",true,{"b":null}],"c":-1.5e3,"d":"\u00e9\n"}`},
					// Runs the vector paths read (where the CPU has them).
					{"long_runs", `{"s":"` + strings.Repeat("aé中😀\u0600\x7f<'\u2028~", 8) + strings.Repeat("😀", 20) + strings.Repeat("z", 100) + `"}`},
				} {
					t.Run(c.name, func(t *testing.T) {
						doc := []byte(c.doc)
						if _, ref := check(t, g, doc); ref != nil {
							t.Fatal(ref)
						}
						if n := testing.AllocsPerRun(100, func() { _, _ = g.Check(doc) }); n >= 0.5 {
							t.Errorf("%s, nesting %d: Check allocated %.2f times a call", d, nesting, n)
						}
					})
				}
			})
		}
	})
}
