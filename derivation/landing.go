package derivation

import (
	"fmt"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/results"
	"github.com/theurian/boundlab/sweeps"
)

// Where a file at the source-file limit is stopped.
const (
	ReachesSchema  = "schema"    // within the cap and the budget: the schema decides
	ChargeBound    = "charge"    // within the cap, over the budget: the gate refuses it
	TransportBound = "transport" // over the cap: refused at any budget
)

// Landing is where a file at MaxSourceFileBytes lands, class by class, for one
// dialect's gate and clients of one encoder family, as {"body": <file>} in a
// tools/call body.
type Landing struct {
	Dialect charge.Dialect
	Encoder charge.Encoder
	Cap     int64  // the body cap a server sized for these clients derives
	CapName string // its bodycap record family: python-clients or all-clients
	Classes []ClassLanding
	// NeedPrintable is the smallest budget that lets a file of every
	// printable class that fits the cap reach its schema; NeedAll the same
	// over every class that fits the cap. Each is the largest such file's
	// charge, named by NeedPrintableAt and NeedAllAt.
	NeedPrintable, NeedAll     int64
	NeedPrintableAt, NeedAllAt int // indexes into Classes; -1 when no class fits
}

// ClassLanding is one class's file at the source-file limit.
type ClassLanding struct {
	Row        sweeps.ClassRow
	CodePoints int64 // floor(MaxSourceFileBytes / the class's UTF-8 bytes)
	Wire       int64 // the request body's bytes
	Charge     int64 // the gate's charge: the string's exact width + the member name's
	NameCharge int64
	PerCode    int64 // the string's width per code point (the charge is affine in the count)
	Outcome    string
}

// Printable reports whether the class renders as itself: text in a script,
// as opposed to an escape.
func (c ClassLanding) Printable() bool { return c.Row.Render == charge.Printable }

// Arithmetic is the charge written out.
func (c ClassLanding) Arithmetic() string {
	return fmt.Sprintf("%s x %d + name %d = %s", results.Thousands(c.CodePoints), c.PerCode, c.NameCharge, results.Thousands(c.Charge))
}

// Instance is the request body the landing prices.
func (c ClassLanding) Instance(e charge.Encoder) sweeps.Instance {
	return sweeps.LeafInstance(fmt.Sprintf("file-%s-u%04x", e, c.Row.Example), e, []sweeps.Span{{Rune: c.Row.Example, N: c.CodePoints}})
}

// stringWidth is the exact width of n copies of r: StringWidth is affine in
// the count (a quote rule adds per code point, Go's trailing backslash a
// constant), so two evaluations fit it and a third checks the fit.
func stringWidth(d charge.Dialect, r rune, n int64) (total, per int64, err error) {
	w := func(k int) int64 {
		s := make([]rune, k)
		for i := range s {
			s[i] = r
		}
		return int64(d.StringWidth(string(s)))
	}
	w1, w2 := w(1), w(2)
	per = w2 - w1
	if w(5) != w1+4*per {
		return 0, 0, fmt.Errorf("derivation: the %s width of U+%04X is not affine in its count", d, r)
	}
	return w1 + (n-1)*per, per, nil
}

func landings(l charge.Limits) ([]Landing, error) {
	s := sweeps.Shared()
	if err := s.Err(); err != nil {
		return nil, err
	}
	var out []Landing
	for _, d := range charge.Dialects() {
		rows, err := s.Table(d)
		if err != nil {
			return nil, err
		}
		for _, e := range charge.Encoders() {
			ld, err := landing(d, e, l, rows)
			if err != nil {
				return nil, err
			}
			out = append(out, ld)
		}
	}
	return out, nil
}

func landing(d charge.Dialect, e charge.Encoder, l charge.Limits, rows []sweeps.ClassRow) (Landing, error) {
	ld := Landing{Dialect: d, Encoder: e, NeedPrintableAt: -1, NeedAllAt: -1}
	ld.Cap, ld.CapName = capFor(l, e)
	name := int64(d.NameWidth(sweeps.ValueKey))
	for _, row := range rows {
		c := ClassLanding{Row: row, CodePoints: l.MaxSourceFileBytes / int64(row.Wire.Landed), NameCharge: name}
		if c.CodePoints < 1 {
			continue
		}
		w, per, err := stringWidth(d, row.Example, c.CodePoints)
		if err != nil {
			return ld, err
		}
		c.Charge, c.PerCode = w+name, per
		c.Wire = c.Instance(e).Size()
		switch {
		case c.Wire > ld.Cap:
			c.Outcome = TransportBound
		case c.Charge > l.MaxParamsRenderedChars:
			c.Outcome = ChargeBound
		default:
			c.Outcome = ReachesSchema
		}
		i := len(ld.Classes)
		ld.Classes = append(ld.Classes, c)
		if c.Outcome == TransportBound {
			continue
		}
		if c.Charge > ld.NeedAll {
			ld.NeedAll, ld.NeedAllAt = c.Charge, i
		}
		if c.Printable() && c.Charge > ld.NeedPrintable {
			ld.NeedPrintable, ld.NeedPrintableAt = c.Charge, i
		}
	}
	return ld, nil
}
