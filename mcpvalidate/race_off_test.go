//go:build !race

package mcpvalidate

const raceEnabled = false
