package main

import (
	"encoding/json"
	"testing"
	"time"
)

type shapeInner struct {
	A int    `json:"a"`
	B string `json:"b,omitempty"`
}

type shapeEmbedded struct {
	E1 int `json:"e1"`
}

type shapeSelf struct {
	Name string      `json:"name"`
	Kids []shapeSelf `json:"kids"`
}

type shapeOuter struct {
	shapeEmbedded
	Plain    int                   `json:"plain"`
	Untagged string                // encoding/json names it by the field
	Skipped  string                `json:"-"`
	hidden   int                   // unexported: not written
	Ptr      *shapeInner           `json:"ptr"`
	List     []shapeInner          `json:"list"`
	Again    shapeInner            `json:"again"`
	Scalars  []string              `json:"scalars"`
	Bytes    []byte                `json:"bytes"`
	Map      map[string]shapeInner `json:"map"`
	Counts   map[string]int        `json:"counts"`
	When     time.Time             `json:"when"`
	Raw      json.RawMessage       `json:"raw"`
	Any      any                   `json:"any"`
	Tree     shapeSelf             `json:"tree"`
}

func TestJSONFields(t *testing.T) {
	_ = shapeOuter{}.hidden
	for _, c := range []struct {
		name string
		v    any
		want string
	}{
		{"the members of a struct, nested", shapeOuter{},
			"e1, plain, Untagged, ptr{a, b}, list[]{as ptr}, again{as ptr}, scalars[], bytes, map{KEY: {as ptr}}, counts{KEY: value}, " +
				"when, raw, any, tree{name, kids[]{…}}"},
		{"a pointer is its element", &shapeInner{}, "a, b"},
		{"an array of objects", []shapeInner{}, "an array of {a, b}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := jsonFields(c.v); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
