package mcpvalidate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/theurian/boundlab/charge"
)

// embedded is the published demo schemas, the source most tests use.
var embedded = SchemaFiles(os.DirFS("testdata/schemas"), "mcp")

// refusalOf calls Check and returns its refusal (nil when admitted), failing
// the test if Check returns an error that is not a *callRefusal.
func refusalOf(t testing.TB, v *Validator, tool string, args []byte) *callRefusal {
	t.Helper()
	err := v.Check(context.Background(), tool, args)
	if err == nil {
		return nil
	}
	var r *callRefusal
	if !errorsAs(err, &r) {
		t.Fatalf("Check returned %T, not a *callRefusal", err)
	}
	return r
}

func mustNew(t testing.TB, src Source, o *Options) *Validator {
	t.Helper()
	v, err := New(src, o)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The seed's seven tools, each with exactly one published schema.
func TestEmbeddedSchemasLoad(t *testing.T) {
	v := mustNew(t, embedded, nil)
	want := []string{"knowledge.get", "knowledge.search", "knowledge.status", "project.list", "review.findings", "review.search", "system.capabilities"}
	if got := v.names; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	for _, name := range want {
		t.Run(name, func(t *testing.T) {
			b, _ := v.InputSchema(name)
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil || doc["type"] != "object" || doc[ToolKey] != name {
				t.Errorf("%s: bundled schema %v (%v)", name, doc, err)
			}
		})
	}
}

const ctxFile = `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://x.test/ctx.schema.json","type":"object",
 "properties":{"projectId":{"type":"string"}},"required":["projectId"]%s}`

func toolFile(id, tool, extra string) string {
	return `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://x.test/` + id + `","x-mcp-tool":"` + tool + `",
 "type":"object","allOf":[{"$ref":"ctx.schema.json"}],"properties":{"body":{"type":"string"}},"unevaluatedProperties":false` + extra + `}`
}

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range files {
		m["s/"+k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}

// TestLoadFailsOnAnyProblem: every class of broken schema set fails New, and
// the error names the file.
func TestLoadFailsOnAnyProblem(t *testing.T) {
	good := map[string]string{
		"ctx.schema.json":  strings.Replace(ctxFile, "%s", "", 1),
		"tool.schema.json": toolFile("tool.schema.json", "t", ""),
	}
	if _, err := New(SchemaFiles(mapFS(good), "s"), nil); err != nil {
		t.Fatalf("positive control: %v", err)
	}
	with := func(name, body string) map[string]string {
		m := map[string]string{}
		for k, v := range good {
			m[k] = v
		}
		m[name] = body
		return m
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"duplicate $id", with("dup.schema.json", toolFile("tool.schema.json", "u", "")), "duplicate $id"},
		{"tool named twice", with("dup.schema.json", toolFile("other.schema.json", "t", "")), `tool "t" already`},
		{"unresolvable $ref", with("tool.schema.json", strings.Replace(toolFile("tool.schema.json", "t", ""), "ctx.schema.json", "missing.schema.json", 1)), "tool.schema.json"},
		{"remote $ref refused by the loader", with("tool.schema.json", strings.Replace(toolFile("tool.schema.json", "t", ""), "ctx.schema.json", "https://json-schema.org/draft/2020-12/meta/core-x", 1)), "offline registry"},
		{"fails to compile", with("tool.schema.json", toolFile("tool.schema.json", "t", `,"maxLength":"ten"`)), "tool.schema.json"},
		{"bad pattern", with("ctx.schema.json", strings.Replace(ctxFile, "%s", `,"properties":{"projectId":{"pattern":"(["}}`, 1)), "ctx.schema.json"},
		{"not closed", with("tool.schema.json", strings.Replace(toolFile("tool.schema.json", "t", ""), `"unevaluatedProperties":false`, `"unevaluatedProperties":true`, 1)), "unevaluatedProperties"},
		{"not type object", with("tool.schema.json", strings.Replace(toolFile("tool.schema.json", "t", ""), `"type":"object",`, ``, 1)), `"type": "object"`},
		{"duplicate member name", with("tool.schema.json", toolFile("tool.schema.json", "t", `,"type":"object"`)), "duplicate-name"},
		{"not JSON", with("tool.schema.json", `{"$id":`), "tool.schema.json"},
		{"other draft", with("tool.schema.json", strings.Replace(toolFile("tool.schema.json", "t", ""), "2020-12", "2019-09", 1)), "$schema"},
		{"relative $id", with("tool.schema.json", strings.Replace(toolFile("tool.schema.json", "t", ""), "https://x.test/tool.schema.json", "tool.schema.json", 1)), "$id"},
		{"empty tool name", with("tool.schema.json", toolFile("tool.schema.json", "", "")), ToolKey},
		{"no tool at all", map[string]string{"ctx.schema.json": good["ctx.schema.json"]}, "names a tool"},
		{"no files", map[string]string{}, "no *.schema.json"},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			_, err := New(SchemaFiles(mapFS(c.files), "s"), nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: want an error holding %q, got %v", c.name, c.want, err)
			}
		})
	}
}

// TestCompositionTable reproduces the seed's decision-1 table on jsonschema/v6:
// only allOf+$ref closed with unevaluatedProperties, the referent left open,
// admits a valid document and refuses an unknown key.
func TestCompositionTable(t *testing.T) {
	valid := map[string]any{"projectId": "p", "body": "b"}
	unknown := map[string]any{"projectId": "p", "body": "b", "extra": 1}
	forms := map[string]string{
		"ref+additional":    `"$ref":"ctx.schema.json","properties":{"body":{}},"additionalProperties":false`,
		"allOf+additional":  `"allOf":[{"$ref":"ctx.schema.json"}],"properties":{"body":{}},"additionalProperties":false`,
		"allOf+unevaluated": `"allOf":[{"$ref":"ctx.schema.json"}],"properties":{"body":{}},"unevaluatedProperties":false`,
	}
	for _, closed := range []bool{true, false} {
		extra := ""
		if closed {
			extra = `,"additionalProperties":false`
		}
		for form, body := range forms {
			t.Run(fmt.Sprintf("referent-closed=%v_%s", closed, caseName(form)), func(t *testing.T) {
				c := jsonschema.NewCompiler()
				c.UseLoader(refuseLoader{})
				ctx, _ := jsonschema.UnmarshalJSON(strings.NewReader(strings.Replace(ctxFile, "%s", extra, 1)))
				tool, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://x.test/t.json",` + body + `}`))
				if err := c.AddResource("https://x.test/ctx.schema.json", ctx); err != nil {
					t.Fatal(err)
				}
				if err := c.AddResource("https://x.test/t.json", tool); err != nil {
					t.Fatal(err)
				}
				s, err := c.Compile("https://x.test/t.json")
				if err != nil {
					t.Fatal(err)
				}
				works := s.Validate(valid) == nil && s.Validate(unknown) != nil
				if want := form == "allOf+unevaluated" && !closed; works != want {
					t.Errorf("referent closed=%v, %s: works=%v, want %v", closed, form, works, want)
				}
			})
		}
	}
}

func TestRefusalCeilingHolds(t *testing.T) {
	n := maxRefusalTextBytes()
	if n > refusalCeiling {
		t.Fatalf("maxRefusalTextBytes %d > refusalCeiling %d", n, refusalCeiling)
	}
}

// openTool is a synthetic schema set whose tool admits anything under "data",
// so the gate's bounds can be driven at the bound (admitted) and past it.
var openSet = mapFS(map[string]string{"open.schema.json": `{"$schema":"https://json-schema.org/draft/2020-12/schema",
 "$id":"https://x.test/open.schema.json","x-mcp-tool":"open","type":"object","properties":{"data":{},"n":{"type":"integer","maximum":100}},"unevaluatedProperties":false}`})

func TestGateBoundsAtAndPast(t *testing.T) {
	l := charge.DefaultLimits()
	l.MaxParamsRenderedChars = 1000
	small := mustNew(t, SchemaFiles(openSet, "s"), &Options{Limits: &l})
	v := mustNew(t, SchemaFiles(openSet, "s"), nil)
	l = v.cfg.limits
	fill := func(n int) string { return `{"data":"` + strings.Repeat("a", n) + `"}` }
	// The charge: "data" (4) + the value.
	deep := func(levels int) string {
		return `{"data":` + strings.Repeat("[", levels-1) + strings.Repeat("]", levels-1) + `}`
	}
	many := func(nodes int) string { // root, name, array, nodes-3 zeros
		return `{"data":[` + strings.TrimSuffix(strings.Repeat("0,", nodes-3), ",") + `]}`
	}
	num := func(tok string) string { return `{"data":` + tok + `}` }
	for _, c := range []struct {
		name      string
		at, past  string
		pastBound charge.Bound
	}{
		{"charge", fill(996), fill(997), charge.BoundCharge},
		{"nesting", deep(l.MaxParamsNesting), deep(l.MaxParamsNesting + 1), charge.BoundNesting},
		{"nodes", many(l.MaxParamsNodes), many(l.MaxParamsNodes + 1), charge.BoundNodes},
		{"number bytes", num(strings.Repeat("9", l.MaxNumberBytes)), num(strings.Repeat("9", l.MaxNumberBytes+1)), charge.BoundNumberBytes},
		{"number exponent", num("1e999"), num("1e1000"), charge.BoundNumberExponent},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			v := v
			if c.pastBound == charge.BoundCharge {
				v = small
			}
			if r := refusalOf(t, v, "open", []byte(c.at)); r != nil {
				t.Errorf("%s at the bound: refused: %v", c.name, r)
			}
			r := refusalOf(t, v, "open", []byte(c.past))
			if r == nil || r.Stage != StageGate || r.Gate.Bound != c.pastBound {
				t.Errorf("%s one past: want the gate's %v, got %v", c.name, c.pastBound, r)
			}
		})
	}
}

func TestStrictnessAndNumbers(t *testing.T) {
	v := mustNew(t, SchemaFiles(openSet, "s"), nil)
	for _, c := range []struct {
		name, args string
		bound      charge.Bound // 0: admitted
	}{
		{"duplicate", `{"data":1,"data":2}`, charge.BoundDuplicateName},
		{"invalid UTF-8", "{\"data\":\"\xc3\x28\"}", charge.BoundUTF8},
		{"lone surrogate", `{"data":"\ud800x"}`, charge.BoundSurrogate},
		{"raw control", "{\"data\":\"\x00\"}", charge.BoundControl},
		{"trailing bytes", `{"data":1} {}`, charge.BoundTrailing},
		{"not JSON", `{"data":}`, charge.BoundSyntax},
		{"2^53+1 admitted exactly", `{"data":9007199254740993}`, 0},
		{"negative exponent at the bound", `{"data":1e-999}`, 0},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			r := refusalOf(t, v, "open", []byte(c.args))
			switch {
			case c.bound == 0 && r != nil:
				t.Errorf("%s: refused: %v", c.name, r)
			case c.bound != 0 && (r == nil || r.Gate == nil || r.Gate.Bound != c.bound):
				t.Errorf("%s: want %v, got %v", c.name, c.bound, r)
			}
		})
	}
	// 2^53+1 is compared exactly (big.Rat over json.Number), not through float64.
	r := refusalOf(t, v, "open", []byte(`{"n":101}`))
	if r == nil || !strings.Contains(r.Error(), "maximum 100") {
		t.Fatalf("n 101: %v", r)
	}
	if r := refusalOf(t, v, "open", []byte(`{"n":100.0}`)); r != nil {
		t.Fatalf("100.0 is an integer in JSON Schema: %v", r)
	}
}

func TestRefusalIsBounded(t *testing.T) {
	v := mustNew(t, embedded, nil)
	ceiling := maxRefusalTextBytes()
	long := strings.Repeat("\u0600", 20_000) // 2-byte, non-printable: widens 6x under escaping
	var many strings.Builder
	many.WriteString(`{"projectId":"demo","query":"x"`)
	for i := 0; i < 5000; i++ {
		many.WriteString(`,"` + long[:64] + strconv.Itoa(i) + `":0`)
	}
	many.WriteString("}")
	deepKeys := `{"projectId":"demo","query":"x","` + long + `":` + strings.Repeat(`{"`+long[:200]+`":`, 30) + `0` + strings.Repeat("}", 31)
	for name, c := range map[string]struct{ tool, args string }{
		"10,000-character tool name":     {strings.Repeat("\u0600", 10_000), `{}`},
		"10,000-character key":           {"knowledge.search", `{"projectId":"demo","query":"x","` + strings.Repeat("k", 10_000) + `":1}`},
		"many long keys":                 {"knowledge.search", many.String()},
		"deep long keys":                 {"knowledge.search", deepKeys},
		"gate refusal deep in long keys": {"knowledge.search", `{"` + long + `":` + strings.Repeat(`{"`+long[:300]+`":`, 70) + `0` + strings.Repeat("}", 71)},
	} {
		t.Run(caseName(name), func(t *testing.T) {
			r := refusalOf(t, v, c.tool, []byte(c.args))
			if r == nil {
				t.Fatalf("%s: admitted", name)
			}
			msg := r.Error()
			if len(msg) > ceiling {
				t.Errorf("%s: %d bytes > ceiling %d", name, len(msg), ceiling)
			}
			if strings.Contains(msg, "\u0600") {
				t.Errorf("%s: refusal holds raw caller text", name)
			}
			t.Logf("%s: %d bytes, stage %v, %d leaves + %d elided", name, len(msg), r.Stage, len(r.Leaves), r.Elided)
		})
	}
	r := refusalOf(t, v, "knowledge.search", []byte(many.String()))
	if len(r.Leaves) != maxLeaves || r.Elided != 5000-maxLeaves || !strings.Contains(r.Error(), "and 4996 more") {
		t.Fatalf("many keys: %d leaves, %d elided", len(r.Leaves), r.Elided)
	}
}

// TestLeavesAreSorted: the same failures in any member order give the same
// refusal text (jsonschema/v6's error order follows map iteration).
func TestLeavesAreSorted(t *testing.T) {
	v := mustNew(t, embedded, nil)
	a := refusalOf(t, v, "knowledge.search", []byte(`{"zz":1,"projectId":"Bad!","aa":2,"query":"","limit":0}`))
	for i := 0; i < 20; i++ {
		b := refusalOf(t, v, "knowledge.search", []byte(`{"limit":0,"query":"","aa":2,"projectId":"Bad!","zz":1}`))
		if a.Error() != b.Error() {
			t.Fatalf("order-dependent refusal:\n%s\n%s", a, b)
		}
	}
	want := `at "/aa": unevaluatedProperties false; at "/limit": minimum 1; at "/projectId": pattern ^[a-z][a-z0-9-]{0,62}$; at "/query": minLength 1; and 1 more`
	if !strings.HasSuffix(a.Error(), want) {
		t.Fatalf("got %s\nwant suffix %s", a, want)
	}
}

func TestValidatePanicIsRecovered(t *testing.T) {
	var nilSchema *jsonschema.Schema
	if _, panicked := validate(nilSchema, map[string]any{}); !panicked {
		t.Fatal("a nil schema's Validate should panic and be recovered")
	}
}

// TestCheckConcurrent: one Validator serves concurrent calls (run with -race),
// and each call's answer is the one the same call gets alone.
func TestCheckConcurrent(t *testing.T) {
	v := mustNew(t, embedded, nil)
	docs := []string{`{"projectId":"demo","query":"x"}`, `{"projectId":"demo","query":"x","k":1}`, `{"a":1,"a":2}`, `[`}
	alone := make([]string, len(docs))
	for i, d := range docs {
		if err := v.Check(context.Background(), "knowledge.search", []byte(d)); err != nil {
			alone[i] = err.Error()
		}
	}
	if alone[0] != "" || alone[1] == "" || alone[2] == "" || alone[3] == "" || alone[1] == alone[2] || alone[2] == alone[3] {
		t.Fatalf("the documents must be one admitted and three distinct refusals: %q", alone)
	}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for i := 0; i < 200; i++ {
				k := (g + i) % len(docs)
				got := ""
				if err := v.Check(context.Background(), "knowledge.search", []byte(docs[k])); err != nil {
					got = err.Error()
				}
				if got != alone[k] {
					errs <- fmt.Errorf("document %d: concurrently %q, alone %q", k, got, alone[k])
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestEnumLeafNamesItsMembers: a failed enum of non-strings names its
// members in the leaf's schema side (Want), as JSON.
func TestEnumLeafNamesItsMembers(t *testing.T) {
	file := `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://x.test/e.schema.json","x-mcp-tool":"e",
 "type":"object","properties":{"n":{"enum":[17,true,null]}},"unevaluatedProperties":false}`
	v, err := New(SchemaFiles(mapFS(map[string]string{"e.schema.json": file}), "s"), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := refusalOf(t, v, "e", []byte(`{"n":"x"}`))
	if r == nil || len(r.Leaves) != 1 || r.Leaves[0].Keyword != "enum" {
		t.Fatalf("refusal %+v", r)
	}
	for _, m := range []string{"17", "true", "null"} {
		if !strings.Contains(r.Leaves[0].Want, m) {
			t.Errorf("enum leaf's Want %q does not name %s", r.Leaves[0].Want, m)
		}
	}
}
