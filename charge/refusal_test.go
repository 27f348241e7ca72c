package charge_test

import (
	"strconv"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// TestEveryRefusalsText holds each bound's refusal, as the gate gives it
// (everyBoundsRefusal's documents and small limits), to its whole text written
// out here: the configured bounds (and only they) name their limit and unit,
// the strictness rules name none.
func TestEveryRefusalsText(t *testing.T) {
	want := map[charge.Bound]string{
		charge.BoundSyntax:         `is not JSON (RFC 8259) (bound syntax) at "/0", byte 1`,
		charge.BoundUTF8:           `holds bytes that are not UTF-8 (bound utf8) at "/0", byte 2`,
		charge.BoundSurrogate:      `escapes a lone surrogate (bound surrogate) at "/0", byte 2`,
		charge.BoundControl:        `holds a raw control character in a string (bound control-character) at "/0", byte 2`,
		charge.BoundDuplicateName:  `repeats a member name in one object (bound duplicate-name) at "/a", byte 7`,
		charge.BoundTrailing:       `has bytes after its value (bound trailing-bytes) at the root, byte 3`,
		charge.BoundNesting:        `nests deeper than 2 levels (bound nesting) at "/0/0", byte 2`,
		charge.BoundNodes:          `holds more nodes than 4 nodes (bound nodes) at "/3", byte 7`,
		charge.BoundNumberBytes:    `has a number token longer than 4 bytes (bound number-length) at "/0", byte 5`,
		charge.BoundNumberExponent: `has a number exponent larger than 9 in magnitude (bound number-exponent) at "/0", byte 4`,
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		want[charge.BoundCharge] = `renders wider than 8 ` + map[charge.Dialect]string{charge.Python: "characters", charge.Go: "bytes"}[d] +
			` (bound charge) at "/0", byte 10`
		for _, r := range everyBoundsRefusal(t, d) {
			t.Run(r.Bound.String(), func(t *testing.T) {
				if got := r.Error(); got != "arguments refused: document "+want[r.Bound] {
					t.Errorf("%s %s: %q, want %q", d, r.Bound, got, "arguments refused: document "+want[r.Bound])
				}
			})
		}
	})
}

// TestBoundNamesAndLimited: each bound's name, whether it is a configured
// limit, and the name of a value that is no bound (below, between and past
// the real ones) — never an index past the names.
func TestBoundNamesAndLimited(t *testing.T) {
	limited := map[charge.Bound]bool{charge.BoundNesting: true, charge.BoundNodes: true, charge.BoundNumberBytes: true,
		charge.BoundNumberExponent: true, charge.BoundCharge: true}
	names := map[string]bool{}
	for _, b := range charge.Bounds() {
		t.Run(caseName(b.String()), func(t *testing.T) {
			if b.Limited() != limited[b] {
				t.Errorf("%s: Limited() = %v", b, b.Limited())
			}
			if n := b.String(); names[n] || n == "bound("+strconv.Itoa(int(b))+")" {
				t.Errorf("bound %d: name %q repeated or missing", int(b), n)
			} else {
				names[n] = true
			}
		})
	}
	last := charge.Bounds()[len(charge.Bounds())-1]
	for _, b := range []charge.Bound{0, last + 1, last + 2, 255} {
		t.Run("no_bound_"+strconv.Itoa(int(b)), func(t *testing.T) {
			if got, want := b.String(), "bound("+strconv.Itoa(int(b))+")"; got != want {
				t.Errorf("Bound(%d).String() = %q, want %q", int(b), got, want)
			}
		})
	}
}
