package derivation

import (
	"fmt"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/memmodel"
	"github.com/theurian/boundlab/results"
	"github.com/theurian/boundlab/sweeps"
)

// Derivation is everything the lab derives from one set of limits.
type Derivation struct {
	Limits    charge.Limits
	Default   bool // Limits are charge.DefaultLimits(): the pinned records hold for them
	Ceilings  []Ceiling
	BodyCaps  []BodyCap
	Scenarios []sweeps.Derivation // the worst render of every scenario at these limits
	Landings  []Landing           // a file at MaxSourceFileBytes, per dialect and encoder family
	Needs     []Need              // the budget such a file needs, per dialect
	Memory    MemoryRows
	Findings  []Finding
}

// Ceiling is a dialect's composed ceiling: budget + nodes x PerNodeMax.
type Ceiling struct {
	Dialect    charge.Dialect
	Value      int64
	PerNodeMax int
}

// BodyCap is the cap for one set of encoder families, named as the records
// name it (bodycap.<Name>.cap at the default limits).
type BodyCap struct {
	Name string
	charge.BodyCapDerivation
}

// MemoryRows are the CPython model's predicted rows at the cap for Python
// clients (charge.BodyCap over ensure_ascii and raw) and the budget.
type MemoryRows struct {
	Cap  int64
	Rows []memmodel.TableRow
}

// Measured are the measured facts a derivation checks the limits against;
// they come from records, not from the limits.
type Measured struct {
	// SDKArgumentsMaxDepth is the deepest arguments nesting the go-sdk's
	// envelope decoding lets through to middleware; 0 when unknown.
	SDKArgumentsMaxDepth int
	// SDKArgumentsMaxDepthRecord is the record it was read from.
	SDKArgumentsMaxDepthRecord string
}

// SDKDepthRecord is the record id MeasuredFrom reads the go-sdk's arguments
// depth from (producer mcpvalidate-residuals).
const SDKDepthRecord = "mcpvalidate.residual.sdk.arguments-max-depth"

// MeasuredFrom takes the measured facts from pinned records (results.Load);
// a fact whose record is missing stays zero.
func MeasuredFrom(recs map[string][]results.Record) Measured {
	var m Measured
	for _, rs := range recs {
		for _, r := range rs {
			if r.ID == SDKDepthRecord && r.Value >= 1 {
				m.SDKArgumentsMaxDepth, m.SDKArgumentsMaxDepthRecord = int(r.Value), r.ID
			}
		}
	}
	return m
}

// capFamilies are the encoder-family sets a cap is derived for, with the
// names the bodycap records use.
var capFamilies = []struct {
	name string
	encs []charge.Encoder
}{
	{"python-clients", []charge.Encoder{charge.EnsureASCII, charge.Raw}},
	{"go-clients", []charge.Encoder{charge.GoJSON}},
	{"all-clients", []charge.Encoder{charge.EnsureASCII, charge.Raw, charge.GoJSON}},
}

// For derives every figure for l. It runs the code-point sweep once per
// process (sweeps.Shared) and fails when the sweep does, or when l is not a
// valid set of limits.
func For(l charge.Limits, m Measured) (Derivation, error) {
	if err := l.Validate(); err != nil {
		return Derivation{}, fmt.Errorf("derivation: %w", err)
	}
	d := Derivation{Limits: l, Default: l == charge.DefaultLimits()}
	for _, dl := range charge.Dialects() {
		d.Ceilings = append(d.Ceilings, Ceiling{dl, charge.ComposedCeiling(dl, l), dl.PerNodeMax()})
	}
	for _, f := range capFamilies {
		d.BodyCaps = append(d.BodyCaps, BodyCap{f.name, charge.BodyCap(l, f.encs...)})
	}
	var err error
	if d.Scenarios, err = sweeps.Derivations(l); err != nil {
		return d, err
	}
	if d.Landings, err = landings(l); err != nil {
		return d, err
	}
	d.Needs = Needs(d.Landings)
	sc := memmodel.Scale{Cap: charge.BodyCap(l, charge.EnsureASCII, charge.Raw).Cap, Limits: l}
	d.Memory = MemoryRows{Cap: sc.Cap, Rows: memmodel.PythonTable(sc)}
	if d.Findings, err = findings(l, d.Landings, m); err != nil {
		return d, err
	}
	return d, nil
}

// Landings is where a file at MaxSourceFileBytes lands, per dialect and
// encoder family, class by class (what For puts in Derivation.Landings).
func Landings(l charge.Limits) ([]Landing, error) {
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("derivation: %w", err)
	}
	return landings(l)
}

// Contradicts reports whether any finding contradicts the limits' purpose.
func (d Derivation) Contradicts() bool {
	for _, f := range d.Findings {
		if f.Contradicts {
			return true
		}
	}
	return false
}

// capFor is the cap a server sized for clients of encoder e derives: the
// Python clients' cap for ensure_ascii and raw, the all-clients cap for go.
func capFor(l charge.Limits, e charge.Encoder) (int64, string) {
	if e == charge.GoJSON {
		return charge.BodyCap(l, charge.EnsureASCII, charge.Raw, charge.GoJSON).Cap, "all-clients"
	}
	return charge.BodyCap(l, charge.EnsureASCII, charge.Raw).Cap, "python-clients"
}
