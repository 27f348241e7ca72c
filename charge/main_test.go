package charge_test

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"time"
)

// suiteDeadline bounds the whole suite. The charge tests take seconds (about
// 5 s of CPU; under -race on a loaded machine well under a minute), so a run
// still going after it is looping without end — in practice a mutant of one
// of the gate's scan loops under mutation testing, where go test's -timeout
// is ten minutes — and fails then. check's watchdog catches a loop inside a
// Check made through it; this catches the rest (CheckValue, the internal
// tests, the fuzz targets' seeds). Not armed when fuzzing or benchmarking,
// which run as long as they are told.
const suiteDeadline = 3 * time.Minute

func TestMain(m *testing.M) {
	flag.Parse()
	if flagSet("test.fuzz") || flagSet("test.fuzzworker") || flagSet("test.bench") {
		os.Exit(m.Run())
	}
	d := suiteDeadline
	if raceEnabled {
		d *= 5
	}
	t := time.AfterFunc(d, func() {
		panic(fmt.Sprintf("charge tests: still running after %v: a loop without end", d))
	})
	code := m.Run()
	t.Stop()
	os.Exit(code)
}

// flagSet says whether the named test flag was given a value other than its
// default.
func flagSet(name string) bool {
	f := flag.Lookup(name)
	return f != nil && f.Value.String() != f.DefValue
}
