package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// valueGen builds values that satisfy one tool's input schema. It proposes
// candidates from the keywords it reads (a pattern's syntax tree, a format,
// bounds, enum, the members an object requires, the branches of anyOf,
// oneOf and if/then/else) and keeps only those jsonschema/v6 admits, at
// every schema location the value must satisfy and then as a whole: a value
// it returns is valid by the validator, never by its own reading. When no
// candidate passes, it names the keyword the validator refused the best
// one for.
type valueGen struct {
	c        *jsonschema.Compiler
	root     any
	rootURL  string
	canary   string
	compiled map[string]*jsonschema.Schema
	steps    int // candidates checked so far, bounded by genSteps
	whole    *jsonschema.Schema
}

// genRootURL names a schema that has no $id: the compiler needs a location,
// and nothing is ever loaded from it.
const genRootURL = "mem:///input.schema.json"

// Bounds on the work one schema may cost: the candidates checked, the
// schema locations one value must satisfy, the branch choices tried, and
// the nesting followed.
const (
	genSteps    = 4096
	genLocs     = 64
	genBranches = 16
	genDepth    = 8
)

// errNoValue is a value that could not be built: keyword names what stopped
// it, where is the schema location.
type errNoValue struct{ keyword, where, detail string }

func (e *errNoValue) Error() string {
	s := "no value satisfies `" + e.keyword + "`"
	if e.where != "" {
		s += " at " + e.where
	}
	if e.detail != "" {
		s += " (" + e.detail + ")"
	}
	return s
}

// StopKeyword is the keyword that stopped a value from being built, "" when
// err is not such a stop.
func StopKeyword(err error) string {
	var e *errNoValue
	if errors.As(err, &e) {
		return e.keyword
	}
	return ""
}

type offlineLoader struct{}

func (offlineLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("the auditor fetches nothing: %s is outside the published schema", u)
}

// newValueGen compiles raw (a tool's inputSchema) with jsonschema/v6,
// formats asserted, nothing loaded from outside it.
func newValueGen(raw json.RawMessage, canary string) (*valueGen, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var root any
	if err := d.Decode(&root); err != nil {
		return nil, errors.New("the input schema is not JSON")
	}
	g := &valueGen{c: jsonschema.NewCompiler(), root: root, rootURL: genRootURL, canary: canary, compiled: map[string]*jsonschema.Schema{}}
	g.c.DefaultDraft(jsonschema.Draft2020)
	g.c.AssertFormat()
	g.c.UseLoader(offlineLoader{})
	if err := g.c.AddResource(g.rootURL, root); err != nil {
		return nil, fmt.Errorf("jsonschema/v6 does not take the schema: %s", errKind(err))
	}
	s, err := g.compile("")
	if err != nil {
		return nil, fmt.Errorf("jsonschema/v6 does not compile the schema: %s", errKind(err))
	}
	g.whole = s
	return g, nil
}

// errKind is a compile error in a few words, without the schema's text.
func errKind(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 160 {
		msg = msg[:160] + "..."
	}
	return msg
}

func (g *valueGen) compile(ptr string) (*jsonschema.Schema, error) {
	if s, ok := g.compiled[ptr]; ok {
		return s, nil
	}
	s, err := g.c.Compile(g.rootURL + "#" + ptr)
	if err != nil {
		return nil, err
	}
	g.compiled[ptr] = s
	return s, nil
}

// loc is one schema location a value must satisfy: its JSON pointer from the
// root (what the validator compiles), the schema there, and the base URI
// its relative $refs resolve against.
type loc struct {
	ptr  string
	s    any
	base string
}

func (l loc) m() map[string]any { m, _ := l.s.(map[string]any); return m }

func (l loc) at(path ...string) loc {
	ptr := l.ptr
	var cur any = l.s
	for _, p := range path {
		ptr += "/" + strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			i, _ := strconv.Atoi(p)
			if i >= 0 && i < len(c) {
				cur = c[i]
			} else {
				cur = nil
			}
		default:
			cur = nil
		}
	}
	return loc{ptr: ptr, s: cur, base: l.base}
}

// Root builds the whole arguments value, as the JSON sent: checked again
// in the form the server reads (decoded from those bytes).
func (g *valueGen) Root() (json.RawMessage, error) {
	g.steps = 0
	v, err := g.gen([]loc{{ptr: "", s: g.root, base: g.rootURL}}, 0, genDepth)
	if err != nil {
		return nil, err
	}
	return g.wire(g.whole, v, "")
}

// wire is v's JSON, once the schema at where admits it read back from
// that JSON.
func (g *valueGen) wire(s *jsonschema.Schema, v any, where string) (json.RawMessage, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, &errNoValue{keyword: "schema", where: where, detail: "the value does not encode"}
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var back any
	if err := d.Decode(&back); err != nil {
		return nil, &errNoValue{keyword: "schema", where: where, detail: "the value does not decode"}
	}
	if err := s.Validate(back); err != nil {
		return nil, g.stop(err, where)
	}
	return raw, nil
}

// Member builds a value (its JSON) for the root object's member name, as
// the root schema's properties (allOf and $ref followed) describe it.
func (g *valueGen) Member(name string) (json.RawMessage, error) {
	g.steps = 0
	pl := g.rootMemberLocs(name)
	if len(pl) == 0 {
		return nil, &errNoValue{keyword: "properties", detail: "the member is not declared"}
	}
	v, err := g.gen(pl, 0, genDepth)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// memberLocs are the locations of the root object's member name.
func (g *valueGen) rootMemberLocs(name string) []loc {
	locs, err := g.expand([]loc{{ptr: "", s: g.root, base: g.rootURL}})
	if err != nil {
		return nil
	}
	var pl []loc
	for _, l := range locs {
		if ps, ok := l.m()["properties"].(map[string]any); ok {
			if _, ok := ps[name]; ok {
				pl = append(pl, l.at("properties", name))
			}
		}
	}
	return pl
}

// admitsMember reports whether every schema of the root's member name
// admits v.
func (g *valueGen) admitsMember(name string, v any) bool {
	pl := g.rootMemberLocs(name)
	if len(pl) == 0 {
		return false
	}
	ok, _ := g.satisfies(pl, v)
	return ok
}

// admits reports whether the whole schema admits the arguments raw.
func (g *valueGen) admits(raw json.RawMessage) bool {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	return d.Decode(&v) == nil && g.whole.Validate(v) == nil
}

// expand adds what every location brings in unconditionally: the targets
// of $ref and the branches of allOf.
func (g *valueGen) expand(in []loc) ([]loc, error) {
	out := []loc{}
	seen := map[string]bool{}
	queue := slices.Clone(in)
	for len(queue) > 0 {
		l := queue[0]
		queue = queue[1:]
		if seen[l.ptr] {
			continue
		}
		seen[l.ptr] = true
		if len(out) == genLocs {
			return nil, &errNoValue{keyword: "allOf", where: l.ptr, detail: fmt.Sprintf("more than %d schemas apply to one value", genLocs)}
		}
		if b, ok := l.s.(bool); ok {
			if !b {
				return nil, &errNoValue{keyword: "false", where: l.ptr, detail: "the schema admits nothing"}
			}
			continue
		}
		m := l.m()
		if m == nil {
			continue
		}
		if id, ok := m["$id"].(string); ok {
			l.base = resolveURL(l.base, id)
		}
		out = append(out, l)
		if ref, ok := m["$ref"].(string); ok {
			t, ok := g.resolve(l.base, ref)
			if !ok {
				return nil, &errNoValue{keyword: "$ref", where: l.ptr, detail: "the reference leaves the published schema"}
			}
			queue = append(queue, t)
		}
		if all, ok := m["allOf"].([]any); ok {
			for i := range all {
				queue = append(queue, l.at("allOf", strconv.Itoa(i)))
			}
		}
	}
	return out, nil
}

// resolve finds a $ref's target inside the root document: a pointer
// ("#/..."), an anchor, or a resource by its $id (with a fragment).
func (g *valueGen) resolve(base, ref string) (loc, bool) {
	abs := resolveURL(base, ref)
	doc, frag, _ := strings.Cut(abs, "#")
	var found *loc
	var walk func(l loc, depth int)
	walk = func(l loc, depth int) {
		if found != nil || depth > 64 {
			return
		}
		switch v := l.s.(type) {
		case map[string]any:
			if id, ok := v["$id"].(string); ok {
				l.base = resolveURL(l.base, id)
			}
			if strings.TrimSuffix(l.base, "#") == doc {
				if frag == "" || strings.HasPrefix(frag, "/") {
					if t, ok := pointerLoc(l, frag); ok {
						found = &t
						return
					}
				} else if a, _ := v["$anchor"].(string); a == frag {
					found = &l
					return
				}
			}
			keys := make([]string, 0, len(v))
			for k := range v {
				if k != "enum" && k != "const" && k != "default" && k != "examples" {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(l.at(k), depth+1)
			}
		case []any:
			for i := range v {
				walk(l.at(strconv.Itoa(i)), depth+1)
			}
		}
	}
	walk(loc{ptr: "", s: g.root, base: g.rootURL}, 0)
	if found == nil {
		return loc{}, false
	}
	return *found, true
}

func pointerLoc(l loc, frag string) (loc, bool) {
	if frag == "" {
		return l, true
	}
	var path []string
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		path = append(path, strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~"))
	}
	t := l.at(path...)
	return t, t.s != nil
}

func resolveURL(base, ref string) string {
	if strings.HasPrefix(ref, "#") {
		b, _, _ := strings.Cut(base, "#")
		return b + ref
	}
	bu, err := url.Parse(base)
	if err != nil {
		return ref
	}
	u, err := bu.Parse(ref)
	if err != nil {
		return ref
	}
	return u.String()
}

// gen builds a value satisfying every location in locs: $ref and allOf
// are followed, then each anyOf, oneOf and if/then/else is settled by
// trying its branches in order, then a leaf's candidates are checked.
// variant asks for a later valid candidate (distinct array items).
func (g *valueGen) gen(in []loc, variant, depth int) (any, error) {
	locs, err := g.expand(in)
	if err != nil {
		return nil, err
	}
	for _, l := range locs {
		m := l.m()
		for _, kw := range []string{"anyOf", "oneOf"} {
			bs, ok := m[kw].([]any)
			if !ok || settled(in, l.ptr+"/"+kw+"/") {
				continue
			}
			var first error
			for i := range min(len(bs), genBranches) {
				v, err := g.gen(append(slices.Clone(in), l.at(kw, strconv.Itoa(i))), variant, depth)
				if err == nil {
					return v, nil
				}
				if first == nil {
					first = err
				}
			}
			if first == nil {
				first = &errNoValue{keyword: kw, where: l.ptr, detail: "no branch"}
			}
			return nil, first
		}
		if _, ok := m["if"]; ok && !settled(in, l.ptr+"/if") && !settled(in, l.ptr+"/else") && !settled(in, l.ptr+"/then") {
			var tries [][]loc
			if _, ok := m["then"]; ok {
				tries = append(tries, []loc{l.at("if"), l.at("then")})
			} else {
				tries = append(tries, []loc{l.at("if")})
			}
			if _, ok := m["else"]; ok {
				tries = append(tries, []loc{l.at("else")})
			} else {
				tries = append(tries, []loc{{ptr: l.ptr + "/else", s: true}})
			}
			var first error
			for _, t := range tries {
				v, err := g.gen(append(slices.Clone(in), t...), variant, depth)
				if err == nil {
					return v, nil
				}
				if first == nil {
					first = err
				}
			}
			return nil, first
		}
	}
	return g.leaf(locs, variant, depth)
}

// settled reports whether a branch under prefix is already among locs.
func settled(locs []loc, prefix string) bool {
	for _, l := range locs {
		if strings.HasPrefix(l.ptr+"/", prefix) || l.ptr == strings.TrimSuffix(prefix, "/") {
			return true
		}
	}
	return false
}

// ok reports whether v satisfies every location, spending one step.
func (g *valueGen) ok(locs []loc, v any) (bool, error) {
	g.steps++
	if g.steps > genSteps {
		return false, &errNoValue{keyword: "complexity", detail: fmt.Sprintf("more than %d candidates checked", genSteps)}
	}
	return g.satisfies(locs, v)
}

// satisfies reports whether v satisfies every location.
func (g *valueGen) satisfies(locs []loc, v any) (bool, error) {
	for _, l := range locs {
		if b, ok := l.s.(bool); ok && b {
			continue // admits anything (and may be a branch no schema spells)
		}
		s, err := g.compile(l.ptr)
		if err != nil {
			return false, &errNoValue{keyword: "$ref", where: l.ptr, detail: "jsonschema/v6 does not compile this location"}
		}
		if s.Validate(v) != nil {
			return false, nil
		}
	}
	return true, nil
}

// stop names the keyword the validator refused v for: the deepest cause.
func (g *valueGen) stop(err error, where string) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &errNoValue{keyword: "schema", where: where}
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	kw := "schema"
	if p := ve.ErrorKind.KeywordPath(); len(p) > 0 {
		kw = p[len(p)-1]
	} else if t := reflect.TypeOf(ve.ErrorKind); t != nil {
		// kinds such as kind.Not carry no keyword path: the type is named
		// after the keyword
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if n := t.Name(); n != "" && n != "Schema" {
			kw = strings.ToLower(n[:1]) + n[1:]
		}
	}
	at := ve.SchemaURL
	if i := strings.IndexByte(at, '#'); i >= 0 {
		at = at[i+1:]
	}
	if at == "" {
		at = "/"
	}
	return &errNoValue{keyword: kw, where: at}
}

// words reads a keyword across the locations.
func words[T any](locs []loc, kw string) []T {
	var out []T
	for _, l := range locs {
		if v, ok := l.m()[kw].(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// leaf proposes candidates by type and keeps the variant-th one every
// location admits.
func (g *valueGen) leaf(locs []loc, variant, depth int) (any, error) {
	// a shifted candidate is already the variant-th of its kind (a string
	// or number built for it, an object or array of such); the others
	// (const, enum, booleans, null) are counted off to the variant-th
	type cand struct {
		f       func() (any, error)
		shifted bool
	}
	var cands []cand
	fixed := false
	for _, l := range locs {
		if c, ok := l.m()["const"]; ok {
			cands, fixed = append(cands, cand{value(c), false}), true
		}
	}
	for _, e := range words[[]any](locs, "enum") {
		for _, c := range e {
			cands = append(cands, cand{value(c), false})
		}
		fixed = true
	}
	stopNumber := ""
	if !fixed {
		for _, t := range g.typesOf(locs) {
			switch t {
			case "string":
				for _, s := range g.strings(locs, variant) {
					cands = append(cands, cand{value(s), true})
				}
			case "integer", "number":
				ns, stop := numbers(locs, t == "integer", variant)
				for _, n := range ns {
					cands = append(cands, cand{value(n), true})
				}
				if stopNumber == "" {
					stopNumber = stop
				}
			case "boolean":
				cands = append(cands, cand{value(true), false}, cand{value(false), false})
			case "null":
				cands = append(cands, cand{value(nil), false})
			case "object":
				cands = append(cands, cand{func() (any, error) { return g.object(locs, variant, depth) }, true})
			case "array":
				for _, n := range g.arrayLengths(locs) {
					cands = append(cands, cand{func() (any, error) { return g.array(locs, n, variant, depth) }, true})
				}
			}
		}
	}
	var last any
	var built bool
	var firstErr error
	seen := 0
	for _, c := range cands {
		v, err := c.f()
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			if StopKeyword(err) == "complexity" {
				return nil, err
			}
			continue
		}
		last, built = v, true
		ok, err := g.ok(locs, v)
		if err != nil {
			return nil, err
		}
		if ok {
			if c.shifted || seen == variant {
				return v, nil
			}
			seen++
		}
	}
	if stopNumber != "" {
		return nil, &errNoValue{keyword: stopNumber, where: locs[0].ptr, detail: "no multiple inside the bounds"}
	}
	if !built {
		if firstErr != nil {
			return nil, firstErr
		}
		return nil, &errNoValue{keyword: "type", where: locs[0].ptr, detail: "no candidate of any type"}
	}
	// name what refused the last candidate, at the first location that did
	for _, l := range locs {
		if b, ok := l.s.(bool); ok && b {
			continue
		}
		s, err := g.compile(l.ptr)
		if err != nil {
			continue
		}
		if err := s.Validate(last); err != nil {
			return nil, g.stop(err, l.ptr)
		}
	}
	if seen > 0 {
		return nil, &errNoValue{keyword: "uniqueItems", where: locs[0].ptr, detail: "too few distinct values"}
	}
	return nil, &errNoValue{keyword: "schema", where: locs[0].ptr}
}

func value(v any) func() (any, error) { return func() (any, error) { return v, nil } }

// typesOf is the types every location allows, in the first one's order;
// with none named, the types the keywords present imply, then the rest.
func (g *valueGen) typesOf(locs []loc) []string {
	all := []string{"string", "integer", "number", "object", "array", "boolean", "null"}
	out := slices.Clone(all)
	named := false
	for _, l := range locs {
		ts := types(l.m())
		if len(ts) == 0 {
			continue
		}
		named = true
		if slices.Contains(ts, "number") && !slices.Contains(ts, "integer") {
			ts = append(ts, "integer")
		}
		out = slices.DeleteFunc(out, func(t string) bool { return !slices.Contains(ts, t) })
	}
	if named {
		for _, l := range locs {
			if ts := types(l.m()); len(ts) > 0 {
				sort.SliceStable(out, func(i, j int) bool { return typeRank(ts, out[i]) < typeRank(ts, out[j]) })
				break
			}
		}
		return out
	}
	hint := func(t string, kws ...string) int {
		for _, l := range locs {
			for _, k := range kws {
				if _, ok := l.m()[k]; ok {
					return 0
				}
			}
		}
		return 1
	}
	rankOf := map[string]int{
		"object":  hint("object", "properties", "required", "additionalProperties", "minProperties", "patternProperties", "propertyNames", "dependentRequired"),
		"array":   hint("array", "items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems"),
		"string":  hint("string", "pattern", "minLength", "maxLength", "format"),
		"integer": hint("integer", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
		"number":  hint("number", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
	}
	sort.SliceStable(out, func(i, j int) bool { return rankOf[out[i]] < rankOf[out[j]] })
	return out
}

func typeRank(ts []string, t string) int {
	if i := slices.Index(ts, t); i >= 0 {
		return i
	}
	if t == "integer" {
		return slices.Index(ts, "number")
	}
	return len(ts)
}

// strings are a string's candidates: the canary, then for each pattern a
// string generated from its syntax tree (grown to minLength), then a
// sample of each format, then the canary fitted to the length bounds.
func (g *valueGen) strings(locs []loc, variant int) []string {
	lo, hi := 0, -1
	for _, l := range locs {
		if n, ok := num(l.m()["minLength"]); ok && int(n) > lo {
			lo = int(n)
		}
		if n, ok := num(l.m()["maxLength"]); ok && (hi < 0 || int(n) < hi) {
			hi = int(n)
		}
	}
	if lo > 1<<16 {
		lo = 1 << 16
	}
	c := g.canary
	if variant > 0 {
		c += "-" + strconv.Itoa(variant)
	}
	out := []string{c}
	for _, p := range words[string](locs, "pattern") {
		for _, target := range []int{lo, max(lo, 1), max(lo, len(c))} {
			if s, err := patternString(p, target, variant); err == nil {
				if !anchoredStart(p) {
					out = append(out, c+s) // the canary kept where the match may sit anywhere
				}
				out = append(out, s)
			}
		}
	}
	for _, f := range words[string](locs, "format") {
		out = append(out, formatSamples(f, c)...)
	}
	fit := c
	if len(fit) < lo {
		fit += strings.Repeat("a", lo-len(fit))
	}
	if hi >= 0 && len(fit) > hi {
		fit = fit[:hi]
	}
	return append(out, fit)
}

func anchoredStart(p string) bool { return strings.HasPrefix(p, "^") || strings.HasPrefix(p, `\A`) }

// formatSamples are valid strings of a format, the canary in them where
// the format has room for it.
func formatSamples(format, c string) []string {
	hex8 := "0000abcd"
	if len(c) >= 10 {
		hex8 = c[2:10]
	}
	switch format {
	case "date-time":
		return []string{"2026-01-01T00:00:00Z"}
	case "date":
		return []string{"2026-01-01"}
	case "time":
		return []string{"00:00:00Z"}
	case "duration":
		return []string{"P1D"}
	case "email", "idn-email":
		return []string{c + "@example.com", "a@example.com"}
	case "hostname", "idn-hostname":
		return []string{c + ".example.com", "example.com"}
	case "ipv4":
		return []string{"192.0.2.1"}
	case "ipv6":
		return []string{"2001:db8::1"}
	case "uri", "iri":
		return []string{"https://example.com/" + c, "https://a.io"}
	case "uri-reference", "iri-reference":
		return []string{"/" + c, "/a"}
	case "uri-template":
		return []string{"https://example.com/" + c + "/{id}", "/{id}"}
	case "uuid":
		return []string{hex8 + "-0000-4000-8000-000000000000"}
	case "json-pointer":
		return []string{"/" + c, "/a"}
	case "relative-json-pointer":
		return []string{"0/" + c, "0"}
	case "regex":
		return []string{c, "a"}
	case "period":
		return []string{"2026-01-01T00:00:00Z/P1D"}
	case "semver":
		return []string{"1.0.0"}
	}
	return nil
}

// numbers are a number's candidates: 1 and 0, then the least multiple of
// multipleOf inside the bounds, the greatest, and the bounds themselves.
func numbers(locs []loc, integer bool, variant int) ([]json.Number, string) {
	rat := func(v any) *big.Rat {
		n, ok := v.(json.Number)
		if !ok {
			return nil
		}
		r, ok := new(big.Rat).SetString(string(n))
		if !ok {
			return nil
		}
		return r
	}
	var lo, hi *big.Rat
	loEx, hiEx := false, false
	tighten := func(v *big.Rat, ex, low bool) {
		if v == nil {
			return
		}
		if low {
			if lo == nil || v.Cmp(lo) > 0 || (v.Cmp(lo) == 0 && ex) {
				lo, loEx = v, ex
			}
			return
		}
		if hi == nil || v.Cmp(hi) < 0 || (v.Cmp(hi) == 0 && ex) {
			hi, hiEx = v, ex
		}
	}
	step, multiple := big.NewRat(1, 1), false
	if !integer {
		step = nil
	}
	for _, l := range locs {
		m := l.m()
		tighten(rat(m["minimum"]), false, true)
		tighten(rat(m["exclusiveMinimum"]), true, true)
		tighten(rat(m["maximum"]), false, false)
		tighten(rat(m["exclusiveMaximum"]), true, false)
		if mo := rat(m["multipleOf"]); mo != nil && mo.Sign() > 0 {
			step, multiple = lcm(step, mo), true
		}
	}
	var out []*big.Rat
	for _, v := range []int64{1, 0, -1} {
		out = append(out, big.NewRat(v+int64(variant), 1))
	}
	s := step
	if s == nil {
		s = big.NewRat(1, 1)
	}
	if lo != nil {
		k := ceilDiv(lo, s)
		v := new(big.Rat).Mul(k, s)
		if loEx && v.Cmp(lo) == 0 {
			v.Add(v, s)
		}
		v.Add(v, new(big.Rat).Mul(big.NewRat(int64(variant), 1), s))
		out = append(out, v)
		if step == nil && !loEx {
			out = append(out, lo)
		}
	}
	if hi != nil {
		k := new(big.Rat).Neg(ceilDiv(new(big.Rat).Neg(hi), s))
		v := new(big.Rat).Mul(k, s)
		if hiEx && v.Cmp(hi) == 0 {
			v.Sub(v, s)
		}
		v.Sub(v, new(big.Rat).Mul(big.NewRat(int64(variant), 1), s))
		out = append(out, v)
	}
	if lo != nil && hi != nil && step == nil {
		mid := new(big.Rat).Add(lo, hi)
		out = append(out, mid.Quo(mid, big.NewRat(2, 1)))
	}
	if lo == nil && hi == nil && step != nil {
		out = append(out, new(big.Rat).Mul(big.NewRat(int64(1+variant), 1), step))
	}
	var ns []json.Number
	for _, r := range out {
		ns = append(ns, ratNumber(r))
	}
	stop := ""
	if multiple && lo != nil && hi != nil && len(out) > 3 {
		// the least multiple at or past the lower bound is past the upper
		if least := out[3]; least.Cmp(hi) > 0 || (hiEx && least.Cmp(hi) == 0) {
			stop = "multipleOf"
		}
	}
	return ns, stop
}

func ceilDiv(a, b *big.Rat) *big.Rat {
	q := new(big.Rat).Quo(a, b)
	n, d := q.Num(), q.Denom()
	z := new(big.Int).Div(n, d) // Euclidean: floor for positive d
	if new(big.Int).Mul(z, d).Cmp(n) != 0 {
		z.Add(z, big.NewInt(1))
	}
	return new(big.Rat).SetInt(z)
}

// lcm is the least common multiple of two positive rationals (nil: b).
func lcm(a, b *big.Rat) *big.Rat {
	if a == nil {
		return b
	}
	// lcm(p/q, r/s) = lcm(p*s, r*q) / (q*s)
	x := new(big.Int).Mul(a.Num(), b.Denom())
	y := new(big.Int).Mul(b.Num(), a.Denom())
	gcd := new(big.Int).GCD(nil, nil, x, y)
	l := new(big.Int).Mul(x, new(big.Int).Quo(y, gcd))
	return new(big.Rat).SetFrac(l, new(big.Int).Mul(a.Denom(), b.Denom()))
}

// ratNumber writes r as a JSON number: exact when its decimal expansion
// ends, else to 17 significant places.
func ratNumber(r *big.Rat) json.Number {
	if r.IsInt() {
		return json.Number(r.Num().String())
	}
	d := new(big.Int).Set(r.Denom())
	for _, p := range []int64{2, 5} {
		for new(big.Int).Mod(d, big.NewInt(p)).Sign() == 0 {
			d.Quo(d, big.NewInt(p))
		}
	}
	if d.Cmp(big.NewInt(1)) == 0 {
		for prec := 1; prec < 400; prec++ {
			s := r.FloatString(prec)
			if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
				return json.Number(s)
			}
		}
	}
	f, _ := r.Float64()
	return json.Number(strconv.FormatFloat(f, 'g', 17, 64))
}

// object builds an object: every required member (and the members
// dependentRequired brings in), then declared members until
// minProperties is met, each from every location that describes it.
func (g *valueGen) object(locs []loc, variant, depth int) (any, error) {
	var names []string
	add := func(n string) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, rs := range words[[]any](locs, "required") {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				add(s)
			}
		}
	}
	minProps := 0
	for _, l := range locs {
		if n, ok := num(l.m()["minProperties"]); ok && int(n) > minProps {
			minProps = min(int(n), 64)
		}
	}
	var declared []string
	for _, ps := range words[map[string]any](locs, "properties") {
		keys := make([]string, 0, len(ps))
		for k := range ps {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !slices.Contains(declared, k) {
				declared = append(declared, k)
			}
		}
	}
	for _, k := range declared {
		if len(names) >= minProps {
			break
		}
		add(k)
	}
	for i := 0; len(names) < minProps; i++ {
		add(fmt.Sprintf("%s%d", g.canary, i))
	}
	for i := 0; i < len(names) && i < 256; i++ {
		for _, dr := range words[map[string]any](locs, "dependentRequired") {
			if rs, ok := dr[names[i]].([]any); ok {
				for _, r := range rs {
					if s, ok := r.(string); ok {
						add(s)
					}
				}
			}
		}
	}
	out := map[string]any{}
	if depth <= 0 && len(names) > 0 {
		return nil, &errNoValue{keyword: "required", where: locs[0].ptr, detail: fmt.Sprintf("nested deeper than %d levels", genDepth)}
	}
	for _, n := range names {
		pl := g.memberLocs(locs, n)
		v, err := g.gen(pl, variant, depth-1)
		if err != nil {
			return nil, err
		}
		out[n] = v
	}
	return out, nil
}

// memberLocs are the locations member n's value must satisfy: each
// properties entry for it, each patternProperties whose pattern matches,
// else additionalProperties.
func (g *valueGen) memberLocs(locs []loc, n string) []loc {
	var pl []loc
	for _, l := range locs {
		m := l.m()
		matched := false
		if ps, ok := m["properties"].(map[string]any); ok {
			if _, ok := ps[n]; ok {
				pl, matched = append(pl, l.at("properties", n)), true
			}
		}
		if pp, ok := m["patternProperties"].(map[string]any); ok {
			for p := range pp {
				if re, err := regexp.Compile(p); err == nil && re.MatchString(n) {
					pl, matched = append(pl, l.at("patternProperties", p)), true
				}
			}
		}
		if _, ok := m["additionalProperties"]; ok && !matched {
			pl = append(pl, l.at("additionalProperties"))
		}
	}
	if len(pl) == 0 {
		pl = []loc{{ptr: "/$any", s: true}}
	}
	return pl
}

// arrayLengths are the lengths an array is tried at: minItems (at least
// one when contains asks for an item), and one more.
func (g *valueGen) arrayLengths(locs []loc) []int {
	n := 0
	for _, l := range locs {
		if v, ok := num(l.m()["minItems"]); ok && int(v) > n {
			n = int(v)
		}
		if _, ok := l.m()["contains"]; ok {
			mc := 1
			if v, ok := num(l.m()["minContains"]); ok {
				mc = int(v)
			}
			n = max(n, mc)
		}
	}
	n = min(n, 256)
	return []int{n, n + 1}
}

// array builds n items: prefixItems by position, then items (and contains
// for the first minContains, when given).
func (g *valueGen) array(locs []loc, n, variant, depth int) (any, error) {
	if depth <= 0 && n > 0 {
		return nil, &errNoValue{keyword: "items", where: locs[0].ptr, detail: fmt.Sprintf("nested deeper than %d", genDepth)}
	}
	unique := false
	for _, u := range words[bool](locs, "uniqueItems") {
		unique = unique || u
	}
	need := 0
	for _, l := range locs {
		if _, ok := l.m()["contains"]; ok {
			mc := 1
			if v, ok := num(l.m()["minContains"]); ok {
				mc = int(v)
			}
			need = max(need, mc)
		}
	}
	out := []any{}
	for i := range n {
		var il []loc
		for _, l := range locs {
			m := l.m()
			pre, _ := m["prefixItems"].([]any)
			switch {
			case i < len(pre):
				il = append(il, l.at("prefixItems", strconv.Itoa(i)))
			case m["items"] != nil:
				if arr, ok := m["items"].([]any); ok { // draft 7 tuple
					if i < len(arr) {
						il = append(il, l.at("items", strconv.Itoa(i)))
					} else if m["additionalItems"] != nil {
						il = append(il, l.at("additionalItems"))
					}
				} else {
					il = append(il, l.at("items"))
				}
			}
			if i < need && m["contains"] != nil {
				il = append(il, l.at("contains"))
			}
		}
		if len(il) == 0 {
			il = []loc{{ptr: "/$any", s: true}}
		}
		v := variant
		if unique {
			v = variant + i
		}
		x, err := g.gen(il, v, depth-1)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}
