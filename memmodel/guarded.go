package memmodel

import (
	"fmt"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/results"
)

// The gate shapes whose size is fixed rather than a share of the cap: their
// peak is a per-request or per-node cost, which no multiple of the wire
// bytes prices, so the peak factor leaves them out and records them beside.
const (
	SmallCallShape = "small-1k/valid"
	NodesShape     = "nodes-at-bound"
)

// PeakFactor is the guarded path's highest peak over wire bytes and the row
// it was read from.
type PeakFactor struct {
	Shape  string
	Wire   int64
	Peak   int64
	Factor float64
	Rows   int // the guarded rows it is the maximum over
}

// GuardedPeakFactor is the highest PeakLive / Wire over the guarded rows,
// but SmallCallShape and NodesShape. PeakLive is the figure the front gate's
// weight must cover: the budget is taken before the body is read, so it
// must cover the request's peak with the gate's body buffer allocated inside
// the request (the pool may be empty: two collections drop it, and a
// measured row empties it first); allocation beyond the peak is garbage the
// collector reclaims, paced by the memory limit `boundlab serve` sets.
func GuardedPeakFactor(rows []GoMeasurement) (PeakFactor, error) {
	var pf PeakFactor
	for _, m := range rows {
		if m.Path != PathGuarded || m.Shape == SmallCallShape || m.Shape == NodesShape {
			continue
		}
		if m.Wire <= 0 {
			return pf, fmt.Errorf("guarded row %s has no wire bytes", m.Shape)
		}
		pf.Rows++
		if f := float64(m.PeakLive) / float64(m.Wire); f > pf.Factor {
			pf.Shape, pf.Wire, pf.Peak, pf.Factor = m.Shape, m.Wire, m.PeakLive, f
		}
	}
	if pf.Rows == 0 {
		return pf, fmt.Errorf("%s holds no guarded row: re-run measure-go", GoRowsFile)
	}
	return pf, nil
}

// CheckPeakFactor fails when a measured row peaks above what the front gate
// weighs it at: factor x its wire bytes.
func CheckPeakFactor(pf PeakFactor, factor int64) error {
	if pf.Peak > factor*pf.Wire {
		return fmt.Errorf("memmodel: the guarded row %s peaked at %d bytes, %.2fx its %d wire bytes, above mcpvalidate.RequestPeakFactor %d (the front gate weighs it at %d): the constant must be raised to at least %.2f",
			pf.Shape, pf.Peak, pf.Factor, pf.Wire, factor, factor*pf.Wire, pf.Factor)
	}
	return nil
}

// CheckWeights fails when any guarded row peaks above the weight the front
// gate admits its request at (mcpvalidate.RequestWeight at the default limits:
// a fixed cost, a cost per wire byte and per node), the small call and the
// node-dense body included.
func CheckWeights(rows []GoMeasurement) error {
	l := charge.DefaultLimits()
	for _, m := range rows {
		if m.Path != PathGuarded {
			continue
		}
		if w := mcpvalidate.RequestWeight(m.Wire, l); m.PeakLive > w {
			return fmt.Errorf("memmodel: the guarded row %s peaked at %d bytes (%d wire bytes), above the %d bytes mcpvalidate.RequestWeight admits it at: raise RequestFixedCost, RequestPeakFactor or RequestNodeCost",
				m.Shape, m.PeakLive, m.Wire, w)
		}
	}
	return nil
}

// guardedRecords are the guarded path's factors: each row's peak over its
// wire bytes, the maximum the front gate's weight must cover (checked
// against mcpvalidate.RequestPeakFactor), and the per-request fixed cost no
// factor covers.
func guardedRecords(rows []GoMeasurement, gate map[string]Shape) ([]results.Record, error) {
	pf, err := GuardedPeakFactor(rows)
	if err != nil {
		return nil, err
	}
	if err := CheckPeakFactor(pf, mcpvalidate.RequestPeakFactor); err != nil {
		return nil, err
	}
	if err := CheckWeights(rows); err != nil {
		return nil, err
	}
	src := "memmodel.GuardedPeakFactor over the pinned rows of " + GoRowsFile + " (`boundlab memmodel measure-go --out " + GoRowsFile + "`)"
	var out []results.Record
	for _, m := range rows {
		if m.Path != PathGuarded {
			continue
		}
		f := float64(m.PeakLive) / float64(m.Wire)
		out = append(out, results.Record{
			ID:    fmt.Sprintf("memmodel.go.guarded.%s.peak-factor", m.Shape),
			Title: "peak live heap over wire bytes through the guarded path (the front gate weighs the request at mcpvalidate.RequestPeakFactor x wire)",
			Value: f, Unit: "x wire bytes", Method: results.Measured,
			Instance:  fmt.Sprintf("%d bytes peak at %d wire bytes; outcome %s", m.PeakLive, m.Wire, m.Outcome),
			Source:    "memmodel.go.guarded." + m.Shape + ".peak-live / its wire bytes",
			Tolerance: f / 10, Build: build(nil),
		})
	}
	out = append(out, results.Record{
		ID: "memmodel.go.guarded.peak-factor",
		Title: "the whole-request peak factor the front gate's weight must cover: the highest peak live heap over wire bytes through the guarded path, " +
			"pools emptied (the budget is taken before the body is read, when the pool may hold no buffer); the producer fails when it exceeds mcpvalidate.RequestPeakFactor",
		Value: pf.Factor, Unit: "x wire bytes", Method: results.Measured,
		Instance: fmt.Sprintf("row %s: %d bytes peak at %d wire bytes; the maximum over %d guarded rows (every calibration shape and the hostile envelopes at the cap; %s and %s are priced beside, per request and per node)",
			pf.Shape, pf.Peak, pf.Wire, pf.Rows, SmallCallShape, NodesShape),
		Source:    src,
		Tolerance: pf.Factor / 10, Build: build(nil),
	})
	for _, m := range rows {
		if m.Path != PathGuarded || m.Shape != SmallCallShape {
			continue
		}
		out = append(out, results.Record{
			ID:    "memmodel.go.guarded.fixed-cost",
			Title: fmt.Sprintf("the guarded path's per-request fixed cost: a %d-byte valid call's peak live heap, which mcpvalidate.RequestFixedCost must cover", m.Wire),
			Value: float64(m.PeakLive), Unit: "bytes", Method: results.Measured,
			Instance:  gate[SmallCallShape].Describe() + "; outcome " + m.Outcome,
			Source:    "memmodel.go.guarded." + SmallCallShape + ".peak-live",
			Tolerance: float64(max(m.PeakLive/10, 64<<10)), Build: build(nil),
		})
	}
	return out, nil
}
