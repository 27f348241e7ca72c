package charge_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// shape is one benchmark family: an arguments document the gate admits under
// the default limits.
type shape struct {
	name string
	doc  []byte
}

// shapes builds each family at about size bytes (the node families are sized
// by the node limit instead).
func shapes(size int) []shape {
	leaf := func(unit string) []byte {
		n := size / len(unit)
		return []byte(`{"query":"` + strings.Repeat(unit, n) + `"}`)
	}
	var nodes strings.Builder
	nodes.WriteString(`{"items":[`)
	for i := range charge.DefaultLimits().MaxParamsNodes - 3 {
		if i > 0 {
			nodes.WriteByte(',')
		}
		nodes.WriteString(strconv.Itoa(i % 10))
	}
	nodes.WriteString("]}")
	var deep strings.Builder
	deep.WriteByte('[')
	for i := range 1000 {
		if i > 0 {
			deep.WriteByte(',')
		}
		deep.WriteString(nested(60))
	}
	deep.WriteByte(']')
	var fields strings.Builder
	fields.WriteByte('{')
	for i := range (charge.DefaultLimits().MaxParamsNodes - 1) / 2 {
		if i > 0 {
			fields.WriteByte(',')
		}
		fields.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i%10))
	}
	fields.WriteByte('}')
	return []shape{
		{"ascii", leaf("The quick brown fox jumps over the lazy dog. ")},
		{"cjk", leaf("中文字符")},
		{"u0600", leaf("\u0600")},
		{"del", leaf("\x7f")},
		{"astral", leaf("\U0001F600")},
		{"nodes", []byte(nodes.String())},
		{"deep", []byte(deep.String())},
		{"fields", []byte(fields.String())},
		{"escaped", leaf(`\"\\\n`)},
		{"ensure-ascii", leaf(`\u00e9\u4e2d\ud83d\ude00`)},
	}
}

// BenchmarkGate runs the gate over every shape family beside encoding/json.Valid
// and sonic's decode into any, on the same inputs, in the same run.
func BenchmarkGate(b *testing.B) {
	for _, s := range shapes(1 << 20) {
		for _, d := range charge.Dialects() {
			g := gate(b, d, charge.DefaultLimits())
			if _, err := g.Check(s.doc); err != nil {
				b.Fatalf("%s: %v", s.name, err)
			}
			b.Run(s.name+"/gate-"+d.String(), func(b *testing.B) {
				b.SetBytes(int64(len(s.doc)))
				b.ReportAllocs()
				for b.Loop() {
					g.Check(s.doc)
				}
			})
		}
		b.Run(s.name+"/encoding-json-valid", func(b *testing.B) {
			b.SetBytes(int64(len(s.doc)))
			b.ReportAllocs()
			for b.Loop() {
				json.Valid(s.doc)
			}
		})
	}
}
