package reference

import (
	"encoding/json"
	"strings"

	"github.com/theurian/boundlab/charge"
)

// Crossing is where a token-by-token walk of a document first passes one of
// a gate's counted bounds: the bound, and the byte span [Start, End) of the
// token that passed it.
type Crossing struct {
	Bound      charge.Bound
	Start, End int
}

// FirstCrossing walks doc, a whole JSON document, with encoding/json's
// Decoder token by token, counting as the gate's Limits describe — a node per
// container, name and value; a level per container; each number token's
// length and written exponent; each name's and leaf's reference render — and
// reports the first token that passes a bound, checked in the order the gate
// checks a token's bounds (nodes, nesting, number length, exponent, charge).
// ok is false when doc stays within l, or encoding/json cannot walk it.
//
// It is slow and knows nothing of the gate's scan: no chunks, no fast paths.
// The gate's refusal must name the same bound inside the same token.
func FirstCrossing(d charge.Dialect, doc []byte, l charge.Limits) (c Crossing, ok bool) {
	dec := json.NewDecoder(strings.NewReader(string(doc)))
	dec.UseNumber()
	type open struct {
		object  bool
		wantKey bool
	}
	var stack []open
	var nodes int
	var spent int64
	prev := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return Crossing{}, false // the end, or not a document to walk
		}
		end := int(dec.InputOffset())
		start := prev
		for start < end && strings.IndexByte(" \t\r\n,:", doc[start]) >= 0 {
			start++
		}
		prev = end
		cross := func(b charge.Bound) (Crossing, bool) { return Crossing{b, start, end}, true }
		if dl, isDelim := tok.(json.Delim); isDelim && (dl == '}' || dl == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		isKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].wantKey
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantKey = !isKey
		}
		if nodes++; nodes > l.MaxParamsNodes {
			return cross(charge.BoundNodes)
		}
		switch v := tok.(type) {
		case json.Delim:
			if len(stack)+1 > l.MaxParamsNesting {
				return cross(charge.BoundNesting)
			}
			stack = append(stack, open{object: v == '{', wantKey: true})
			continue
		case json.Number:
			lit := string(v)
			if len(lit) > l.MaxNumberBytes {
				return cross(charge.BoundNumberBytes)
			}
			if i := strings.IndexAny(lit, "eE"); i >= 0 && exponentPast(lit[i+1:], l.MaxNumberExponent) {
				return cross(charge.BoundNumberExponent)
			}
		}
		var w int64
		switch v := tok.(type) {
		case string:
			if isKey {
				w = Width(d, Name(d, v)) - 2
			} else {
				w = Width(d, String(d, v)) - 2
			}
		default:
			w = Width(d, leaf(d, v))
		}
		if spent += w; spent > l.MaxParamsRenderedChars {
			return cross(charge.BoundCharge)
		}
	}
}

// exponentPast reports whether a written exponent ([+-]digits) is larger in
// magnitude than limit.
func exponentPast(exp string, limit int) bool {
	exp = strings.TrimLeft(exp, "+-")
	exp = strings.TrimLeft(exp, "0")
	if len(exp) > 9 {
		return true
	}
	n := 0
	for _, c := range exp {
		n = n*10 + int(c-'0')
	}
	return n > limit
}
