package load

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/memmodel"
)

// Canary is put in caller values of every hostile shape: an answer holding
// these bytes echoed the caller. ASCII letters and a hyphen, which neither %q
// nor a JSON encoder rewrites, so an echo shows byte for byte.
const Canary = "BOUNDLAB-CANARY"

// Protocols the lab can speak. ProtocolNone sends no Mcp-Protocol-Version
// header, as a client of the first streamable-HTTP revision would: the go-sdk
// then assumes an old protocol and checks none of the 2026-07-28 headers, so
// it is what an attacker sends. Protocol20260728 adds the headers and _meta
// the go-sdk requires for that revision (Mcp-Method, Mcp-Name, the
// protocolVersion and clientCapabilities _meta fields).
const (
	ProtocolNone     = "none"
	Protocol20260728 = "2026-07-28"
)

// Shape is one request shape the lab sends.
type Shape struct {
	Name string
	What string
	// Hostile shapes are built at the body size under test (just under the
	// server's cap by default) and sent in the attack mix.
	Hostile bool
	// NodeBound: the shape is built at the arguments' node bound
	// (charge.DefaultLimits().MaxParamsNodes), whatever the body size under
	// test; its cost is per node, not per byte (see nodeBody).
	NodeBound bool
	// Trickle: the body is sent one byte at a time (see Config.TrickleEvery).
	Trickle bool
	// Canary: caller values carry Canary, so an echo is detectable.
	Canary bool
	// Valid: the call is meant to be served (a result, not a refusal).
	Valid bool
	// tool is the Mcp-Name header value on protocol 2026-07-28 ("" when the
	// body's name is not a string).
	tool string
	// parts builds the body around the filler: prefix, a filler of k units,
	// suffix; mid, when set, sits between two fillers of k units each (the
	// nesting shape's opening and closing brackets).
	prefix, unit, mid, unit2, suffix string
}

// ValidBytes is the size the valid call is built at: the "1 KB call".
const ValidBytes = 1024

// TrickleShape and ValidShape are the names of the two non-hostile shapes;
// NodeChainsShape the node-dense hostile one.
const (
	TrickleShape    = "slow-trickle"
	ValidShape      = "valid-1k"
	NodeChainsShape = "node-chains"
)

// Shapes are every shape the lab knows, hostile first.
func Shapes() []Shape {
	return []Shape{
		{Name: "echo-params", What: `params.name a number, arguments a string of DEL`, Hostile: true, Canary: true,
			prefix: `"name":1,"arguments":"` + Canary, unit: "\x7f", suffix: Canary + `"}}`},
		{Name: "maxlength", What: `knowledge.search query (maxLength 2000) of ASCII`, Hostile: true, Canary: true, tool: "knowledge.search",
			prefix: `"name":"knowledge.search","arguments":{"projectId":"demo","query":"` + Canary, unit: "a", suffix: `"}}}`},
		{Name: "dup-envelope", What: `params.name twice: a long string, then project.list`, Hostile: true, Canary: true, tool: "project.list",
			prefix: `"name":"` + Canary, unit: "a", suffix: `","name":"project.list","arguments":{}}}`},
		{Name: "dup-arguments", What: `knowledge.search with query twice: long, then short`, Hostile: true, Canary: true, tool: "knowledge.search",
			prefix: `"name":"knowledge.search","arguments":{"projectId":"demo","query":"` + Canary, unit: "a", suffix: `","query":"refusal"}}}`},
		{Name: "deep", What: `knowledge.search query nested in arrays to the cap`, Hostile: true, Canary: true, tool: "knowledge.search",
			prefix: `"name":"knowledge.search","arguments":{"projectId":"demo","query":`, unit: "[", mid: `"` + Canary + `"`, unit2: "]", suffix: `}}}`},
		{Name: "invalid-utf8", What: `knowledge.search query of the byte 0xFF`, Hostile: true, Canary: true, tool: "knowledge.search",
			prefix: `"name":"knowledge.search","arguments":{"projectId":"demo","query":"` + Canary, unit: "\xff", suffix: `"}}}`},
		{Name: NodeChainsShape, What: `knowledge.search, refused "n": ` + strconv.Itoa(memmodel.ChainDepth) + `-deep chains at the node bound`,
			Hostile: true, NodeBound: true, Canary: true, tool: "knowledge.search"},
		{Name: "trailing", What: `a valid project.list call, then bytes after it`, Hostile: true, Canary: true, tool: "project.list",
			prefix: `"name":"project.list","arguments":{}}}` + "\n" + Canary, unit: "x"},
		{Name: TrickleShape, What: `a valid project.list call sent one byte at a time`, Trickle: true, Valid: true, tool: "project.list",
			prefix: `"name":"project.list","arguments":{}}}`},
		{Name: ValidShape, What: `a valid ~1 KB knowledge.search call`, Valid: true, tool: "knowledge.search",
			prefix: `"name":"knowledge.search","arguments":{"projectId":"demo","query":"refusal`, unit: " refusal", suffix: `"}}}`},
	}
}

// ShapeNamed returns the shape called name.
func ShapeNamed(name string) (Shape, bool) {
	for _, s := range Shapes() {
		if s.Name == name {
			return s, true
		}
	}
	return Shape{}, false
}

// envelopeHead opens a tools/call up to the first params member.
func envelopeHead(protocol string) string {
	h := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`
	if protocol == Protocol20260728 {
		h += `"_meta":{"` + mcp.MetaKeyProtocolVersion + `":"` + Protocol20260728 + `","` + mcp.MetaKeyClientCapabilities + `":{}},`
	}
	return h
}

// Body builds the shape's body at n bytes (as close under n as the filler's
// unit allows; the fixed parts alone when n is smaller). Valid and trickle
// shapes ignore n: ValidBytes and the bare call; so do NodeBound shapes, which
// are built at the arguments' node bound.
func (s Shape) Body(n int, protocol string) []byte {
	if s.NodeBound {
		return nodeBody(protocol, 0)
	}
	if !s.Hostile {
		n = ValidBytes
	}
	head := envelopeHead(protocol) + s.prefix
	fixed := len(head) + len(s.mid) + len(s.suffix)
	k := 0
	if s.unit != "" && n > fixed {
		k = (n - fixed) / (len(s.unit) + len(s.unit2))
	}
	var b bytes.Buffer
	b.Grow(fixed + k*(len(s.unit)+len(s.unit2)))
	b.WriteString(head)
	writeRepeat(&b, s.unit, k)
	b.WriteString(s.mid)
	writeRepeat(&b, s.unit2, k)
	b.WriteString(s.suffix)
	return b.Bytes()
}

// The node-dense body: a knowledge.search call whose arguments hold, after a
// valid projectId and the canary as the query, a member "n" the schema
// refuses, an array of memmodel.NodeChain (ChainDepth one-member objects,
// each the member of the one before, around an empty one: the node kind that
// peaks highest per node on the guarded path, record
// memmodel.go.guarded.node-cost) repeated as often as the node bound leaves
// room for, then zeros to fill it exactly. The front gate counts the nodes
// and admits the body; the middleware's schema refuses "n" only after every
// layer has decoded it.
const (
	chainArgsHead = `{"projectId":"demo","query":"` + Canary + `","n":[`
	chainArgsTail = `]}`
	// chainFixedNodes are the nodes of the arguments around the chains: the
	// object, three member names, two string values and the array.
	chainFixedNodes = 7
)

// chainMembers is how many chains the arguments hold and how many zeros
// follow them to fill the node bound exactly.
func chainMembers() (chains, zeros int) {
	room := charge.DefaultLimits().MaxParamsNodes - chainFixedNodes
	return room / memmodel.NodeChain.Nodes, room % memmodel.NodeChain.Nodes
}

// nodeBody is the node-dense body with extra zeros (nodes) past the bound:
// 0 for the shape, 1 for the test that the gate refuses one node more.
func nodeBody(protocol string, extra int) []byte {
	chains, zeros := chainMembers()
	zeros += extra
	head := envelopeHead(protocol) + `"name":"knowledge.search","arguments":` + chainArgsHead
	var b bytes.Buffer
	b.Grow(len(head) + chains*(len(memmodel.NodeChain.JSON)+1) + 2*zeros + len(chainArgsTail) + 2)
	b.WriteString(head)
	for i := range chains + zeros {
		if i > 0 {
			b.WriteByte(',')
		}
		if i < chains {
			b.WriteString(memmodel.NodeChain.JSON)
		} else {
			b.WriteByte('0')
		}
	}
	b.WriteString(chainArgsTail + "}}")
	return b.Bytes()
}

func writeRepeat(b *bytes.Buffer, unit string, k int) {
	if unit == "" || k == 0 {
		return
	}
	chunk := strings.Repeat(unit, min(k, 4096))
	for k > 0 {
		m := min(k, 4096)
		b.WriteString(chunk[:m*len(unit)])
		k -= m
	}
}

// SetHeaders sets what a stateless streamable-HTTP POST of this shape needs.
func (s Shape) SetHeaders(h http.Header, protocol string) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if protocol == Protocol20260728 {
		h.Set("Mcp-Protocol-Version", Protocol20260728)
		h.Set("Mcp-Method", "tools/call")
		if s.tool != "" {
			h.Set("Mcp-Name", s.tool)
		}
	}
}

func checkProtocol(p string) error {
	if p != ProtocolNone && p != Protocol20260728 {
		return fmt.Errorf("protocol %q: want %s or %s", p, ProtocolNone, Protocol20260728)
	}
	return nil
}
