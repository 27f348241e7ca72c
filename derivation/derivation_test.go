package derivation_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/derivation"
	"github.com/theurian/boundlab/sweeps"
)

var sdk998 = derivation.Measured{SDKArgumentsMaxDepth: 998, SDKArgumentsMaxDepthRecord: derivation.SDKDepthRecord}

func mustFor(t *testing.T, l charge.Limits, m derivation.Measured) derivation.Derivation {
	t.Helper()
	d, err := derivation.For(l, m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func finding(d derivation.Derivation, id string) (derivation.Finding, bool) {
	for _, f := range d.Findings {
		if f.ID == id {
			return f, true
		}
	}
	return derivation.Finding{}, false
}

// Every landing's verdict is the gate's own on the body it prices, built
// byte for byte: the charge it states is what the gate counts, the cap it
// compares is the body's length.
func TestLandingIsTheGatesVerdict(t *testing.T) {
	l := charge.DefaultLimits()
	l.MaxSourceFileBytes, l.EnvelopeAllowance, l.MaxParamsRenderedChars = 4096, 512, 6000
	d := mustFor(t, l, sdk998)
	// Which outcomes the landings reach, read before the subtests so that
	// -run picking one landing or class still holds the test to reaching all.
	seen := map[string]bool{}
	for _, ld := range d.Landings {
		for _, c := range ld.Classes {
			seen[c.Outcome] = true
		}
	}
	for _, ld := range d.Landings {
		t.Run(ld.Dialect.String()+"-"+ld.Encoder.String(), func(t *testing.T) { // python-raw, go-go
			g, err := charge.NewGate(ld.Dialect, l)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range ld.Classes {
				t.Run(fmt.Sprintf("U%04X", c.Row.Example), func(t *testing.T) { // the class's example code point
					body, args := c.Instance(ld.Encoder).Build()
					if int64(len(body)) != c.Wire {
						t.Fatalf("%s/%s %s: body %d bytes, landing says %d", ld.Dialect, ld.Encoder, c.Row.Name(), len(body), c.Wire)
					}
					if (c.Outcome == derivation.TransportBound) != (c.Wire > ld.Cap) {
						t.Fatalf("%s/%s %s: outcome %s with body %d and cap %d", ld.Dialect, ld.Encoder, c.Row.Name(), c.Outcome, c.Wire, ld.Cap)
					}
					rep, err := g.Check(body[args[0]:args[1]])
					var ref *charge.Refusal
					switch {
					case err == nil:
						if rep.Charge != c.Charge {
							t.Fatalf("%s/%s %s: the gate charges %d, the landing %d", ld.Dialect, ld.Encoder, c.Row.Name(), rep.Charge, c.Charge)
						}
						if c.Outcome == derivation.ChargeBound {
							t.Fatalf("%s/%s %s: the gate admits what the landing calls charge-bound", ld.Dialect, ld.Encoder, c.Row.Name())
						}
					case errors.As(err, &ref) && ref.Bound == charge.BoundCharge:
						if c.Outcome == derivation.ReachesSchema || c.Charge <= l.MaxParamsRenderedChars {
							t.Fatalf("%s/%s %s: the gate refuses on charge; the landing says %s at %d", ld.Dialect, ld.Encoder, c.Row.Name(), c.Outcome, c.Charge)
						}
					default:
						t.Fatalf("%s/%s %s: unexpected gate answer %v", ld.Dialect, ld.Encoder, c.Row.Name(), err)
					}
				})
			}
		})
	}
	for _, o := range []string{derivation.ReachesSchema, derivation.ChargeBound, derivation.TransportBound} {
		t.Run("some_class_lands_"+o, func(t *testing.T) {
			if !seen[o] {
				t.Errorf("no class landed as %s: the test does not reach every outcome", o)
			}
		})
	}
}

// The case: a 16 MiB file limit under the 12 MiB budget.
func TestSixteenMiB(t *testing.T) {
	l := charge.DefaultLimits()
	l.MaxSourceFileBytes = 16 << 20
	d := mustFor(t, l, sdk998)
	if d.Default || !d.Contradicts() {
		t.Fatalf("16 MiB under the 12 MiB budget: default %v, contradicts %v", d.Default, d.Contradicts())
	}
	for _, bc := range d.BodyCaps {
		want := map[string]int64{"python-clients": 3*(16<<20) + (1 << 20), "all-clients": 6*(16<<20) + (1 << 20)}[bc.Name]
		if want == 0 {
			continue // a cap this test does not pin
		}
		t.Run("cap_"+bc.Name, func(t *testing.T) {
			if bc.Cap != want {
				t.Errorf("%s cap %d", bc.Name, bc.Cap)
			}
		})
	}
	for _, n := range d.Needs {
		t.Run(n.Dialect.String(), func(t *testing.T) {
			name := int64(n.Dialect.NameWidth(sweeps.ValueKey))
			if want := l.MaxSourceFileBytes + name; n.Printable != want {
				t.Errorf("%s: printable needs %d, want %d", n.Dialect, n.Printable, want)
			}
			if want := 4*l.MaxSourceFileBytes + name; n.All != want {
				t.Errorf("%s: every class needs %d, want %d (\\xNN at 4 per byte)", n.Dialect, n.All, want)
			}
			if _, ok := finding(d, "source-file.printable-charge-bound."+n.Dialect.String()); !ok {
				t.Errorf("%s: no printable-charge-bound finding", n.Dialect)
			}
		})
	}
	// The budget the finding names is enough, and one less is not.
	l.MaxParamsRenderedChars = d.Needs[0].Printable
	for _, n := range d.Needs[1:] {
		l.MaxParamsRenderedChars = max(l.MaxParamsRenderedChars, n.Printable)
	}
	if mustFor(t, l, sdk998).Contradicts() {
		t.Error("the needed budget still contradicts")
	}
	l.MaxParamsRenderedChars--
	if !mustFor(t, l, sdk998).Contradicts() {
		t.Error("one under the needed budget does not contradict")
	}
}

func TestDefaultsHoldTogether(t *testing.T) {
	d := mustFor(t, charge.DefaultLimits(), sdk998)
	if !d.Default || d.Contradicts() {
		t.Fatalf("defaults: default %v, contradicts %v: %+v", d.Default, d.Contradicts(), d.Findings)
	}
	for _, id := range []string{"budget.above-cap.python", "nodes.above-cap", "nesting.sdk-undercuts", "nesting.sdk-unchecked"} {
		t.Run("no_"+id, func(t *testing.T) {
			if _, ok := finding(d, id); ok {
				t.Errorf("defaults: finding %s", id)
			}
		})
	}
	if _, ok := finding(d, "source-file.transport-bound"); !ok {
		t.Error("defaults: the cap's residual classes are not stated")
	}
	if len(d.Memory.Rows) == 0 || len(d.Scenarios) != len(sweeps.Scenarios(d.Limits)) {
		t.Errorf("memory rows %d, scenarios %d", len(d.Memory.Rows), len(d.Scenarios))
	}
}

func TestFindingsAtTheirBounds(t *testing.T) {
	l := charge.DefaultLimits()
	d := mustFor(t, l, derivation.Measured{})
	if _, ok := finding(d, "nesting.sdk-unchecked"); !ok {
		t.Error("a missing SDK depth record is not stated")
	}
	shallow := derivation.Measured{SDKArgumentsMaxDepth: 64, SDKArgumentsMaxDepthRecord: "r"}
	if f, ok := finding(mustFor(t, l, shallow), "nesting.sdk-undercuts"); ok {
		t.Errorf("nesting 64 under an SDK depth of 64: %s", f.Text)
	}
	l.MaxParamsNesting = 65
	if f, ok := finding(mustFor(t, l, shallow), "nesting.sdk-undercuts"); !ok || !f.Contradicts || !strings.Contains(f.Text, "65") {
		t.Errorf("nesting 65 over an SDK depth of 64: %+v", f)
	}

	l = charge.DefaultLimits()
	carry := int64(0)
	for _, e := range charge.Encoders() {
		sc := sweeps.Scenario{ID: "t", Dialect: charge.Python, Encoder: e, Rule: sweeps.ExactRule, Budget: 1 << 50}
		sc.Transport = charge.BodyCap(l, charge.EnsureASCII, charge.Raw).Cap
		if e == charge.GoJSON {
			sc.Transport = charge.BodyCap(l, charge.Encoders()...).Cap
		}
		rows, err := sweeps.Shared().Table(charge.Python)
		if err != nil {
			t.Fatal(err)
		}
		dv, err := sweeps.Derive(sc, rows)
		if err != nil {
			t.Fatal(err)
		}
		carry = max(carry, dv.Worst.Charge)
	}
	l.MaxParamsRenderedChars = carry
	if _, ok := finding(mustFor(t, l, sdk998), "budget.above-cap.python"); ok {
		t.Error("a budget equal to what the cap carries is called above it")
	}
	l.MaxParamsRenderedChars = carry + 1
	if _, ok := finding(mustFor(t, l, sdk998), "budget.above-cap.python"); !ok {
		t.Error("a budget one above what the cap carries is not stated")
	}

	l = charge.DefaultLimits()
	most := charge.BodyCap(l, charge.Encoders()...).Cap/2 + 3
	l.MaxParamsNodes = int(most)
	if _, ok := finding(mustFor(t, l, sdk998), "nodes.above-cap"); ok {
		t.Error("a node bound the cap can reach is called above it")
	}
	l.MaxParamsNodes++
	if _, ok := finding(mustFor(t, l, sdk998), "nodes.above-cap"); !ok {
		t.Error("a node bound past the cap is not stated")
	}
}

func TestForRefusesInvalidLimits(t *testing.T) {
	l := charge.DefaultLimits()
	l.MaxParamsRenderedChars = 0
	if _, err := derivation.For(l, sdk998); err == nil {
		t.Fatal("a zero budget was derived")
	}
}
