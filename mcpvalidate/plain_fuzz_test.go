package mcpvalidate

// FuzzPlainAgreesWithJSONSchema and everything it needs live in this one
// file: the OSS-Fuzz builder compiles the file holding a target alone, as
// package code.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzPlainAgreesWithJSONSchema: the fuzzer's bytes choose a schema from
// the keywords a plain schema is made of (now and then one it is not), and
// arguments shaped by that schema, valid more often than not, with escaped
// names and strings, fractions, exponents and long integers among them.
// Check with the plain pass must answer every call exactly as Check without
// it (decode, then jsonschema/v6): the pass only ever admits what
// jsonschema/v6 admits, and the refusals are the same text.
func FuzzPlainAgreesWithJSONSchema(f *testing.F) {
	for _, seed := range [][]byte{
		{}, {1, 2, 3}, {6, 1, 0, 0, 2, 5, 1, 3, 0, 4}, []byte("deeplink dashboard boundlab"),
		{6, 3, 1, 1, 9, 9, 9, 0, 0, 7, 200, 3, 1}, {3, 2, 2, 7, 1, 1, 1, 1, 0, 5},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &plainGen{b: data}
		schema := g.schema(0)
		doc, err := json.Marshal(schema)
		if err != nil {
			t.Fatal(err)
		}
		v, err := New(Tools(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(doc)}), &Options{OpenTools: []string{"t"}})
		if err != nil {
			return // not a schema jsonschema/v6 compiles (New refuses it either way)
		}
		tl := v.tools["t"]
		if tl.plain == nil && g.plainOnly {
			t.Fatalf("a schema of plain keywords only is not plain: %s", doc)
		}
		if tl.plain != nil && !g.plainOnly {
			t.Fatalf("a schema with a keyword the pass does not read is plain: %s", doc)
		}
		var args strings.Builder
		g.value(&args, schema, 0)
		a := []byte(args.String())
		withPlain := v.check("t", a)
		plain := tl.plain
		tl.plain = nil
		without := v.check("t", a)
		tl.plain = plain
		switch {
		case (withPlain == nil) != (without == nil):
			t.Fatalf("schema %s, arguments %s: with the plain pass %v, without %v", doc, a, withPlain.public(), without.public())
		case withPlain != nil && withPlain.public().Error() != without.public().Error():
			t.Fatalf("schema %s, arguments %s: refusals differ:\n%s\n%s", doc, a, withPlain.public(), without.public())
		}
	})
}

// plainGen turns the fuzzer's bytes into a schema and arguments; past the
// end of the bytes every choice is the first.
type plainGen struct {
	b         []byte
	i         int
	plainOnly bool
	started   bool
}

func (g *plainGen) pick(n int) int {
	if g.i >= len(g.b) || n <= 1 {
		return 0
	}
	c := int(g.b[g.i]) % n
	g.i++
	return c
}

var (
	plainGenNames   = []string{"a", "b", "resourceType", "dashboardUid", "é", "k l", "c", "d", "e", "f", "g", "h", "i"}
	plainGenStrings = []string{"", "a", "ab", "abc", "dashboard", "é", "éé", "日本語", `\u0061`, `a\"b`, `\n`, "panel", "👍🏽"}
	plainGenNumbers = []string{"0", "-0", "1", "-1", "2", "3", "-3", "1.0", "1e2", "2.5", "-2.5", "0.5",
		"123456789012345678", "-123456789012345678", "1234567890123456789", "9223372036854775807", "1E-2", "10"}
	plainGenBounds = []any{json.Number("0"), json.Number("1"), json.Number("-2.5"), json.Number("2.5"), json.Number("3"),
		json.Number("-3"), json.Number("1e19"), json.Number("-1e19"), json.Number("123456789012345678"), json.Number("0.5")}
	plainGenTypes = []string{"object", "string", "integer", "number", "boolean", "null", "array"}
)

// schema is a schema map; g.plainOnly says whether it holds only plain
// keywords (a non-plain one is added now and then).
func (g *plainGen) schema(depth int) map[string]any {
	if !g.started {
		g.started, g.plainOnly = true, true
	}
	s := map[string]any{}
	typ := plainGenTypes[0]
	if depth > 0 {
		typ = plainGenTypes[g.pick(len(plainGenTypes))]
	}
	switch g.pick(4) {
	case 0, 1:
		s["type"] = typ
	case 2:
		s["type"] = []any{typ, plainGenTypes[g.pick(len(plainGenTypes))]}
	case 3:
		if depth > 0 { // at the top an untyped schema stays an object one
			typ = ""
		} else {
			s["type"] = typ
		}
	}
	if g.pick(3) == 0 {
		s["description"] = "annotations are read by nothing"
		s["default"] = "x"
	}
	switch typ {
	case "object", "":
		if depth < 3 {
			props := map[string]any{}
			for n := g.pick(5); n > 0; n-- {
				if n := plainGenNames[g.pick(len(plainGenNames))]; props[n] == nil {
					props[n] = g.schema(depth + 1) // not over one before: it may hold the non-plain keyword
				}
			}
			if len(props) > 0 || g.pick(2) == 0 {
				s["properties"] = props
			}
		}
		var req []any
		for n := g.pick(4); n > 0; n-- {
			req = append(req, plainGenNames[g.pick(len(plainGenNames))])
		}
		if len(req) > 0 {
			seen := map[any]bool{}
			var uniq []any
			for _, r := range req {
				if !seen[r] {
					seen[r] = true
					uniq = append(uniq, r)
				}
			}
			s["required"] = uniq
		}
		switch g.pick(4) {
		case 1:
			s["additionalProperties"] = false
		case 2:
			s["additionalProperties"] = true
		case 3:
			if depth < 3 {
				s["additionalProperties"] = g.schema(depth + 1)
			}
		}
	case "string":
		switch g.pick(4) {
		case 1:
			var enum []any
			for n := 1 + g.pick(3); n > 0; n-- {
				enum = append(enum, strings.ReplaceAll(strings.ReplaceAll(plainGenStrings[g.pick(len(plainGenStrings))], `\u0061`, "a"), `\"`, `"`))
			}
			s["enum"] = enum
		case 2:
			s["minLength"] = g.pick(4)
		case 3:
			s["maxLength"] = g.pick(4)
		}
	case "integer", "number":
		for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if g.pick(3) == 0 {
				s[kw] = plainGenBounds[g.pick(len(plainGenBounds))]
			}
		}
	case "array":
		if depth < 3 && g.pick(2) == 0 {
			s["items"] = g.schema(depth + 1)
		}
	}
	if g.pick(12) == 0 {
		g.plainOnly = false
		switch g.pick(5) {
		case 0:
			s["pattern"] = "^a"
		case 1:
			s["const"] = "a"
		case 2:
			s["minItems"] = 1
		case 3:
			s["enum"] = []any{"a", 1}
		case 4:
			s["anyOf"] = []any{map[string]any{"type": "string"}, map[string]any{"type": "object"}}
		}
	}
	return s
}

// value writes arguments for s: of a type s allows most of the time, its
// members mostly the ones s names.
func (g *plainGen) value(w *strings.Builder, s map[string]any, depth int) {
	space := func() {
		if g.pick(6) == 0 {
			w.WriteString(" \n\t"[:1+g.pick(3)])
		}
	}
	space()
	defer space()
	typ := "object"
	switch t := s["type"].(type) {
	case string:
		typ = t
	case []any:
		typ = t[g.pick(len(t))].(string)
	}
	if g.pick(8) == 0 || depth > 4 {
		typ = plainGenTypes[g.pick(len(plainGenTypes))]
		if depth > 4 && (typ == "object" || typ == "array") {
			typ = "null"
		}
	}
	switch typ {
	case "object":
		props, _ := s["properties"].(map[string]any)
		var names []string
		for _, r := range asSlice(s["required"]) {
			names = append(names, r.(string))
		}
		for n := range props {
			if g.pick(2) == 0 {
				names = append(names, n)
			}
		}
		if g.pick(4) == 0 {
			names = append(names, plainGenNames[g.pick(len(plainGenNames))])
		}
		w.WriteByte('{')
		seen := map[string]bool{}
		first := true
		for _, n := range names {
			if seen[n] {
				continue
			}
			seen[n] = true
			if !first {
				w.WriteByte(',')
			}
			first = false
			if n == "a" && g.pick(4) == 0 {
				w.WriteString(`"\u0061"`)
			} else {
				b, _ := json.Marshal(n)
				w.Write(b)
			}
			w.WriteByte(':')
			sub, _ := props[n].(map[string]any)
			if sub == nil {
				sub, _ = s["additionalProperties"].(map[string]any)
			}
			g.value(w, sub, depth+1)
		}
		w.WriteByte('}')
	case "array":
		items, _ := s["items"].(map[string]any)
		w.WriteByte('[')
		for i, n := 0, g.pick(4); i < n; i++ {
			if i > 0 {
				w.WriteByte(',')
			}
			g.value(w, items, depth+1)
		}
		w.WriteByte(']')
	case "string":
		if enum := asSlice(s["enum"]); len(enum) > 0 && g.pick(3) != 0 {
			b, _ := json.Marshal(enum[g.pick(len(enum))])
			w.Write(b)
			return
		}
		w.WriteString(`"` + plainGenStrings[g.pick(len(plainGenStrings))] + `"`)
	case "integer", "number":
		w.WriteString(plainGenNumbers[g.pick(len(plainGenNumbers))])
	case "boolean":
		w.WriteString([]string{"true", "false"}[g.pick(2)])
	default:
		w.WriteString("null")
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}
