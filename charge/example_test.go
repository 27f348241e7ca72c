package charge_test

import (
	"errors"
	"fmt"

	"github.com/theurian/boundlab/charge"
)

func ExampleGate_Check() {
	g, err := charge.NewGate(charge.Python, charge.DefaultLimits())
	if err != nil {
		panic(err)
	}
	rep, err := g.Check([]byte(`{"query":"it's \"here\"","limit":10}`))
	fmt.Println(rep.Nodes, rep.Depth, rep.Charge, err == nil)

	_, err = g.Check([]byte(`{"query":"a","query":"b"}`))
	var ref *charge.Refusal
	if errors.As(err, &ref) {
		fmt.Println(ref.Bound, ref.Pointer, ref.Offset)
	}
	// Output:
	// 5 1 24 true
	// duplicate-name /query 13
}

func ExampleBodyCap() {
	d := charge.BodyCap(charge.DefaultLimits(), charge.EnsureASCII, charge.Raw)
	fmt.Println(d.Multiplier, d.Cap)
	for _, r := range d.Residual {
		fmt.Println(r.Encoder, r.Class.Name, r.Ratio.FloatString(1))
	}
	// Output:
	// 3/1 26214400
	// ensure_ascii C0 other 6.0
	// ensure_ascii DEL 6.0
	// raw C0 other 6.0
}

func ExampleComposedCeiling() {
	l := charge.DefaultLimits()
	for _, d := range charge.Dialects() {
		fmt.Println(d, charge.ComposedCeiling(d, l), d.Unit())
	}
	// Output:
	// python 12982912 characters
	// go 13082912 bytes
}
