package memmodel

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/mcpvalidate"
)

// The gate shapes build the bodies their names say: sizes as Stats counts
// them, at the cap where they scale, and the front gate refuses exactly the
// hostile ones.
func TestGateShapesAreWhatTheyClaim(t *testing.T) {
	for _, sc := range []Scale{FullScale(), FullScale().Scaled(64)} {
		for _, s := range GateShapes(sc) {
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
		}
	}
	v, err := demo.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	fg, err := v.FrontGate(http.NotFoundHandler(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range GateShapes(FullScale()) {
		_, err := fg.Check(s.Body())
		hostile := s.Frame != FrameCall && s.Frame != FrameNodes
		if hostile != (err != nil) {
			t.Errorf("%s: front gate answered %v", s.Name, err)
		}
		// Refused for its frame, not for its size.
		var r *mcpvalidate.Refusal
		if errors.As(err, &r) && r.Gate != nil && (r.Gate.Bound == charge.BoundCharge || r.Gate.Bound == charge.BoundNodes) {
			t.Errorf("%s: refused by the %s bound", s.Name, r.Gate.Bound)
		}
	}
}

// NodesFrameZeros is the node bound exactly: one zero more and the gate
// refuses the arguments.
func TestNodesShapeIsAtTheBound(t *testing.T) {
	g, err := charge.NewGate(charge.Go, charge.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ShapeNamed(FullScale(), true, NodesShape)
	if err != nil {
		t.Fatal(err)
	}
	args := s.Arguments()
	rep, err := g.Check(args)
	if err != nil || rep.Nodes != charge.DefaultLimits().MaxParamsNodes {
		t.Fatalf("at the bound: %d nodes, %v", rep.Nodes, err)
	}
	past := strings.Replace(string(args), "[0,", "[0,0,", 1)
	if _, err := g.Check([]byte(past)); err == nil {
		t.Error("one node past the bound was admitted")
	}
}

func TestGuardedPeakFactor(t *testing.T) {
	rows := []GoMeasurement{
		{Shape: "a", Path: PathGuarded, Wire: 100, PeakLive: 300},
		{Shape: "b", Path: PathGuarded, Wire: 100, PeakLive: 650},
		{Shape: "b", Path: PathHTTP, Wire: 100, PeakLive: 900},
		{Shape: SmallCallShape, Path: PathGuarded, Wire: 10, PeakLive: 4000},
		{Shape: NodesShape, Path: PathGuarded, Wire: 10, PeakLive: 300},
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
	if err := CheckPeakFactor(PeakFactor{Shape: "c", Wire: 100, Peak: 701}, 7); err == nil || !strings.Contains(err.Error(), "RequestPeakFactor") {
		t.Errorf("one byte over the weight: %v", err)
	}
	if _, err := GuardedPeakFactor(rows[2:3]); err == nil {
		t.Error("no guarded row, no factor")
	}
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
	if err := CheckPeakFactor(pf, mcpvalidate.RequestPeakFactor); err != nil {
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
		over.PeakLive = mcpvalidate.RequestWeight(m.Wire, l) + 1
		if err := CheckWeights([]GoMeasurement{over}); err == nil {
			t.Fatalf("%s one byte over its weight passed", m.Shape)
		}
		return
	}
	t.Fatal("no guarded row pinned")
}
