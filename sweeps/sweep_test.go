package sweeps

import (
	"testing"

	"github.com/theurian/boundlab/charge"
)

func TestEveryScalarValueIsInTheClassTheModelPredicts(t *testing.T) {
	s := Run()
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if s.CodePoints != ScalarValues || ScalarValues != 1_112_064 {
		t.Fatalf("visited %d code points, want 1,112,064", s.CodePoints)
	}
	t.Logf("%d code points, %d comparisons, no mismatch", s.CodePoints, s.Checks)
}

func BenchmarkSweep(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(ScalarValues))
	for b.Loop() {
		if s := Run(); !s.OK() {
			b.Fatal(s.Err())
		}
	}
	_ = charge.Python
}
