//go:build !race

package mcpvalidate_test

const raceEnabled = false
