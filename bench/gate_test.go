package bench

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/bytedance/sonic"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/minio/simdjson-go"

	"github.com/theurian/boundlab/charge"
)

// benchSize is the document size the side-by-side benchmarks use: 1 MiB by
// default (BOUNDLAB_BENCH_BYTES overrides it, e.g. 26214400 for the body cap's
// scale).
func benchSize() int {
	if s := os.Getenv("BOUNDLAB_BENCH_BYTES"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return 1 << 20
}

var sonicStrict = sonic.Config{UseNumber: true, ValidateString: true}.Froze()

// BenchmarkValid: the gate (one pass: syntax, strictness, nesting, nodes,
// charge) against encoding/json.Valid (syntax only), sonic's Valid (syntax,
// string contents skipped) and sonic's decode with UseNumber and
// ValidateString (a tree), on the same bytes. The gate does more than either
// Valid; the ratio says what that costs.
//
// Beside them, the strict peers: jsontext (go-json-experiment/json, the
// package behind encoding/json/v2) at its defaults, which refuse invalid
// UTF-8 and duplicate names as the gate does; simdjson-go (AVX2, a tape of
// the document; only where the CPU has what it needs); and utf8.Valid, which
// reads the bytes and knows no JSON: the floor for a scan that must decode
// every code point.
//
// Each sample reports its thread's CPU time per op (cpu-sec/op) beside the
// wall time the records read.
func BenchmarkValid(b *testing.B) {
	gate, err := charge.NewGate(charge.Go, charge.DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	size := benchSize()
	var tape *simdjson.ParsedJson // reused, as a server parsing call after call would
	for _, sh := range Shapes {
		doc := sh.Doc(size)
		if _, err := gate.Check(doc); err != nil {
			b.Fatalf("%s: the gate refuses the benchmark document: %v", sh.Name, err)
		}
		impls := []struct {
			name string
			ok   func([]byte) bool
		}{
			{"gate", func(d []byte) bool { _, err := gate.Check(d); return err == nil }},
			{"encoding-json", json.Valid},
			{"sonic", func(d []byte) bool { return sonicStrict.Valid(d) }},
			// sonic's Valid skips string contents (it admits raw control
			// bytes and invalid UTF-8 even under ValidateString); the decode
			// is what mcpvalidate ran after the gate before its own decoder.
			{"sonic-decode", func(d []byte) bool { var v any; return sonicStrict.Unmarshal(d, &v) == nil }},
			{"jsontext", func(d []byte) bool { return jsontext.Value(d).IsValid() }},
			{"utf8", utf8.Valid},
		}
		if simdjson.SupportedCPU() {
			impls = append(impls, struct {
				name string
				ok   func([]byte) bool
			}{"simdjson-go", func(d []byte) bool {
				pj, err := simdjson.Parse(d, tape)
				tape = pj
				return err == nil
			}})
		}
		for _, impl := range impls {
			if !impl.ok(doc) {
				b.Fatalf("%s: %s rejects the benchmark document", sh.Name, impl.name)
			}
			b.Run("shape="+sh.Name+"/impl="+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				loopCPU(b, func() {
					if !impl.ok(doc) {
						b.Fatal("rejected")
					}
				})
			})
		}
	}
}

// mixtureConfig is BenchmarkMixture's draw: seeds 1..BOUNDLAB_MIX_SEEDS (50
// by default) of BOUNDLAB_MIX_BYTES each (256 KiB by default).
func mixtureConfig() (seeds, size int) {
	seeds, size = 50, 256<<10
	if n, err := strconv.Atoi(os.Getenv("BOUNDLAB_MIX_SEEDS")); err == nil && n > 0 {
		seeds = n
	}
	if n, err := strconv.Atoi(os.Getenv("BOUNDLAB_MIX_BYTES")); err == nil && n > 0 {
		size = n
	}
	return seeds, size
}

// BenchmarkMixture: the gate against jsontext (its strict peer) on documents
// drawn from the mixture of realistic JSON text (Mixture), one seed a
// sub-benchmark. The fixed shapes of BenchmarkValid are what the gate was
// tuned on; the seeds are text it was not. Each sample reports its thread's
// CPU time per op (cpu-sec/op) beside its wall time: on a loaded machine the
// wall time counts the minutes the thread waited for a CPU.
func BenchmarkMixture(b *testing.B) {
	gate, err := charge.NewGate(charge.Go, charge.DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	seeds, size := mixtureConfig()
	impls := []struct {
		name string
		ok   func([]byte) bool
	}{
		{"gate", func(d []byte) bool { _, err := gate.Check(d); return err == nil }},
		{"jsontext", func(d []byte) bool { return jsontext.Value(d).IsValid() }},
	}
	for seed := 1; seed <= seeds; seed++ {
		doc := Mixture(uint64(seed), size)
		for _, impl := range impls {
			if !impl.ok(doc) {
				b.Fatalf("seed %d: %s rejects the document", seed, impl.name)
			}
			b.Run("seed="+strconv.Itoa(seed)+"/impl="+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				loopCPU(b, func() {
					if !impl.ok(doc) {
						b.Fatal("rejected")
					}
				})
			})
		}
	}
}
