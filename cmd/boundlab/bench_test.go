package main

import (
	"bytes"
	"strings"
	"testing"
)

// bench FILE analyses a saved run without running anything: the synthetic
// run's gate median is a quarter of encoding/json's.
func TestBenchFromFile(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"bench", "../../bench/testdata/synthetic.txt"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"BenchmarkValid (sec/op; ratio = impl / encoding-json", "gate", "0.25x", "go: go1.26.8"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// The pinned suite analyses cleanly too, and a bad path is a clear error.
func TestBenchFromPinnedAndMissing(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"bench", "../../results/bench/suite.txt"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "BenchmarkServed") {
		t.Errorf("pinned suite table lacks BenchmarkServed:\n%s", out.String())
	}
	errb.Reset()
	if code := run([]string{"bench", "no/such/file"}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "no/such/file") {
		t.Fatalf("missing file: exit %d, stderr %q", code, errb.String())
	}
}
