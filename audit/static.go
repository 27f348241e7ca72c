package audit

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
)

// Closure verdicts of a tool's input schema.
const (
	ClosureClosed  = "closed"  // unknown members are refused
	ClosureOpen    = "open"    // unknown members are admitted
	ClosurePitfall = "pitfall" // additionalProperties: false beside allOf/$ref: the composed members are refused too
	ClosureNone    = "none"    // no input schema
)

// SchemaAudit is the static audit of one tool's input schema.
type SchemaAudit struct {
	Closure   string   `json:"closure"`
	Unbounded []string `json:"unbounded"` // where a string, array or object has no bound, as schema pointers
	// Renders lists, per dialect ("go" for jsonschema/v6, "python" for
	// Python jsonschema), the keywords present that put the instance (or a
	// member name) into an error message, with where.
	Renders map[string][]string `json:"renders"`
	// RenderPath is, per dialect, the most instance-rendering keywords on
	// one root-to-leaf path of the schema.
	RenderPath map[string]int `json:"render_path"`
	// Cap is the body cap the figures below are taken at.
	Cap int64 `json:"cap"`
	// WorstRender is the widest one string value under Cap renders to, per
	// dialect, in the dialect's unit (charge's widths).
	WorstRender map[string]int64 `json:"worst_render"`
	// RefusalCeiling is WorstRender times the most instance-rendering
	// keywords on one root-to-leaf path of the schema: what one refusal can
	// quote when each renders the value once.
	RefusalCeiling map[string]int64 `json:"refusal_ceiling"`
	// Backtracking lists the patterns a backtracking engine can take
	// exponential or polynomial time on, with the string crafted for each.
	Backtracking []Backtracking `json:"backtracking,omitempty"`
	Error        string         `json:"error,omitempty"`
}

// renderKeywords are the keywords whose error message renders the instance
// or a member name: jsonschema/v6 v6.0.3 (kind.go: quote(Got) in Pattern,
// display(Got) in Format, %v of the number in the bounds, the names in
// AdditionalProperties and PropertyNames) and Python jsonschema 4.26
// (_keywords.py: {instance!r} in most messages, extras_msg of the names).
func renderKeywords(d charge.Dialect) []string {
	if d == charge.Go {
		return []string{"pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
			"multipleOf", "additionalProperties", "unevaluatedProperties", "propertyNames"}
	}
	return []string{"type", "enum", "pattern", "format", "minLength", "maxLength", "minItems", "maxItems",
		"uniqueItems", "minProperties", "maxProperties", "minimum", "maximum", "exclusiveMinimum",
		"exclusiveMaximum", "multipleOf", "contains", "anyOf", "oneOf", "not", "additionalProperties",
		"unevaluatedProperties"}
}

// rendersNames: the keywords that render member names only when they
// refuse (a false schema or a schema the name fails), not their mere
// presence.
func rendersNames(k string) bool {
	return k == "additionalProperties" || k == "unevaluatedProperties" || k == "propertyNames"
}

// staticTools audits every tool's schema (and adds a row for tools the
// report does not have yet: a static audit).
func (a *auditor) staticTools(tools []Tool) {
	for _, t := range tools {
		i := a.rep.tool(t.Name)
		a.rep.Tools[i].Schema = auditSchema(t.InputSchema)
	}
}

func auditSchema(raw []byte) *SchemaAudit {
	sa := &SchemaAudit{Renders: map[string][]string{}, Unbounded: []string{}}
	doc, err := parseSchema(raw)
	if err != nil {
		sa.Error = err.Error()
		sa.Closure = ClosureNone
		return sa
	}
	if doc == nil {
		sa.Closure = ClosureNone
		return sa
	}
	sa.Closure = closure(doc)
	w := &walker{doc: doc, sa: sa, seen: map[*map[string]any]bool{}, depth: map[charge.Dialect]int{}}
	w.walk("", doc.root, "", 0, map[charge.Dialect]int{})
	sa.RenderPath = map[string]int{}
	for _, d := range charge.Dialects() {
		sort.Strings(sa.Renders[d.String()])
		sa.RenderPath[d.String()] = w.depth[d]
	}
	return sa
}

// closure classifies the root: unevaluatedProperties: false closes over
// composition; additionalProperties: false closes only a root with no
// allOf/$ref, and beside them refuses the composed members (the seed's
// composition table).
func closure(d *schemaDoc) string {
	r := d.root
	composed := r["allOf"] != nil || r["$ref"] != nil || r["anyOf"] != nil || r["oneOf"] != nil
	if r["unevaluatedProperties"] == false {
		return ClosureClosed
	}
	if r["additionalProperties"] == false {
		if composed && len(d.rootProps()) > len(props(r)) {
			return ClosurePitfall
		}
		return ClosureClosed
	}
	return ClosureOpen
}

func props(m map[string]any) map[string]any {
	p, _ := m["properties"].(map[string]any)
	return p
}

// walker visits every subschema once, bounded.
type walker struct {
	doc   *schemaDoc
	sa    *SchemaAudit
	seen  map[*map[string]any]bool
	nodes int
	depth map[charge.Dialect]int // the most rendering keywords on one path
}

const (
	maxWalkNodes = 10000
	maxWalkDepth = 64
)

// subschemaKeys hold one subschema; listKeys an array of them; mapKeys an
// object of them.
var (
	subschemaKeys = []string{"items", "additionalProperties", "unevaluatedProperties", "propertyNames", "contains", "not", "if", "then", "else", "unevaluatedItems", "additionalItems"}
	listKeys      = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	mapKeys       = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)

func (w *walker) walk(base string, m map[string]any, at string, level int, onPath map[charge.Dialect]int) {
	w.nodes++
	if m == nil || w.nodes > maxWalkNodes || level > maxWalkDepth {
		return
	}
	if id, ok := m["$id"].(string); ok && level > 0 {
		base = id
	}
	w.bounds(m, at)
	if p, ok := m["pattern"].(string); ok {
		if bt, ok := backtracking(p); ok {
			bt.At = ptr(at) + "/pattern"
			w.sa.Backtracking = append(w.sa.Backtracking, bt)
		}
	}
	here := map[charge.Dialect]int{}
	for _, d := range charge.Dialects() {
		for _, k := range renderKeywords(d) {
			v, ok := m[k]
			if !ok || (rendersNames(k) && v == true) {
				continue
			}
			w.sa.Renders[d.String()] = append(w.sa.Renders[d.String()], k+" at "+ptr(at))
			here[d]++
		}
		here[d] += onPath[d]
		w.depth[d] = max(w.depth[d], here[d])
	}
	for _, k := range subschemaKeys {
		if s, ok := m[k].(map[string]any); ok {
			w.walk(base, s, at+"/"+k, level+1, here)
		}
	}
	for _, k := range listKeys {
		if l, ok := m[k].([]any); ok {
			for i, s := range l {
				sm, _ := s.(map[string]any)
				w.walk(base, sm, fmt.Sprintf("%s/%s/%d", at, k, i), level+1, here)
			}
		}
	}
	for _, k := range mapKeys {
		if o, ok := m[k].(map[string]any); ok {
			names := make([]string, 0, len(o))
			for n := range o {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				sm, _ := o[n].(map[string]any)
				next := here
				if k == "$defs" || k == "definitions" {
					next = map[charge.Dialect]int{} // reached through $ref, not by nesting
				}
				w.walk(base, sm, at+"/"+k+"/"+escapeToken(n), level+1, next)
			}
		}
	}
}

// bounds notes a string with no maxLength (nor enum, const or format that
// bounds it), an array with no maxItems, an object with no maxProperties
// that admits members beyond its properties.
func (w *walker) bounds(m map[string]any, at string) {
	if m["enum"] != nil || m["const"] != nil {
		return
	}
	note := func(what string) { w.sa.Unbounded = append(w.sa.Unbounded, ptr(at)+": "+what) }
	if hasType(m, "string") && m["maxLength"] == nil {
		note("string without maxLength")
	}
	if hasType(m, "array") && m["maxItems"] == nil {
		note("array without maxItems")
	}
	if hasType(m, "object") && m["maxProperties"] == nil && m["additionalProperties"] != false &&
		m["unevaluatedProperties"] != false && at != "" {
		note("open object without maxProperties")
	}
}

func ptr(at string) string {
	if at == "" {
		return "/"
	}
	return at
}

func escapeToken(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
	return charge.DisplayText(s, charge.KeyCut)
}

// ratio is the worst render per wire byte of one code point under a dialect,
// over every scalar value, with the raw encoder (UTF-8 as is, the official
// clients): Width units for Wire bytes.
type ratio struct {
	Example     rune
	Width, Wire int
}

var (
	worstOnce  sync.Once
	worstRatio map[charge.Dialect]ratio
)

// worstPerByte is computed once from charge: the code point whose render
// width over wire bytes is largest, per dialect.
func worstPerByte(d charge.Dialect) ratio {
	worstOnce.Do(func() {
		worstRatio = map[charge.Dialect]ratio{}
		for _, dd := range charge.Dialects() {
			best := ratio{Width: 0, Wire: 1}
			for r := rune(0); r <= utf8.MaxRune; r++ {
				wc, ok := charge.WireClassOf(r)
				if !ok {
					continue
				}
				w, n := dd.RuneWidth(r), wc.Wire(charge.Raw)
				if w*best.Wire > best.Width*n {
					best = ratio{Example: r, Width: w, Wire: n}
				}
			}
			worstRatio[dd] = best
		}
	})
	return worstRatio[d]
}

// figures fills the worst render and the refusal ceiling at bodyCap.
func (sa *SchemaAudit) figures(tool string, bodyCap int64) {
	sa.Cap = bodyCap
	sa.WorstRender, sa.RefusalCeiling = map[string]int64{}, map[string]int64{}
	overhead := int64(len(callBody(1, marshal(tool), `{"k":""}`)))
	for _, d := range charge.Dialects() {
		r := worstPerByte(d)
		n := max(0, bodyCap-overhead) / int64(r.Wire)
		render := n*int64(r.Width) + 2 // the quotes
		sa.WorstRender[d.String()] = render
		sa.RefusalCeiling[d.String()] = render * int64(sa.RenderPath[d.String()])
	}
}
