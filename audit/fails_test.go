package audit_test

import (
	"testing"

	"github.com/theurian/boundlab/audit"
)

// TestFails: which findings fail a run at each --fail-on setting; "" is the
// default, warning (notes are reported and pass).
func TestFails(t *testing.T) {
	note := audit.Finding{Rule: audit.RuleUnbounded, Severity: audit.SeverityNote}
	warning := audit.Finding{Rule: audit.RuleOpenSchema, Severity: audit.SeverityWarning}
	failure := audit.Finding{Rule: audit.RuleClosurePitfall, Severity: audit.SeverityError}
	for _, c := range []struct {
		name  string
		fs    []audit.Finding
		least string
		want  bool
	}{
		{"none_default", nil, "", false},
		{"note_default", []audit.Finding{note}, "", false},
		{"warning_default", []audit.Finding{note, warning}, "", true},
		{"error_default", []audit.Finding{failure}, "", true},
		{"note_strict", []audit.Finding{note}, audit.SeverityNote, true},
		{"note_on_warning", []audit.Finding{note}, audit.SeverityWarning, false},
		{"warning_on_error", []audit.Finding{warning}, audit.SeverityError, false},
		{"error_on_error", []audit.Finding{warning, failure}, audit.SeverityError, true},
		{"unknown_level_fails_nothing", []audit.Finding{failure}, "all", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := audit.Fails(c.fs, c.least); got != c.want {
				t.Errorf("Fails(%d findings, %q) = %v, want %v", len(c.fs), c.least, got, c.want)
			}
		})
	}
	if audit.DefaultFailOn != audit.SeverityWarning {
		t.Errorf("the default fails on %q, the issue asks for warnings and errors", audit.DefaultFailOn)
	}
}
