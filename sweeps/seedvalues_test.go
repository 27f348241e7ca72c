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
	set := map[string]string{}
	for _, rs := range live {
		for _, r := range rs {
			set[r.ID] = r.SeedValue
		}
	}
	for id, want := range seedValues {
		t.Run(id, func(t *testing.T) {
			if got, ok := set[id]; !ok || got != want {
				t.Errorf("%s: produced %v, seed value %q, want %q", id, ok, got, want)
			}
		})
	}
}
