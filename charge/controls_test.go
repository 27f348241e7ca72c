package charge_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// A raw control character anywhere inside a long plain run — where the
// scanner reads eight bytes at a time and its stop mask, not a byte
// comparison, must see the byte — is refused at that byte, in a value and in
// a member name, in both dialects. (A mutant of the stop mask that let C0
// bytes through lived every other charge test: the runs there that hold
// controls are short or escaped.)
func TestRawControlsInsideLongRunsAreRefusedWhereTheyAre(t *testing.T) {
	const run = 48
	for _, d := range []charge.Dialect{charge.Go, charge.Python} {
		t.Run(d.String(), func(t *testing.T) {
			g, err := charge.NewGate(d, charge.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			for _, shape := range []struct{ name, pre, post string }{
				{"value", `{"k":"`, `"}`},
				{"name", `{"`, `":1}`},
				{"element", `["x","`, `"]`},
			} {
				t.Run(shape.name, func(t *testing.T) {
					for c := byte(0); c < 0x20; c++ {
						for pos := 0; pos < run; pos++ {
							text := []byte(strings.Repeat("abcdefgh", run/8))
							text[pos] = c
							doc := shape.pre + string(text) + shape.post
							_, err := g.Check([]byte(doc))
							var r *charge.Refusal
							if !errors.As(err, &r) || r.Bound != charge.BoundControl || r.Offset != len(shape.pre)+pos {
								t.Fatalf("%v, byte %#02x at %d of a %d-byte run in a %s: %v, want %s at byte %d",
									d, c, pos, run, shape.name, err, charge.BoundControl, len(shape.pre)+pos)
							}
						}
					}
				})
			}
		})
	}
}
