package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditTargets: --targets audits each server of the list into one
// table, writes a SARIF log per server with --sarif-dir, and exits 2 when
// a server could not be audited; it stands alone among the target flags.
func TestAuditTargets(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(hostileTools))
	defer hs.Close()
	dir := t.TempDir()
	list := filepath.Join(dir, "census.json")
	os.WriteFile(list, []byte(`[{"name":"one","url":"`+hs.URL+`"},{"name":"two","url":"`+hs.URL+`","skip":["x\u001b[2Jy"]}]`), 0o644)
	small := []string{"audit", "--targets", list, "--body-ceiling", "4096", "--depth-ceiling", "8", "--echo-bytes", "16", "--timeout", "2s"}
	sarif := filepath.Join(dir, "sarif")
	code, out, errOut := runVerb(t, "", append(small, "--sarif-dir", sarif)...)
	if code == exitUsage {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "one ") || !strings.HasPrefix(lines[2], "two ") ||
		!strings.Contains(lines[1], "1 of 1") || !strings.Contains(lines[2], "0 of 1") {
		t.Errorf("table:\n%s", out)
	}
	if !strings.Contains(errOut, "server 1 of 2: one") || strings.Contains(errOut, "\x1b") {
		t.Errorf("stderr %q: want a line per server, no server bytes", errOut)
	}
	for _, name := range []string{"one", "two"} {
		data, err := os.ReadFile(filepath.Join(sarif, name+".sarif"))
		var log struct {
			Version string `json:"version"`
			Runs    []struct {
				Results []json.RawMessage `json:"results"`
			} `json:"runs"`
		}
		if err != nil || json.Unmarshal(data, &log) != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
			t.Errorf("%s.sarif: %v %.200s", name, err, data)
		}
	}
	os.WriteFile(list, []byte(`[{"name":"one","url":"`+hs.URL+`"},{"name":"gone","url":"http://127.0.0.1:1/mcp"}]`), 0o644)
	if code, out, _ := runVerb(t, "", append(small, "--quiet", "--format", "json")...); code != exitUsage || !strings.Contains(out, `"name": "gone"`) {
		t.Errorf("a server not reached: exit %d, want %d, and the census still written: %.300s", code, exitUsage, out)
	}
	for _, extra := range [][]string{{"--url", hs.URL}, {"--format", "sarif"}, {"--tool", "x"}, {"--quiet", "--verbose"}} {
		if code, _, _ := runVerb(t, "", append(small, extra...)...); code != exitUsage {
			t.Errorf("--targets with %q: exit %d, want %d", extra, code, exitUsage)
		}
	}
	if code, _, _ := runVerb(t, "", "audit", "--url", hs.URL, "--sarif-dir", sarif); code != exitUsage {
		t.Errorf("--sarif-dir without --targets: exit %d", code)
	}
}
