package charge_test

import (
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

func TestDisplayText(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                       "plain",
		"a\"b\\c":                     `a\"b\\c`,
		"\x00\x7f":                    `\u0000\u007f`,
		"é😀":                          `\u00e9\ud83d\ude00`,
		"\xff":                        `\ufffd`,
		strings.Repeat("x", 70):       strings.Repeat("x", 64) + "...",
		"x" + strings.Repeat("é", 20): "x" + strings.Repeat(`\u00e9`, 10) + "...", // cut before a piece that would pass 64
	} {
		if got := charge.DisplayText(in, 64); got != want {
			t.Errorf("DisplayText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDisplayPointer(t *testing.T) {
	if got := charge.DisplayPointer([]string{"a/b", "~c", "0"}); got != "/a~1b/~0c/0" {
		t.Errorf("pointer = %q", got)
	}
	if got := charge.DisplayPointer(nil); got != "" {
		t.Errorf("root pointer = %q, want empty", got)
	}
	deep := make([]string, 40)
	for i := range deep {
		deep[i] = "k"
	}
	if got := charge.DisplayPointer(deep); strings.Count(got, "/k") != charge.PointerSegments || !strings.Contains(got, "/...") {
		t.Errorf("deep pointer = %q", got)
	}
	// A 10,000-byte name is cut; the widest possible pointer fits the ceiling.
	wide := make([]string, 40)
	for i := range wide {
		wide[i] = strings.Repeat("\x01", 10_000)
	}
	if got := charge.DisplayPointer(wide); len(got) > charge.MaxPointerBytes {
		t.Errorf("pointer of %d bytes past MaxPointerBytes %d", len(got), charge.MaxPointerBytes)
	}
}
