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
