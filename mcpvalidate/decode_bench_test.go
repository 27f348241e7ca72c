package mcpvalidate

import (
	"context"
	"runtime"
	"testing"
)

// heapPerWire runs f under b.Loop and reports heap/wire: the bytes allocated
// per call over the arguments' wire bytes.
func heapPerWire(b *testing.B, wire int, f func()) {
	b.SetBytes(int64(wire))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		f()
		n++
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/float64(wire), "heap/wire")
}

// BenchmarkCheckDecoders is BenchmarkCheck's impl=mcpvalidate with each
// decoder the decode stage has had, on the same arguments in the same run:
// impl=tree is Check as it is (decode.go), impl=encoding-json is Check with
// encoding/json's UseNumber decode in its place (the reference the decoder is
// held to; boundlab's fuzz package holds it to sonic as well).
func BenchmarkCheckDecoders(b *testing.B) {
	validators := map[string]*Validator{}
	for _, dec := range []string{"tree", "encoding-json"} {
		v, err := New(published, nil)
		if err != nil {
			b.Fatal(err)
		}
		if dec == "encoding-json" {
			UseStdDecode(v)
		}
		validators[dec] = v
	}
	// Case by case, the two decoders one after the other, so both meet the
	// same load on a shared machine.
	for _, c := range benchCases() {
		for _, dec := range []string{"tree", "encoding-json"} {
			v := validators[dec]
			if err := v.Check(context.Background(), "knowledge.search", c.args); (err == nil) != c.valid {
				b.Fatalf("%s %s: %v", c.name, dec, err)
			}
			b.Run("case="+c.name+"/impl="+dec, func(b *testing.B) {
				heapPerWire(b, len(c.args), func() { _ = v.Check(context.Background(), "knowledge.search", c.args) })
			})
		}
	}
}

// BenchmarkDecode is the decode stage alone on BenchmarkCheck's arguments
// (which the gate admits): the tree decoder against encoding/json with UseNumber.
func BenchmarkDecode(b *testing.B) {
	for _, c := range benchCases() {
		for _, impl := range []struct {
			name string
			dec  func([]byte) (any, error)
		}{{"tree", Tree}, {"encoding-json", StdTree}} {
			if _, err := impl.dec(c.args); err != nil {
				b.Fatalf("%s %s: %v", c.name, impl.name, err)
			}
			b.Run("case="+c.name+"/impl="+impl.name, func(b *testing.B) {
				heapPerWire(b, len(c.args), func() { _, _ = impl.dec(c.args) })
			})
		}
	}
}

// BenchmarkCheckStages splits Check on BenchmarkCheck's arguments into its
// stages, each alone: the gate (allocates nothing), the decode (the tree),
// and jsonschema/v6's Validate of a tree decoded beforehand (everything else
// a call allocates). heap/wire is each stage's share of the call's.
func BenchmarkCheckStages(b *testing.B) {
	v, err := New(published, nil)
	if err != nil {
		b.Fatal(err)
	}
	gate, decode, validate := Stages(v, "knowledge.search")
	for _, c := range benchCases() {
		doc, err := decode(c.args)
		if err != nil || gate(c.args) != nil || (validate(doc) == nil) != c.valid {
			b.Fatalf("%s: the stages do not run as Check does", c.name)
		}
		b.Run("case="+c.name+"/stage=gate", func(b *testing.B) {
			heapPerWire(b, len(c.args), func() { _ = gate(c.args) })
		})
		b.Run("case="+c.name+"/stage=decode", func(b *testing.B) {
			heapPerWire(b, len(c.args), func() { _, _ = decode(c.args) })
		})
		b.Run("case="+c.name+"/stage=validate", func(b *testing.B) {
			heapPerWire(b, len(c.args), func() { _ = validate(doc) })
		})
	}
}
