package derivation_test

import (
	"fmt"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/derivation"
	"github.com/theurian/boundlab/results"
)

// Re-derive for a 16 MiB file limit: the body caps, the budget a file at the
// limit needs, and whether the limits contradict themselves.
func ExampleFor() {
	l := charge.DefaultLimits()
	l.MaxSourceFileBytes = 16 << 20
	// The measured facts come from the pinned records: derivation.MeasuredFrom(results.Load("results")).
	d, err := derivation.For(l, derivation.Measured{SDKArgumentsMaxDepth: 998, SDKArgumentsMaxDepthRecord: derivation.SDKDepthRecord})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, bc := range d.BodyCaps {
		fmt.Printf("body cap, %s: %s bytes (multiplier %s)\n", bc.Name, results.Thousands(bc.Cap), bc.Multiplier.RatString())
	}
	for _, n := range d.Needs {
		fmt.Printf("%s: printable text needs a budget of %s, every class within the cap %s\n", n.Dialect,
			results.Thousands(n.Printable), results.Thousands(n.All))
	}
	for _, f := range d.Findings {
		if f.Contradicts {
			fmt.Println("contradicts", f.Limit+":", f.ID)
		}
	}
	// Output:
	// body cap, python-clients: 51,380,224 bytes (multiplier 3)
	// body cap, go-clients: 101,711,872 bytes (multiplier 6)
	// body cap, all-clients: 101,711,872 bytes (multiplier 6)
	// python: printable text needs a budget of 16,777,220, every class within the cap 67,108,868
	// go: printable text needs a budget of 16,777,220, every class within the cap 67,108,868
	// contradicts MaxSourceFileBytes: source-file.printable-charge-bound.python
	// contradicts MaxSourceFileBytes: source-file.printable-charge-bound.go
}
