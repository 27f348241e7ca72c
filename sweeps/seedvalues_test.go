package sweeps

import (
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/results"
)

// Every seed figure names a record the producers make, so a renamed record
// cannot drop a figure from derive's verdict unseen.
func TestSeedValuesNameProducedRecords(t *testing.T) {
	live, errs := results.Live(Producers(charge.DefaultLimits()))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := map[string]results.Record{}
	for _, rs := range live {
		for _, r := range rs {
			set[r.ID] = r
		}
	}
	for id, want := range seedValues {
		t.Run(id, func(t *testing.T) {
			if got, ok := set[id]; !ok || got.SeedValue != want.value || got.SeedFigure != want.figure {
				t.Errorf("%s: produced %v, seed value %q figure %d, want %q figure %d", id, ok, got.SeedValue, got.SeedFigure, want.value, want.figure)
			}
		})
	}
	for id, n := range retiredFigures {
		if got, ok := set[id]; !ok || got.SeedFigure != n || got.Method != results.Retired {
			t.Errorf("%s: produced %v, figure %d (%s), want retired figure %d", id, ok, got.SeedFigure, got.Method, n)
		}
	}
}
