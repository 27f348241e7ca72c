// Package chargetest holds package charge's fuzz target (the gate against the
// reference renderer, in fuzz_test.go) and the test helpers it shares with
// charge's own tests: a gate built or the test failed, a Check under a
// watchdog, and a gate's string chunk shrunk.
//
// The target lives here, not in charge's directory, because of how OSS-Fuzz
// and ClusterFuzzLite build a native Go fuzz target: go-118-fuzz-build
// rewrites the file holding the target into package code of its directory and
// compiles it with the package's non-test files alone. A target in charge's
// external test package (it needs charge/reference, which imports charge)
// would then clash with package charge, and helpers in other _test.go files
// would not be seen. Here the target's file becomes package chargetest code,
// and what it needs is in this file, which every build sees. The helpers take
// TB, not testing.TB: the builder's stand-in for package testing has no TB,
// and hands the target its own *T and *F, which have TB's methods.
//
// This file does not name the target: OSS-Fuzz's coverage build copies the
// one file under the package's directory that names it.
//
// Where it ends: nothing here is part of charge's promise; it is internal to
// charge's directory, so only charge's own tests and this package use it.
package chargetest

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/theurian/boundlab/charge"
)

// TB is what the helpers need of a test: *testing.T, *testing.B and
// *testing.F have it, and so do go-118-fuzz-build's stand-ins.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// Gate is charge.NewGate(d, l), or t fails.
func Gate(t TB, d charge.Dialect, l charge.Limits) *charge.Gate {
	t.Helper()
	g, err := charge.NewGate(d, l)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// CheckDeadline bounds one Check made through Check. The gate reads each
// byte a bounded number of times, so the largest document in charge's tests
// takes well under a second even under -race; a Check still running after
// CheckDeadline loops without end, and the watchdog fails the test binary
// then instead of at go test's -timeout (a mutation run's mutant that loops
// is caught in seconds, not at its timeout).
const CheckDeadline = 10 * time.Second

var (
	watchdog     sync.Once
	checkStarted atomic.Int64 // when the Check in progress started (UnixNano), 0 when none
)

func startWatchdog() {
	go func() {
		for range time.Tick(time.Second) {
			if at := checkStarted.Load(); at != 0 && time.Since(time.Unix(0, at)) > CheckDeadline {
				panic(fmt.Sprintf("charge tests: a Check has run for more than %v: the gate does not end", CheckDeadline))
			}
		}
	}()
}

// Check runs g.Check and hands back the refusal as the tests read it,
// failing when the error is not nil and not a *charge.Refusal.
func Check(t TB, g *charge.Gate, doc []byte) (charge.Report, *charge.Refusal) {
	t.Helper()
	watchdog.Do(startWatchdog)
	checkStarted.Store(time.Now().UnixNano())
	rep, err := g.Check(doc)
	checkStarted.Store(0)
	if err == nil {
		return rep, nil
	}
	var ref *charge.Refusal
	if !errors.As(err, &ref) || ref == nil {
		t.Fatalf("Check returned a non-nil error that is no *charge.Refusal: %T", err)
	}
	return rep, ref
}

// SetChunkBytes does what charge's export_test.go SetChunkBytes does —
// g.chunk = max(n, 1): how far g's string scan runs between budget checks —
// for a test outside charge's own test build, which cannot see that file.
// Package charge imports only the standard library and exports no hook, so
// the field is set through reflect and unsafe; it panics, naming the field,
// if charge.Gate no longer has an int field chunk.
func SetChunkBytes(g *charge.Gate, n int) {
	f := reflect.ValueOf(g).Elem().FieldByName("chunk")
	if !f.IsValid() || f.Kind() != reflect.Int {
		panic("chargetest: charge.Gate has no int field chunk; update SetChunkBytes beside charge's export_test.go")
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().SetInt(int64(max(n, 1)))
}
