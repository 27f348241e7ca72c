package mcpvalidate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// offline refuses every load: a schema compiled with it resolves its $refs
// inside itself or not at all.
type offline struct{}

func (offline) Load(u string) (any, error) { return nil, fmt.Errorf("offline: %s", u) }

// compileAlone compiles a published schema as a client would that has only
// it: nothing else is added and nothing is fetched.
func compileAlone(t *testing.T, name string, published []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(published))
	if err != nil {
		t.Fatalf("%s: published schema is not JSON: %v", name, err)
	}
	id, _ := doc.(map[string]any)["$id"].(string)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(offline{})
	if err := c.AddResource(id, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatalf("%s: the published schema does not compile on its own (a $ref it cannot resolve): %v", name, err)
	}
	return s
}

// decoded is a schema file or published schema as plain JSON values.
func decoded(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// checkBundles holds every tool's published schema to its files: it compiles
// on its own; it is its source file plus, under $defs, exactly the fragments
// the file references directly or through others (want, by file name
// without .schema.json), each as its file; and the schema compiled on its
// own agrees with Check on each instance.
func checkBundles(t *testing.T, v *Validator, fsys fs.FS, dir string, want map[string][]string, instances []string) {
	t.Helper()
	files := map[string]map[string]any{} // by $id
	byName := map[string]map[string]any{}
	names, _ := fs.Glob(fsys, dir+"/*.schema.json")
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			t.Fatal(err)
		}
		doc := decoded(t, b)
		files[doc["$id"].(string)] = doc
		byName[strings.TrimSuffix(n[strings.LastIndex(n, "/")+1:], ".schema.json")] = doc
	}
	for _, tool := range v.names {
		published, ok := v.InputSchema(tool)
		if !ok {
			t.Fatalf("%s: no published schema", tool)
		}
		got := decoded(t, published)
		defs, _ := got["$defs"].(map[string]any)
		delete(got, "$defs")
		var src map[string]any
		for _, doc := range files {
			if doc[ToolKey] == tool {
				src = doc
			}
		}
		if src == nil {
			t.Fatalf("%s: no source file", tool)
		}
		if _, own := src["$defs"]; own {
			defs = nil // the file's own $defs, compared with the rest of it
			got["$defs"] = src["$defs"]
		}
		if !reflect.DeepEqual(got, src) {
			t.Errorf("%s: published schema differs from its file beyond $defs", tool)
		}
		var keys []string
		for k, d := range defs {
			keys = append(keys, k)
			if !reflect.DeepEqual(d, byName[k]) {
				t.Errorf("%s: $defs/%s is not the file %s.schema.json", tool, k, k)
			}
		}
		slices.Sort(keys)
		if w := want[tool]; !slices.Equal(keys, w) {
			t.Errorf("%s: published with $defs %v, want the fragments it references %v", tool, keys, w)
		}
		if len(want[tool]) == 0 && strings.Contains(string(published), `"$defs":{}`) {
			t.Errorf("%s: an empty $defs published", tool)
		}
		alone := compileAlone(t, tool, published)
		for _, inst := range instances {
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(inst))
			if err != nil {
				t.Fatal(err)
			}
			if aloneOK, checkOK := alone.Validate(doc) == nil, refusalOf(t, v, tool, []byte(inst)) == nil; aloneOK != checkOK {
				t.Errorf("%s %s: the published schema on its own admits %v, Check admits %v", tool, inst, aloneOK, checkOK)
			}
		}
	}
}

// TestPublishedSchemasAreSelfContained: the demo's published schemas (five
// compose tool-context.schema.json) each carry what they reference, so a
// client that has only tools/list resolves them, and they judge as Check
// does.
func TestPublishedSchemasAreSelfContained(t *testing.T) {
	v, err := New(embedded, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for _, tool := range v.names {
		if published, _ := v.InputSchema(tool); bytes.Contains(published, []byte(`tool-context.schema.json"`)) {
			want[tool] = []string{"tool-context"}
		}
	}
	if len(want) < 5 || len(want) == len(v.names) {
		t.Fatalf("fixture: %d of %d tools reference tool-context, want at least 5 and not all", len(want), len(v.names))
	}
	checkBundles(t, v, os.DirFS("testdata/schemas"), "mcp", want, []string{`{}`, `{"projectId":"p"}`, `{"projectId":"Not An Id"}`,
		`{"projectId":"p","query":"q"}`, `{"projectId":"p","id":"k"}`, `{"unknown":1}`})
}

// TestBundlingFollowsEveryReference: fragments referenced through other
// fragments are embedded, each once; a file's reference to itself embeds
// nothing; a tool that references nothing, or only its own $defs, is
// published as its file; a tool with its own $defs that references another
// file fails the load (bundling would overwrite them).
func TestBundlingFollowsEveryReference(t *testing.T) {
	const hdr = `"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://x.test/`
	frag := func(id, body string) string { return `{` + hdr + id + `",` + body + `}` }
	tool := func(id, name, body string) string {
		return `{` + hdr + id + `","x-mcp-tool":"` + name + `","type":"object",` + body + `,"unevaluatedProperties":false}`
	}
	files := map[string]string{
		"a.schema.json": frag("a.schema.json", `"properties":{"a":{"$ref":"c.schema.json"}}`),
		"b.schema.json": frag("b.schema.json", `"properties":{"b":{"$ref":"c.schema.json#/$defs/n"}}`),
		"c.schema.json": frag("c.schema.json", `"type":"string","maxLength":3,"$defs":{"n":{"type":"integer"}}`),
		"t.schema.json": tool("t.schema.json", "t", `"allOf":[{"$ref":"a.schema.json"},{"$ref":"b.schema.json"}],`+
			`"properties":{"x":{"type":"boolean"},"y":{"$ref":"https://x.test/t.schema.json#/properties/x"}}`),
		"u.schema.json": tool("u.schema.json", "u", `"properties":{"c":{"$ref":"#/$defs/c"}},"$defs":{"c":{"const":1}}`),
		"w.schema.json": tool("w.schema.json", "w", `"properties":{"z":{"type":"null"}}`),
	}
	v, err := New(SchemaFiles(mapFS(files), "s"), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkBundles(t, v, mapFS(files), "s", map[string][]string{"t": {"a", "b", "c"}}, []string{`{}`, `{"a":"abc"}`, `{"a":"abcd"}`,
		`{"b":1}`, `{"b":"1"}`, `{"x":true,"y":false}`, `{"y":1}`, `{"c":1}`, `{"c":2}`, `{"z":null}`, `{"q":1}`})

	files["v.schema.json"] = tool("v.schema.json", "v", `"allOf":[{"$ref":"c.schema.json"}],"$defs":{"own":{}}`)
	if _, err := New(SchemaFiles(mapFS(files), "s"), nil); err == nil || !strings.Contains(err.Error(), "s/v.schema.json: already has $defs") {
		t.Fatalf("a tool with its own $defs and a reference to another file: %v", err)
	}
}
