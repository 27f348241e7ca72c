package mcpvalidate

import (
	"encoding/json"
	"errors"
	"sync"
	"unsafe"

	"github.com/theurian/boundlab/charge"
)

// The decode stage turns arguments the gate has admitted into the tree
// jsonschema/v6 validates: map[string]any, []any, string, json.Number, bool
// and nil — the values encoding/json gives with UseNumber, value for value.
//
// The gate has already checked everything a decoder checks (syntax, UTF-8,
// escapes and surrogates, duplicate names, number grammar, nesting), so this
// one checks nothing again: it reads structure, and refuses only what it
// cannot read at all (errNotDecoded), which the gate never admits. On a
// document the gate did not admit its tree is undefined, but it never panics,
// never loops, and never recurses past its nesting bound.
//
// What it allocates is the tree and nothing else, each piece at its exact
// size:
//
//   - a string without escapes is not copied: it aliases the arguments (see
//     tree below for why that is safe);
//   - a string with escapes is allocated once at its decoded length
//     (charge.StringSpan) and decoded into place by the gate's own escape
//     decoder (charge.AppendUnescaped);
//   - an object's members and an array's elements are collected on a pooled
//     stack and the map or slice is made once, at its final size (a document
//     holding more than keepStack entries open at once grows that stack once,
//     to the most entries the rest of the document can put on it (stackCap),
//     the one allocation besides the tree; an array that fills most of such
//     a stack takes it as its slice, ownsStack);
//   - every string and number leaf is boxed in an interface (16 bytes), as
//     any decoder into any does.

// errNotDecoded is the decode stage's one error. It holds no caller byte.
var errNotDecoded = errors.New("mcpvalidate: arguments the gate admitted could not be decoded")

// member is one decoded object member on the decoder's stack.
type member struct {
	name  string
	value any
}

// decoder is one decode's state; decoders are pooled with their stacks.
type decoder struct {
	doc      []byte
	pos      int
	depth    int
	maxDepth int
	nodes    int      // the gate's count of doc's nodes; 0 if not known
	members  []member // the open objects' members, innermost last
	items    []any    // the open arrays' elements, innermost last
}

// keepStack is the most stack entries a pooled decoder keeps between calls:
// a call with more members or elements open at once grows its own, once
// (stackCap).
const keepStack = 1024

// The fewest bytes a stack entry takes in the document, with the separator
// or bracket before it: an element `,0`, a member `,"":0`. The entries on a
// stack at once are disjoint values (an entry is pushed only once its value
// is complete, and a container's own entries are popped when it closes), so
// the entries yet to be pushed fit in the bytes left at this many each.
const (
	itemBytes   = 2
	memberBytes = 5
)

// minStack is the capacity a stack starts at.
const minStack = 8

// stackCap is the capacity a full stack of n entries grows to. Below
// keepStack it doubles (from minStack, up to keepStack), as append would.
// From keepStack on it grows once, to what the document can still put on
// it: n, the entry being pushed, and one entry per perEntry bytes left, or
// limit (the most entries the gate's node count allows on this stack) when
// that is lower and leaves room for the entry being pushed. Growing there at
// once, rather than as append does, is what keeps a node-dense document's
// peak at its stack and its tree: append grows a large slice by a quarter at
// a time, and its copies' garbage, about four times the final stack, is
// live beside it until the collector runs.
func stackCap(n, bytesLeft, perEntry, limit int) int {
	if n < keepStack {
		return min(max(2*n, minStack), keepStack)
	}
	c := n + 1 + bytesLeft/perEntry
	if limit > n && limit < c {
		c = limit
	}
	return c
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

// tree decodes doc, a document the gate admitted under a nesting bound of
// maxDepth, into the value jsonschema/v6 validates. nodes is the gate's
// count of doc's nodes (charge.Report.Nodes), 0 if not known; it only
// bounds how far a stack grows, never what is decoded.
//
// Strings without escapes alias doc, so the tree is only valid while doc is
// not written to, and must not outlive the call that decoded it. Check keeps
// both: the tree lives only inside Check, nothing it returns or hands to a
// hook holds a string of the tree (a refusal's pointers are fresh copies,
// display-escaped and cut), and doc is the caller's arguments, which Check,
// like any function that takes a []byte, reads only during the call. The
// pooled stacks are cleared as each container closes, so a pooled decoder
// holds no reference into doc either.
func tree(doc []byte, maxDepth, nodes int) (any, error) {
	d := decoders.Get().(*decoder)
	v, ok := d.decode(doc, maxDepth, nodes)
	d.release()
	if !ok {
		return nil, errNotDecoded
	}
	return v, nil
}

// decode decodes the one value doc holds (white space around it allowed).
func (d *decoder) decode(doc []byte, maxDepth, nodes int) (any, bool) {
	d.doc, d.pos, d.depth, d.maxDepth, d.nodes = doc, 0, 0, maxDepth, nodes
	v, ok := d.value()
	if ok {
		d.space()
		ok = d.pos == len(doc)
	}
	return v, ok
}

// release clears what the decode left on the stacks (only an aborted one
// leaves anything) and pools the decoder unless its stacks grew past
// keepStack, reporting whether it did.
func (d *decoder) release() bool {
	clear(d.members)
	clear(d.items)
	d.doc, d.members, d.items = nil, d.members[:0], d.items[:0]
	if cap(d.members) > keepStack || cap(d.items) > keepStack {
		return false
	}
	decoders.Put(d)
	return true
}

func (d *decoder) space() {
	for d.pos < len(d.doc) {
		switch d.doc[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value decodes the value at d.pos (after any white space).
func (d *decoder) value() (any, bool) {
	d.space()
	if d.pos >= len(d.doc) {
		return nil, false
	}
	switch c := d.doc[d.pos]; c {
	case '{':
		return d.object()
	case '[':
		return d.array()
	case '"':
		s, ok := d.str()
		return s, ok
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 'n':
		return nil, d.literal("null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return d.number(), true
		}
		return nil, false
	}
}

func (d *decoder) literal(lit string) bool {
	if len(d.doc)-d.pos < len(lit) || string(d.doc[d.pos:d.pos+len(lit)]) != lit {
		return false
	}
	d.pos += len(lit)
	return true
}

// number takes the token at d.pos as it is written: the gate has checked its
// grammar, length and exponent.
func (d *decoder) number() json.Number {
	start := d.pos
	for d.pos < len(d.doc) {
		switch d.doc[d.pos] {
		case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '-', '+', '.', 'e', 'E':
			d.pos++
			continue
		}
		break
	}
	return json.Number(d.alias(start, d.pos))
}

// alias is doc[from:to] as a string sharing doc's bytes.
func (d *decoder) alias(from, to int) string {
	if from == to {
		return ""
	}
	return unsafe.String(&d.doc[from], to-from)
}

// str decodes the string whose opening quote is at d.pos.
func (d *decoder) str() (string, bool) {
	start := d.pos + 1
	end, n := charge.StringSpan(d.doc, start)
	if end < 0 {
		return "", false
	}
	d.pos = end + 1
	if n == end-start {
		return d.alias(start, end), true // no escape: every escape is longer than what it stands for
	}
	buf := charge.AppendUnescaped(make([]byte, 0, n), d.doc[start:end])
	if len(buf) != n {
		return "", false // not reached: StringSpan and AppendUnescaped share the gate's rule
	}
	// buf is this string's own, never written again.
	return unsafe.String(unsafe.SliceData(buf), n), true
}

// object decodes the object whose { is at d.pos.
func (d *decoder) object() (any, bool) {
	if d.depth++; d.depth > d.maxDepth {
		return nil, false
	}
	d.pos++
	d.space()
	if d.pos < len(d.doc) && d.doc[d.pos] == '}' {
		d.pos++
		d.depth--
		return map[string]any{}, true
	}
	base := len(d.members)
	for {
		d.space()
		if d.pos >= len(d.doc) || d.doc[d.pos] != '"' {
			return nil, false
		}
		name, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.pos >= len(d.doc) || d.doc[d.pos] != ':' {
			return nil, false
		}
		d.pos++
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		if n := len(d.members); n == cap(d.members) {
			// A member is two nodes: its name and its value.
			d.members = append(make([]member, 0, stackCap(n, len(d.doc)-d.pos, memberBytes, d.nodes/2)), d.members...)
		}
		d.members = append(d.members, member{name, v})
		d.space()
		if d.pos >= len(d.doc) {
			return nil, false
		}
		c := d.doc[d.pos]
		d.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			return nil, false
		}
	}
	ms := d.members[base:]
	m := make(map[string]any, len(ms))
	for _, e := range ms {
		m[e.name] = e.value
	}
	clear(ms)
	d.members = d.members[:base]
	d.depth--
	return m, true
}

// array decodes the array whose [ is at d.pos.
func (d *decoder) array() (any, bool) {
	if d.depth++; d.depth > d.maxDepth {
		return nil, false
	}
	d.pos++
	d.space()
	if d.pos < len(d.doc) && d.doc[d.pos] == ']' {
		d.pos++
		d.depth--
		return []any{}, true
	}
	base := len(d.items)
	for {
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		if n := len(d.items); n == cap(d.items) {
			d.items = append(make([]any, 0, stackCap(n, len(d.doc)-d.pos, itemBytes, d.nodes)), d.items...)
		}
		d.items = append(d.items, v)
		d.space()
		if d.pos >= len(d.doc) {
			return nil, false
		}
		c := d.doc[d.pos]
		d.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			return nil, false
		}
	}
	d.depth--
	if n := len(d.items); ownsStack(base, n, cap(d.items)) {
		a := d.items[:n:n]
		d.items = nil
		return a, true
	}
	a := make([]any, len(d.items)-base)
	copy(a, d.items[base:])
	clear(d.items[base:])
	d.items = d.items[:base]
	return a, true
}

// ownsStack reports whether an array closing with its elements at [base:n]
// of an elements stack of capacity c takes the stack as its slice instead
// of a copy: when they are the whole stack (base 0: no enclosing array's
// elements below them, which the decoder still needs), the stack grew past
// keepStack (so it is this call's own: release never pools it), and at most
// an eighth of it is left over. The copy would be live beside the stack
// until the decode ends, so taking the stack takes the array's size off the
// decode's peak; what it leaves unused (c-n slots, empty) lives on with the
// tree, at most n/8. The decoder starts a new stack if another element
// comes.
func ownsStack(base, n, c int) bool {
	return base == 0 && c > keepStack && 8*(c-n) <= n
}
