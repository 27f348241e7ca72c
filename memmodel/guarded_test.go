package memmodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

// The gate shapes build the bodies their names say: sizes as Stats counts
// them, at the cap where they scale, and the front gate refuses exactly the
// hostile ones.
func TestGateShapesAreWhatTheyClaim(t *testing.T) {
	for _, sc := range []Scale{FullScale(), FullScale().Scaled(64)} {
		t.Run(fmt.Sprintf("cap_%d", sc.Cap), func(t *testing.T) {
			for _, s := range GateShapes(sc) {
				t.Run(caseName(s.Name), func(t *testing.T) {
					if err := s.Validate(); err != nil {
						t.Fatal(err)
					}
					st, body, args := s.Stats(), s.Body(), s.Arguments()
					if int64(len(body)) != st.Wire || int64(len(args)) != st.ArgsWire {
						t.Errorf("%s: body %d args %d bytes, Stats %d %d", s.Name, len(body), len(args), st.Wire, st.ArgsWire)
					}
					hostile := s.Frame != FrameCall && s.Frame != FrameNodes
					if hostile && st.Wire < sc.Cap/3 {
						t.Errorf("%s: %d wire bytes, not near the cap %d", s.Name, st.Wire, sc.Cap)
					}
					if got := PathsFor(s); hostile != (len(got) == 2) {
						t.Errorf("%s: paths %v", s.Name, got)
					}
				})
			}
		})
	}
	v, err := demo.NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range GateShapes(FullScale()) {
		t.Run(caseName(s.Name), func(t *testing.T) {
			err := frontVerdict(v, s.Body())
			hostile := s.Frame != FrameCall && s.Frame != FrameNodes
			if hostile != (err != nil) {
				t.Errorf("%s: front gate answered %v", s.Name, err)
			}
			// Refused for its frame, not for its size.
			var r *mcpvalidate.Refusal
			if errors.As(err, &r) && r.Stage == mcpvalidate.StageGate && (r.Bound == charge.BoundCharge.String() || r.Bound == charge.BoundNodes.String()) {
				t.Errorf("%s: refused by the %s bound", s.Name, r.Bound)
			}
		})
	}
}

// Every node-dense shape's arguments hold the node bound exactly, made of
// its literal and the zeros that fill the rest, and are well-formed calls
// the front gate admits; one node more and the core gate and the front gate
// refuse them for the node bound.
func TestNodeShapesAreAtTheBound(t *testing.T) {
	l := charge.DefaultLimits()
	g, err := charge.NewGate(charge.Go, l)
	if err != nil {
		t.Fatal(err)
	}
	v, err := demo.NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range GateShapes(FullScale()) {
		if s.Frame != FrameNodes {
			continue
		}
		names = append(names, s.Name)
		t.Run(caseName(s.Name), func(t *testing.T) {
			if !isNodeShape(s.Name) {
				t.Errorf("%s: not a node shape", s.Name)
			}
			args := s.Arguments()
			rep, err := g.Check(args)
			if err != nil || rep.Nodes != l.MaxParamsNodes {
				t.Fatalf("%s at the bound: %d nodes, %v", s.Name, rep.Nodes, err)
			}
			var doc struct{ N []json.RawMessage }
			if err := json.Unmarshal(args, &doc); err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			count, zeros := s.Node.Members()
			if len(doc.N) != count+zeros {
				t.Fatalf("%s: %d members, want %d + %d", s.Name, len(doc.N), count, zeros)
			}
			for i, m := range doc.N {
				want := s.Node.JSON
				if i >= count {
					want = "0"
				}
				if string(m) != want {
					t.Fatalf("%s: member %d is %s, want %s", s.Name, i, m, want)
				}
			}
			if err := frontVerdict(v, s.Body()); err != nil {
				t.Errorf("%s: the front gate refused it: %v", s.Name, err)
			}
			past := strings.Replace(string(args), `"n":[`, `"n":[0,`, 1)
			if _, err := g.Check([]byte(past)); !isNodeRefusal(err) {
				t.Errorf("%s: one node past the bound: %v", s.Name, err)
			}
			body := strings.Replace(string(s.Body()), `"n":[`, `"n":[0,`, 1)
			if err := frontVerdict(v, []byte(body)); !isNodeRefusal(err) {
				t.Errorf("%s: the front gate answered one node past the bound %v", s.Name, err)
			}
		})
	}
	want := []string{NodesShape, "objects-at-bound", "arrays-at-bound", "members-at-bound", ChainsShape}
	if !slices.Equal(names, want) {
		t.Errorf("node shapes %v, want %v", names, want)
	}
	for _, name := range []string{SmallCallShape, "echo/del", "del"} {
		if isNodeShape(name) {
			t.Errorf("%s is a node shape", name)
		}
	}
}

// isNodeRefusal reports whether err is a refusal for the node bound, from
// the core gate or the front gate (the arguments' refusal under a sound
// envelope).
func isNodeRefusal(err error) bool {
	var cr *charge.Refusal
	if errors.As(err, &cr) {
		return cr.Bound == charge.BoundNodes
	}
	var r *mcpvalidate.Refusal
	return errors.As(err, &r) && r.Stage == mcpvalidate.StageGate && r.Bound == charge.BoundNodes.String()
}

// A literal whose nodes do not divide the room is followed by the zeros
// that fill it; a node literal goes with FrameNodes alone.
func TestNodeLiteralMembers(t *testing.T) {
	for _, c := range []struct {
		name         string
		n            NodeLiteral
		count, zeros int
	}{
		{"zero", NodeZero, nodesRoom, 0},
		{"member", NodeMember, nodesRoom / 3, nodesRoom % 3},
		{"pair", NodeLiteral{"[0]", 2}, nodesRoom / 2, nodesRoom % 2},
		{"chain", NodeChain, nodesRoom / (2*ChainDepth + 1), nodesRoom % (2*ChainDepth + 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if count, zeros := c.n.Members(); count != c.count || zeros != c.zeros || count*c.n.Nodes+zeros != nodesRoom {
				t.Errorf("%s: %d + %d zeros, want %d + %d", c.n.JSON, count, zeros, c.count, c.zeros)
			}
		})
	}
	if nodesRoom%2 == 0 || nodesRoom%(2*ChainDepth+1) == 0 {
		t.Fatal("the cases above no longer leave a remainder")
	}
	s := Shape{Name: "pairs", Segments: []Segment{seg(ASCII, 1)}, Encoder: charge.Raw, Verdict: Refuses, Frame: FrameNodes, Node: NodeLiteral{"[0]", 2}}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(s.Arguments()), `[0],0]}`) || !strings.Contains(s.Describe(), "and 1 x 0 after") {
		t.Errorf("pairs: %s ... %s", s.Describe(), s.Arguments()[len(s.Arguments())-16:])
	}
	g, err := charge.NewGate(charge.Go, charge.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := g.Check(s.Arguments()); err != nil || rep.Nodes != charge.DefaultLimits().MaxParamsNodes {
		t.Errorf("pairs: %d nodes, %v", rep.Nodes, err)
	}
	zeros, _ := ShapeNamed(FullScale(), true, NodesShape)
	if d := zeros.Describe(); !strings.Contains(d, "an array of 99993 x 0 after") {
		t.Errorf("zeros: %s", d)
	}
	bare := s
	bare.Node = NodeLiteral{}
	withNode := Shape{Name: "call", Encoder: charge.Raw, Verdict: Refuses, Node: NodeZero}
	for _, bad := range []Shape{bare, withNode} {
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "node literal") {
			t.Errorf("%s: %v", bad.Name, err)
		}
	}
}

func TestGuardedPeakFactor(t *testing.T) {
	rows := []GoMeasurement{
		{Shape: "a", Path: PathGuarded, Wire: 100, PeakLive: 300},
		{Shape: "b", Path: PathGuarded, Wire: 100, PeakLive: 650},
		{Shape: "b", Path: PathHTTP, Wire: 100, PeakLive: 900},
		{Shape: SmallCallShape, Path: PathGuarded, Wire: 10, PeakLive: 4000},
		{Shape: NodesShape, Path: PathGuarded, Wire: 10, PeakLive: 300},
		{Shape: ChainsShape, Path: PathGuarded, Wire: 10, PeakLive: 900},
	}
	pf, err := GuardedPeakFactor(rows)
	if err != nil {
		t.Fatal(err)
	}
	if pf.Shape != "b" || pf.Factor != 6.5 || pf.Rows != 2 || pf.Peak != 650 || pf.Wire != 100 {
		t.Errorf("%+v", pf)
	}
	if err := CheckPeakFactor(pf, 7); err != nil {
		t.Errorf("6.5x under 7: %v", err)
	}
	if err := CheckPeakFactor(PeakFactor{Shape: "c", Wire: 100, Peak: 700}, 7); err != nil {
		t.Errorf("exactly the weight: %v", err)
	}
	if err := CheckPeakFactor(PeakFactor{Shape: "c", Wire: 100, Peak: 701}, 7); err == nil || !strings.Contains(err.Error(), "bounds.PeakFactor") {
		t.Errorf("one byte over the weight: %v", err)
	}
	if _, err := GuardedPeakFactor(rows[2:3]); err == nil {
		t.Error("no guarded row, no factor")
	}
}

// The node cost is the highest guarded peak per node over the node-dense
// rows: other paths and other shapes are left out.
func TestGuardedNodeCost(t *testing.T) {
	nodes := int64(charge.DefaultLimits().MaxParamsNodes)
	rows := []GoMeasurement{
		{Shape: NodesShape, Path: PathGuarded, Wire: 10, PeakLive: 50 * nodes},
		{Shape: ChainsShape, Path: PathHTTP, Wire: 10, PeakLive: 400 * nodes},
		{Shape: "arabic-at-budget", Path: PathGuarded, Wire: 10, PeakLive: 500 * nodes},
		{Shape: ChainsShape, Path: PathGuarded, Wire: 7, PeakLive: 186 * nodes},
		{Shape: "members-at-bound", Path: PathGuarded, Wire: 9, PeakLive: 186 * nodes}, // a tie keeps the first
		{Shape: "arrays-at-bound", Path: PathGuarded, Wire: 10, PeakLive: 60 * nodes},
	}
	nc, err := GuardedNodeCost(rows)
	if err != nil {
		t.Fatal(err)
	}
	want := NodeCost{Shape: ChainsShape, Wire: 7, Peak: 186 * nodes, Nodes: int(nodes), PerNode: 186, Rows: 4}
	if nc != want {
		t.Errorf("%+v, want %+v", nc, want)
	}
	if _, err := GuardedNodeCost(rows[1:3]); err == nil {
		t.Error("no node-dense guarded row, no cost")
	}
}

// The node term keeps at least the margin the byte term keeps over its row:
// bounds.NodeCost over the pinned node cost, bounds.PeakFactor over the
// pinned peak factor.
func TestNodeCostKeepsThePeakFactorsMargin(t *testing.T) {
	rows, err := PinnedGoRows()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := GuardedPeakFactor(rows)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := GuardedNodeCost(rows)
	if err != nil {
		t.Fatal(err)
	}
	node, byteTerm := float64(bounds.NodeCost)/nc.PerNode, float64(bounds.PeakFactor)/pf.Factor
	if node < byteTerm {
		t.Errorf("bounds.NodeCost %d is %.3fx the node cost %.2f (row %s), under bounds.PeakFactor's %.3fx over %s",
			bounds.NodeCost, node, nc.PerNode, nc.Shape, byteTerm, pf.Shape)
	}
	t.Logf("node term %.3fx over %s, byte term %.3fx over %s", node, nc.Shape, byteTerm, pf.Shape)
}

// The pinned rows hold the front gate's constant: what verify checks.
func TestPinnedGuardedRowsHoldTheConstant(t *testing.T) {
	rows, err := PinnedGoRows()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := GuardedPeakFactor(rows)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckPeakFactor(pf, bounds.PeakFactor); err != nil {
		t.Error(err)
	}
}

// Every pinned guarded row, the small call and the node-dense body included,
// peaks within the weight the front gate admits it at; a row one byte over
// its weight fails the check.
func TestPinnedGuardedRowsFitTheirWeight(t *testing.T) {
	rows, err := PinnedGoRows()
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckWeights(rows); err != nil {
		t.Fatal(err)
	}
	l := charge.DefaultLimits()
	for _, m := range rows {
		if m.Path != PathGuarded {
			continue
		}
		over := m
		over.PeakLive = bounds.Request(m.Wire, l) + 1
		if err := CheckWeights([]GoMeasurement{over}); err == nil {
			t.Fatalf("%s one byte over its weight passed", m.Shape)
		}
		return
	}
	t.Fatal("no guarded row pinned")
}

// The node records are the pinned rows' node cost, the weight RequestWeight
// gives its row and the one over the other.
func TestNodeRecords(t *testing.T) {
	recs, err := Records()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := PinnedGoRows()
	if err != nil {
		t.Fatal(err)
	}
	nc, err := GuardedNodeCost(rows)
	if err != nil {
		t.Fatal(err)
	}
	w := bounds.Request(nc.Wire, charge.DefaultLimits())
	want := map[string]float64{
		"memmodel.go.guarded.node-cost":          nc.PerNode,
		"memmodel.go.guarded.node-weight":        float64(w),
		"memmodel.go.guarded.node-weight-margin": float64(w) / float64(nc.Peak),
	}
	for _, r := range recs {
		if v, ok := want[r.ID]; ok {
			if r.Value != v {
				t.Errorf("%s = %v, want %v", r.ID, r.Value, v)
			}
			delete(want, r.ID)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing records %v", want)
	}
}

// frontVerdict is the front gate's verdict on body alone, read through the
// product's public CheckRequest: a refusal at the request or of the
// arguments' charge (the stages the front gate answers), else nil.
func frontVerdict(v *mcpvalidate.Validator, body []byte) error {
	var r *mcpvalidate.Refusal
	if err := v.CheckRequest(context.Background(), body); errors.As(err, &r) && (r.Stage == mcpvalidate.StageRequest || r.Stage == mcpvalidate.StageGate) {
		return r
	}
	return nil
}
