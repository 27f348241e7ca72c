package sweeps

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/theurian/boundlab/charge"
)

// BodyCapCheck is charge.BodyCap's derivation held to the oracles: the
// multiplier the oracles observe over non-control code points must equal
// charge's, and the code points above it must be exactly the members of the
// residual classes charge lists.
type BodyCapCheck struct {
	Derivation charge.BodyCapDerivation
	Oracle     Multiplier
}

// CheckBodyCap derives the body cap for the encoders and holds it to the sweep.
func (s *Sweep) CheckBodyCap(l charge.Limits, encoders ...charge.Encoder) (BodyCapCheck, error) {
	c := BodyCapCheck{Derivation: charge.BodyCap(l, encoders...), Oracle: s.Multiplier(encoders...)}
	if c.Derivation.Multiplier.Cmp(c.Oracle.Ratio) != 0 {
		return c, fmt.Errorf("sweeps: body-cap multiplier over %v: charge says %s, the oracles %s",
			encoders, c.Derivation.Multiplier.RatString(), c.Oracle.Ratio.RatString())
	}
	var model []rune
	s.scalars(func(r rune) {
		for _, cr := range c.Derivation.Residual {
			if cr.Class.Contains(r) {
				model = append(model, r)
				return
			}
		}
	})
	if !slices.Equal(model, c.Oracle.Residual) {
		return c, fmt.Errorf("sweeps: residual over %v: charge's classes hold %d code points, the oracles find %d above the multiplier",
			encoders, len(model), len(c.Oracle.Residual))
	}
	return c, nil
}

// ResidualText lists the residual classes, e.g. "C0 other (27) at 6.0x under
// ensure_ascii and raw; DEL (1) at 6.0x under ensure_ascii".
func (c BodyCapCheck) ResidualText() string {
	if len(c.Derivation.Residual) == 0 {
		return "none: no class exceeds the multiplier"
	}
	type agg struct {
		class charge.WireClass
		ratio *big.Rat
		encs  []string
	}
	var order []string
	by := map[string]*agg{}
	for _, cr := range c.Derivation.Residual {
		k := cr.Class.Name + "@" + cr.Ratio.RatString()
		if by[k] == nil {
			by[k] = &agg{class: cr.Class, ratio: cr.Ratio}
			order = append(order, k)
		}
		by[k].encs = append(by[k].encs, cr.Encoder.String())
	}
	var parts []string
	for _, k := range order {
		a := by[k]
		f, _ := a.ratio.Float64()
		parts = append(parts, fmt.Sprintf("%s (%d) at %.1fx under %s", a.class.Name, a.class.Count, f, strings.Join(a.encs, " and ")))
	}
	return strings.Join(parts, "; ")
}

// WorstText names the classes that set the multiplier.
func (c BodyCapCheck) WorstText() string {
	var parts []string
	for _, w := range c.Derivation.Worst {
		parts = append(parts, fmt.Sprintf("%s under %s (%s: %d wire bytes / %d landed)", w.Class.Name, w.Encoder,
			RuneName(w.Class.Example), w.Class.Wire(w.Encoder), w.Class.Landed))
	}
	return strings.Join(parts, "; ")
}

// ResidualAt lists, for clients using encoders, the classes above a given
// multiplier (a cap chosen for other clients), and the code points they hold.
func ResidualAt(m *big.Rat, encoders ...charge.Encoder) (classes []charge.ClassRatio, codePoints int) {
	for _, c := range wireClasses {
		for _, e := range encoders {
			if r := c.Ratio(e); r.Cmp(m) > 0 {
				classes = append(classes, charge.ClassRatio{Encoder: e, Class: c, Ratio: r})
				codePoints += c.Count
				break
			}
		}
	}
	return classes, codePoints
}

// DensityAtCap is the largest fraction of a landed file's bytes that may be
// in a class expanding at ratio r while the file still fits m x its size on
// the wire, when every other byte is filler expanding at f: r·x + f·(1-x) <= m.
func DensityAtCap(m, r, f *big.Rat) *big.Rat {
	num := new(big.Rat).Sub(m, f)
	den := new(big.Rat).Sub(r, f)
	return num.Quo(num, den)
}
