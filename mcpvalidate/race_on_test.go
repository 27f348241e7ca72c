//go:build race

package mcpvalidate

// raceEnabled: the race detector allocates on its own, so allocation counts
// are not measured under it.
const raceEnabled = true
