package mcpvalidate

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const openTestID = "https://open.invalid/tool.json"

// compileOpen compiles doc (and any extra resources, by $id) offline, as the
// registry does.
func compileOpen(t *testing.T, doc string, extra map[string]string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	add := func(id, src string) {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if err := c.AddResource(id, v); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	add(openTestID, doc)
	for id, src := range extra {
		add(id, src)
	}
	s, err := c.Compile(openTestID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func openDisplayed(t *testing.T, doc string, extra map[string]string) string {
	t.Helper()
	var out []string
	for _, loc := range openObjects(compileOpen(t, doc, extra)) {
		out = append(out, displayLocation(loc, openTestID))
	}
	return strings.Join(out, " ")
}

// closedTop wraps a properties object in a closed top-level schema.
func closedTop(props string) string {
	return `{"type":"object","properties":` + props + `,"additionalProperties":false}`
}

func TestOpenObjects(t *testing.T) {
	const (
		openObj   = `{"type":"object","properties":{"a":{"type":"string"}}}`
		closedObj = `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`
	)
	for _, c := range []struct {
		name, doc string
		want      string // displayed locations, space-separated
	}{
		// The top level.
		{"top open", openObj, "#"},
		{"top open, no members", `{"type":"object","properties":{}}`, "#"},
		{"top additionalProperties false", closedObj, ""},
		{"top additionalProperties true", `{"type":"object","additionalProperties":true}`, "#"},
		{"top additionalProperties {}", `{"type":"object","additionalProperties":{}}`, "#"},
		{"top additionalProperties annotations only", `{"type":"object","additionalProperties":{"description":"d","title":"t","default":1,"examples":[1]}}`, "#"},
		{"top additionalProperties format, not asserted", `{"type":"object","additionalProperties":{"format":"email"}}`, "#"},
		{"top declared map", `{"type":"object","additionalProperties":{"type":"integer"}}`, ""},
		{"top declared map of open objects", `{"type":"object","additionalProperties":{"type":"object"}}`, "#/additionalProperties"},
		{"top unevaluatedProperties false", `{"type":"object","properties":{"a":{}},"unevaluatedProperties":false}`, ""},
		{"top unevaluatedProperties true", `{"type":"object","unevaluatedProperties":true}`, "#"},
		{"top unevaluatedProperties map", `{"type":"object","unevaluatedProperties":{"type":"string"}}`, ""},
		{"top patternProperties alone", `{"type":"object","patternProperties":{"^x-":{"type":"string"}}}`, "#"},
		{"top patternProperties closed", `{"type":"object","patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, ""},
		{"top propertyNames does not close", `{"type":"object","propertyNames":{"enum":["a"]}}`, "#"},
		{"top maxProperties 0", `{"type":"object","maxProperties":0}`, ""},
		{"top maxProperties 1", `{"type":"object","maxProperties":1}`, "#"},
		{"top enum", `{"type":"object","enum":[{"a":1}]}`, ""},
		{"top const", `{"type":"object","const":{"a":1}}`, ""},
		{"top type without object", `{"type":"string","properties":{"a":{}}}`, ""},
		{"top type with object and null", `{"type":["null","object"],"properties":{"a":{}}}`, "#"},
		{"object keyword without type", `{"required":["a"]}`, "#"},

		// Composition at one location.
		{"allOf one closed branch", `{"type":"object","allOf":[` + openObj + `,` + closedObj + `]}`, ""},
		{"allOf no closed branch", `{"type":"object","allOf":[` + openObj + `]}`, "#"},
		{"anyOf all closed", `{"type":"object","anyOf":[` + closedObj + `,{"type":"string"}]}`, ""},
		{"anyOf one open", `{"anyOf":[` + openObj + `,{"type":"string"}]}`, "#/anyOf/0"},
		{"anyOf false branch", `{"type":"object","anyOf":[false,` + closedObj + `]}`, ""},
		{"oneOf all closed", `{"type":"object","oneOf":[` + closedObj + `,{"type":"integer"}]}`, ""},
		{"oneOf one open", `{"oneOf":[{"type":"integer"},` + openObj + `]}`, "#/oneOf/1"},
		{"ref closed", `{"type":"object","$ref":"#/$defs/c","$defs":{"c":` + closedObj + `}}`, ""},
		{"ref open", `{"$ref":"#/$defs/o","$defs":{"o":` + openObj + `}}`, "#/$defs/o"},
		{"then and else closed", `{"type":"object","if":{"required":["a"]},"then":` + closedObj + `,"else":{"type":"object","maxProperties":0}}`, ""},
		{"then closed, no else", `{"type":"object","if":{"required":["a"]},"then":` + closedObj + `}`, "#"},
		{"else open under untyped", `{"if":{"type":"string"},"then":{"minLength":1},"else":` + openObj + `}`, "#/else"},
		{"dependentSchemas declare objects", `{"dependentSchemas":{"a":` + openObj + `}}`, "#"},
		{"dependentSchemas walked", `{"type":"object","properties":{"a":{}},"dependentSchemas":{"a":{"properties":{"n":` + openObj + `}}},"unevaluatedProperties":false}`, "#/dependentSchemas/a/properties/n"},
		{"dependentSchemas covered", `{"type":"object","properties":{"a":{}},"dependentSchemas":{"a":` + openObj + `},"unevaluatedProperties":false}`, ""},
		{"unevaluated closes a composed context", `{"type":"object","allOf":[{"$ref":"#/$defs/ctx"}],"properties":{"q":{"type":"string"}},"unevaluatedProperties":false,"$defs":{"ctx":` + openObj + `}}`, ""},
		{"composed context, nothing closes", `{"type":"object","allOf":[{"$ref":"#/$defs/ctx"}],"$defs":{"ctx":` + openObj + `}}`, "#"},

		// What is not an object schema.
		{"property {}", closedTop(`{"x":{}}`), ""},
		{"property true", closedTop(`{"x":true}`), ""},
		{"property array without items", closedTop(`{"x":{"type":"array"}}`), ""},
		{"property string keywords only", closedTop(`{"x":{"minLength":1}}`), ""},
		{"not is a condition", closedTop(`{"x":{"not":` + openObj + `}}`), ""},
		{"if is a condition", closedTop(`{"x":{"if":` + openObj + `,"then":{"minLength":1}}}`), ""},
		{"unreferenced def", `{"type":"object","additionalProperties":false,"$defs":{"o":` + openObj + `}}`, ""},

		// Nested locations.
		{"nested property open", closedTop(`{"f":` + openObj + `}`), "#/properties/f"},
		{"nested property closed", closedTop(`{"f":` + closedObj + `}`), ""},
		{"deeper open", closedTop(`{"f":` + closedTop(`{"g":`+openObj+`}`) + `}`), "#/properties/f/properties/g"},
		{"items open", closedTop(`{"l":{"type":"array","items":` + openObj + `}}`), "#/properties/l/items"},
		{"prefixItems open", closedTop(`{"l":{"type":"array","prefixItems":[{"type":"string"},` + openObj + `]}}`), "#/properties/l/prefixItems/1"},
		{"contains open", closedTop(`{"l":{"type":"array","contains":` + openObj + `}}`), "#/properties/l/contains"},
		{"unevaluatedItems open", closedTop(`{"l":{"type":"array","prefixItems":[{"type":"string"}],"unevaluatedItems":` + openObj + `}}`), "#/properties/l/unevaluatedItems"},
		{"patternProperties value open", `{"type":"object","patternProperties":{"^x":` + openObj + `},"additionalProperties":false}`, "#/patternProperties/^x"},
		{"unevaluatedProperties value open", `{"type":"object","unevaluatedProperties":` + openObj + `}`, "#/unevaluatedProperties"},
		{"nested nullable pointer struct", closedTop(`{"p":{"type":["null","object"],"properties":{"a":{}}}}`), "#/properties/p"},
		{"two open, sorted", closedTop(`{"b":` + openObj + `,"a":{"type":"array","items":` + openObj + `}}`), "#/properties/a/items #/properties/b"},
		{"def reached twice, reported once", `{"type":"object","allOf":[{"$ref":"#/$defs/o"}],"properties":{"x":{"$ref":"#/$defs/o"},"y":{"$ref":"#/$defs/o"}},"unevaluatedProperties":false,"$defs":{"o":` + openObj + `}}`, "#/$defs/o"},
		{"recursive closed", `{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}},"additionalProperties":false}`, ""},
		{"recursive open", `{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}}}`, "#"},
		{"closed def used twice", `{"type":"object","allOf":[{"$ref":"#/$defs/c"}],"properties":{"x":{"type":"object","allOf":[{"$ref":"#/$defs/c"}]}},"$defs":{"c":` + closedObj + `}}`, ""},
		{"in-place ref cycle", `{"type":"object","$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`, "#"},
		{"then open under untyped", `{"if":{"type":"string"},"then":` + openObj + `}`, "#/then"},
		{"dynamicRef target walked", `{"type":"object","properties":{"x":{"$dynamicRef":"#/$defs/d"}},"additionalProperties":false,"$defs":{"d":` + openObj + `}}`, "#/$defs/d"},
		{"dynamicRef never closes", `{"type":"object","$dynamicAnchor":"n","$dynamicRef":"#n","additionalProperties":true}`, "#"},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			if got := openDisplayed(t, c.doc, nil); got != c.want {
				t.Errorf("open at %q, want %q", got, c.want)
			}
		})
	}
}

// TestOpenObjectsDraft7 covers the draft-07 forms a tools/list may name with
// $schema: items as an array, additionalItems, dependencies.
func TestOpenObjectsDraft7(t *testing.T) {
	const d7 = `"$schema":"http://json-schema.org/draft-07/schema#",`
	const openObj = `{"type":"object","properties":{"a":{}}}`
	for _, c := range []struct{ name, doc, want string }{
		{"top open", `{` + d7 + `"type":"object","properties":{"a":{}}}`, "#"},
		{"items tuple", `{` + d7 + `"type":"object","additionalProperties":false,"properties":{"l":{"items":[{"type":"string"},` + openObj + `]}}}`, "#/properties/l/items/1"},
		{"additionalItems", `{` + d7 + `"type":"object","additionalProperties":false,"properties":{"l":{"items":[{"type":"string"}],"additionalItems":` + openObj + `}}}`, "#/properties/l/additionalItems"},
		{"dependencies declare objects", `{` + d7 + `"dependencies":{"a":` + openObj + `,"b":["a"]}}`, "#"},
		{"items one schema", `{` + d7 + `"type":"object","additionalProperties":false,"properties":{"l":{"items":` + openObj + `}}}`, "#/properties/l/items"},
		{"dependencies walked", `{` + d7 + `"type":"object","additionalProperties":false,"properties":{"a":{}},"dependencies":{"a":{"properties":{"n":` + openObj + `}},"b":["a"]}}`, "#/dependencies/a/properties/n"},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			if got := openDisplayed(t, c.doc, nil); got != c.want {
				t.Errorf("open at %q, want %q", got, c.want)
			}
		})
	}
}

// TestOpenRecursiveRef: draft 2019-09's $recursiveRef is followed like
// $dynamicRef.
func TestOpenRecursiveRef(t *testing.T) {
	doc := `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","additionalProperties":false,` +
		`"properties":{"x":{"$recursiveRef":"#/$defs/o"}},"$defs":{"o":{"type":"object"}}}`
	if got, want := openDisplayed(t, doc, nil), "#/$defs/o"; got != want {
		t.Errorf("open at %q, want %q", got, want)
	}
}

// TestOpenAcrossResources: a referenced schema file's location names its URL.
func TestOpenAcrossResources(t *testing.T) {
	const frag = "https://open.invalid/frag.json"
	doc := `{"type":"object","allOf":[{"$ref":"frag.json"}],"properties":{"x":{"$ref":"frag.json#/$defs/o"}},"unevaluatedProperties":false}`
	extra := map[string]string{frag: `{"type":"object","properties":{"p":{}},"$defs":{"o":{"type":"object"}}}`}
	if got, want := openDisplayed(t, doc, extra), frag+"#/$defs/o"; got != want {
		t.Errorf("open at %q, want %q", got, want)
	}
}

func TestDisplayLocation(t *testing.T) {
	long := strings.Repeat("k", 40)
	doc := closedTop(`{"a/b~c":{"type":"object"},"\u0007\"q":{"type":"object"},"` + long + `":{"type":"object"}}`)
	got := openDisplayed(t, doc, nil)
	for _, want := range []string{
		`#/properties/a~1b~0c`,              // RFC 6901 escaping survives the URL round trip
		`#/properties/\u0007\"q`,            // display-escaped
		`#/properties/` + long[:32] + `...`, // cut at charge.KeyCut
	} {
		if !strings.Contains(got, want) {
			t.Errorf("%q: want %q in it", got, want)
		}
	}
	for _, c := range []struct {
		name string
		n    int
		cut  bool
	}{{"url at the cut", openURLCut, false}, {"url past the cut", openURLCut + 1, true}} {
		t.Run(caseName(c.name), func(t *testing.T) {
			base := "https://x.invalid/" + strings.Repeat("u", c.n-len("https://x.invalid/"))
			got := displayLocation(base+"#/a", "https://own.invalid/t.json")
			want := base + "#/a"
			if c.cut {
				want = base[:openURLCut] + "...#/a"
			}
			if got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

// openTools compiles each doc as a tool named by its key, as the tools source
// does.
func openTools(t *testing.T, docs map[string]string) map[string]*tool {
	t.Helper()
	out := map[string]*tool{}
	for name, doc := range docs {
		out[name] = &tool{name: name, schema: compileOpen(t, doc, nil)}
	}
	return out
}

func TestOpenError(t *testing.T) {
	const openObj = `{"type":"object"}`
	props := func(n int) string {
		var b strings.Builder
		b.WriteString(`{`)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"p` + string(rune('a'+i)) + `":` + openObj)
		}
		b.WriteString(`}`)
		return closedTop(b.String())
	}
	t.Run("none open", func(t *testing.T) {
		if err := openError(openTools(t, map[string]string{"c": closedTop(`{}`)}), nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("kept open", func(t *testing.T) {
		tools := openTools(t, map[string]string{"o": openObj, "c": closedTop(`{}`)})
		if err := openError(tools, map[string]bool{"o": true}); err != nil {
			t.Fatal(err)
		}
		err := openError(tools, map[string]bool{"c": true})
		if err == nil || !strings.Contains(err.Error(), `1 tool has an open input schema`) || !strings.Contains(err.Error(), `"o" at #`) {
			t.Fatalf("%v", err)
		}
	})
	t.Run("every_tool_named_sorted_schema_never_quoted", func(t *testing.T) {
		secret := `{"type":"object","description":"SECRET-DESCRIPTION","properties":{"q":{"pattern":"SECRET-PATTERN"}}}`
		err := openError(openTools(t, map[string]string{"zeta": secret, "alpha": openObj, "mid": closedTop(`{}`)}), nil)
		if err == nil {
			t.Fatal("admitted")
		}
		msg := err.Error()
		if !strings.Contains(msg, `2 tools have`) || !strings.Contains(msg, `"alpha" at #; "zeta" at #`) || strings.Contains(msg, `"mid"`) {
			t.Errorf("%s", msg)
		}
		if strings.Contains(msg, "SECRET") || strings.Contains(msg, `"type"`) {
			t.Errorf("quotes the schema: %s", msg)
		}
		if !strings.Contains(msg, "Options.OpenTools") || !strings.Contains(msg, `"additionalProperties": false`) {
			t.Errorf("does not say what to do: %s", msg)
		}
	})
	for _, c := range []struct {
		name string
		n    int
		more string
	}{
		{"pointers at the cap", openPointersShown, ""},
		{"pointers past the cap", openPointersShown + 1, " and 1 more"},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			err := openError(openTools(t, map[string]string{"t": props(c.n)}), nil)
			if err == nil {
				t.Fatal("admitted")
			}
			msg := err.Error()
			last := "#/properties/p" + string(rune('a'+openPointersShown-1))
			if !strings.HasSuffix(msg, last+c.more) {
				t.Errorf("want it to end %q: %s", last+c.more, msg)
			}
			if strings.Count(msg, "#/properties/") != openPointersShown {
				t.Errorf("want %d pointers: %s", openPointersShown, msg)
			}
		})
	}
	for _, c := range []struct {
		name string
		n    int
		want string
	}{
		{"name at the cut", toolCut, strings.Repeat("n", toolCut) + `"`},
		{"name past the cut", toolCut + 1, strings.Repeat("n", toolCut) + `..."`},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			err := openError(openTools(t, map[string]string{strings.Repeat("n", c.n): openObj}), nil)
			if err == nil || !strings.Contains(err.Error(), `"`+c.want+` at #`) {
				t.Errorf("want %q in %v", c.want, err)
			}
		})
	}
	t.Run("name escaped", func(t *testing.T) {
		err := openError(openTools(t, map[string]string{"a\n\"b": openObj}), nil)
		if err == nil || !strings.Contains(err.Error(), `"a\u000a\"b" at #`) {
			t.Errorf("%v", err)
		}
	})
}

// TestOpenTypedShapes pins what the go-sdk infers for typed tools (the shapes
// are jsonschema-go's, written out so this test needs no server): a struct is
// closed, map[string]T is a declared map, map[string]any is open.
func TestOpenTypedShapes(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"struct", `{"type":"object","properties":{"in":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false},"x":true},"additionalProperties":false}`, ""},
		{"map[string]int", `{"type":"object","additionalProperties":{"type":"integer"}}`, ""},
		{"map[string]any", `{"type":"object","additionalProperties":true}`, "#"},
		{"map[string]struct", `{"type":"object","additionalProperties":{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false}}`, ""},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			if got := openDisplayed(t, c.doc, nil); got != c.want {
				t.Errorf("open at %q, want %q", got, c.want)
			}
		})
	}
}

// openAnnotations are the compiled Schema's fields that assert nothing:
// admitsAnything must ignore them and heed every other field.
var openAnnotations = map[string]bool{
	"DraftVersion": true, "Location": true, "Bool": true, "ID": true, "Anchor": true,
	"RecursiveAnchor": true, "DynamicAnchor": true, "Title": true, "Description": true,
	"Default": true, "Comment": true, "ReadOnly": true, "WriteOnly": true, "Examples": true,
	"Deprecated": true,
}

// TestAdmitsAnything sets each exported field of jsonschema/v6's compiled
// Schema alone: an annotation leaves a schema that admits anything, anything
// else constrains. A field a later jsonschema/v6 adds fails this test until
// admitsAnything (and the walk) learn it.
func TestAdmitsAnything(t *testing.T) {
	if !admitsAnything(&jsonschema.Schema{}) {
		t.Error("the empty schema constrains")
	}
	yes, no := true, false
	if !admitsAnything(&jsonschema.Schema{Bool: &yes}) || admitsAnything(&jsonschema.Schema{Bool: &no}) {
		t.Error("boolean schemas")
	}
	typ := reflect.TypeFor[jsonschema.Schema]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() || f.Name == "Bool" {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			var s jsonschema.Schema
			setNonZero(t, reflect.ValueOf(&s).Elem().Field(i))
			if got, want := admitsAnything(&s), openAnnotations[f.Name]; got != want {
				t.Errorf("admitsAnything with only %s set: %v, want %v", f.Name, got, want)
			}
		})
	}
}

func setNonZero(t *testing.T, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int:
		v.SetInt(1)
	case reflect.Interface:
		for _, x := range []any{regexp.MustCompile("x"), &jsonschema.Schema{}} {
			if reflect.TypeOf(x).Implements(v.Type()) {
				v.Set(reflect.ValueOf(x))
				return
			}
		}
		t.Fatalf("no value for %v", v.Type())
	default:
		t.Fatalf("kind %v", v.Kind())
	}
}

// TestDeclaresObject: each object keyword alone, untyped, makes a schema an
// object schema; a schema of other keywords is not one.
func TestDeclaresObject(t *testing.T) {
	for _, c := range []struct {
		kw   string
		want string
	}{
		{`"properties":{}`, "#/properties/x"},
		{`"patternProperties":{"^a":{}}`, "#/properties/x"},
		{`"required":["a"]`, "#/properties/x"},
		{`"propertyNames":{"maxLength":3}`, "#/properties/x"},
		{`"minProperties":1`, "#/properties/x"},
		{`"maxProperties":2`, "#/properties/x"},
		{`"additionalProperties":true`, "#/properties/x"},
		{`"unevaluatedProperties":true`, "#/properties/x"},
		{`"dependentRequired":{"a":["b"]}`, "#/properties/x"},
		{`"dependentSchemas":{"a":{}}`, "#/properties/x"},
		{`"type":["object","string"]`, "#/properties/x"},
		{`"minLength":1,"items":{},"minimum":0`, ""},
	} {
		t.Run(caseName(c.kw), func(t *testing.T) {
			if got := openDisplayed(t, closedTop(`{"x":{`+c.kw+`}}`), nil); got != c.want {
				t.Errorf("open at %q, want %q", got, c.want)
			}
		})
	}
}

// sdkSession connects a go-sdk client to srv over the in-memory transports.
func sdkSession(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// openSearch is a raw schema open at the top and in its filter member;
// closedSearch is the same contract closed at both.
const (
	openSearch   = `{"type":"object","properties":{"q":{"type":"string"},"filter":{"type":"object","properties":{"lang":{"type":"string"}}}},"required":["q"]}`
	closedSearch = `{"type":"object","properties":{"q":{"type":"string"},"filter":{"type":"object","properties":{"lang":{"type":"string"}},"additionalProperties":false}},"required":["q"],"additionalProperties":false}`
)

// An open schema fails Install through the go-sdk unless the tool is named in
// OpenTools; then, and only then, an unknown member reaches the handler. A
// closed one refuses unknown members at every level, the handler never
// running.
func TestOpenInstallGoSDK(t *testing.T) {
	ctx := context.Background()
	server := func(schema string, ran *int, saw *map[string]any) *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
		srv.AddTool(&mcp.Tool{Name: "search", InputSchema: json.RawMessage(schema)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			*ran++
			*saw = nil
			_ = json.Unmarshal(req.Params.Arguments, saw)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
		srv.AddTool(&mcp.Tool{Name: "closed", InputSchema: json.RawMessage(closedSearch)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			*ran++
			return &mcp.CallToolResult{}, nil
		})
		return srv
	}
	call := func(cs *mcp.ClientSession, tool, args string) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: rawArgs(args)})
		if err != nil {
			t.Fatalf("%s %s: %v", tool, args, err)
		}
		return res
	}
	t.Run("refused to install", func(t *testing.T) {
		var ran int
		var saw map[string]any
		v, err := Install(server(openSearch, &ran, &saw), nil)
		if err == nil || v != nil {
			t.Fatalf("Install over an open tool: %v, %v", v, err)
		}
		if msg := err.Error(); !strings.Contains(msg, `"search" at #, #/properties/filter`) || strings.Contains(msg, `"closed"`) {
			t.Errorf("%s", msg)
		}
	})
	t.Run("OpenTools names a tool with no schema", func(t *testing.T) {
		var ran int
		var saw map[string]any
		_, err := Install(server(openSearch, &ran, &saw), &Options{OpenTools: []string{"search", "serach"}})
		if err == nil || !strings.Contains(err.Error(), `names 1 tool with no published input schema: "serach"`) {
			t.Fatalf("%v", err)
		}
	})
	t.Run("opted open", func(t *testing.T) {
		var ran int
		var saw map[string]any
		srv := server(openSearch, &ran, &saw)
		if _, err := Install(srv, &Options{OpenTools: []string{"search"}}); err != nil {
			t.Fatal(err)
		}
		cs := sdkSession(t, srv)
		for _, args := range []string{`{"q":"a","extra":1}`, `{"q":"a","filter":{"lang":"en","extra":1}}`} {
			if res := call(cs, "search", args); res.IsError {
				t.Errorf("%s refused: %v", args, res.Content)
			}
		}
		if ran != 2 || saw["filter"].(map[string]any)["extra"] == nil {
			t.Errorf("handler ran %d times, last saw %v: the unknown member did not reach it", ran, saw)
		}
		// Still validated for everything the schema does say.
		if res := call(cs, "search", `{"q":5,"extra":1}`); !res.IsError || ran != 2 {
			t.Errorf("a wrong type: isError %v, handler ran %d times", res.IsError, ran)
		}
		// The other tools stay closed.
		if res := call(cs, "closed", `{"q":"a","extra":1}`); !res.IsError || ran != 2 {
			t.Errorf("closed: isError %v, handler ran %d times", res.IsError, ran)
		}
		// What tools/list publishes is the schema as registered: nothing is
		// rewritten, so the contract says open where the validator admits.
		for tl, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(tl.InputSchema)
			want := map[string]string{"search": openSearch, "closed": closedSearch}[tl.Name]
			if !jsonEqual(t, got, want) {
				t.Errorf("%s published %s, want %s", tl.Name, got, want)
			}
		}
	})
	t.Run("closed", func(t *testing.T) {
		var ran int
		var saw map[string]any
		srv := server(closedSearch, &ran, &saw)
		if _, err := Install(srv, nil); err != nil {
			t.Fatal(err)
		}
		cs := sdkSession(t, srv)
		for _, c := range []struct{ args, at string }{
			{`{"q":"a","extra":1}`, `at "/extra": additionalProperties false`},
			{`{"q":"a","filter":{"lang":"en","extra":1}}`, `at "/filter/extra": additionalProperties false`},
		} {
			res := call(cs, "search", c.args)
			text := res.Content[0].(*mcp.TextContent).Text
			if !res.IsError || !strings.Contains(text, c.at) {
				t.Errorf("%s: isError %v, %q", c.args, res.IsError, text)
			}
		}
		if ran != 0 {
			t.Fatalf("the handler ran %d times on refused calls", ran)
		}
		if res := call(cs, "search", `{"q":"a","filter":{"lang":"en"}}`); res.IsError || ran != 1 {
			t.Errorf("an admitted call: isError %v, handler ran %d times", res.IsError, ran)
		}
	})
}

func jsonEqual(t *testing.T, a []byte, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// A typed tool's In is its Go type's truth: a struct (additionalProperties
// false, inferred) and a map of a constrained value (every member checked
// against it and decoded into the map) install as they are; map[string]any
// admits members nothing checks, so it needs OpenTools like any open schema.
func TestOpenTypedMaps(t *testing.T) {
	ctx := context.Background()
	type handled struct {
		ran int
		got any
	}
	intMap := func(h *handled) *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "counts"}, func(_ context.Context, _ *mcp.CallToolRequest, in map[string]int) (*mcp.CallToolResult, any, error) {
			h.ran++
			h.got = in
			return &mcp.CallToolResult{}, nil, nil
		})
		return srv
	}
	anyMap := func(h *handled) *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "bag"}, func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
			h.ran++
			h.got = in
			return &mcp.CallToolResult{}, nil, nil
		})
		return srv
	}
	t.Run("map_string_int_installs_closed", func(t *testing.T) {
		var h handled
		srv := intMap(&h)
		if _, err := Install(srv, nil); err != nil {
			t.Fatal(err)
		}
		cs := sdkSession(t, srv)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "counts", Arguments: rawArgs(`{"a":1,"b":2}`)})
		if err != nil || res.IsError || h.ran != 1 || !reflect.DeepEqual(h.got, map[string]int{"a": 1, "b": 2}) {
			t.Fatalf("err %v, result %+v, ran %d, got %v", err, res, h.ran, h.got)
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "counts", Arguments: rawArgs(`{"a":1,"b":"two"}`)})
		if err != nil || !res.IsError || h.ran != 1 {
			t.Fatalf("a member of the wrong type: err %v, isError %v, ran %d", err, res != nil && res.IsError, h.ran)
		}
	})
	t.Run("map_string_any_refused_to_install", func(t *testing.T) {
		var h handled
		if _, err := Install(anyMap(&h), nil); err == nil || !strings.Contains(err.Error(), `"bag" at #`) {
			t.Fatalf("%v", err)
		}
	})
	t.Run("map_string_any_opted_open", func(t *testing.T) {
		var h handled
		srv := anyMap(&h)
		if _, err := Install(srv, &Options{OpenTools: []string{"bag"}}); err != nil {
			t.Fatal(err)
		}
		cs := sdkSession(t, srv)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bag", Arguments: rawArgs(`{"anything":{"x":1}}`)})
		if err != nil || res.IsError || h.ran != 1 {
			t.Fatalf("err %v, result %+v, ran %d", err, res, h.ran)
		}
	})
}

// Schema files: the top level must already be closed with
// unevaluatedProperties (parseSchemaFile); an open object nested in one, or in
// a fragment it references as a member's schema, fails New the same way. A
// fragment composed in place (allOf) is closed by the tool's own
// unevaluatedProperties.
func TestOpenSchemaFiles(t *testing.T) {
	const head = `"$schema":"https://json-schema.org/draft/2020-12/schema",`
	files := fstest.MapFS{
		"s/ctx.schema.json": {Data: []byte(`{` + head + `"$id":"https://open.invalid/s/ctx.schema.json","type":"object","properties":{"projectId":{"type":"string"}}}`)},
		"s/a.schema.json": {Data: []byte(`{` + head + `"$id":"https://open.invalid/s/a.schema.json","x-mcp-tool":"a","type":"object",` +
			`"allOf":[{"$ref":"ctx.schema.json"}],"properties":{"q":{"type":"string"}},"unevaluatedProperties":false}`)},
		"s/b.schema.json": {Data: []byte(`{` + head + `"$id":"https://open.invalid/s/b.schema.json","x-mcp-tool":"b","type":"object",` +
			`"properties":{"filter":{"type":"object"},"ctx":{"$ref":"ctx.schema.json"}},"unevaluatedProperties":false}`)},
	}
	_, err := New(SchemaFiles(files, "s"), nil)
	if err == nil || !strings.Contains(err.Error(), `"b" at #/properties/filter, https://open.invalid/s/ctx.schema.json#`) || strings.Contains(err.Error(), `"a"`) {
		t.Fatalf("%v", err)
	}
	v, err := New(SchemaFiles(files, "s"), &Options{OpenTools: []string{"b"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Check(context.Background(), "b", []byte(`{"filter":{"any":1}}`)); err != nil {
		t.Errorf("kept open: %v", err)
	}
}
