package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/theurian/boundlab/load"
)

// TestLoadHelpNamesEveryShape: the help lists every shape the lab sends.
func TestLoadHelpNamesEveryShape(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runLoad([]string{"-h"}, nil, &out, &errb); code != exitOK || errb.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	for _, s := range load.Shapes() {
		if !strings.Contains(out.String(), "\n  "+s.Name+" ") {
			t.Errorf("help does not list shape %s", s.Name)
		}
	}
}

func TestLoadUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--no-such-flag"},
		{"a", "b"},
		{"--variants", "guarded,nope"},
		{"--concurrency", "0"},
		{"--concurrency-mw", "300"},
		{"--duration", "1h"},
		{"--shapes", "echo-params,nope"},
		{"--protocol", "2025-11-25"},
		{"--guard-mib", "1"},
	} {
		var out, errb bytes.Buffer
		if code := runLoad(args, nil, &out, &errb); code != exitUsage || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := runLoad([]string{"no/such/run.json"}, nil, &out, &errb); code != exitUsage {
		t.Errorf("missing run file: exit %d", code)
	}
}

// TestLoadReportsSavedRuns: the synthetic run's guarded variant serves 90% of
// valid calls, missing the 95% target (exit 1); the pinned run meets every
// target (exit 0).
func TestLoadReportsSavedRuns(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runLoad([]string{"../../load/testdata/run-small.json"}, nil, &out, &errb); code != exitNo {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"middleware-only", "echo-params", "killed at guard", "MISS guarded: valid calls served >= 95%"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := runLoad([]string{"--json", "../../results/load/run.json"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("pinned run: exit %d\n%s", code, out.String())
	}
	var got loadJSON
	if err := decodeStrict(out.Bytes(), &got); err != nil || len(got.Variants) != 2 || len(got.Targets) < 7 || !load.Met(got.Targets) {
		t.Fatalf("--json: %v, %+v", err, got.Targets)
	}
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
