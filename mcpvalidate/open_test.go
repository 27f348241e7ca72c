package mcpvalidate

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

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
		{"then open under untyped", `{"if":{"type":"string"},"then":{"minLength":1},"else":` + openObj + `}`, "#/else"},
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
		t.Run(c.name, func(t *testing.T) {
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
		t.Run(c.name, func(t *testing.T) {
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
		t.Run(c.name, func(t *testing.T) {
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
	t.Run("every tool named, sorted, schema never quoted", func(t *testing.T) {
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
		t.Run(c.name, func(t *testing.T) {
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
		{"name at the cut", ToolCut, strings.Repeat("n", ToolCut) + `"`},
		{"name past the cut", ToolCut + 1, strings.Repeat("n", ToolCut) + `..."`},
	} {
		t.Run(c.name, func(t *testing.T) {
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
		t.Run(c.name, func(t *testing.T) {
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
		t.Run(c.kw, func(t *testing.T) {
			if got := openDisplayed(t, closedTop(`{"x":{`+c.kw+`}}`), nil); got != c.want {
				t.Errorf("open at %q, want %q", got, c.want)
			}
		})
	}
}
