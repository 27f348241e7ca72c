package mcpvalidatetest

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The Go-type arm of decision 6: a tool added with mcpvalidate.AddTool has a
// decode domain (mcpvalidate.TypeDomain), and its published schema must not
// admit what that domain refuses — anywhere in the arguments, not only at
// the top level: a number past the member's kind's bounds, a type the Go
// member does not decode, a member the decoder cannot set, a map key its key
// type cannot hold, any value at all where the published schema is open and
// the Go type is not. A domain with nothing to say (an opaque or untyped
// member: {}) admits whatever is published.

// pubSchema resolves a published schema's $refs (to the whole resources
// embedded under $defs by $id, as Validator.InputSchema bundles them).
type pubSchema struct {
	byID map[string]map[string]any
}

func newPubSchema(doc map[string]any) *pubSchema {
	p := &pubSchema{byID: map[string]map[string]any{}}
	if defs, ok := doc["$defs"].(map[string]any); ok {
		for _, d := range defs {
			if m, ok := d.(map[string]any); ok {
				if id, ok := m["$id"].(string); ok {
					p.byID[id] = m
				}
			}
		}
	}
	return p
}

// conjunct is one schema a value must satisfy, with the base its $refs
// resolve against. A boolean schema is a map with "$bool".
type conjunct struct {
	s    map[string]any
	base string
}

func asSchema(v any) map[string]any {
	switch s := v.(type) {
	case map[string]any:
		return s
	case bool:
		return map[string]any{"$bool": s}
	}
	return map[string]any{}
}

// conjuncts expands a schema into every schema an instance must also
// satisfy: itself, its allOf branches, and what its $ref names.
func (p *pubSchema) conjuncts(s map[string]any, base string, depth int) ([]conjunct, error) {
	if depth > 32 {
		return nil, fmt.Errorf("$ref chain deeper than 32")
	}
	if id, ok := s["$id"].(string); ok {
		if bu, err := url.Parse(base); err == nil {
			if u, err := bu.Parse(id); err == nil {
				base = u.String()
			}
		}
	}
	out := []conjunct{{s, base}}
	if ref, ok := s["$ref"].(string); ok {
		bu, _ := url.Parse(base)
		u, err := bu.Parse(ref)
		if err != nil || u.Fragment != "" {
			return nil, fmt.Errorf("$ref %q is not a whole embedded resource", ref)
		}
		target, ok := p.byID[u.String()]
		if !ok {
			return nil, fmt.Errorf("$ref %q resolves to no resource under $defs", ref)
		}
		more, err := p.conjuncts(target, u.String(), depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, b := range all {
			more, err := p.conjuncts(asSchema(b), base, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, more...)
		}
	}
	return out, nil
}

func (p *pubSchema) expand(cs []conjunct) ([]conjunct, error) {
	var out []conjunct
	for _, c := range cs {
		more, err := p.conjuncts(c.s, c.base, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// withinDomain returns every way the published schema (conjuncts cs) admits
// a value at ptr that the domain d refuses.
func (p *pubSchema) withinDomain(cs []conjunct, d map[string]any, ptr string) []string {
	if b, ok := d["$bool"].(bool); ok && b || len(d) == 0 {
		return nil // the domain admits anything here
	}
	cs, err := p.expand(cs)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", at(ptr), err)}
	}
	for _, c := range cs {
		if b, ok := c.s["$bool"].(bool); ok && !b {
			return nil // the published schema admits nothing here
		}
		if n, ok := c.s["not"].(map[string]any); ok && len(n) == 0 {
			return nil
		}
	}
	if b, ok := d["$bool"].(bool); ok && !b {
		return []string{fmt.Sprintf("%s: the published schema admits a member the Go type's decoder cannot set", at(ptr))}
	}
	// An enum or const: every member must be in the domain, whatever else
	// is published.
	for _, c := range cs {
		var members []any
		if e, ok := c.s["enum"].([]any); ok {
			members = e
		} else if cv, ok := c.s["const"]; ok {
			members = []any{cv}
		} else {
			continue
		}
		var out []string
		for _, m := range members {
			if why := domainRefuses(d, m); why != "" {
				out = append(out, fmt.Sprintf("%s: the published schema admits %s, which the Go type refuses (%s)", at(ptr), compact(m), why))
			}
		}
		return out
	}
	var out []string
	dtypes := typeSet(d)
	ptypes := publishedTypes(cs)
	if dtypes != nil {
		if ptypes == nil {
			return []string{fmt.Sprintf("%s: the published schema declares no type; the Go type takes %v", at(ptr), sortedSet(dtypes))}
		}
		for t := range ptypes {
			if !dtypes[t] && !(t == "integer" && dtypes["number"]) {
				out = append(out, fmt.Sprintf("%s: the published schema admits type %s; the Go type takes %v", at(ptr), t, sortedSet(dtypes)))
			}
		}
	}
	admits := func(t string) bool {
		if ptypes == nil {
			return true
		}
		if t == "number" {
			return ptypes["number"] || ptypes["integer"]
		}
		return ptypes[t]
	}
	if admits("number") || admits("integer") {
		out = append(out, bounds(cs, d, ptr)...)
	}
	if admits("array") {
		if di, ok := d["items"]; ok {
			var items []conjunct
			for _, c := range cs {
				if i, ok := c.s["items"]; ok {
					items = append(items, conjunct{asSchema(i), c.base})
				}
				if pi, ok := c.s["prefixItems"].([]any); ok {
					for i, s := range pi {
						out = append(out, p.withinDomain([]conjunct{{asSchema(s), c.base}}, asSchema(di), ptr+"/"+fmt.Sprint(i))...)
					}
				}
			}
			out = append(out, p.withinDomain(items, asSchema(di), ptr+"/*")...)
		}
	}
	if admits("object") {
		out = append(out, p.objectWithin(cs, d, ptr)...)
	}
	return out
}

// objectWithin compares the members a published object admits with the
// domain's: each named member, the members it admits under
// additionalProperties, and the names themselves.
func (p *pubSchema) objectWithin(cs []conjunct, d map[string]any, ptr string) []string {
	var out []string
	dprops, _ := d["properties"].(map[string]any)
	daddl, hasAddl := d["additionalProperties"]
	closed := false
	var addl []conjunct
	for _, c := range cs {
		for _, kw := range []string{"additionalProperties", "unevaluatedProperties"} {
			if a, ok := c.s[kw]; ok {
				if b, ok := a.(bool); ok && !b {
					closed = true
				} else if kw == "additionalProperties" {
					addl = append(addl, conjunct{asSchema(a), c.base})
				}
			}
		}
	}
	published := map[string][]conjunct{}
	for _, c := range cs {
		if ps, ok := c.s["properties"].(map[string]any); ok {
			for k, s := range ps {
				published[k] = append(published[k], conjunct{asSchema(s), c.base})
			}
		}
	}
	// The domain's members: published by name, or admitted unnamed.
	for _, k := range sortedKeys(dprops) {
		dk := asSchema(dprops[k])
		switch pk, named := published[k]; {
		case named:
			out = append(out, p.withinDomain(pk, dk, ptr+"/"+k)...)
		case closed:
			// Below the top level (which the SDK-derived relation covers,
			// with its unread exclusion), a member the decoder reads and a
			// closed published object refuses is a capability deleted.
			if b, ok := dk["$bool"].(bool); ptr != "" && len(addl) == 0 && !(ok && !b) {
				out = append(out, fmt.Sprintf("%s: the Go type reads this member and the published schema refuses it (a capability the contract deletes)", at(ptr+"/"+k)))
			}
		default:
			out = append(out, p.withinDomain(addl, dk, ptr+"/"+k)...)
		}
	}
	// A map's values: every member the published schema admits that the
	// domain does not name.
	if hasAddl {
		da := asSchema(daddl)
		for _, k := range sortedKeys(published) {
			if _, ok := dprops[k]; !ok {
				out = append(out, p.withinDomain(published[k], da, ptr+"/"+k)...)
			}
		}
		if !closed {
			out = append(out, p.withinDomain(addl, da, ptr+"/*")...)
		}
	}
	// Names: the domain's propertyNames (false: no member; a pattern: the
	// key syntax) must be published the same, unless the published schema
	// is closed over names that satisfy it.
	if dn, ok := d["propertyNames"]; ok {
		dns := asSchema(dn)
		same := false
		for _, c := range cs {
			if pn, ok := c.s["propertyNames"]; ok && compact(asSchema(pn)) == compact(dns) {
				same = true
			}
			if mp, ok := number(c.s["maxProperties"]); ok && mp.Sign() == 0 {
				same = true
			}
		}
		if !same && !(closed && len(addl) == 0 && namesWithin(published, dns)) {
			out = append(out, fmt.Sprintf("%s: the published schema admits member names the Go map's key type refuses (its propertyNames is %s)", at(ptr), compact(dns)))
		}
	}
	return out
}

// namesWithin: every published name satisfies the domain's propertyNames
// (false admits none; a pattern is not compared, so only false is decided).
func namesWithin(published map[string][]conjunct, names map[string]any) bool {
	if b, ok := names["$bool"].(bool); ok && !b {
		return len(published) == 0
	}
	return false
}

// bounds holds the published numeric bounds inside the domain's.
func bounds(cs []conjunct, d map[string]any, ptr string) []string {
	var out []string
	if dmin, ok := number(d["minimum"]); ok {
		var best *big.Rat
		for _, c := range cs {
			for _, kw := range []string{"minimum", "exclusiveMinimum"} {
				if v, ok := number(c.s[kw]); ok && (best == nil || v.Cmp(best) > 0) {
					best = v
				}
			}
		}
		if best == nil || best.Cmp(dmin) < 0 {
			out = append(out, fmt.Sprintf("%s: the Go type's minimum is %s and the published schema admits less", at(ptr), ratText(dmin)))
		}
	}
	if dmax, ok := number(d["maximum"]); ok {
		var best *big.Rat
		for _, c := range cs {
			for _, kw := range []string{"maximum", "exclusiveMaximum"} {
				if v, ok := number(c.s[kw]); ok && (best == nil || v.Cmp(best) < 0) {
					best = v
				}
			}
		}
		if best == nil || best.Cmp(dmax) > 0 {
			out = append(out, fmt.Sprintf("%s: the Go type's maximum is %s and the published schema admits more", at(ptr), ratText(dmax)))
		}
	}
	return out
}

// domainRefuses says why the domain refuses the value v ("" when it
// admits it), for an enum or const member.
func domainRefuses(d map[string]any, v any) string {
	if b, ok := d["$bool"].(bool); ok {
		if b {
			return ""
		}
		return "no value"
	}
	if ts := typeSet(d); ts != nil {
		t := jsonType(v)
		if !ts[t] && !(t == "integer" && ts["number"]) {
			return "type " + t
		}
	}
	if n, ok := number(v); ok {
		if min, ok := number(d["minimum"]); ok && n.Cmp(min) < 0 {
			return "minimum " + ratText(min)
		}
		if max, ok := number(d["maximum"]); ok && n.Cmp(max) > 0 {
			return "maximum " + ratText(max)
		}
	}
	switch x := v.(type) {
	case []any:
		if di, ok := d["items"]; ok {
			for _, e := range x {
				if why := domainRefuses(asSchema(di), e); why != "" {
					return why
				}
			}
		}
	case map[string]any:
		props, _ := d["properties"].(map[string]any)
		for k, e := range x {
			if dk, ok := props[k]; ok {
				if why := domainRefuses(asSchema(dk), e); why != "" {
					return k + ": " + why
				}
			} else if da, ok := d["additionalProperties"]; ok {
				if why := domainRefuses(asSchema(da), e); why != "" {
					return k + ": " + why
				}
			}
		}
	}
	return ""
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if r, ok := new(big.Rat).SetString(x.String()); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	case float64:
		if r := new(big.Rat).SetFloat64(x); r != nil && r.IsInt() {
			return "integer"
		}
		return "number"
	}
	return "?"
}

// typeSet is a schema's declared types, nil when it declares none.
func typeSet(s map[string]any) map[string]bool {
	ts := types(s)
	if len(ts) == 0 {
		return nil
	}
	out := map[string]bool{}
	for _, t := range ts {
		out[t] = true
	}
	return out
}

// publishedTypes is the intersection of the conjuncts' declared types (nil
// when none declares any). integer within number counts.
func publishedTypes(cs []conjunct) map[string]bool {
	var out map[string]bool
	for _, c := range cs {
		ts := typeSet(c.s)
		if ts == nil {
			continue
		}
		if out == nil {
			out = ts
			continue
		}
		next := map[string]bool{}
		for t := range out {
			if ts[t] || (t == "integer" && ts["number"]) {
				next[t] = true
			} else if t == "number" && ts["integer"] {
				next["integer"] = true
			}
		}
		out = next
	}
	return out
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func at(ptr string) string {
	if ptr == "" {
		return "the arguments"
	}
	return fmt.Sprintf("%q", ptr)
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return strings.ReplaceAll(string(b), `{"$bool":false}`, "false")
}

// ratText renders a bound as the schema did: an integer of up to 21
// digits whole, anything else as its shortest float64 text.
func ratText(r *big.Rat) string {
	if r.IsInt() && len(r.Num().String()) <= 21 {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// decodeSchema reads a schema document with json.Number numbers.
func decodeSchema(raw []byte) (map[string]any, error) {
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return asSchema(v), nil
}

// typedFindings is the Go-type arm for one tool.
func typedFindings(published, domain []byte) ([]string, error) {
	pub, err := decodeSchema(published)
	if err != nil {
		return nil, err
	}
	dom, err := decodeSchema(domain)
	if err != nil {
		return nil, err
	}
	p := newPubSchema(pub)
	out := p.withinDomain([]conjunct{{pub, ""}}, dom, "")
	return slices.Compact(out), nil
}
