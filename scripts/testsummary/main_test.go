package main

import (
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: set X=1 to run the oracle\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- SKIP: TestA (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: got 2, want 3\n"}
{"Action":"fail","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.1s\n"}
{"Action":"fail","Package":"p"}
`
	var out strings.Builder
	if rc := run(strings.NewReader(in), &out); rc != 1 {
		t.Errorf("exit %d with a failed test, want 1", rc)
	}
	for _, want := range []string{"FAIL\tp\t0.1s", "--- FAIL p TestB", "got 2, want 3", "skipped tests: 1", "p TestA: a_test.go:9: set X=1 to run the oracle", "1 failed (1 packages)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	ok := `{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}
{"Action":"pass","Package":"p"}
`
	if rc := run(strings.NewReader(ok), &out); rc != 0 || !strings.Contains(out.String(), "skipped tests: 0") {
		t.Errorf("a passing run: exit %d\n%s", rc, out.String())
	}
	if rc := run(strings.NewReader(""), &out); rc != 1 {
		t.Errorf("no events: exit %d, want 1", rc)
	}
}
