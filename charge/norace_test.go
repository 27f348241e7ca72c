//go:build !race

package charge_test

const raceEnabled = false
