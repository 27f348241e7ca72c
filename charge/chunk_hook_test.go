package charge_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/internal/chargetest"
)

// chargetest.SetChunkBytes, FuzzGate's way to shrink a gate's string chunk
// from outside charge's test build, sets what export_test.go's SetChunkBytes
// sets, for every size the tests use and at the floor of one byte.
func TestChargetestSetChunkBytesIsExportTests(t *testing.T) {
	chunk := func(g *charge.Gate) int64 { return reflect.ValueOf(g).Elem().FieldByName("chunk").Int() }
	def := chunk(gate(t, charge.Go, charge.DefaultLimits()))
	for _, n := range []int{-1, 0, 1, 2, 9, 4096} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			a, b := gate(t, charge.Go, charge.DefaultLimits()), gate(t, charge.Go, charge.DefaultLimits())
			charge.SetChunkBytes(a, n)
			chargetest.SetChunkBytes(b, n)
			if chunk(a) != chunk(b) || chunk(b) == def {
				t.Errorf("export_test.go sets chunk %d, chargetest %d (default %d)", chunk(a), chunk(b), def)
			}
		})
	}
}
