// Package benchdata holds boundlab's saved benchmark runs, in benchfmt form,
// each headed by the machine it was measured on (Go version, GOMAXPROCS, CPU,
// kernel, commit). `boundlab bench -save` writes suite.txt; package bench's
// producer reads the headline ratios from it, so `boundlab verify` checks the
// measured bench records against this file rather than re-running the
// benchmarks (CI has no time for them, and a shared runner would not
// reproduce them).
package benchdata

import _ "embed"

// SuiteFile is the saved file's path within the module.
const SuiteFile = "results/bench/suite.txt"

// Suite is the saved run of the side-by-side suite.
//
//go:embed suite.txt
var Suite []byte

// FrontGateFile is the saved run of mcpvalidate's BenchmarkFrontGate
// (`boundlab bench --pkg ./mcpvalidate/ --bench BenchmarkFrontGate`).
const FrontGateFile = "results/bench/frontgate.txt"

// FrontGate is that run.
//
//go:embed frontgate.txt
var FrontGate []byte

// CheckFile is the saved run of mcpvalidate's BenchmarkCheck (`boundlab
// bench --pkg ./mcpvalidate/ --bench 'BenchmarkCheck$'`): Check against the
// go-sdk's typed-tool path, validation alone.
const CheckFile = "results/bench/check.txt"

// Check is that run.
//
//go:embed check.txt
var Check []byte

// HTTPFile is the saved run of the whole path over loopback HTTP (`boundlab
// bench --bench BenchmarkHTTP`): the bare go-sdk, mcpvalidate's middleware,
// and the front gate with it, side by side.
const HTTPFile = "results/bench/http.txt"

// HTTP is that run.
//
//go:embed http.txt
var HTTP []byte

// MixtureFile is the saved run of BenchmarkMixture (`boundlab bench --bench
// BenchmarkMixture --benchtime 200ms`): the gate against jsontext on seeded
// documents of realistic JSON text, one seed a sub-benchmark.
const MixtureFile = "results/bench/mixture.txt"

// Mixture is that run.
//
//go:embed mixture.txt
var Mixture []byte
