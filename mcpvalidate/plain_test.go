package mcpvalidate

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// notPlainFields are the exported fields of jsonschema.Schema that make a
// schema not plain when set: every one asserts something the pass does not
// check.
var notPlainFields = []string{
	"Ref", "RecursiveRef", "DynamicRef", "Const", "Not", "AllOf", "AnyOf", "OneOf", "If", "Then", "Else",
	"Format", "MaxProperties", "MinProperties", "PropertyNames", "PatternProperties", "Dependencies",
	"DependentRequired", "DependentSchemas", "UnevaluatedProperties", "MinItems", "MaxItems", "UniqueItems",
	"Contains", "MinContains", "MaxContains", "Items", "AdditionalItems", "PrefixItems", "UnevaluatedItems",
	"Pattern", "ContentEncoding", "ContentMediaType", "ContentSchema", "MultipleOf", "Extensions",
}

// TestPlainKnowsEveryField: every exported field of the library's Schema is
// either read by the pass (or asserts nothing) or makes a schema not plain;
// a field a new version adds fails here until it is judged.
func TestPlainKnowsEveryField(t *testing.T) {
	known := map[string]bool{}
	for _, f := range notPlainFields {
		known[f] = true
	}
	typ := reflect.TypeOf(jsonschema.Schema{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if f.IsExported() && !plainFields[f.Name] && !known[f.Name] {
			t.Errorf("jsonschema.Schema.%s is judged neither plain nor not plain", f.Name)
		}
		if plainFields[f.Name] && known[f.Name] {
			t.Errorf("jsonschema.Schema.%s is judged both", f.Name)
		}
	}
	for name := range plainFields {
		if _, ok := typ.FieldByName(name); !ok {
			t.Errorf("plainFields names %s, which jsonschema.Schema has not", name)
		}
	}
}

// plainTool builds a validator for one tool "t" with schema, open allowed.
func plainTool(t *testing.T, schema string) (*Validator, *tool) {
	t.Helper()
	v, err := New(Tools(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(schema)}), &Options{OpenTools: []string{"t"}})
	if err != nil {
		t.Fatalf("%s: %v", schema, err)
	}
	return v, v.tools["t"]
}

// TestPlainAdmits holds the pass at each bound and one past it, and on what
// it must decline: for every case, whether the pass admits, and (with it
// off) whether jsonschema/v6 does; the pass never admits what jsonschema/v6
// refuses.
func TestPlainAdmits(t *testing.T) {
	many := `{"type":"object","additionalProperties":false,"properties":{` +
		`"p0":{},"p1":{},"p2":{},"p3":{},"p4":{},"p5":{},"p6":{},"p7":{},"p8":{"type":"string"},"p9":{"type":"integer"}},"required":["p9"]}`
	cases := []struct {
		name, schema, args string
		admits, valid      bool
	}{
		{"deeplink", deeplinkSchema, `{"resourceType":"dashboard","dashboardUid":"boundlab"}`, true, true},
		{"deeplink nested", deeplinkSchema, `{"resourceType":"panel","panelId":4,"timeRange":{"from":"now-1h"},"queryParams":{"var":"x"},"queries":[{"refId":"A"}],"shorten":true}`, true, true},
		{"deeplink missing required", deeplinkSchema, `{"dashboardUid":"boundlab"}`, false, false},
		{"deeplink unknown member", deeplinkSchema, `{"resourceType":"dashboard","force":1}`, false, false},
		{"deeplink wrong type", deeplinkSchema, `{"resourceType":7}`, false, false},
		{"deeplink additional wrong", deeplinkSchema, `{"resourceType":"d","queryParams":{"var":1}}`, false, false},
		{"deeplink nested required", deeplinkSchema, `{"resourceType":"d","provisioningPreview":{"repo":"r"}}`, false, false},
		{"deeplink items wrong", deeplinkSchema, `{"resourceType":"d","queries":[{},2]}`, false, false},
		{"spaces", deeplinkSchema, " \n{ \"resourceType\" :\t\"d\" , \"panelId\" : -0 }\r\n", true, true},
		{"escaped name", deeplinkSchema, `{"resource\u0054ype":"dashboard"}`, false, true},
		{"escaped name, open", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"\u0061":1}`, false, false},
		{"escaped value, no enum", deeplinkSchema, `{"resourceType":"dash\nboard"}`, true, true},

		{"minLength at", `{"type":"string","minLength":2}`, `"ab"`, true, true},
		{"minLength one short", `{"type":"string","minLength":2}`, `"a"`, false, false},
		{"maxLength at", `{"type":"string","maxLength":2}`, `"ab"`, true, true},
		{"maxLength one past", `{"type":"string","maxLength":2}`, `"abc"`, false, false},
		{"maxLength counts code points", `{"type":"string","maxLength":2}`, `"éé"`, true, true},
		{"length of an escaped string", `{"type":"string","maxLength":2}`, `"\u0061"`, false, true},
		{"length of an escaped string, short", `{"type":"string","minLength":3}`, `"\u0061"`, false, false},

		{"minimum at", `{"type":"integer","minimum":1}`, `1`, true, true},
		{"minimum one under", `{"type":"integer","minimum":1}`, `0`, false, false},
		{"exclusiveMinimum one over", `{"type":"integer","exclusiveMinimum":1}`, `2`, true, true},
		{"exclusiveMinimum at", `{"type":"integer","exclusiveMinimum":1}`, `1`, false, false},
		{"maximum rounds down", `{"type":"integer","maximum":2.5}`, `2`, true, true},
		{"maximum past", `{"type":"integer","maximum":2.5}`, `3`, false, false},
		{"exclusiveMaximum one under", `{"type":"integer","exclusiveMaximum":3}`, `2`, true, true},
		{"exclusiveMaximum at", `{"type":"integer","exclusiveMaximum":3}`, `3`, false, false},
		{"negative minimum rounds up", `{"type":"integer","minimum":-2.5}`, `-2`, true, true},
		{"negative minimum past", `{"type":"integer","minimum":-2.5}`, `-3`, false, false},
		{"negative exclusiveMaximum", `{"type":"integer","exclusiveMaximum":-2.5}`, `-3`, true, true},
		{"negative exclusiveMaximum past", `{"type":"integer","exclusiveMaximum":-2.5}`, `-2`, false, false},
		{"18 digits under a bound", `{"type":"integer","minimum":0}`, `123456789012345678`, true, true},
		{"19 digits under a bound", `{"type":"integer","minimum":0}`, `1234567890123456789`, false, true},
		{"20 digits under a maximum", `{"type":"integer","maximum":10}`, `99999999999999999999`, false, false},
		{"minimum rounds up", `{"type":"integer","minimum":0.5}`, `1`, true, true},
		{"minimum rounds up, under", `{"type":"integer","minimum":0.5}`, `0`, false, false},
		{"bound past int64", `{"type":"integer","minimum":1e19}`, `123456789012345678`, false, false},
		{"fraction under a bound", `{"type":"number","maximum":3}`, `2.5`, false, true},

		{"integer literal", `{"type":"integer"}`, `-12`, true, true},
		{"integer with a fraction", `{"type":"integer"}`, `1.0`, false, true},
		{"integer with an exponent", `{"type":"integer"}`, `1e2`, false, true},
		{"not an integer", `{"type":"integer"}`, `2.5`, false, false},
		{"number with a fraction", `{"type":"number"}`, `2.5e-3`, true, true},
		{"string for a number", `{"type":"number"}`, `"2"`, false, false},
		{"null", `{"type":["null","boolean"]}`, `null`, true, true},
		{"false", `{"type":["null","boolean"]}`, `false`, true, true},
		{"true for null", `{"type":"null"}`, `true`, false, false},

		{"enum member", `{"type":"string","enum":["a","b"]}`, `"b"`, true, true},
		{"enum not a member", `{"type":"string","enum":["a","b"]}`, `"c"`, false, false},
		{"enum escaped member", `{"type":"string","enum":["a","b"]}`, `"\u0062"`, false, true},
		{"enum escaped, its escape a member", `{"type":"string","enum":["\\u0062"]}`, `"\u0062"`, false, false},
		{"enum with a number", `{"enum":["1"]}`, `1`, false, false},
		{"enum with an object", `{"enum":["1"]}`, `{}`, false, false},

		{"required only, open", `{"type":"object","required":["x"]}`, `{"x":[1,{"y":"}"}]}`, true, true},
		{"required only, closed", `{"type":"object","required":["x"],"additionalProperties":false}`, `{"x":1}`, false, false},
		{"required only, missing", `{"type":"object","required":["x"]}`, `{"y":1}`, false, false},
		{"empty object, required", `{"type":"object","required":["x"]}`, `{}`, false, false},
		{"additional schema", `{"type":"object","additionalProperties":{"type":"string"}}`, `{"k":"v","l":"w"}`, true, true},
		{"additional schema broken", `{"type":"object","additionalProperties":{"type":"string"}}`, `{"k":"v","l":2}`, false, false},
		{"untyped admits a string", `{"properties":{"a":{"type":"string"}}}`, `"x"`, true, true},
		{"empty array", `{"type":"array","items":{"type":"string"}}`, `[]`, true, true},
		{"array of strings", `{"type":"array","items":{"type":"string"}}`, `["a", "b"]`, true, true},
		{"array item wrong", `{"type":"array","items":{"type":"string"}}`, `["a",1]`, false, false},

		{"many members, last", many, `{"p9":1,"p8":"s","p0":[]}`, true, true},
		{"many members, unknown", many, `{"p9":1,"q":1}`, false, false},
		{"many members, missing", many, `{"p8":"s"}`, false, false},
		{"many members, wrong type", many, `{"p9":1,"p8":2}`, false, false},
		{"true schema", `true`, `{"x":1}`, true, true},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			if c.schema != deeplinkSchema && !strings.HasPrefix(c.schema, `{"type":"object"`) {
				// a tool's input schema is an object's: the value is its member
				c.schema, c.args = `{"type":"object","properties":{"v":`+c.schema+`}}`, `{"v":`+c.args+`}`
			}
			_, tl := plainTool(t, c.schema)
			if tl.plain == nil {
				t.Fatalf("%s is not plain", c.schema)
			}
			if got := tl.plain.admits([]byte(c.args)); got != c.admits {
				t.Errorf("admits %s: %v, want %v", c.args, got, c.admits)
			}
			doc, err := tree([]byte(c.args), defaultDepth, 0)
			if err != nil {
				t.Fatal(err)
			}
			if valid := tl.schema.Validate(doc) == nil; valid != c.valid {
				t.Errorf("jsonschema/v6 on %s: valid %v, want %v", c.args, valid, c.valid)
			}
		})
	}
}

// deeplinkSchema is mcp-grafana v1.6.3's generate_deeplink input schema as
// its tools/list publishes it, descriptions cut.
const deeplinkSchema = `{"additionalProperties":false,"type":"object","required":["resourceType"],"properties":{
"dashboardUid":{"type":"string","description":"Dashboard UID"},"datasourceUid":{"type":"string"},"panelId":{"type":"integer"},
"provisioningPreview":{"type":"object","required":["repo","path"],"properties":{"repo":{"type":"string"},"path":{"type":"string"},"ref":{"type":"string"},"pullRequestUrl":{"type":"string"}}},
"queries":{"type":"array","items":{"type":"object"}},"queryParams":{"type":"object","additionalProperties":{"type":"string"}},
"resourceType":{"type":"string"},"shorten":{"type":"boolean"},"timeRange":{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"}}}}}`

// TestNotPlain: a keyword the pass does not check leaves the whole schema to
// jsonschema/v6, wherever it sits.
func TestNotPlain(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string","pattern":"^a"}}}`,
		`{"type":"object","properties":{"a":{"const":1}}}`,
		`{"type":"object","additionalProperties":{"type":"array","minItems":1}}`,
		`{"type":"object","properties":{"a":{"enum":["x",1]}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[{"type":"string"}]}}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":false}}`,
	} {
		if _, tl := plainTool(t, s); tl.plain != nil {
			t.Errorf("%s: plain", s)
		}
	}
}

// TestPlainRequiredFitsAWord: required names are tracked as the bits of
// one word, so an object that requires more is not plain, and a call
// missing the last of them is refused.
func TestPlainRequiredFitsAWord(t *testing.T) {
	for _, n := range []int{maxPlainRequired, maxPlainRequired + 1} {
		var props, req, args []string
		for i := 0; i < n; i++ {
			props = append(props, fmt.Sprintf(`"m%d":{"type":"integer"}`, i))
			req = append(req, fmt.Sprintf(`"m%d"`, i))
			if i < n-1 {
				args = append(args, fmt.Sprintf(`"m%d":1`, i))
			}
		}
		schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `]}`
		v, tl := plainTool(t, schema)
		if plain := tl.plain != nil; plain != (n <= maxPlainRequired) {
			t.Errorf("%d required: plain %v", n, plain)
		}
		if err := v.Check(context.Background(), "t", []byte("{"+strings.Join(args, ",")+"}")); err == nil {
			t.Errorf("%d required, the last missing: admitted", n)
		}
		if err := v.Check(context.Background(), "t", []byte("{"+strings.Join(args, ",")+fmt.Sprintf(`,"m%d":1}`, n-1))); err != nil {
			t.Errorf("%d required, all present: %v", n, err)
		}
	}
}

// TestPlainCheckAllocatesNothing: an admitted call to a tool with a plain
// schema is checked with no tree and no allocation (not counted under the
// race detector, which allocates on its own); one the pass declines
// is still admitted by the full check, and a refusal is jsonschema/v6's.
func TestPlainCheckAllocatesNothing(t *testing.T) {
	v, _ := plainTool(t, deeplinkSchema)
	args := []byte(`{"resourceType":"dashboard","dashboardUid":"boundlab"}`)
	ctx := context.Background()
	if n := testing.AllocsPerRun(100, func() {
		if err := v.Check(ctx, "t", args); err != nil {
			t.Fatal(err)
		}
	}); n != 0 && !raceEnabled {
		t.Errorf("an admitted call allocates %v times, want 0", n)
	}
	if err := v.Check(ctx, "t", []byte(`{"resource\u0054ype":"dashboard"}`)); err != nil {
		t.Errorf("a call the pass declines but the schema admits: %v", err)
	}
	err := v.Check(ctx, "t", []byte(`{"resourceType":"dashboard","force":1}`))
	if err == nil || !strings.Contains(err.Error(), `at "/force": additionalProperties false`) {
		t.Errorf("refusal: %v", err)
	}
}

// BenchmarkPlainCheck: Check of a small admitted call to a tool with a
// plain schema (mcp-grafana's generate_deeplink), with the plain pass and
// without it (decode, then jsonschema/v6), side by side.
func BenchmarkPlainCheck(b *testing.B) {
	v, err := New(Tools(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(deeplinkSchema)}), &Options{OpenTools: []string{"t"}})
	if err != nil {
		b.Fatal(err)
	}
	args := []byte(`{"resourceType":"dashboard","dashboardUid":"boundlab"}`)
	plain := v.tools["t"].plain
	for _, pass := range []string{"plain", "full"} {
		b.Run("pass="+pass, func(b *testing.B) {
			v.tools["t"].plain = map[string]*plainSchema{"plain": plain, "full": nil}[pass]
			b.ReportAllocs()
			for b.Loop() {
				if v.Check(context.Background(), "t", args) != nil {
					b.Fatal("refused")
				}
			}
		})
	}
	v.tools["t"].plain = plain
}

// A typed tool whose Go type the schema describes whole takes the plain
// pass; one with checks of its own (an unsigned member refuses -0), or with
// a schema of its own narrower than its type, does not.
func TestPlainTypedTools(t *testing.T) {
	type whole struct {
		Query string `json:"query"`
		Limit int    `json:"limit,omitempty"`
	}
	type unsigned struct {
		Page uint `json:"page"`
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "0"}, nil)
	AddTool(srv, &mcp.Tool{Name: "whole"}, func(context.Context, *mcp.CallToolRequest, whole) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	AddTool(srv, &mcp.Tool{Name: "unsigned"}, func(context.Context, *mcp.CallToolRequest, unsigned) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	type small struct {
		Page int8 `json:"page"`
	}
	AddTool(srv, &mcp.Tool{Name: "own", InputSchema: json.RawMessage(`{"type":"object","properties":{"page":{"type":"integer"}},"additionalProperties":false}`)},
		func(context.Context, *mcp.CallToolRequest, small) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	v, err := New(ServerTools(srv), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.tools["own"].plain != nil {
		t.Error("a tool's own schema over a narrower type: plain pass")
	}
	if err := v.Check(context.Background(), "own", []byte(`{"page":300}`)); err == nil {
		t.Error("300 for an int8 member under a schema of the tool's own: admitted")
	}
	if v.tools["whole"].plain == nil {
		t.Error("a type its schema describes whole: no plain pass")
	}
	if v.tools["unsigned"].plain != nil {
		t.Error("a type with checks of its own: plain pass")
	}
	ctx := context.Background()
	args := []byte(`{"query":"q","limit":3}`)
	if n := testing.AllocsPerRun(100, func() {
		if err := v.Check(ctx, "whole", args); err != nil {
			t.Fatal(err)
		}
	}); n != 0 && !raceEnabled {
		t.Errorf("an admitted typed call allocates %v times, want 0", n)
	}
	if err := v.Check(ctx, "unsigned", []byte(`{"page":-0}`)); err == nil {
		t.Error("-0 for an unsigned member: admitted")
	}
}

// The pass reads bytes the gate admitted, but where bytes it is handed are
// plainly broken — a container closed by the other's bracket, members not
// separated — it admits nothing and does not panic.
func TestPlainDeclinesBrokenContainers(t *testing.T) {
	_, tl := plainTool(t, `{"type":"object","properties":{"v":{"type":"array"},"o":{"type":"object"}}}`)
	for _, doc := range []string{`{"v":[1}}`, `{"o":{"a":1]}`, `{"o":{"a":1 "b":2}}`, `{"v":[1 2]}`, `{"v":[1,`, `{"o":{"a"`, `{"v":[`} {
		if tl.plain.admits([]byte(doc)) {
			t.Errorf("admits %s", doc)
		}
	}
}
