package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"strings"
	"testing"
)

// TestLoadHelp: -h exits 0 with the usage on stdout, every line within 80
// columns, every flag named.
func TestLoadHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runLoad([]string{"-h"}, nil, &out, &errb); code != 0 || errb.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if len(l) > 80 {
			t.Errorf("help line of %d columns: %q", len(l), l)
		}
	}
	fs, _ := newLoadFlags()
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(out.String(), "--"+f.Name+" ") {
			t.Errorf("help does not name --%s", f.Name)
		}
	})
}

func TestLoadUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--no-such-flag"},
		{"extra"},
		{"--variants", "guarded,nope"},
		{"--concurrency", "0"},
		{"--concurrency-mw", "300"},
		{"--duration", "1h"},
		{"--shapes", "echo-params,nope"},
		{"--protocol", "2025-11-25"},
		{"--guard-mib", "1"},
	} {
		var out, errb bytes.Buffer
		if code := runLoad(args, nil, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// TestLoadFromSavedRun reports the synthetic run: its guarded variant serves
// 90% of valid calls, which misses the 95% target: exit 1.
func TestLoadFromSavedRun(t *testing.T) {
	const file = "../../load/testdata/run-small.json"
	var out, errb bytes.Buffer
	if code := runLoad([]string{"--from", file}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"guarded", "middleware-only", "echo-params", "killed at guard", "MISS guarded: valid calls served >= 95%"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := runLoad([]string{"--from", file, "--json"}, nil, &out, &errb); code != 1 {
		t.Fatalf("--json: exit %d", code)
	}
	var got struct {
		Variants []json.RawMessage `json:"variants"`
		Targets  []struct {
			OK bool `json:"ok"`
		} `json:"targets"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Variants) != 2 || len(got.Targets) == 0 {
		t.Fatalf("--json: %v, %d variants, %d targets", err, len(got.Variants), len(got.Targets))
	}
}
