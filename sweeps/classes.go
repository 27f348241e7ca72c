package sweeps

import (
	"fmt"
	"sort"

	"github.com/theurian/boundlab/charge"
)

// ClassRow is one row of a dialect's class table: the code points that share
// a wire class (so the same wire bytes under every encoder family) and a
// render class and width. Every count and width is the oracles' observation,
// which the sweep holds equal to the model.
type ClassRow struct {
	Wire    charge.WireClass
	Render  charge.RenderClass
	Width   int  // render width of one code point, in the dialect's unit
	Count   int  // code points in the row
	Lowest  rune // the lowest member
	Example rune // the member instances use: the wire class's example when the row holds it, else Lowest
}

// Name is the row's label, e.g. `2-byte \uNNNN`.
func (r ClassRow) Name() string { return r.Wire.Name + " " + r.Render.String() }

// Ratio is wire bytes over landed bytes under e.
func (r ClassRow) Ratio(e charge.Encoder) float64 {
	return float64(r.Wire.Wire(e)) / float64(r.Wire.Landed)
}

// Table is the dialect's class table, in order of each row's lowest member.
func (s *Sweep) Table(d charge.Dialect) ([]ClassRow, error) {
	type key struct {
		class uint8
		rc    charge.RenderClass
		width uint8
	}
	rows := map[key]*ClassRow{}
	var err error
	s.scalars(func(r rune) {
		k := key{s.class[r], s.rclass[d][r], s.width[d][r]}
		if k.class == noClass {
			err = fmt.Errorf("sweeps: U+%04X is in no wire class", r)
			return
		}
		row, ok := rows[k]
		if !ok {
			wc := wireClasses[k.class]
			row = &ClassRow{Wire: wc, Render: k.rc, Width: int(k.width), Lowest: r, Example: r}
			rows[k] = row
		}
		row.Count++
		if r == row.Wire.Example {
			row.Example = r
		}
	})
	if err != nil {
		return nil, err
	}
	out := make([]ClassRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Lowest < out[j].Lowest })
	return out, nil
}

// RuneName is U+XXXX.
func RuneName(r rune) string { return fmt.Sprintf("U+%04X", r) }
