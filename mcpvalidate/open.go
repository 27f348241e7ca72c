package mcpvalidate

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/theurian/boundlab/charge"
)

// Open schemas. An object schema is open when it admits a member that no
// keyword names and no keyword checks: a member matched by neither
// properties nor patternProperties, where neither additionalProperties nor
// unevaluatedProperties is false or a schema that constrains something. Such
// a member reaches the handler unvalidated, and a handler that decodes into a
// struct drops it silently (a misspelt optional argument becomes its
// default). New refuses a tool whose input schema holds one, anywhere a call's
// arguments can reach, unless the tool is named as open on purpose; see the
// package doc, "Open schemas", for why refusing beats closing.
//
// The walk reads the compiled schema (jsonschema/v6's), so $ref is resolved
// exactly as validation resolves it, across files for SchemaFiles.
// Schemas that apply to the same instance location in place (allOf, anyOf,
// oneOf, then, else, $ref, dependentSchemas) are judged together:
//
//   - the location is closed when its schema closes: false; a "type" without
//     "object"; enum or const (a finite set of values the author wrote);
//     "maxProperties": 0; additionalProperties or unevaluatedProperties false or
//     a schema that constrains something (a declared map: every member is
//     checked, as map[string]T is for a typed tool); or, in place, any allOf
//     branch, the $ref target, every anyOf branch, every oneOf branch, or both
//     then and else closing;
//   - otherwise the topmost schema at the location that declares objects
//     ("type" with "object", or any object keyword) is reported; a schema that
//     declares nothing about objects ({}, true, {"minLength": 1}, an array
//     with no items) admits any value and says so: it is not reported, and
//     its in-place branches are judged on their own.
//
// Then each schema a member or an item is validated against (properties,
// patternProperties, additionalProperties, unevaluatedProperties, items,
// prefixItems, additionalItems, contains, unevaluatedItems) is a new location,
// judged the same way. What "if" and "not" hold is a condition, not an
// admission: neither is judged. patternProperties, propertyNames and
// minProperties never close: a member no pattern matches is still admitted.
// $dynamicRef and $recursiveRef are followed to their static target but never
// count as closing (their target is chosen at validation time).

const (
	// openPointersShown is how many open locations New's error names per
	// tool; the rest are counted.
	openPointersShown = 4
	// openURLCut is the most display bytes of a referenced resource's URL a
	// location names (a location outside the tool's own document).
	openURLCut = 96
)

// openObjects returns the locations (jsonschema/v6's absolute Location:
// URL#pointer) of the open object schemas in root's reach, sorted.
func openObjects(root *jsonschema.Schema) []string {
	w := openWalk{
		seen:   map[openKey]bool{},
		closed: map[*jsonschema.Schema]bool{},
		found:  map[string]bool{},
	}
	w.at(root, false)
	out := make([]string, 0, len(w.found))
	for loc := range w.found {
		out = append(out, loc)
	}
	sort.Strings(out)
	return out
}

type openKey struct {
	s       *jsonschema.Schema
	covered bool
}

type openWalk struct {
	seen   map[openKey]bool
	closed map[*jsonschema.Schema]bool // closes' memo
	found  map[string]bool
}

// at judges s applied to an instance location. covered: a schema applying
// in place above s already closes the location (or was reported for it).
func (w *openWalk) at(s *jsonschema.Schema, covered bool) {
	if s == nil || s.Bool != nil {
		return // true admits any value and declares nothing; false admits none
	}
	k := openKey{s, covered}
	if w.seen[k] {
		return
	}
	w.seen[k] = true

	here := covered || w.closes(s)
	if !here && declaresObject(s) {
		w.found[s.Location] = true
		here = true // one report per location: in-place branches below are its detail
	}
	// The same instance, in place.
	for _, b := range s.AllOf {
		w.at(b, here)
	}
	for _, b := range s.AnyOf {
		w.at(b, here)
	}
	for _, b := range s.OneOf {
		w.at(b, here)
	}
	w.at(s.Ref, here)
	if s.DynamicRef != nil {
		w.at(s.DynamicRef.Ref, here)
	}
	w.at(s.RecursiveRef, here)
	w.at(s.Then, here)
	w.at(s.Else, here)
	for _, k := range sortedKeys(s.DependentSchemas) {
		w.at(s.DependentSchemas[k], here)
	}
	for _, k := range sortedKeys(s.Dependencies) {
		if d, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
			w.at(d, here)
		}
	}
	// Members and items: new locations.
	for _, k := range sortedKeys(s.Properties) {
		w.at(s.Properties[k], false)
	}
	for _, p := range s.PatternProperties {
		w.at(p, false) // order does not matter: found is a set
	}
	if a, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		w.at(a, false)
	}
	w.at(s.UnevaluatedProperties, false)
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		w.at(it, false)
	case []*jsonschema.Schema:
		for _, x := range it {
			w.at(x, false)
		}
	}
	if a, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
		w.at(a, false)
	}
	for _, x := range s.PrefixItems {
		w.at(x, false)
	}
	w.at(s.Items2020, false)
	w.at(s.Contains, false)
	w.at(s.UnevaluatedItems, false)
}

// closes reports whether every object s admits has each member named or
// checked (see the comment at the top of this file). A cycle of in-place
// references is taken as not closing.
func (w *openWalk) closes(s *jsonschema.Schema) bool {
	if c, ok := w.closed[s]; ok {
		return c // false while s is being decided: a cycle does not close
	}
	w.closed[s] = false
	c := w.decide(s)
	w.closed[s] = c
	return c
}

func (w *openWalk) decide(s *jsonschema.Schema) bool {
	if s.Bool != nil {
		return !*s.Bool
	}
	if s.Types != nil && int(*s.Types)&int(objectType()) == 0 {
		return true
	}
	if s.Enum != nil || s.Const != nil {
		return true
	}
	if s.MaxProperties != nil && *s.MaxProperties == 0 {
		return true
	}
	switch a := s.AdditionalProperties.(type) {
	case bool:
		if !a {
			return true
		}
	case *jsonschema.Schema:
		if !admitsAnything(a) {
			return true
		}
	}
	if s.UnevaluatedProperties != nil && !admitsAnything(s.UnevaluatedProperties) {
		return true
	}
	for _, b := range s.AllOf {
		if w.closes(b) {
			return true
		}
	}
	if s.Ref != nil && w.closes(s.Ref) {
		return true
	}
	if all(s.AnyOf, w.closes) || all(s.OneOf, w.closes) {
		return true
	}
	return s.If != nil && s.Then != nil && s.Else != nil && w.closes(s.Then) && w.closes(s.Else)
}

// all is true when list is not empty and every member satisfies f.
func all(list []*jsonschema.Schema, f func(*jsonschema.Schema) bool) bool {
	for _, s := range list {
		if !f(s) {
			return false
		}
	}
	return len(list) > 0
}

// objectType is jsonschema/v6's bit for "object" (its constants are
// unexported).
func objectType() jsonschema.Types {
	var t jsonschema.Types
	t.Add("object")
	return t
}

// declaresObject: s says something about objects, so an object it admits with
// a member it neither names nor checks is a claim the schema fails to keep.
func declaresObject(s *jsonschema.Schema) bool {
	if s.Types != nil && int(*s.Types)&int(objectType()) != 0 {
		return true
	}
	return s.Properties != nil || s.PatternProperties != nil || s.Required != nil ||
		s.PropertyNames != nil || s.MinProperties != nil || s.MaxProperties != nil ||
		s.AdditionalProperties != nil || s.UnevaluatedProperties != nil ||
		s.DependentRequired != nil || s.DependentSchemas != nil || s.Dependencies != nil
}

// admitsAnything: s checks nothing the compiled validator asserts (true, or a
// schema of annotations only: title, description, default, examples, and,
// when not asserted, format and content keywords, which the compiler then
// leaves unset).
func admitsAnything(s *jsonschema.Schema) bool {
	if s.Bool != nil {
		return *s.Bool
	}
	return s.Ref == nil && s.RecursiveRef == nil && s.DynamicRef == nil &&
		s.Types == nil && s.Enum == nil && s.Const == nil && s.Not == nil &&
		s.AllOf == nil && s.AnyOf == nil && s.OneOf == nil &&
		s.If == nil && s.Then == nil && s.Else == nil && s.Format == nil &&
		s.MaxProperties == nil && s.MinProperties == nil && s.Required == nil &&
		s.PropertyNames == nil && s.Properties == nil && s.PatternProperties == nil &&
		s.AdditionalProperties == nil && s.Dependencies == nil &&
		s.DependentRequired == nil && s.DependentSchemas == nil &&
		s.UnevaluatedProperties == nil &&
		s.MinItems == nil && s.MaxItems == nil && !s.UniqueItems && s.Contains == nil &&
		s.MinContains == nil && s.MaxContains == nil && s.Items == nil &&
		s.AdditionalItems == nil && s.PrefixItems == nil && s.Items2020 == nil &&
		s.UnevaluatedItems == nil &&
		s.MinLength == nil && s.MaxLength == nil && s.Pattern == nil &&
		s.ContentEncoding == nil && s.ContentMediaType == nil && s.ContentSchema == nil &&
		s.Maximum == nil && s.Minimum == nil && s.ExclusiveMaximum == nil &&
		s.ExclusiveMinimum == nil && s.MultipleOf == nil && s.Extensions == nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// displayLocation renders a compiled schema's Location for an error: the
// pointer under charge's display rules, prefixed with "#"; and, when the
// location is outside the tool's own document (a referenced schema file),
// that resource's URL, display-escaped and cut to openURLCut.
func displayLocation(loc, own string) string {
	base, frag, _ := strings.Cut(loc, "#")
	var tokens []string
	if frag != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			// v6 writes each RFC 6901 token URL-path-escaped.
			if u, err := url.PathUnescape(tok); err == nil {
				tok = u
			}
			tokens = append(tokens, strings.NewReplacer("~1", "/", "~0", "~").Replace(tok))
		}
	}
	p := "#" + charge.DisplayPointer(tokens)
	if base == own {
		return p
	}
	return charge.DisplayText(base, openURLCut) + p
}

// openError names every open tool in tools (except those in keep) with up to
// openPointersShown of its open locations, or is nil. Tool names are display
// escaped and cut to toolCut; schema text is never quoted.
func openError(tools map[string]*tool, keep map[string]bool) error {
	var lines []string
	names := sortedKeys(tools)
	for _, name := range names {
		if keep[name] {
			continue
		}
		t := tools[name]
		locs := openObjects(t.schema)
		if len(locs) == 0 {
			continue
		}
		own, _, _ := strings.Cut(t.schema.Location, "#")
		shown := make([]string, 0, openPointersShown)
		for _, l := range locs[:min(len(locs), openPointersShown)] {
			shown = append(shown, displayLocation(l, own))
		}
		line := `"` + charge.DisplayText(name, toolCut) + `" at ` + strings.Join(shown, ", ")
		if more := len(locs) - len(shown); more > 0 {
			line += " and " + strconv.Itoa(more) + " more"
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil
	}
	return fmt.Errorf("mcpvalidate: %d %s an open input schema (an object schema that admits a member it neither names nor checks, "+
		"which reaches the handler unvalidated): close each with \"additionalProperties\": false "+
		"(\"unevaluatedProperties\": false where allOf or $ref compose it), or name the tool in Options.OpenTools: %s",
		len(lines), plural(len(lines), "tool has", "tools have"), strings.Join(lines, "; "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// refuseOpen is New's check: every name in openTools has a published schema,
// and every other tool's schema is closed.
func refuseOpen(tools map[string]*tool, openTools []string) error {
	keep := make(map[string]bool, len(openTools))
	var unknown []string
	for _, name := range openTools {
		if _, ok := tools[name]; !ok {
			unknown = append(unknown, `"`+charge.DisplayText(name, toolCut)+`"`)
		}
		keep[name] = true
	}
	if len(unknown) > 0 {
		return fmt.Errorf("mcpvalidate: Options.OpenTools names %d %s no published input schema: %s",
			len(unknown), plural(len(unknown), "tool with", "tools with"), strings.Join(unknown, ", "))
	}
	return openError(tools, keep)
}
