package adopters

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/theurian/boundlab/internal/child"
)

// TestRun is the server's own tests (Adopter.Tests) run in one module
// tree: each test's outcome by "package Test/sub" name (testName).
type TestRun struct {
	// Outcome is "pass", "fail" or "skip" by test; a test the run never
	// finished (its package's binary failed to build or panicked) is "fail".
	Outcome map[string]string
}

// port is a port in a subtest's name: tests that start servers name
// subtests by the address they got, which changes run to run.
var port = regexp.MustCompile(`:[0-9]{2,5}\b`)

// testName is the name a test's outcome is kept under in both runs: its
// package and name, any port in it written :PORT.
func testName(pkg, test string) string { return pkg + " " + port.ReplaceAllString(test, ":PORT") }

// record keeps outcome for name: tests that share a name once their ports
// are elided pass only if each passed.
func (r TestRun) record(name, outcome string) {
	if prev, ok := r.Outcome[name]; ok && prev != "pass" {
		return
	}
	r.Outcome[name] = outcome
}

// Names are the tests with outcome, sorted.
func (r TestRun) Names(outcome string) []string {
	var out []string
	for name, o := range r.Outcome {
		if o == outcome {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Passed counts the tests that passed.
func (r TestRun) Passed() int { return r.count("pass") }

// Failed counts the tests that failed.
func (r TestRun) Failed() int { return r.count("fail") }

func (r TestRun) count(outcome string) int {
	n := 0
	for _, o := range r.Outcome {
		if o == outcome {
			n++
		}
	}
	return n
}

// Regressions are the tests that pass in before and do not in after,
// sorted.
func Regressions(before, after TestRun) []string {
	var out []string
	for name, o := range before.Outcome {
		if o == "pass" && after.Outcome[name] != "pass" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// testTimeout bounds one variant's whole `go test` run, compilation
// included: mcp-grafana's unit tests compile some forty packages.
const testTimeout = 30 * time.Minute

// testCommands are a.Tests as the commands they run, joined by "; ".
func (a Adopter) testCommands() string {
	var cmds []string
	for _, args := range a.Tests {
		cmds = append(cmds, "go test -count=1 -json "+strings.Join(args, " "))
	}
	return strings.Join(cmds, "; ")
}

// RunTests runs each of a.Tests (`go test -count=1 -json` with its
// arguments) in the module's source, patched with patch (unless ""). The
// tests' own children are theirs (mcp-grafana's start its binary on
// loopback); each run is bounded by testTimeout and its output read as it
// comes.
func (a Adopter) RunTests(ctx context.Context, src, root, patch string) (TestRun, error) {
	run := TestRun{Outcome: map[string]string{}}
	dir, cleanup, err := a.tree(ctx, src, root, patch)
	if err != nil {
		return run, err
	}
	defer cleanup()
	for _, args := range a.Tests {
		if err := a.goTest(ctx, dir, args, &run); err != nil {
			return run, err
		}
	}
	return run, nil
}

// goTest is one `go test` run in dir, its outcomes added to run.
func (a Adopter) goTest(ctx context.Context, dir string, args []string, run *TestRun) error {
	tctx, cancel := context.WithTimeout(ctx, testTimeout)
	defer cancel()
	before := len(run.Outcome)
	cmd := exec.CommandContext(tctx, "go", append([]string{"test", "-count=1", "-json"}, args...)...)
	cmd.Dir, cmd.Env = dir, append(a.goEnv(), a.TestEnv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	started, done := map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var ev struct{ Action, Package, Test string }
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Test == "" {
			continue
		}
		raw := ev.Package + " " + ev.Test
		switch ev.Action {
		case "run":
			started[raw] = true
		case "pass", "fail", "skip":
			done[raw] = true
			run.record(testName(ev.Package, ev.Test), ev.Action)
		}
	}
	werr := cmd.Wait()
	for raw := range started {
		if !done[raw] {
			pkg, test, _ := strings.Cut(raw, " ")
			run.record(testName(pkg, test), "fail")
		}
	}
	if tctx.Err() != nil {
		return fmt.Errorf("go test %v in %s: not done in %v", args, filepath.Base(dir), testTimeout)
	}
	// a failing test exits 1 with its outcome in the stream; a build
	// failure says so on stderr, and a package that never ran is no result
	if werr != nil && len(run.Outcome) == before {
		return fmt.Errorf("go test %v: %v: %s", args, werr, child.FirstLine(stderr.String()))
	}
	return nil
}
