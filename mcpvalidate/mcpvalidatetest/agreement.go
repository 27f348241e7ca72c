// Package mcpvalidatetest holds test-time checks for servers that use
// mcpvalidate: that the tools a server registers and the schemas a validator
// enforces are the same set (CheckCompleteness), and that a published schema
// agrees with the schema the go-sdk infers for a typed tool (CheckAgreement,
// the seed's decision 6). Call them from a server's tests; nothing here runs
// per request.
//
// Where it ends: the relation compares schemas, not handlers. A handler that
// refuses a value both schemas admit (JSON Schema's integer admits 5.0; a Go
// int field does not decode it) is outside its reach and needs a wire test.
package mcpvalidatetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"sort"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/internal/inspect"
)

// listed is srv's tools by name, as a client lists them.
func listed(ctx context.Context, srv *mcp.Server) (map[string]*mcp.Tool, error) {
	ts, err := inspect.ListTools(ctx, srv)
	if err != nil {
		return nil, fmt.Errorf("mcpvalidatetest: listing tools: %w", err)
	}
	out := map[string]*mcp.Tool{}
	for _, t := range ts {
		out[t.Name] = t
	}
	return out, nil
}

// CheckCompleteness holds the registered tools of srv and the tools v has a
// published schema for equal as sets, failing in both directions: a
// registered tool with no published schema (unreachable through the
// middleware, and a control that applies only to the tools someone
// remembered), and a published schema for a tool srv does not register (a
// contract naming a call that answers "no such tool"). The error names each
// tool and its schema's source.
func CheckCompleteness(ctx context.Context, v *mcpvalidate.Validator, srv *mcp.Server) error {
	tools, err := listed(ctx, srv)
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range sortedKeys(tools) {
		if _, ok := inspect.SchemaSource(v, name); !ok {
			errs = append(errs, fmt.Errorf("tool %q is registered but has no published schema", name))
		}
	}
	for _, name := range v.ToolNames() {
		if _, ok := tools[name]; !ok {
			src, _ := inspect.SchemaSource(v, name)
			errs = append(errs, fmt.Errorf("%s publishes tool %q, which the server does not register", src, name))
		}
	}
	return errors.Join(errs...)
}

// CheckAgreement is the seed's decision 6 for tools registered typed
// (mcp.AddTool with a Go struct): each tool's published schema (v's) and the
// schema srv lists for it (the SDK's inference) agree under an asymmetric
// relation.
//
// The published schema MAY tighten a value domain the Go type leaves open (a
// pattern, a length, a range, an enum where the derived schema has none, integer
// where the derived says number). It MUST NOT admit what the handler refuses,
// nor refuse a documented capability:
//
//   - every property the handler reads is published (else the published
//     schema refuses a parameter the handler serves);
//   - a published property the handler does not read is allowed only if it is
//     in unread for that tool, and that set must equal exactly the set of such
//     properties of that tool, so the exclusion can neither hide a new key nor
//     go stale; a tool absent from unread has none;
//   - the required sets are equal (published requiring less admits a call the
//     handler's decoding refuses; requiring more deletes a capability);
//   - a published property's types are a subset of the derived ones (integer
//     counts as a subset of number), and it declares a type whenever the
//     derived one does;
//   - a derived enum is published unchanged; a derived minimum/maximum/
//     minLength/maxLength is published at least as tight; a derived pattern is
//     published unchanged.
//
// These properties are compared at the top level of the arguments object
// (allOf branches and $refs merged in); nested objects are outside this
// part of the relation (the Go type's arm below descends). The closure axis (additionalProperties,
// unevaluatedProperties) is outside the relation: the middleware enforces
// the published closure whatever the derived schema says.
//
// A tool added with mcpvalidate.AddTool also has its Go input type's decode
// domain (mcpvalidate.TypeDomain), and the published schema is held to it at
// every depth: it may not admit a value the SDK's decode into the type
// refuses — a type the member does not decode, a number past its kind's
// bounds, a member the decoder cannot set, map keys its key type refuses,
// or anything at all where it is open and the type is not (an enum or const
// is held member by member) — and below the top level it may not refuse a
// member the decoder reads. Opaque and untyped members (own UnmarshalJSON
// or UnmarshalText, any, json.RawMessage) have no domain to break; the
// validator's decode check covers them at run time. A tool added with
// mcp.AddTool leaves no Go type behind (the *mcp.Server keeps none), so this
// arm cannot see it.
func CheckAgreement(ctx context.Context, v *mcpvalidate.Validator, srv *mcp.Server, unread map[string][]string) error {
	tools, err := listed(ctx, srv)
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range sortedKeys(unread) {
		if _, ok := tools[name]; !ok {
			errs = append(errs, fmt.Errorf("the unread exclusion names tool %q, which the server does not register", name))
		}
	}
	for _, name := range sortedKeys(tools) {
		raw, ok := v.InputSchema(name)
		if !ok {
			continue // CheckCompleteness's finding, not this relation's
		}
		src, _ := inspect.SchemaSource(v, name)
		var derived map[string]any
		b, err := json.Marshal(tools[name].InputSchema)
		if err == nil {
			err = json.Unmarshal(b, &derived)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: listed input schema: %w", name, err))
			continue
		}
		pub, err := publishedView(src, raw)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		seen := map[string]bool{}
		for _, d := range agree(pub, viewOf(derived), unread[name], seen) {
			errs = append(errs, fmt.Errorf("%s (%s): %s", name, src, d))
		}
		if dom, ok := inspect.TypeDomain(srv, name); ok {
			found, err := typedFindings(raw, dom)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s (%s): %w", name, src, err))
			}
			for _, d := range found {
				errs = append(errs, fmt.Errorf("%s (%s): %s", name, src, d))
			}
		}
		want := slices.Sorted(slices.Values(unread[name]))
		if got := sortedKeys(seen); !slices.Equal(want, got) {
			errs = append(errs, fmt.Errorf("%s: the unread exclusion is %v but the published-and-unread properties are %v: the two must be equal", name, want, got))
		}
	}
	return errors.Join(errs...)
}

// schemaView is an object schema flattened for the relation: its properties
// (allOf branches and $refs merged in) and its required names.
type schemaView struct {
	props    map[string]map[string]any
	required map[string]bool
}

func viewOf(doc map[string]any) schemaView {
	v := schemaView{props: map[string]map[string]any{}, required: map[string]bool{}}
	v.merge(doc)
	return v
}

func (v *schemaView) merge(doc map[string]any) {
	if ps, ok := doc["properties"].(map[string]any); ok {
		for k, p := range ps {
			m, _ := p.(map[string]any)
			v.props[k] = m
		}
	}
	if rs, ok := doc["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				v.required[s] = true
			}
		}
	}
}

// publishedView flattens a published schema (one self-contained document,
// as Validator.InputSchema returns it), following allOf and every $ref to a
// resource embedded under $defs by its $id.
func publishedView(src string, raw json.RawMessage) (schemaView, error) {
	var doc map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return schemaView{}, fmt.Errorf("%s: %w", src, err)
	}
	byID := map[string]map[string]any{}
	if defs, ok := doc["$defs"].(map[string]any); ok {
		for _, d := range defs {
			if m, ok := d.(map[string]any); ok {
				if id, ok := m["$id"].(string); ok {
					byID[id] = m
				}
			}
		}
	}
	v := schemaView{props: map[string]map[string]any{}, required: map[string]bool{}}
	var walk func(base string, doc map[string]any, depth int) error
	walk = func(base string, doc map[string]any, depth int) error {
		if depth > 16 {
			return fmt.Errorf("%s: $ref chain deeper than 16", src)
		}
		if id, ok := doc["$id"].(string); ok {
			base = id
		}
		v.merge(doc)
		var branches []any
		if all, ok := doc["allOf"].([]any); ok {
			branches = append(branches, all...)
		}
		if _, ok := doc["$ref"]; ok {
			branches = append(branches, map[string]any{"$ref": doc["$ref"]})
		}
		for _, b := range branches {
			m, _ := b.(map[string]any)
			if ref, ok := m["$ref"].(string); ok {
				bu, _ := url.Parse(base)
				u, err := bu.Parse(ref)
				if err != nil || u.Fragment != "" {
					return fmt.Errorf("%s: $ref %q is not a whole embedded resource", src, ref)
				}
				target, ok := byID[u.String()]
				if !ok {
					return fmt.Errorf("%s: $ref %q resolves to no resource under $defs", src, ref)
				}
				if err := walk(u.String(), target, depth+1); err != nil {
					return err
				}
				continue
			}
			if m != nil {
				if err := walk(base, m, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return v, walk("", doc, 0)
}

// agree returns every way pub breaks the relation with der. Published
// properties der does not read are added to unreadSeen; they are a finding
// unless named in unread.
func agree(pub, der schemaView, unread []string, unreadSeen map[string]bool) []string {
	var out []string
	for _, k := range sortedKeys(der.props) {
		pp, ok := pub.props[k]
		if !ok {
			out = append(out, fmt.Sprintf("the handler reads %q and the published schema does not name it (a capability the contract refuses)", k))
			continue
		}
		out = append(out, agreeProp(k, pp, der.props[k])...)
	}
	for _, k := range sortedKeys(pub.props) {
		if _, ok := der.props[k]; !ok {
			unreadSeen[k] = true
			if !slices.Contains(unread, k) {
				out = append(out, fmt.Sprintf("the published schema names %q and the handler does not read it", k))
			}
		}
	}
	for _, k := range sortedKeys(der.required) {
		if !pub.required[k] {
			out = append(out, fmt.Sprintf("the handler requires %q and the published schema does not (it admits calls the handler refuses)", k))
		}
	}
	for _, k := range sortedKeys(pub.required) {
		if !der.required[k] {
			out = append(out, fmt.Sprintf("the published schema requires %q and the handler does not (a capability deleted by the contract)", k))
		}
	}
	return out
}

func agreeProp(k string, pub, der map[string]any) []string {
	var out []string
	pt, dt := types(pub), types(der)
	switch {
	case len(dt) > 0 && len(pt) == 0:
		out = append(out, fmt.Sprintf("%q: the published schema declares no type; the handler takes %v", k, dt))
	case len(dt) > 0:
		for _, t := range pt {
			if !slices.Contains(dt, t) && !(t == "integer" && slices.Contains(dt, "number")) {
				out = append(out, fmt.Sprintf("%q: the published schema admits type %s; the handler takes %v", k, t, dt))
			}
		}
	}
	if de, ok := der["enum"].([]any); ok {
		if pe, ok := pub["enum"].([]any); !ok || !sameSet(pe, de) {
			out = append(out, fmt.Sprintf("%q: the handler's enum %v is not published unchanged", k, de))
		}
	}
	if dp, ok := der["pattern"].(string); ok && pub["pattern"] != dp {
		out = append(out, fmt.Sprintf("%q: the handler's pattern is not published unchanged", k))
	}
	for _, kw := range []string{"minimum", "minLength", "exclusiveMinimum", "minItems"} {
		if d, ok := number(der[kw]); ok {
			if p, ok := number(pub[kw]); !ok || p.Cmp(d) < 0 {
				out = append(out, fmt.Sprintf("%q: the handler's %s %s is not published at least as tight", k, kw, d.RatString()))
			}
		}
	}
	for _, kw := range []string{"maximum", "maxLength", "exclusiveMaximum", "maxItems"} {
		if d, ok := number(der[kw]); ok {
			if p, ok := number(pub[kw]); !ok || p.Cmp(d) > 0 {
				out = append(out, fmt.Sprintf("%q: the handler's %s %s is not published at least as tight", k, kw, d.RatString()))
			}
		}
	}
	return out
}

func types(s map[string]any) []string {
	var out []string
	switch t := s["type"].(type) {
	case string:
		out = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	if ts, ok := s["types"].([]any); ok { // jsonschema-go's Types, if marshalled under its Go name
		for _, x := range ts {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func number(v any) (*big.Rat, bool) {
	var s string
	switch n := v.(type) {
	case json.Number:
		s = n.String()
	case float64:
		// A bound that went through float64 (a schema decoded without
		// UseNumber) is the decimal it renders as, which is what tools/list
		// published: 9223372036854775000, not the float's exact
		// 9223372036854774784.
		s = strconv.FormatFloat(n, 'g', -1, 64)
	default:
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

func sameSet(a, b []any) bool {
	key := func(xs []any) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			bs, _ := json.Marshal(x)
			out[i] = string(bs)
		}
		sort.Strings(out)
		return slices.Compact(out)
	}
	return slices.Equal(key(a), key(b))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
