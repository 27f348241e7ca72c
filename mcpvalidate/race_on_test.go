//go:build race

package mcpvalidate_test

// raceEnabled: the race detector allocates on its own, so allocation counts
// are not measured under it.
const raceEnabled = true
