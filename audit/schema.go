package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// schemaDoc is one tool's input schema, decoded (numbers kept as written),
// with what a $ref inside it can reach: JSON pointers from the root, and
// resources under $defs by their $id.
type schemaDoc struct {
	root map[string]any
	byID map[string]map[string]any
}

// maxRefHops bounds how many $refs one walk follows.
const maxRefHops = 16

func parseSchema(raw json.RawMessage) (*schemaDoc, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("the input schema is not JSON")
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the input schema is not an object")
	}
	doc := &schemaDoc{root: root, byID: map[string]map[string]any{}}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := root[key].(map[string]any); ok {
			for _, d := range defs {
				if m, ok := d.(map[string]any); ok {
					if id, ok := m["$id"].(string); ok {
						doc.byID[id] = m
					}
				}
			}
		}
	}
	return doc, nil
}

// resolve follows ref from base: a pointer into the root ("#/..."), or an
// $id under $defs. ok is false when it leaves the document.
func (d *schemaDoc) resolve(base, ref string) (map[string]any, string, bool) {
	if strings.HasPrefix(ref, "#") {
		m, ok := pointer(d.root, ref[1:])
		return m, base, ok
	}
	bu, err := url.Parse(base)
	if err != nil {
		return nil, "", false
	}
	u, err := bu.Parse(ref)
	if err != nil {
		return nil, "", false
	}
	frag := u.Fragment
	u.Fragment = ""
	m, ok := d.byID[u.String()]
	if !ok {
		return nil, "", false
	}
	if frag != "" {
		m, ok = pointer(m, frag)
	}
	return m, u.String(), ok
}

func pointer(m map[string]any, p string) (map[string]any, bool) {
	if p == "" {
		return m, true
	}
	var cur any = m
	for _, tok := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	out, ok := cur.(map[string]any)
	return out, ok
}

// prop is one member the arguments object may hold.
type prop struct {
	name     string
	schema   map[string]any
	required bool
}

// rootProps flattens the root object's properties and required names,
// allOf branches and $refs merged in.
func (d *schemaDoc) rootProps() []prop {
	byName := map[string]map[string]any{}
	req := map[string]bool{}
	visits := 0
	var walk func(base string, m map[string]any, hops int)
	walk = func(base string, m map[string]any, hops int) {
		visits++ // allOf branches fan out: bound the whole walk, not one chain
		if m == nil || hops > maxRefHops || visits > maxWalkNodes {
			return
		}
		if id, ok := m["$id"].(string); ok {
			base = id
		}
		if ps, ok := m["properties"].(map[string]any); ok {
			for k, p := range ps {
				pm, _ := p.(map[string]any)
				if pm == nil {
					pm = map[string]any{}
				}
				if _, seen := byName[k]; !seen {
					byName[k] = d.deref(base, pm)
				}
			}
		}
		if rs, ok := m["required"].([]any); ok {
			for _, r := range rs {
				if s, ok := r.(string); ok {
					req[s] = true
				}
			}
		}
		if all, ok := m["allOf"].([]any); ok {
			for _, b := range all {
				bm, _ := b.(map[string]any)
				walk(base, bm, hops+1)
			}
		}
		if ref, ok := m["$ref"].(string); ok {
			if t, nb, ok := d.resolve(base, ref); ok {
				walk(nb, t, hops+1)
			}
		}
	}
	walk("", d.root, 0)
	names := make([]string, 0, len(byName))
	for k := range byName {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]prop, 0, len(names))
	for _, k := range names {
		out = append(out, prop{name: k, schema: byName[k], required: req[k]})
	}
	for k := range req { // required but never declared
		if _, ok := byName[k]; !ok {
			out = append(out, prop{name: k, schema: map[string]any{}, required: true})
		}
	}
	return out
}

// deref follows a property's own $ref chain to the schema that holds its
// keywords (the first with a type, enum or const).
func (d *schemaDoc) deref(base string, m map[string]any) map[string]any {
	for range maxRefHops {
		ref, ok := m["$ref"].(string)
		if !ok || m["type"] != nil || m["enum"] != nil || m["const"] != nil {
			return m
		}
		t, nb, ok := d.resolve(base, ref)
		if !ok {
			return m
		}
		m, base = t, nb
	}
	return m
}

// types is a schema's "type" as a list.
func types(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func hasType(m map[string]any, t string) bool { return slices.Contains(types(m), t) }

func num(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// validValue builds a value p's schema most likely admits: its const, first
// enum member, default or example, else a minimal value of its first type
// (strings carry the canary). depth bounds the recursion into objects.
func validValue(p map[string]any, canary string, depth int) string {
	for _, k := range []string{"const", "default"} {
		if v, ok := p[k]; ok {
			return marshal(v)
		}
	}
	for _, k := range []string{"enum", "examples"} {
		if vs, ok := p[k].([]any); ok && len(vs) > 0 {
			return marshal(vs[0])
		}
	}
	t := "string"
	if ts := types(p); len(ts) > 0 {
		t = ts[0]
	}
	switch t {
	case "integer", "number":
		n := 1.0
		if lo, ok := num(p["minimum"]); ok && lo > n {
			n = lo
		}
		if hi, ok := num(p["maximum"]); ok && hi < n {
			n = hi
		}
		return strconv.FormatFloat(n, 'f', -1, 64)
	case "boolean":
		return "true"
	case "null":
		return "null"
	case "array":
		return "[]"
	case "object":
		if depth <= 0 {
			return "{}"
		}
		var ms []member
		for _, q := range (&schemaDoc{root: p}).rootProps() {
			if q.required {
				ms = append(ms, member{q.name, validValue(q.schema, canary, depth-1)})
			}
		}
		return object(ms)
	}
	s := canary
	if lo, ok := num(p["minLength"]); ok && int(lo) > len(s) && lo < 1<<16 {
		s += strings.Repeat("a", int(lo)-len(s))
	}
	if hi, ok := num(p["maxLength"]); ok && int(hi) < len(s) && hi >= 0 {
		s = s[:int(hi)]
	}
	return marshal(s)
}

// mismatchValue is a value of the wrong JSON type for p that holds mark:
// an object where a string or an array is wanted, else the string.
func mismatchValue(p map[string]any, mark string) string {
	if hasType(p, "string") || hasType(p, "array") {
		return marshal(map[string]string{"v": mark})
	}
	return marshal(mark)
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

// member is one arguments member, its value as raw JSON.
type member struct{ k, v string }

func object(ms []member) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(marshal(m.k))
		b.WriteByte(':')
		b.WriteString(m.v)
	}
	b.WriteByte('}')
	return b.String()
}

// with is ms with k set to v (replaced in place, or appended).
func with(ms []member, k, v string) []member {
	out := slices.Clone(ms)
	for i := range out {
		if out[i].k == k {
			out[i].v = v
			return out
		}
	}
	return append(out, member{k, v})
}
