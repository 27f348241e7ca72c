package memmodel

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
)

// Segment is Count copies of one code point, in order.
type Segment struct {
	R     rune
	Count int
}

// Verdict is what the schema would answer a shape that passes the charge.
type Verdict uint8

const (
	// Refuses: the large leaf fails a keyword that renders the instance
	// (jsonschema's maxLength: f"{instance!r} is too long"), so a shape the
	// charge admits is family (ii).
	Refuses Verdict = iota + 1
	// Accepts: the schema admits the shape, so a shape the charge admits is
	// family (iii) and nothing renders.
	Accepts
)

// Shape is a request body the lab builds: one tools/call whose arguments hold
// a context member and one large string leaf made of segments, in order.
type Shape struct {
	Name     string
	Segments []Segment
	Encoder  charge.Encoder // how the client put the leaf on the wire: Raw or EnsureASCII
	Verdict  Verdict
	Frame    Frame       // the bytes around the leaf; the zero value is a well-formed call
	Node     NodeLiteral // FrameNodes' array member; set with FrameNodes only
}

// Frame is what a body puts around its leaf. Every frame but FrameCall is a
// hostile envelope the front gate refuses before the SDK decodes it; the
// CPython model prices FrameCall bodies only.
type Frame uint8

const (
	// FrameCall is a well-formed knowledge.search call.
	FrameCall Frame = iota
	// FrameEcho makes params.name a number: the go-sdk echoes such a body's
	// params into its error answer (issue 9's 5.00x answer).
	FrameEcho
	// FrameDupName repeats "query" after the leaf inside the arguments.
	FrameDupName
	// FrameInvalidUTF8 puts one 0xFF byte in front of the leaf.
	FrameInvalidUTF8
	// FrameNodes is a well-formed call whose arguments add an array after
	// the leaf, made of the shape's NodeLiteral repeated up to the
	// arguments' node bound (charge.DefaultLimits().MaxParamsNodes). The
	// front gate admits it; the schema refuses the extra member only after
	// every layer has decoded it.
	FrameNodes
)

// NodeLiteral is one member of FrameNodes' array, as JSON, and the nodes the
// front gate counts in it (containers, member names and values).
type NodeLiteral struct {
	JSON  string
	Nodes int
}

// The node kinds a node-dense body is made of. Per node at the node bound
// an empty array costs more than a zero, an empty object more again, a
// one-member object more still, and a chain of one-member objects, each the
// member of the one before, the most (record memmodel.go.guarded.node-cost):
// a Go map with one entry holds a whole group of slots, and a chain makes
// one for every two nodes (an object and its member name). The middleware's
// own decode is most of it; the go-sdk's decodes add the rest.
var (
	NodeZero   = NodeLiteral{"0", 1}
	NodeObject = NodeLiteral{"{}", 1}
	NodeArray  = NodeLiteral{"[]", 1}
	NodeMember = NodeLiteral{`{"a":0}`, 3}
	NodeChain  = NodeLiteral{strings.Repeat(`{"":`, ChainDepth) + "{}" + strings.Repeat("}", ChainDepth), 2*ChainDepth + 1}
)

// ChainDepth is NodeChain's one-member objects around its empty one: the
// costliest depth measured per node on the guarded path (depths 4, 8 and
// 32, measured with `measure-go --row` on a throwaway build, peaked lower).
const ChainDepth = 16

// nodesRoom is the nodes FrameNodes' array may hold: the node bound less the
// arguments object, its three member names, its two string values and the
// array itself.
var nodesRoom = charge.DefaultLimits().MaxParamsNodes - 7

// Members is how many n FrameNodes' array holds, and how many zeros follow
// them to fill the node bound exactly when n's nodes do not divide it.
func (n NodeLiteral) Members() (count, zeros int) {
	return nodesRoom / n.Nodes, nodesRoom % n.Nodes
}

// array is FrameNodes' member, from its name's closing quote on.
func (n NodeLiteral) array() string {
	count, zeros := n.Members()
	members := strings.Repeat(n.JSON+",", count) + strings.Repeat("0,", zeros)
	return `","n":[` + members[:len(members)-1] + `]`
}

// frameBytes are a frame's envelope and arguments prefixes and suffixes.
type frameBytes struct{ envPrefix, envSuffix, argsPrefix, argsSuffix string }

func (f Frame) bytes(n NodeLiteral) frameBytes {
	b := frameBytes{envelopePrefix, envelopeSuffix, argsPrefix, argsSuffix}
	switch f {
	case FrameEcho:
		b.envPrefix = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1,"arguments":` + argsPrefix
	case FrameDupName:
		b.envSuffix, b.argsSuffix = `","query":"x"}}}`, `","query":"x"}`
	case FrameInvalidUTF8:
		b.envPrefix, b.argsPrefix = envelopePrefix+"\xff", argsPrefix+"\xff"
	case FrameNodes:
		a := n.array()
		b.envSuffix, b.argsSuffix = a+"}}}", a+"}"
	}
	return b
}

// String names the frame.
func (f Frame) String() string {
	switch f {
	case FrameCall:
		return "call"
	case FrameEcho:
		return "params.name a number"
	case FrameDupName:
		return "duplicate name in the arguments"
	case FrameInvalidUTF8:
		return "one invalid UTF-8 byte before the leaf"
	case FrameNodes:
		return "an array at the arguments' node bound after the leaf"
	}
	return "frame(" + strconv.Itoa(int(f)) + ")"
}

// The envelope around the leaf: a knowledge.search call as the seed's
// request path receives it.
const (
	envelopePrefix = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"knowledge.search","arguments":{"projectId":"demo","query":"`
	envelopeSuffix = `"}}}`
	argsPrefix     = `{"projectId":"demo","query":"`
	argsSuffix     = `"}`
)

// EnvelopeBytes is what the body adds around the leaf's wire bytes.
const EnvelopeBytes = len(envelopePrefix) + len(envelopeSuffix)

// Stats are the quantities the model prices a shape by.
type Stats struct {
	Wire        int64 // the whole body, bytes on the wire
	ArgsWire    int64 // the arguments object's bytes (what middleware receives)
	LeafWire    int64 // the leaf's wire bytes, without quotes
	Landed      int64 // the leaf's UTF-8 bytes once decoded (L)
	CodePoints  int64 // the leaf's code points (N)
	Kind        int   // PEP 393 kind of the parsed leaf: 1, 2 or 4 bytes per code point
	Kinds       []int // the running maximum of the kind, in order: the widenings a decoder makes
	Rendered    int64 // repr(leaf) width without its quotes, charge.Python.StringWidth
	ReprKind    int   // PEP 393 kind of repr(leaf): the widest code point repr leaves raw
	MaxRuneRepr int   // the widest one code point renders at, in characters
	Charge      int64 // the charge.Python charge of the arguments (names and leaves)
	Printable   bool  // every leaf code point renders as itself (the charge's fast path)
	GoRendered  int64 // charge.Go width of the leaf (what jsonschema/v6 would render), bytes
}

// PEP393Kind is the bytes per code point CPython stores a string whose widest
// code point is r in.
func PEP393Kind(r rune) int {
	switch {
	case r < 0x100:
		return 1
	case r < 0x10000:
		return 2
	}
	return 4
}

// Validate refuses shapes the model cannot price.
func (s Shape) Validate() error {
	if s.Encoder != charge.Raw && s.Encoder != charge.EnsureASCII {
		return fmt.Errorf("shape %s: encoder %v is not raw or ensure_ascii", s.Name, s.Encoder)
	}
	if s.Frame > FrameNodes {
		return fmt.Errorf("shape %s: unknown frame", s.Name)
	}
	if (s.Frame == FrameNodes) != (s.Node.Nodes > 0) {
		return fmt.Errorf("shape %s: a node literal goes with the nodes frame, and only with it", s.Name)
	}
	if s.Verdict != Refuses && s.Verdict != Accepts {
		return fmt.Errorf("shape %s: no verdict", s.Name)
	}
	for i, g := range s.Segments {
		if g.Count < 0 {
			return fmt.Errorf("shape %s: segment %d has a negative count", s.Name, i)
		}
		if !utf8.ValidRune(g.R) {
			return fmt.Errorf("shape %s: segment %d is not a Unicode scalar value", s.Name, i)
		}
		if g.R < 0x20 {
			return fmt.Errorf("shape %s: segment %d is a C0 control, which the model does not price", s.Name, i)
		}
	}
	return nil
}

// Stats computes the shape's quantities by arithmetic over its segments; a
// test holds them equal to the built body's, through the charge gate.
func (s Shape) Stats() Stats {
	var st Stats
	st.Kind, st.ReprKind, st.Printable = 1, 1, true
	st.Kinds = []int{1}
	singles, doubles := int64(0), false
	for _, g := range s.Segments {
		if g.Count == 0 {
			continue
		}
		n := int64(g.Count)
		st.LeafWire += n * int64(s.Encoder.RuneWireBytes(g.R))
		st.Landed += n * int64(utf8.RuneLen(g.R))
		st.CodePoints += n
		k := PEP393Kind(g.R)
		if k > st.Kind {
			st.Kind = k
			st.Kinds = append(st.Kinds, k)
		}
		w := charge.Python.RuneWidth(g.R)
		st.Rendered += n * int64(w)
		st.GoRendered += n * int64(charge.Go.RuneWidth(g.R))
		st.MaxRuneRepr = max(st.MaxRuneRepr, w)
		cls := charge.Python.RuneClass(g.R)
		if cls == charge.Printable || cls == charge.Quote {
			st.ReprKind = max(st.ReprKind, k)
		}
		if cls != charge.Printable {
			st.Printable = false
		}
		switch g.R {
		case '\'':
			singles += n
		case '"':
			doubles = true
		}
	}
	if doubles {
		st.Rendered += singles // repr escapes every ' when it delimits with '
	}
	fb := s.Frame.bytes(s.Node)
	st.Wire = int64(len(fb.envPrefix)+len(fb.envSuffix)) + st.LeafWire
	st.ArgsWire = int64(len(fb.argsPrefix)+len(fb.argsSuffix)) + st.LeafWire
	st.Charge = int64(charge.Python.StringWidth("projectId")+charge.Python.StringWidth("demo")+
		charge.Python.StringWidth("query")) + st.Rendered
	return st
}

// Body builds the request body.
func (s Shape) Body() []byte {
	st := s.Stats()
	fb := s.Frame.bytes(s.Node)
	b := make([]byte, 0, st.Wire)
	b = append(b, fb.envPrefix...)
	b = s.appendLeaf(b)
	return append(b, fb.envSuffix...)
}

// Arguments builds the arguments object alone: the bytes a go-sdk middleware
// receives as CallToolParamsRaw.Arguments.
func (s Shape) Arguments() []byte {
	st := s.Stats()
	fb := s.Frame.bytes(s.Node)
	b := make([]byte, 0, st.ArgsWire)
	b = append(b, fb.argsPrefix...)
	b = s.appendLeaf(b)
	return append(b, fb.argsSuffix...)
}

func (s Shape) appendLeaf(b []byte) []byte {
	var one []byte
	for _, g := range s.Segments {
		one = appendWire(one[:0], g.R, s.Encoder)
		for i := 0; i < g.Count; i++ {
			b = append(b, one...)
		}
	}
	return b
}

// appendWire writes r as encoder e puts it inside a JSON string.
func appendWire(b []byte, r rune, e charge.Encoder) []byte {
	switch r {
	case '"':
		return append(b, `\"`...)
	case '\\':
		return append(b, `\\`...)
	}
	if e == charge.EnsureASCII && r >= 0x7f {
		if r >= 0x10000 {
			r -= 0x10000
			b = appendU(b, 0xd800+(r>>10))
			return appendU(b, 0xdc00+(r&0x3ff))
		}
		return appendU(b, r)
	}
	return utf8.AppendRune(b, r)
}

func appendU(b []byte, r rune) []byte {
	h := strconv.FormatInt(int64(r), 16)
	return append(append(b, `\u`...), strings.Repeat("0", 4-len(h))+h...)
}

// Describe is the shape's instance, written out: segments in order.
func (s Shape) Describe() string {
	var parts []string
	for _, g := range s.Segments {
		if g.Count == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("U+%04X x %d", g.R, g.Count))
	}
	v := "schema refuses (maxLength)"
	if s.Verdict == Accepts {
		v = "schema accepts"
	}
	switch s.Frame {
	case FrameCall:
	case FrameNodes:
		count, zeros := s.Node.Members()
		v += fmt.Sprintf("; an array of %d x %s", count, s.Node.JSON)
		if zeros > 0 {
			v += fmt.Sprintf(" and %d x 0", zeros)
		}
		v += " after the leaf (the arguments' node bound)"
	default:
		v += "; hostile envelope: " + s.Frame.String()
	}
	return fmt.Sprintf("knowledge.search query = %s; %s-encoded; %s", strings.Join(parts, " + "), s.Encoder, v)
}
