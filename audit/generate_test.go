package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaGen builds random schemas together with a value each admits (a
// witness): every schema it builds is satisfiable, so a generator that
// finds no value for one has failed, not the schema.
type schemaGen struct {
	r    *rand.Rand
	defs map[string]any
}

// patterns pair a pattern with a string it matches.
var patterns = [][2]string{
	{"^[a-z]{3,8}$", "abcde"},
	{"^item-[0-9]{1,9}$", "item-42"},
	{`^\d{4}-\d{2}$`, "2024-11"},
	{"[A-Z]", "xAx"},
	{"^(foo|bar)+$", "barfoo"},
	{"^[^@]+@[^@]+$", "a@b"},
	{"^a*b?c{2,3}$", "acc"},
	{`^\w+\s\w+$`, "ab cd"},
	{"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$", "x.y"},
	{"^(?:[a-f0-9]{2})+$", "a0b1"},
}

var formats = [][2]string{
	{"date-time", "2020-02-02T10:00:00Z"}, {"date", "2020-02-02"}, {"time", "10:00:00Z"},
	{"email", "a@example.org"}, {"uri", "https://x.org/a"}, {"uuid", "123e4567-e89b-42d3-a456-426614174000"},
	{"ipv4", "10.0.0.1"}, {"ipv6", "::1"}, {"hostname", "x.org"}, {"duration", "PT1S"},
	{"json-pointer", "/a"}, {"uri-reference", "a/b"},
}

func (g *schemaGen) pick(n int) int { return g.r.IntN(n) }

func (g *schemaGen) any(depth int) (map[string]any, any) {
	kinds := []func() (map[string]any, any){g.str, g.integer, g.number, g.boolean}
	if depth > 0 {
		kinds = append(kinds, func() (map[string]any, any) { return g.object(depth - 1) },
			func() (map[string]any, any) { return g.array(depth - 1) },
			func() (map[string]any, any) { return g.composed(depth - 1) })
	}
	return kinds[g.pick(len(kinds))]()
}

func (g *schemaGen) str() (map[string]any, any) {
	s := map[string]any{"type": "string"}
	w := "hello"
	switch g.pick(5) {
	case 0:
		p := patterns[g.pick(len(patterns))]
		s["pattern"], w = p[0], p[1]
	case 1:
		f := formats[g.pick(len(formats))]
		s["format"], w = f[0], f[1]
	case 2:
		s["enum"] = []any{"red", "green", w}
	case 3:
		s["const"] = w
	}
	n := len([]rune(w))
	if g.pick(2) == 0 {
		s["minLength"] = g.pick(n + 1)
	}
	if g.pick(2) == 0 {
		s["maxLength"] = n + g.pick(40)
	}
	return s, w
}

func (g *schemaGen) integer() (map[string]any, any) {
	m := []int{1, 2, 3, 5, 7, 10}[g.pick(6)]
	k := g.pick(41) - 20
	w := k * m
	s := map[string]any{"type": "integer"}
	if g.pick(2) == 0 {
		s["multipleOf"] = m
	}
	if g.pick(2) == 0 {
		s["minimum"] = w - g.pick(3)
	}
	if g.pick(2) == 0 {
		s["maximum"] = w + g.pick(3)
	}
	if g.pick(3) == 0 {
		s["exclusiveMinimum"] = w - 1 - g.pick(2)
	}
	return s, w
}

func (g *schemaGen) number() (map[string]any, any) {
	w := float64(g.pick(400)-200) * 0.25
	s := map[string]any{"type": "number"}
	if g.pick(2) == 0 {
		s["multipleOf"] = 0.25
	}
	if g.pick(2) == 0 {
		s["exclusiveMaximum"] = w + 0.125
	}
	if g.pick(2) == 0 {
		s["minimum"] = w
	}
	return s, w
}

func (g *schemaGen) boolean() (map[string]any, any) {
	if g.pick(2) == 0 {
		return map[string]any{"type": "null"}, nil
	}
	return map[string]any{"type": "boolean"}, true
}

func (g *schemaGen) object(depth int) (map[string]any, any) {
	props, w := map[string]any{}, map[string]any{}
	var req []any
	for i := range 1 + g.pick(4) {
		name := fmt.Sprintf("p%d", i)
		ps, pw := g.any(depth)
		props[name] = ps
		if g.pick(2) == 0 {
			req = append(req, name)
			w[name] = pw
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(req) > 0 {
		s["required"] = req
	}
	if g.pick(2) == 0 {
		s["additionalProperties"] = false
	}
	if g.pick(3) == 0 {
		s["minProperties"] = len(w)
	}
	return s, w
}

func (g *schemaGen) array(depth int) (map[string]any, any) {
	is, iw := g.any(depth)
	n := g.pick(4)
	w := make([]any, n)
	for i := range w {
		w[i] = iw
	}
	s := map[string]any{"type": "array", "items": is}
	if g.pick(3) == 0 {
		ps, pw := g.any(depth)
		s["prefixItems"] = []any{ps}
		w = append([]any{pw}, w...)
	}
	if g.pick(2) == 0 {
		s["minItems"] = len(w)
	}
	if g.pick(2) == 0 {
		s["maxItems"] = len(w) + g.pick(3)
	}
	return s, w
}

// composed wraps a schema and its witness in a composition the witness
// still satisfies.
func (g *schemaGen) composed(depth int) (map[string]any, any) {
	s, w := g.any(depth)
	other := map[string]any{"type": "null"}
	if w == nil {
		other = map[string]any{"type": "boolean"}
	}
	switch g.pick(5) {
	case 0:
		return map[string]any{"anyOf": shuffle(g, []any{other, s})}, w
	case 1:
		return map[string]any{"oneOf": shuffle(g, []any{other, s})}, w
	case 2:
		return map[string]any{"allOf": []any{s, map[string]any{}}}, w
	case 3:
		name := fmt.Sprintf("d%d", len(g.defs))
		g.defs[name] = s
		return map[string]any{"$ref": "#/$defs/" + name}, w
	}
	return map[string]any{"if": other, "then": map[string]any{"const": "never"}, "else": s}, w
}

func shuffle(g *schemaGen, xs []any) []any {
	g.r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	return xs
}

// randomSchema is a tool's input schema (an object at the root) and a
// witness of it.
func randomSchema(seed uint64) ([]byte, any) {
	g := &schemaGen{r: rand.New(rand.NewPCG(seed, 7)), defs: map[string]any{}}
	s, w := g.object(3)
	if len(g.defs) > 0 {
		s["$defs"] = g.defs
	}
	raw, _ := json.Marshal(s)
	return raw, w
}

// oracle compiles raw afresh with jsonschema/v6, formats asserted: what
// the generator's values are held to, independent of its own compiler.
func oracle(t *testing.T, raw []byte) *jsonschema.Schema {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem:///oracle.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///oracle.json")
	if err != nil {
		t.Fatalf("the oracle does not compile %s: %v", raw, err)
	}
	return s
}

// roundTrip is v as the server would read it: marshalled, then decoded.
func roundTrip(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return readBack(t, b)
}

func readBack(t *testing.T, b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkGenerated: the value built for raw, sent as JSON, validates under
// the oracle; a schema with no value names a keyword the schema holds.
func checkGenerated(t *testing.T, raw []byte) bool {
	g, err := newValueGen(raw, "zq0123abcd")
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	v, err := g.Root()
	if err != nil {
		kw := StopKeyword(err)
		if kw == "" || (kw != "complexity" && kw != "false" && !strings.Contains(string(raw), `"`+kw+`"`)) {
			t.Errorf("%s: no value, and the reason names no keyword of the schema: %v", raw, err)
		}
		return false
	}
	if err := oracle(t, raw).Validate(readBack(t, v)); err != nil {
		t.Errorf("%s: the value built, %s, is refused by jsonschema/v6", raw, v)
	}
	return true
}

// TestGeneratedValuesValidate: over random satisfiable schemas, every value
// the generator returns validates (jsonschema/v6 the oracle), and it finds
// one for at least 95% of them.
func TestGeneratedValuesValidate(t *testing.T) {
	const n = 600
	found := 0
	var missed []string
	for seed := range uint64(n) {
		raw, w := randomSchema(seed)
		if err := oracle(t, raw).Validate(roundTrip(t, w)); err != nil {
			t.Fatalf("seed %d: the test's own witness is refused: %s", seed, raw)
		}
		if checkGenerated(t, raw) {
			found++
		} else if len(missed) < 5 {
			missed = append(missed, string(raw))
		}
	}
	t.Logf("a value for %d of %d satisfiable schemas", found, n)
	if found*100 < n*95 {
		t.Errorf("a value for only %d of %d satisfiable schemas; some missed:\n%s", found, n, strings.Join(missed, "\n"))
	}
}

func FuzzGeneratedValuesValidate(f *testing.F) {
	f.Add(uint64(1))
	f.Fuzz(func(t *testing.T, seed uint64) {
		raw, _ := randomSchema(seed)
		checkGenerated(t, raw)
	})
}
