package main

import (
	"strings"
	"testing"
)

// TestAuditMemoryFlag: --memory reads a stdio process, so it is refused
// beside --url and --schemas (naming what it takes), and taken with
// --stdio (a command that exits is then the target error it always is).
func TestAuditMemoryFlag(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"with --url", []string{"--memory", "--url", "http://127.0.0.1:1/mcp"}, exitUsage},
		{"with --schemas", []string{"--memory", "--schemas", t.TempDir()}, exitUsage},
		{"with --stdio", []string{"--memory", "--quiet", "--stdio", "false"}, exitUsage},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runVerb(t, "", append([]string{"audit"}, c.args...)...)
			if code != c.want {
				t.Errorf("exit %d, want %d (%s)", code, c.want, errOut)
			}
			refused := strings.Contains(errOut, "--memory reads a stdio server's process")
			if want := c.name != "with --stdio"; refused != want {
				t.Errorf("refused as a usage of --memory: %v, want %v (%s)", refused, want, errOut)
			}
		})
	}
}
