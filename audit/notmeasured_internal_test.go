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

// The text report carries the section: WriteText says which measurements
// were not made.
func TestWriteTextSaysWhatWasNotMeasured(t *testing.T) {
	var b strings.Builder
	r := &Report{Target: "t", NotMeasured: []NotMeasured{{"max_depth", "", "the baseline was refused alike"}}}
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "not measured (no finding raised)") || !strings.Contains(b.String(), "the baseline was refused alike") {
		t.Errorf("the text report does not say what was not measured:\n%s", b.String())
	}
}
