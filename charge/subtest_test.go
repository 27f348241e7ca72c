package charge_test

import (
	"testing"

	"github.com/theurian/boundlab/charge"
)

// forDialects runs f as one subtest per dialect, named for it (python, go),
// one after the other: -run 'TestX/go' picks the go dialect's cases. (The
// exhaustive sweeps use eachDialect, which runs them in parallel.)
func forDialects(t *testing.T, f func(t *testing.T, d charge.Dialect)) {
	t.Helper()
	for _, d := range charge.Dialects() {
		t.Run(d.String(), func(t *testing.T) { f(t, d) })
	}
}

// caseName is charge's caseName (subtest_internal_test.go), shared with
// these tests through export_test.go.
var caseName = charge.CaseName
