package memmodel

import (
	"fmt"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
	"github.com/theurian/boundlab/results"
)

// The gate shapes whose size is fixed rather than a share of the cap: their
// peak is a per-request or per-node cost, which no multiple of the wire
// bytes prices, so the peak factor leaves them out and records them beside.
// NodesShape is the first of the node-dense shapes (every FrameNodes gate
// shape, isNodeShape); ChainsShape the costliest per node.
const (
	SmallCallShape = "small-1k/valid"
	NodesShape     = "nodes-at-bound"
	ChainsShape    = "chains-at-bound"
)

// nodeShapes are the names of the gate shapes at the arguments' node bound.
var nodeShapes = func() map[string]bool {
	out := map[string]bool{}
	for _, s := range GateShapes(FullScale()) {
		if s.Frame == FrameNodes {
			out[s.Name] = true
		}
	}
	return out
}()

// isNodeShape reports whether a row's shape is a node-dense gate shape.
func isNodeShape(name string) bool { return nodeShapes[name] }

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
// but SmallCallShape and the node-dense shapes. PeakLive is the figure the front gate's
// weight must cover: the budget is taken before the body is read, so it
// must cover the request's peak with the gate's body buffer allocated inside
// the request (the pool may be empty: two collections drop it, and a
// measured row empties it first); allocation beyond the peak is garbage the
// collector reclaims, paced by the memory limit `boundlab serve` sets.
func GuardedPeakFactor(rows []GoMeasurement) (PeakFactor, error) {
	var pf PeakFactor
	for _, m := range rows {
		if m.Path != PathGuarded || m.Shape == SmallCallShape || isNodeShape(m.Shape) {
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

// NodeCost is the guarded path's highest peak per node over the node-dense
// rows and the row it was read from: what bounds.NodeCost is
// priced from. A row's nodes are the arguments' node bound (every node-dense
// shape fills it exactly); its peak, whole, is counted against them, the
// fixed cost and the wire bytes included.
type NodeCost struct {
	Shape   string
	Wire    int64
	Peak    int64
	Nodes   int
	PerNode float64
	Rows    int // the node-dense guarded rows it is the maximum over
}

// GuardedNodeCost is the highest PeakLive per node over the guarded rows of
// the node-dense shapes.
func GuardedNodeCost(rows []GoMeasurement) (NodeCost, error) {
	nodes := charge.DefaultLimits().MaxParamsNodes
	var nc NodeCost
	for _, m := range rows {
		if m.Path != PathGuarded || !isNodeShape(m.Shape) {
			continue
		}
		nc.Rows++
		if f := float64(m.PeakLive) / float64(nodes); f > nc.PerNode {
			nc.Shape, nc.Wire, nc.Peak, nc.Nodes, nc.PerNode = m.Shape, m.Wire, m.PeakLive, nodes, f
		}
	}
	if nc.Rows == 0 {
		return nc, fmt.Errorf("%s holds no guarded node-dense row: re-run measure-go", GoRowsFile)
	}
	return nc, nil
}

// CheckPeakFactor fails when a measured row peaks above what the front gate
// weighs it at: factor x its wire bytes.
func CheckPeakFactor(pf PeakFactor, factor int64) error {
	if pf.Peak > factor*pf.Wire {
		return fmt.Errorf("memmodel: the guarded row %s peaked at %d bytes, %.2fx its %d wire bytes, above bounds.PeakFactor %d (the front gate weighs it at %d): the constant must be raised to at least %.2f",
			pf.Shape, pf.Peak, pf.Factor, pf.Wire, factor, factor*pf.Wire, pf.Factor)
	}
	return nil
}

// CheckWeights fails when any guarded row peaks above the weight the front
// gate admits its request at (bounds.Request at the default limits:
// a fixed cost, a cost per wire byte and per node), the small call and the
// node-dense body included.
func CheckWeights(rows []GoMeasurement) error {
	l := charge.DefaultLimits()
	for _, m := range rows {
		if m.Path != PathGuarded {
			continue
		}
		if w := bounds.Request(m.Wire, l); m.PeakLive > w {
			return fmt.Errorf("memmodel: the guarded row %s peaked at %d bytes (%d wire bytes), above the %d bytes bounds.Request admits it at: raise RequestFixedCost, RequestPeakFactor or RequestNodeCost",
				m.Shape, m.PeakLive, m.Wire, w)
		}
	}
	return nil
}

// guardedRecords are the guarded path's factors: each row's peak over its
// wire bytes, the maximum the front gate's weight must cover (checked
// against bounds.PeakFactor), and the per-request fixed cost no
// factor covers.
func guardedRecords(rows []GoMeasurement, gate map[string]Shape) ([]results.Record, error) {
	pf, err := GuardedPeakFactor(rows)
	if err != nil {
		return nil, err
	}
	if err := CheckPeakFactor(pf, bounds.PeakFactor); err != nil {
		return nil, err
	}
	if err := CheckWeights(rows); err != nil {
		return nil, err
	}
	nc, err := GuardedNodeCost(rows)
	if err != nil {
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
			Title: "peak live heap over wire bytes through the guarded path (the front gate weighs the request at bounds.PeakFactor x wire)",
			Value: f, Unit: "x wire bytes", Method: results.Measured,
			Instance:  fmt.Sprintf("%d bytes peak at %d wire bytes; outcome %s", m.PeakLive, m.Wire, m.Outcome),
			Source:    "memmodel.go.guarded." + m.Shape + ".peak-live / its wire bytes",
			Tolerance: f / 10, Build: build(nil),
		})
	}
	out = append(out, results.Record{
		ID: "memmodel.go.guarded.peak-factor",
		Title: "the whole-request peak factor the front gate's weight must cover: the highest peak live heap over wire bytes through the guarded path, " +
			"pools emptied (the budget is taken before the body is read, when the pool may hold no buffer); the producer fails when it exceeds bounds.PeakFactor",
		Value: pf.Factor, Unit: "x wire bytes", Method: results.Measured,
		Instance: fmt.Sprintf("row %s: %d bytes peak at %d wire bytes; the maximum over %d guarded rows (every calibration shape and the hostile envelopes at the cap; %s and the node-dense shapes are priced beside, per request and per node)",
			pf.Shape, pf.Peak, pf.Wire, pf.Rows, SmallCallShape),
		Source:    src,
		Tolerance: pf.Factor / 10, Build: build(nil),
	})
	w := bounds.Request(nc.Wire, charge.DefaultLimits())
	out = append(out, results.Record{
		ID: "memmodel.go.guarded.node-cost",
		Title: "the guarded path's cost per node, which bounds.NodeCost is priced from: the highest peak live heap per node over the node-dense rows " +
			"(bodies whose arguments hold the node bound's nodes, each row one node kind), the whole peak counted against the nodes",
		Value: nc.PerNode, Unit: "bytes per node", Method: results.Measured,
		Instance: fmt.Sprintf("row %s: %d bytes peak over %d nodes (%d wire bytes); the maximum over %d node-dense guarded rows; bounds.Request weighs the row at %d bytes, %.2fx its peak",
			nc.Shape, nc.Peak, nc.Nodes, nc.Wire, nc.Rows, w, float64(w)/float64(nc.Peak)),
		Source:    "memmodel.GuardedNodeCost over the pinned rows of " + GoRowsFile + " (`boundlab memmodel measure-go --out " + GoRowsFile + "`)",
		Tolerance: nc.PerNode / 10, Build: build(nil),
	}, results.Record{
		ID:    "memmodel.go.guarded.node-weight",
		Title: "what the front gate weighs the costliest node-dense row's request at: bounds.Request at its wire bytes under the default limits",
		Value: float64(w), Unit: "bytes", Method: results.Derived,
		Instance: fmt.Sprintf("row %s, %d wire bytes: RequestFixedCost %d + RequestPeakFactor %d x wire + RequestNodeCost %d x %d nodes",
			nc.Shape, nc.Wire, bounds.FixedCost, bounds.PeakFactor, bounds.NodeCost,
			(w-bounds.FixedCost-bounds.PeakFactor*nc.Wire)/bounds.NodeCost),
		Source: "bounds.Request(memmodel.go.guarded.node-cost's row wire bytes, charge.DefaultLimits())",
		Build:  build(nil),
	}, results.Record{
		ID:    "memmodel.go.guarded.node-weight-margin",
		Title: "the front gate's weight over the measured peak of the costliest node-dense row (memmodel.go.guarded.node-weight / its peak live heap)",
		Value: float64(w) / float64(nc.Peak), Unit: "x peak", Method: results.Measured,
		Instance:  fmt.Sprintf("row %s: weighed at %d bytes, peaked at %d", nc.Shape, w, nc.Peak),
		Source:    "memmodel.go.guarded.node-weight / memmodel.go.guarded." + nc.Shape + ".peak-live",
		Tolerance: float64(w) / float64(nc.Peak) / 10, Build: build(nil),
	})
	for _, m := range rows {
		if m.Path != PathGuarded || m.Shape != SmallCallShape {
			continue
		}
		out = append(out, results.Record{
			ID:    "memmodel.go.guarded.fixed-cost",
			Title: fmt.Sprintf("the guarded path's per-request fixed cost: a %d-byte valid call's peak live heap, which bounds.FixedCost must cover", m.Wire),
			Value: float64(m.PeakLive), Unit: "bytes", Method: results.Measured,
			Instance:  gate[SmallCallShape].Describe() + "; outcome " + m.Outcome,
			Source:    "memmodel.go.guarded." + SmallCallShape + ".peak-live",
			Tolerance: float64(max(m.PeakLive/10, 64<<10)), Build: build(nil),
		})
	}
	return out, nil
}
