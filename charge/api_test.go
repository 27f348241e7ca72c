package charge_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// TestTablesAreValues: what Bounds, Dialects, Encoders, WireClasses, WireClassOf
// and Ratio return is the caller's to change; the next answer, the body cap
// and the refusal ceiling do not move.
func TestTablesAreValues(t *testing.T) {
	l := charge.DefaultLimits()
	all := charge.Encoders()
	capBefore := charge.BodyCap(l, all...)
	refusalBefore := charge.MaxRefusalBytes()
	bounds, dialects, encoders, classes := charge.Bounds(), charge.Dialects(), charge.Encoders(), charge.WireClasses()
	nine, _ := charge.WireClassOf('9')
	ratio := classes[len(classes)-1].Ratio(charge.EnsureASCII)

	got := charge.Bounds()
	for i := range got {
		got[i] = charge.BoundSyntax // the shortest template: would lower the ceiling
	}
	got2 := charge.Dialects()
	got2[0] = charge.Go
	got3 := charge.Encoders()
	got3[0] = charge.Raw
	got4 := charge.WireClasses()
	for i := range got4 {
		got4[i].Name, got4[i].Control, got4[i].Landed, got4[i].Count = "x", true, 1, 0
	}
	got4[0] = charge.WireClass{}
	mine, _ := charge.WireClassOf('9')
	mine.Landed = 9
	r := got4[len(got4)-1].Ratio(charge.EnsureASCII)
	r.SetInt64(1000)
	caps := charge.BodyCap(l, all...)
	caps.Encoders[0] = charge.GoJSON
	caps.Multiplier.SetInt64(1000)
	all[0] = charge.GoJSON // the variadic slice the caller handed BodyCap

	if !slices.Equal(charge.Bounds(), bounds) {
		t.Errorf("Bounds moved: %v, was %v", charge.Bounds(), bounds)
	}
	if !slices.Equal(charge.Dialects(), dialects) {
		t.Errorf("Dialects moved: %v, was %v", charge.Dialects(), dialects)
	}
	if !slices.Equal(charge.Encoders(), encoders) {
		t.Errorf("Encoders moved: %v, was %v", charge.Encoders(), encoders)
	}
	for i, c := range charge.WireClasses() {
		if c.Name != classes[i].Name || c.Control != classes[i].Control || c.Landed != classes[i].Landed || c.Count != classes[i].Count {
			t.Errorf("WireClasses()[%d] moved: %+v, was %+v", i, c, classes[i])
		}
	}
	if again, _ := charge.WireClassOf('9'); again.Landed != nine.Landed || again.Name != nine.Name {
		t.Errorf("WireClassOf('9') moved: %+v, was %+v", again, nine)
	}
	if again := charge.WireClasses()[len(classes)-1].Ratio(charge.EnsureASCII); again.Cmp(ratio) != 0 {
		t.Errorf("Ratio moved: %v, was %v", again, ratio)
	}
	if n := charge.MaxRefusalBytes(); n != refusalBefore {
		t.Errorf("MaxRefusalBytes moved: %d, was %d", n, refusalBefore)
	}
	after := charge.BodyCap(l, charge.Encoders()...)
	if after.Cap != capBefore.Cap || after.Multiplier.Cmp(capBefore.Multiplier) != 0 || len(after.Residual) != len(capBefore.Residual) {
		t.Errorf("BodyCap moved: cap %d multiplier %v, was %d %v", after.Cap, after.Multiplier, capBefore.Cap, capBefore.Multiplier)
	}
	if capBefore.Encoders[0] != charge.EnsureASCII {
		t.Errorf("a derivation shares its Encoders with the caller's or another derivation's: %v", capBefore.Encoders)
	}
}

// TestCheckErrorIsNilOrARefusal: admitting returns an error that is nil as an
// interface (no typed-nil *Refusal), and a refusal survives wrapping.
func TestCheckErrorIsNilOrARefusal(t *testing.T) {
	g := gate(t, charge.Go, charge.DefaultLimits())
	for _, c := range []struct{ name, doc string }{
		{"empty_object", `{}`},
		{"every_kind", `{"a":[1,"x",true,null]}`},
		{"string", `"s"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := g.Check([]byte(c.doc)); err != nil {
				t.Errorf("%s: admitted with a non-nil error %#v", c.doc, err)
			}
		})
	}
	_, err := g.Check([]byte(`{"a":1,"a":2}`))
	var ref *charge.Refusal
	if !errors.As(fmt.Errorf("tool call: %w", err), &ref) || ref == nil || ref.Bound != charge.BoundDuplicateName {
		t.Fatalf("errors.As through a wrap: %v, %#v", err, ref)
	}
}

// TestReportOnRefusal pins what each Report field holds when Check refuses:
// what the scan counted up to the refusal, as Report's doc says.
func TestReportOnRefusal(t *testing.T) {
	l := charge.DefaultLimits()
	l.MaxParamsNodes, l.MaxParamsNesting, l.MaxParamsRenderedChars, l.MaxNumberBytes = 5, 3, 10, 4
	g := gate(t, charge.Python, l)
	for _, c := range []struct {
		doc   string
		bound charge.Bound
		want  charge.Report // Bytes is always len(doc)
	}{
		{`[0,0,0,0,0]`, charge.BoundNodes, charge.Report{Nodes: 6, Depth: 1, Charge: 4}},
		{`[[[[0]]]]`, charge.BoundNesting, charge.Report{Nodes: 4, Depth: 3}},
		{`["aaaa","bbbbbbbb"]`, charge.BoundCharge, charge.Report{Nodes: 3, Depth: 1, Charge: 12}},
		{`["ab",12345]`, charge.BoundNumberBytes, charge.Report{Nodes: 3, Depth: 1, Charge: 2}},
		{`{"ab":1,"ab":2}`, charge.BoundDuplicateName, charge.Report{Nodes: 4, Depth: 1, Charge: 5}},
		{"[\"ab\",\"c\x01\"]", charge.BoundControl, charge.Report{Nodes: 3, Depth: 1, Charge: 2}},
		{`[1,tru]`, charge.BoundSyntax, charge.Report{Nodes: 3, Depth: 1, Charge: 1}},
	} {
		t.Run(c.bound.String(), func(t *testing.T) {
			rep, ref := check(t, g, []byte(c.doc))
			c.want.Bytes = len(c.doc)
			if ref == nil || ref.Bound != c.bound || rep != c.want {
				t.Errorf("%q: %+v, %v; want %+v refused under %s", c.doc, rep, ref, c.want, c.bound)
			}
		})
	}
}
