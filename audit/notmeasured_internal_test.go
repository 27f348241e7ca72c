package audit

import (
	"strings"
	"testing"
)

// TestWriteNotMeasured: each measurement not made is a line naming the
// probe, where, and why; none, no section.
func TestWriteNotMeasured(t *testing.T) {
	var b strings.Builder
	writeNotMeasured(&b, &Report{})
	if b.Len() != 0 {
		t.Errorf("nothing unmeasured, yet: %q", b.String())
	}
	writeNotMeasured(&b, &Report{NotMeasured: []NotMeasured{{"max_depth", "", "alike"}, {"unknown_member", "knowledge.search", "refused"}}})
	for _, want := range []string{"not measured", "max_depth\ttarget\talike", "unknown_member\tknowledge.search\trefused"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("%q lacks %q", b.String(), want)
		}
	}
}
