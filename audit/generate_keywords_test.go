package audit

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestGeneratedKeywords: for each keyword the builder reads, the value it
// builds is admitted by a fresh jsonschema/v6 and, where the schema leaves
// room, carries the canary.
func TestGeneratedKeywords(t *testing.T) {
	const canary = "zq0123abcd"
	for _, c := range []struct {
		name, schema string
		canary       bool // the value holds the canary
	}{
		{"pattern anchored", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","pattern":"^item-[0-9]{1,9}$"}}}`, false},
		{"pattern admits the canary", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","pattern":"^[a-z][a-z0-9-]{0,62}$"}}}`, true},
		{"pattern grown to minLength", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","pattern":"^x+y?$","minLength":40}}}`, false},
		{"pattern unanchored", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","pattern":"[A-Z]{3}"}}}`, true},
		{"pattern alternation and classes", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","pattern":"^(?:v[0-9]+\\.[0-9]+|latest)$"}}}`, false},
		{"date-time", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","format":"date-time"}}}`, false},
		{"date", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","format":"date"}}}`, false},
		{"time", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","format":"time"}}}`, false},
		{"uri", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","format":"uri"}}}`, true},
		{"email", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","format":"email"}}}`, true},
		{"uuid", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","format":"uuid"}}}`, false},
		{"ipv4", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","format":"ipv4"}}}`, false},
		{"ipv6", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","format":"ipv6"}}}`, false},
		{"hostname", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","format":"hostname"}}}`, true},
		{"enum", `{"type":"object","required":["a"],"properties":{"a":{"enum":["x",2,null]}}}`, false},
		{"const", `{"type":"object","required":["a"],"properties":{"a":{"const":{"k":[1]}}}}`, false},
		{"integer bounds and multipleOf", `{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":1001,"maximum":1100,"multipleOf":7}}}`, false},
		{"number exclusive bounds", `{"type":"object","required":["a"],"properties":{"a":{"type":"number","exclusiveMinimum":2.5,"exclusiveMaximum":2.75}}}`, false},
		{"number fractional multipleOf", `{"type":"object","required":["a"],"properties":{"a":{"type":"number","minimum":0.3,"multipleOf":0.1}}}`, false},
		{"integer fractional multipleOf", `{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":1,"multipleOf":1.5}}}`, false},
		{"string lengths", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","minLength":30,"maxLength":31}}}`, true},
		{"short maxLength", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","maxLength":3}}}`, false},
		{"nested required", `{"type":"object","required":["a"],"properties":{"a":{"type":"object","required":["b"],"properties":{"b":{"type":"object","required":["c"],"properties":{"c":{"type":"string"}}}}}}}`, true},
		{"array items and lengths", `{"type":"object","required":["a"],"properties":{"a":{"type":"array","minItems":3,"maxItems":3,"uniqueItems":true,"items":{"type":"string"}}}}`, true},
		{"prefixItems", `{"type":"object","required":["a"],"properties":{"a":{"type":"array","minItems":2,"prefixItems":[{"const":1},{"type":"string","format":"date"}],"items":false}}}`, false},
		{"contains", `{"type":"object","required":["a"],"properties":{"a":{"type":"array","contains":{"type":"integer","minimum":5}}}}`, false},
		{"$ref to $defs", `{"type":"object","required":["a"],"properties":{"a":{"$ref":"#/$defs/d"}},"$defs":{"d":{"type":"integer","minimum":40}}}`, false},
		{"$ref to an $id", `{"$id":"https://x.test/root.json","type":"object","allOf":[{"$ref":"ctx.json"}],"$defs":{"c":{"$id":"https://x.test/ctx.json","required":["p"],"properties":{"p":{"type":"string","pattern":"^p-[0-9]$"}}}},"unevaluatedProperties":false}`, false},
		{"$ref to an anchor", `{"type":"object","required":["a"],"properties":{"a":{"$ref":"#n"}},"$defs":{"d":{"$anchor":"n","type":"boolean"}}}`, false},
		{"allOf", `{"allOf":[{"type":"object","required":["a"]},{"properties":{"a":{"type":"integer","minimum":9}}}]}`, false},
		{"anyOf", `{"type":"object","required":["a"],"properties":{"a":{"anyOf":[{"type":"string","maxLength":0,"minLength":1},{"type":"integer","minimum":3}]}}}`, false},
		{"oneOf", `{"type":"object","required":["a"],"properties":{"a":{"oneOf":[{"type":"integer"},{"type":"number","minimum":0}]}}}`, false},
		{"if then", `{"type":"object","required":["kind"],"properties":{"kind":{"enum":["a","b"]}},"if":{"properties":{"kind":{"const":"a"}}},"then":{"required":["x"],"properties":{"x":{"type":"string","format":"ipv4"}}},"else":{"required":["y"]}}`, false},
		{"dependentRequired", `{"type":"object","required":["a"],"properties":{"a":{"type":"string"},"b":{"type":"integer","minimum":2}},"dependentRequired":{"a":["b"]}}`, true},
		{"minProperties", `{"type":"object","minProperties":2,"properties":{"a":{"type":"string"},"b":{"type":"boolean"}}}`, true},
		{"draft 7", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":["a"],"properties":{"a":{"type":"array","minItems":1,"items":[{"type":"string","pattern":"^q$"}]}},"definitions":{}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := newValueGen(json.RawMessage(c.schema), canary)
			if err != nil {
				t.Fatal(err)
			}
			v, err := g.Root()
			if err != nil {
				t.Fatalf("no value: %v", err)
			}
			if err := oracle(t, []byte(c.schema)).Validate(readBack(t, v)); err != nil {
				t.Fatalf("%s is refused", v)
			}
			if c.canary && !strings.Contains(string(v), canary) {
				t.Errorf("%s does not carry the canary", v)
			}
		})
	}
}

// TestGeneratedStops: a schema no value satisfies, or one the builder
// cannot meet, says which keyword stopped it.
func TestGeneratedStops(t *testing.T) {
	for _, c := range []struct{ name, schema, keyword string }{
		{"not", `{"type":"object","required":["a"],"properties":{"a":{}},"not":{"required":["a"]}}`, "not"},
		{"pattern against maxLength", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","pattern":"^x{5}$","maxLength":3}}}`, "pattern"},
		{"false", `{"type":"object","required":["a"],"properties":{"a":false}}`, "false"},
		{"empty enum intersection", `{"type":"object","required":["a"],"properties":{"a":{"allOf":[{"enum":[1,2]},{"enum":[3]}]}}}`, "enum"},
		{"multipleOf past maximum", `{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":1,"maximum":6,"multipleOf":7}}}`, "multipleOf"},
		{"format no sample fits", `{"type":"object","required":["a"],"properties":{"a":{"type":"string","format":"email","maxLength":4}}}`, "format"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := newValueGen(json.RawMessage(c.schema), "zq0123abcd")
			if err != nil {
				t.Fatal(err)
			}
			v, err := g.Root()
			if err == nil {
				t.Fatalf("built %s", v)
			}
			if got := StopKeyword(err); got != c.keyword {
				t.Errorf("stopped by %q (%v), want %q", got, err, c.keyword)
			}
		})
	}
}

// TestHarvestScore: a member's own name fits best, then id in a
// collection named after it, then any id.
func TestHarvestScore(t *testing.T) {
	for _, c := range []struct {
		member string
		h      harvested
		want   int
	}{
		{"projectId", harvested{"projectId", "items", "demo"}, 4},
		{"projectId", harvested{"id", "projects", "demo"}, 4},
		{"itemId", harvested{"id", "items", "item-1"}, 4},
		{"itemId", harvested{"id", "projects", "demo"}, 2},
		{"itemId", harvested{"text", "items", "x"}, 0},
		{"reviewName", harvested{"name", "", "x"}, 1},
	} {
		if got := score(c.member, c.h); got != c.want {
			t.Errorf("score(%q, %+v) = %d, want %d", c.member, c.h, got, c.want)
		}
	}
}
