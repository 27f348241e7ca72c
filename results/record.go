// Package results holds boundlab's figures as pinned records: what each figure
// is, its value and unit, the instance it is worst over, how it is obtained and
// the build it holds for. Lab packages register producers that recompute their
// records from the live build; verify compares them with the pinned copies.
//
// Layout: each producer's records are pinned in DIR/<producer>.json (File), so
// producers from different packages pin side by side. Verify recomputes every
// producer and fails on drift (exact for derived records, within the pinned
// absolute tolerance for measured ones), on a pinned record nothing produces,
// on a live record not pinned, on a retired figure quoted in the docs without
// its record's id, on a doc figure that is not the value of the record it
// names or names none (ScanFigures), and on a records reference the pinned
// records no longer generate (Markdown).
//
// Where it ends: verify checks that figures match the build; whether a
// derivation is the right one is the producing package's tests' job, and a
// retired figure reworded past its keys is not caught.
package results

import (
	"fmt"
	"sort"
	"sync"

	"github.com/theurian/boundlab/charge"
)

// Method is how a record's value is obtained.
type Method string

const (
	// Derived values are computed from live constants by a named function;
	// verify requires exact equality.
	Derived Method = "derived"
	// Measured values come from a named instrument over a named instance;
	// verify re-measures and allows the record's stated tolerance.
	Measured Method = "measured"
	// Retired records keep a withdrawn claim beside its correction; docs may
	// quote the claim only with its attribution.
	Retired Method = "retired"
)

// Record is one figure.
type Record struct {
	ID        string  `json:"id"`
	Title     string  `json:"title"`
	Value     float64 `json:"value"`
	Unit      string  `json:"unit"`
	Instance  string  `json:"instance"`
	Method    Method  `json:"method"`
	Source    string  `json:"source"`
	Tolerance float64 `json:"tolerance,omitempty"` // measured only: the absolute drift verify allows, in Unit
	Seed      string  `json:"seed,omitempty"`
	// SeedValue is the seed's own figure for this record's value, as the seed
	// printed it (a number, optionally with thousands commas and a KiB, MiB
	// or GiB scale, in the record's Unit): its digits are the precision of
	// the claim. Classify compares it with Value. Empty when the seed states
	// no figure this record answers.
	SeedValue string `json:"seed_value,omitempty"`
	// SeedFigure is the number, in the seed's figure list (SeedFigures),
	// of the figure this record answers: its SeedValue, or the claim a
	// retired record keeps. Zero when it answers none.
	SeedFigure int   `json:"seed_figure,omitempty"`
	Build      Build `json:"build"`
	// DependsOn names the parts of the toolchain the value moves with:
	// DepGo, DepGoUnicode. Every module Build names is a dependency too
	// (Dependencies derives those). Empty: the value is the same on every
	// Go toolchain, so verify holds it exactly on any of them.
	DependsOn  []string    `json:"depends_on,omitempty"`
	Retirement *Retirement `json:"retirement,omitempty"`
}

// The parts of a build a record can depend on, named as in verify's reports
// (the Build fields they compare).
const (
	// DepGo is the Go toolchain: its runtime, standard library and GOROOT
	// files (Build.Go).
	DepGo = "go"
	// DepGoUnicode is the toolchain's Unicode tables (Build.Unicode["go"]):
	// strconv.IsPrint, so the go dialect's render classes.
	DepGoUnicode = "unicode.go"
)

// DepModule names a module a record's Build lists.
func DepModule(path string) string { return "modules." + path }

// DialectDeps is what a figure about dialect d depends on: the go dialect's
// printability is the compiling toolchain's strconv.IsPrint; the python
// dialect's is charge's own Unicode 15.1.0 table, the same on every toolchain.
func DialectDeps(d charge.Dialect) []string {
	if d == charge.Go {
		return []string{DepGoUnicode}
	}
	return nil
}

// Dependencies is every part of the build r's value moves with: its
// DependsOn, and each module its Build names. Sorted, without repeats.
func Dependencies(r Record) []string {
	set := map[string]bool{}
	for _, d := range r.DependsOn {
		set[d] = true
	}
	for m := range r.Build.Modules {
		set[DepModule(m)] = true
	}
	return sortedKeys(set)
}

// Build is what a record holds for.
type Build struct {
	Go      string            `json:"go"`
	Unicode map[string]string `json:"unicode,omitempty"`
	Modules map[string]string `json:"modules,omitempty"`
}

// Retirement is a withdrawn claim and what replaced it.
type Retirement struct {
	Claim       string `json:"claim"`
	Correction  string `json:"correction"`
	Attribution string `json:"attribution"`
	// Counterexample is the id of the live record whose value refutes the
	// claim, when the lab (not the seed's own amendments) withdrew it.
	Counterexample string `json:"counterexample,omitempty"`
	// Keys are regular expressions (RE2) that find a quote of the retired
	// figure in prose. verify fails on a docs paragraph that matches one and
	// does not name the record's ID, which is the attribution docs must carry.
	Keys []string `json:"keys,omitempty"`
}

// Producer recomputes a family of records from the live build.
type Producer struct {
	Name    string
	Records func() ([]Record, error)
	// Remeasures says what the producer measures anew each time it runs,
	// beyond the live code and the saved runs: servers audited, child
	// binaries built and run (one phrase, e.g. "audits 4 servers in
	// process"). Such a producer takes seconds to minutes, so derive and
	// verify run it only when asked (Select); empty: it runs every time.
	Remeasures string
	// OnDemand keeps the producer out of --all too: it runs only when named
	// (--only), for a measurement that builds or installs outside software
	// for minutes and has no place in every CI run.
	OnDemand bool
}

var (
	mu        sync.Mutex
	producers = map[string]Producer{}
)

// Register adds a producer; lab packages call it from init.
func Register(p Producer) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := producers[p.Name]; dup {
		panic(fmt.Sprintf("results: producer %q registered twice", p.Name))
	}
	producers[p.Name] = p
}

// Producers returns every registered producer, sorted by name.
func Producers() []Producer {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Producer, 0, len(producers))
	for _, p := range producers {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
