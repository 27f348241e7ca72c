package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/theurian/boundlab/results"
)

// A producer whose runtime is absent (results.Unavailable) is skipped with
// its reason, its pinned records kept, also when the Unavailable is wrapped;
// any other producer error still fails verify.
func TestVerifySkipsAnUnavailableProducer(t *testing.T) {
	pinned := `{"producer":"stranger","records":[{"id":"stranger.x","title":"t","value":1,"unit":"u","instance":"i","method":"measured","source":"s","build":{"go":"x"}}]}`
	for _, c := range []struct {
		name     string
		err      error
		wantCode int
		want     string
	}{
		{"unavailable", &results.Unavailable{Reason: "node is not on PATH"}, exitOK, "skipped [stranger] (1 pinned records kept, not re-measured): node is not on PATH"},
		{"wrapped_unavailable", fmt.Errorf("typescript: %w", &results.Unavailable{Reason: "npm install failed"}), exitOK, "skipped [stranger] (1 pinned records kept, not re-measured): npm install failed"},
		{"failure", fmt.Errorf("the child exited"), exitNo, "producer [stranger]: the child exited"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, ps := labTree(t)
			if err := os.WriteFile(filepath.Join(o.RecordsDir, "stranger.json"), []byte(pinned), 0o644); err != nil {
				t.Fatal(err)
			}
			o.Producers = append(ps, results.Producer{Name: "stranger", Records: func() ([]results.Record, error) { return nil, c.err }})
			o.RecordsMarkdown = ""
			code, out := verifyOut(o)
			if code != c.wantCode || !strings.Contains(out, c.want) {
				t.Fatalf("verify exit %d, want %d and %q:\n%s", code, c.wantCode, c.want, out)
			}
		})
	}
}

// A producer that re-measures servers is not run by default: its pinned
// records are kept, not compared, and verify names it and how to run it;
// --all runs it (here it fails, so running it shows).
func TestVerifyNamesWhatItDoesNotRun(t *testing.T) {
	pinned := `{"producer":"stranger","records":[{"id":"stranger.x","title":"t","value":1,"unit":"u","instance":"i","method":"measured","source":"s","build":{"go":"x"}}]}`
	for _, all := range []bool{false, true} {
		o, ps := labTree(t)
		if err := os.WriteFile(filepath.Join(o.RecordsDir, "stranger.json"), []byte(pinned), 0o644); err != nil {
			t.Fatal(err)
		}
		o.RecordsMarkdown = ""
		stranger := results.Producer{Name: "stranger", Remeasures: "audits 1 server as a child",
			Records: func() ([]results.Record, error) { return nil, fmt.Errorf("the child exited") }}
		var err error
		if o.Producers, o.NotRun, err = results.Select(append(ps, stranger), nil, all); err != nil {
			t.Fatal(err)
		}
		code, out := verifyOut(o)
		if all {
			if code != exitNo || !strings.Contains(out, "producer [stranger]: the child exited") {
				t.Errorf("verify --all: exit %d, want 1 naming the producer:\n%s", code, out)
			}
			continue
		}
		for _, want := range []string{"not re-measured [stranger] (1 pinned records kept, not compared): audits 1 server as a child",
			"to re-measure them: boundlab verify --only NAMES, of stranger (--all runs every one not kept on demand)", "1 producers not run (1 pinned records not compared)"} {
			if code != exitOK || !strings.Contains(out, want) {
				t.Errorf("verify: exit %d, want 0 and %q:\n%s", code, want, out)
			}
		}
	}
}
