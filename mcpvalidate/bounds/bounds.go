// Package bounds states the figures mcpvalidate is built on: what a
// request, a session, a stream and a connection are weighed at, the bounds
// of a JSON-RPC envelope, the cuts of a refusal, and the default of every
// option. They are constants to read and size by, not settings: configure
// through mcpvalidate's Options and HTTPOptions, whose zero fields take the
// defaults here.
//
// The weights are measured costs rounded up, not derivations: boundlab's
// memory lab re-measures them (records memmodel.go.guarded.* and
// memmodel.go.state.*) and its verify fails when a measured row exceeds its
// weight, which is then raised, never the other way.
package bounds

import (
	"time"

	"github.com/theurian/boundlab/charge"
)

// What the front gate weighs a request at before reading it: the most
// memory one request through the guarded path (front gate, go-sdk streamable
// HTTP handler, middleware) holds at once, as a fixed cost, a cost per wire
// byte and a cost per JSON node. They are boundlab's measured figures rounded
// up, not derivations: the memory lab's guarded rows (records
// memmodel.go.guarded.*) are re-checked against Request by `boundlab
// verify`, which fails when a measured row peaks above the weight.
const (
	// PeakFactor is the cost per wire byte. The worst measured single-leaf
	// row peaks under 8x (record memmodel.go.guarded.peak-factor) and the
	// same row has measured up to 10x across fresh processes.
	PeakFactor = 11
	// FixedCost is what a request costs whatever its size: the go-sdk
	// builds a session per stateless request (record
	// memmodel.go.guarded.fixed-cost: under 300 KiB for a 1 KB call).
	FixedCost = 512 << 10
	// NodeCost is the cost per JSON node the SDK and the middleware decode,
	// priced from the costliest node kind measured: a chain of one-member
	// objects at the node bound, about 186 bytes a node, its whole peak
	// counted (record memmodel.go.guarded.node-cost, row chains-at-bound;
	// zeros cost about 50). It keeps at least the margin PeakFactor keeps
	// over its row (TestNodeCostKeepsThePeakFactorsMargin); 288 was the
	// smallest multiple of 32 that did when it was priced.
	NodeCost = 288
)

// Request is what a request with a body of n bytes is weighed at under
// limits l: FixedCost + PeakFactor×n + NodeCost × the most nodes such a body
// can hold (one per two bytes, at most the arguments' node bound plus
// MaxEnvelopeNodes).
func Request(n int64, l charge.Limits) int64 {
	n = max(n, 0)
	nodes := min(n/2+1, int64(l.MaxParamsNodes)+MaxEnvelopeNodes)
	return FixedCost + PeakFactor*n + NodeCost*nodes
}

// Baseline is what a process serving MCP holds besides what the budgets
// weigh — the runtime, the SDK, the server's own state, the listener — as
// the stated ceiling counts it (mcpvalidate's Handler.Ceiling). The load lab
// measures the real peak against the ceiling (records load.*).
const Baseline = 64 << 20

// Stdio is the most memory one stdio connection with frame cap frameCap
// holds under limits l, beside Baseline: its in-flight budget (the requests
// handed to the SDK and not yet answered — one at the frame cap and
// DefaultSmallReserve of small ones — weighed as Request weighs them), the
// line the gate holds while it waits for room, and the go-sdk's line
// decoder (encoding/json's), which keeps a buffer of up to twice its
// longest line and 512 bytes for the connection's life. A line is at most
// frameCap bytes and a CRLF.
func Stdio(frameCap int64, l charge.Limits) int64 {
	line := frameCap + 2
	return Request(frameCap, l) + DefaultSmallReserve + 3*line + 512
}

// Envelope bounds: what the front gate holds a JSON-RPC message's frame to.
// The go-sdk decodes the frame with case-sensitive member matching, last
// duplicate winning; the gate refuses every duplicate, so the two read one
// meaning.
const (
	// MaxEnvelopeMembers bounds the members of the message object and of its
	// params object. JSON-RPC defines four; MCP's tools/call params five.
	MaxEnvelopeMembers = 32
	// MaxEnvelopeNameBytes bounds one raw member name of those two objects.
	MaxEnvelopeNameBytes = 128
	// MaxMethodBytes bounds the method name (MCP's longest is 38 bytes).
	MaxMethodBytes = 128
	// MaxIDBytes bounds a string id's raw token, quotes included; a number id
	// is an integer of at most 16 digits, |id| <= 2^53-1, which the go-sdk's
	// float64 decoding holds exactly.
	MaxIDBytes = 128
	// MaxToolNameBytes bounds a tools/call's params.name, raw.
	MaxToolNameBytes = 256
	// MaxOtherParamsBytes bounds the params of every request but tools/call.
	// The go-sdk echoes params it cannot decode into a method's type (up to
	// 5x their size); no other client request of MCP carries more than a few
	// KiB, so this bounds that echo at every method the gate does not type.
	MaxOtherParamsBytes = 64 << 10
	// MaxEnvelopeNodes bounds the nodes of everything outside tools/call's
	// arguments, summed: the frame's own members and every other value.
	MaxEnvelopeNodes = 10_000
)

// Front gate defaults.
const (
	// DefaultSmallReserve is the small lane's share of a default in-flight
	// budget.
	DefaultSmallReserve = 32 << 20
	// DefaultSmallBody is the largest body the small lane takes.
	DefaultSmallBody = 64 << 10
	// DefaultMaxWait is how long a request waits for in-flight room before
	// a 503.
	DefaultMaxWait = 5 * time.Second
	// DefaultBodyReadBase and DefaultMinBodyRate give a body read its
	// deadline: base + length / rate, so a client trickling its body holds
	// its weight for a bounded time.
	DefaultBodyReadBase = 10 * time.Second
	DefaultMinBodyRate  = 1 << 20 // bytes per second
)

// Bounds on a refusal's fragments.
const (
	// ToolCut is the most display bytes of a tool name a refusal carries.
	ToolCut = 64
	// FragmentCut is the most display bytes of a keyword or a schema-side
	// limit (Want) a leaf carries.
	FragmentCut = 64
	// MaxLeaves is how many failing leaves a refusal names; the rest are
	// counted.
	MaxLeaves = 4
	// RefusalCeiling is the size every refusal fits in: the longest refusal
	// the templates and cuts can build (mcpvalidate.MaxRefusalBytes) is held
	// under it by mcpvalidate's tests.
	RefusalCeiling = 4096
	// MaxArgumentQuote is the longest run of one string argument a tool's
	// own error reaches the caller with: a path or a name stays, a longer
	// run is replaced by a mark that counts its bytes. Odd, so the search
	// for runs can start from windows of half its length plus one.
	MaxArgumentQuote = 255
)
