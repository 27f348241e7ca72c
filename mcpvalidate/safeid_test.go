package mcpvalidate

import (
	"strconv"
	"testing"
)

// TestSafeInteger: a number id is -?(0|[1-9][0-9]*) within ±(2^53-1),
// written out here from the float64 mantissa (53 bits); anything else, the
// empty token included, is refused without a panic.
func TestSafeInteger(t *testing.T) {
	const safe = 1<<53 - 1
	for i, c := range []struct {
		tok string
		ok  bool
	}{
		{"0", true}, {"-0", true}, {"7", true}, {"-7", true},
		{strconv.FormatInt(safe, 10), true}, {strconv.FormatInt(-safe, 10), true},
		{strconv.FormatInt(safe+1, 10), false}, {strconv.FormatInt(-safe-1, 10), false},
		{"99999999999999999", false}, {"1000000000000000", true},
		{"", false}, {"-", false}, {"01", false}, {"-01", false}, {"00", false},
		{"1.0", false}, {"1e3", false}, {"+1", false}, {"--1", false}, {"1-", false},
	} {
		t.Run(docName(i, c.tok), func(t *testing.T) {
			if got := safeInteger([]byte(c.tok)); got != c.ok {
				t.Errorf("safeInteger(%q) = %v, want %v", c.tok, got, c.ok)
			}
		})
	}
}
