package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runVerb(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestChargeVerbJSON(t *testing.T) {
	code, out, errOut := runVerb(t, `{"query":"it's","limit":10}`, "charge", "--json", "-")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"dialect", "nodes", "depth", "charge", "ceiling", "verdict"} {
		if _, ok := res[field]; !ok {
			t.Errorf("--json output lacks %q: %s", field, out)
		}
	}
	// query(5) + it's(4) + limit(5) + 10(2) = 16 characters in the python dialect.
	if res["verdict"] != "admit" || res["charge"] != float64(16) || res["nodes"] != float64(5) || res["depth"] != float64(1) {
		t.Errorf("unexpected result: %s", out)
	}
}

func TestChargeVerbRefusalFromAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "args.json")
	secret := strings.Repeat("SECRET", 100)
	if err := os.WriteFile(path, []byte(`{"a":[1,"`+secret+"\x01"+`"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runVerb(t, "", "charge", "--dialect", "go", "--json", path)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (refused): %s", code, out)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res["verdict"] != "refuse" || res["bound"] != "control-character" || res["pointer"] != "/a/1" || res["dialect"] != "go" {
		t.Errorf("unexpected refusal: %s", out)
	}
	if _, ok := res["limit"]; ok {
		t.Errorf("a strictness refusal carries no limit: %s", out)
	}
	if strings.Contains(out, "SECRET") {
		t.Errorf("the output echoes the caller's value: %s", out)
	}
}

func TestChargeVerbLimitFlagsAndTable(t *testing.T) {
	code, out, _ := runVerb(t, `[[[1]]]`, "charge", "--max-nesting", "2", "-")
	if code != 1 || !strings.Contains(out, "bound     nesting") || !strings.Contains(out, "limit     2") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	if code, _, _ := runVerb(t, `[]`, "charge", "--dialect", "cobol", "-"); code != 2 {
		t.Errorf("an unknown dialect exits %d, want 2", code)
	}
	if code, _, _ := runVerb(t, `[]`, "charge"); code != 2 {
		t.Errorf("a missing FILE exits %d, want 2", code)
	}
	if code, _, _ := runVerb(t, `[]`, "charge", "/nonexistent/file.json"); code != 2 {
		t.Errorf("an unreadable FILE exits %d, want 2", code)
	}
}
