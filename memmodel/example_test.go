package memmodel_test

import (
	"fmt"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/memmodel"
)

// The seed's family-(ii) ratio-worst instance, priced under pydantic_core:
// the render moment decides it.
func ExamplePredict() {
	s := memmodel.RatioWorstSeedShape()
	p := memmodel.Predict(s, memmodel.PydanticCore, charge.DefaultLimits())
	seed, _ := memmodel.SeedModel(s, charge.DefaultLimits())
	fmt.Printf("family %s, %d wire bytes, charged %d\n", p.Family, p.Stats.Wire, p.Stats.Charge)
	fmt.Printf("model %.2fx (%s moment), the seed's expression %.2fx\n", p.Ratio(), p.Decider, float64(seed)/float64(p.Stats.Wire))
	// Output:
	// family ii, 3145848 wire bytes, charged 12582887
	// model 38.05x (render moment), the seed's expression 38.00x
}

// A body that widens twice: pydantic_core's parse term holds the old and the
// new buffer at each step.
func ExampleParser() {
	n := 1 << 20
	for _, s := range []memmodel.Shape{
		{Name: "ascii, U+0416, U+1F600", Segments: []memmodel.Segment{{R: 'a', Count: n}, {R: 0x416, Count: 1}, {R: 0x1f600, Count: 1}}, Encoder: charge.Raw, Verdict: memmodel.Refuses},
		{Name: "U+1F600, U+0416, ascii", Segments: []memmodel.Segment{{R: 0x1f600, Count: 1}, {R: 0x416, Count: 1}, {R: 'a', Count: n}}, Encoder: charge.Raw, Verdict: memmodel.Refuses},
	} {
		st := s.Stats()
		fmt.Printf("%s: kinds %v, parse %.2fx the leaf's bytes\n", s.Name, st.Kinds, float64(memmodel.PydanticCore.Peak(st, s.Encoder))/float64(st.Landed))
	}
	// Output:
	// ascii, U+0416, U+1F600: kinds [1 2 4], parse 6.00x the leaf's bytes
	// U+1F600, U+0416, ascii: kinds [1 4], parse 5.00x the leaf's bytes
}
