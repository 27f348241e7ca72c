package main

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
)

// jsonFields names the members of the JSON that encoding/json writes for v's
// type, for a verb's help: each member by its name, an object's members in
// braces after it, an array's element after [] (name[]{a, b}), a map's value
// after {KEY: ...}; an object of a type already spelled out is written
// {as NAME}, after the member that spelled it out. Read from the type
// itself, so the help cannot drift from what --json prints. A type that
// marshals itself is a leaf.
func jsonFields(v any) string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s := &shaper{open: map[reflect.Type]bool{}, named: map[reflect.Type]string{}}
	if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		return "an array of {" + strings.Join(s.members(t.Elem()), ", ") + "}"
	}
	return strings.Join(s.members(t), ", ")
}

// shaper spells out each struct type once.
type shaper struct {
	open  map[reflect.Type]bool   // being spelled out: a type within itself
	named map[reflect.Type]string // spelled out already, after this member
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// leaf says whether t is written as one JSON value with no members.
func leaf(t reflect.Type) bool {
	if t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) ||
		t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
		return true
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return false
	case reflect.Slice, reflect.Array:
		return t.Elem().Kind() == reflect.Uint8 // base64 text
	}
	return true
}

// shape is what follows a member's name: "" for a leaf, {…} for an object,
// []… for an array.
func (s *shaper) shape(name string, t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if leaf(t) {
		return ""
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "[]" + s.shape(name, t.Elem())
	case reflect.Map:
		if v := s.shape(name, t.Elem()); v != "" {
			return "{KEY: " + v + "}"
		}
		return "{KEY: value}"
	case reflect.Interface:
		return ""
	}
	if s.open[t] {
		return "{…}" // a type within itself
	}
	if first, ok := s.named[t]; ok {
		return "{as " + first + "}"
	}
	s.open[t] = true
	defer delete(s.open, t)
	out := "{" + strings.Join(s.members(t), ", ") + "}"
	s.named[t] = name
	return out
}

// members are a struct's JSON members as encoding/json names them, an
// embedded struct's promoted into it.
func (s *shaper) members(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return []string{"value"}
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct && !leaf(ft) {
			out = append(out, s.members(ft)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name+s.shape(name, f.Type))
	}
	return out
}
