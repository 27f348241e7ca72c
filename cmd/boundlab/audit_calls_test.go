package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/theurian/boundlab/audit"
)

// TestAuditCallFlags: --call, --calls and --sessions are checked before
// any target is reached, each bound at it and past it.
func TestAuditCallFlags(t *testing.T) {
	clean, dir := t.TempDir(), t.TempDir()
	writeSchema(t, clean, "count.schema.json", toolSchema("count", `"properties":{"n":{"type":"integer","maximum":5}}`))
	good := filepath.Join(dir, "calls.json")
	os.WriteFile(good, []byte(`[{"name":"count","arguments":{"n":1}}]`), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"count":{"n":1}}`), 0o644)
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"a call", []string{"--schemas", clean, "--call", `count={"n":1}`}, exitOK},
		{"a calls file", []string{"--schemas", clean, "--calls", good}, exitOK},
		{"a call without =", []string{"--schemas", clean, "--call", `count`}, exitUsage},
		{"a call that is not an object", []string{"--schemas", clean, "--call", `count=[1]`}, exitUsage},
		{"a calls file that is not an array", []string{"--schemas", clean, "--calls", bad}, exitUsage},
		{"a calls file that is not there", []string{"--schemas", clean, "--calls", filepath.Join(dir, "none.json")}, exitUsage},
		{"sessions without --url", []string{"--schemas", clean, "--sessions", "2"}, exitUsage},
		{"sessions past the bound", []string{"--url", "http://127.0.0.1:1/mcp", "--sessions", strconv.Itoa(audit.MaxSessions + 1)}, exitUsage},
		{"sessions negative", []string{"--url", "http://127.0.0.1:1/mcp", "--sessions", "-1"}, exitUsage},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runVerb(t, "", append([]string{"audit"}, c.args...)...)
			if code != c.want {
				t.Errorf("exit %d, want %d (%s)", code, c.want, errOut)
			}
		})
	}
}
