//go:build race

package charge_test

const raceEnabled = true
