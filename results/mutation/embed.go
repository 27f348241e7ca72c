// Package mutationdata holds boundlab's saved mutation-testing runs
// (scripts/mutation.sh), one per production package: gremlins' report with
// the commit, files, toolchain and machine of the run. Package mutation's
// producer reads its records from them, so `boundlab verify` checks the
// mutation records against these files rather than re-running gremlins.
package mutationdata

import _ "embed"

// Saved is one saved run.
type Saved struct {
	File string // the run's path within the module
	Data []byte
}

var (
	//go:embed charge.run.json
	charge []byte
	//go:embed mcpvalidate.run.json
	mcpvalidate []byte
)

// Runs are the saved runs, charge then mcpvalidate.
func Runs() []Saved {
	return []Saved{
		{File: "results/mutation/charge.run.json", Data: append([]byte(nil), charge...)},
		{File: "results/mutation/mcpvalidate.run.json", Data: append([]byte(nil), mcpvalidate...)},
	}
}
