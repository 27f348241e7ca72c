package mcpvalidate

import (
	"bytes"
	"errors"
	"math"
	"strconv"

	"github.com/theurian/boundlab/charge"
)

// maxSafeID is the largest integer a float64 holds exactly and every
// JSON-RPC peer reads the same.
const maxSafeID = 1<<53 - 1

// span is a half-open byte range of the body.
type span struct{ at, end int }

func (s span) ok() bool { return s.end > s.at }

// jsonKind is a JSON value's type, from its first byte.
type jsonKind uint8

const (
	kindNone jsonKind = iota
	kindObject
	kindArray
	kindString
	kindNumber
	kindLiteral // true, false
	kindNull
)

func kindAt(c byte) jsonKind {
	switch c {
	case '{':
		return kindObject
	case '[':
		return kindArray
	case '"':
		return kindString
	case 't', 'f':
		return kindLiteral
	case 'n':
		return kindNull
	}
	return kindNumber
}

// envelope is what the front gate read of one JSON-RPC message: spans into
// the body it admitted, decoded on demand, so reading it costs nothing on
// the request path.
type envelope struct {
	body      []byte
	method    span // the raw string token, quotes included
	id        span // the raw token
	params    span
	tool      span // tools/call: params.name's raw token
	arguments span // tools/call: params.arguments, absent when !ok
	argsKind  jsonKind
	argsRep   charge.Report
}

// Method is the message's method, "" for a response.
func (e envelope) Method() string { return e.decode(e.method) }

// ID is the id's raw JSON token ("" for a notification): digits for a
// number, a quoted string otherwise.
func (e envelope) ID() string { return string(e.body[e.id.at:e.id.end]) }

// Tool is a tools/call's params.name, decoded.
func (e envelope) Tool() string { return e.decode(e.tool) }

// Arguments are a tools/call's params.arguments bytes exactly as sent (nil
// when absent): what the middleware will see.
func (e envelope) Arguments() []byte {
	if !e.arguments.ok() {
		return nil
	}
	return e.body[e.arguments.at:e.arguments.end:e.arguments.end]
}

// IsToolCall reports whether the message is a tools/call request.
func (e envelope) IsToolCall() bool { return e.methodIs("tools/call") }

func (e envelope) decode(s span) string {
	if !s.ok() {
		return ""
	}
	return string(charge.AppendUnescaped(nil, e.body[s.at+1:s.end-1]))
}

// methodIs compares the decoded method with m without allocating.
func (e envelope) methodIs(m string) bool {
	return e.method.ok() && is(e.body[e.method.at+1:e.method.end-1], m)
}

// envelopeError is the front gate's refusal of a message's frame: which bound,
// where (a fixed envelope path, plus the charge refusal beneath it when a
// value inside the frame failed the gate), the JSON-RPC code it answers with.
type envelopeError struct {
	code   int64
	bound  string // a fixed name, e.g. "jsonrpc-version"
	where  string // a fixed envelope path, e.g. /params/name
	limit  int64  // 0: none
	unit   string
	inner  *charge.Refusal // a value inside the frame failed the gate
	args   bool            // inner is the arguments' own refusal: answered as the middleware would
	idOK   bool            // the id passed its check before the refusal
	idSpan span
}

func (e *envelopeError) Error() string {
	return "mcpvalidate: front gate: bound " + e.bound + " at " + e.where
}

// JSON-RPC error codes the front gate answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
)

// scanEnvelope reads one JSON-RPC message from body with one pass over its
// bytes: the frame here, each member's value by the gate that holds its
// bounds (params.arguments by args, everything else by env).
func scanEnvelope(body []byte, env, args *charge.Gate) (envelope, *envelopeError) {
	p := envParser{body: body, env: env, args: args}
	p.e.body = body
	if err := p.message(); err != nil {
		err.idOK, err.idSpan = p.idOK, p.e.id
		return p.e, err
	}
	return p.e, nil
}

type envParser struct {
	body      []byte
	env, args *charge.Gate
	e         envelope
	nodes     int  // envelope nodes so far (the arguments' own excluded)
	idOK      bool // an id was read and passed its check
	version   span
	result    bool // result or error present: a response
	nameAt    int  // where the member being read starts (its name's quote)
	// The params members other than arguments, whole (name to value), which
	// the SDK decodes into CallToolParamsRaw for tools/call.
	rest      [maxEnvelopeMembers]span
	nrest     int
	restBytes int
	errSpan   span // a response's error member's value
}

func (p *envParser) skip(i int) int {
	if i < len(p.body) && p.body[i] > ' ' {
		return i // the SDKs write no whitespace between tokens
	}
	for i < len(p.body) && (p.body[i] == ' ' || p.body[i] == '\t' || p.body[i] == '\n' || p.body[i] == '\r') {
		i++
	}
	return i
}

func refuse(code int64, bound, where string) *envelopeError {
	return &envelopeError{code: code, bound: bound, where: where}
}

func (p *envParser) message() *envelopeError {
	i := p.skip(0)
	if i < len(p.body) && p.body[i] == '[' {
		return refuse(codeInvalidRequest, "batch", "")
	}
	if i >= len(p.body) || p.body[i] != '{' {
		return refuse(codeParseError, "message-object", "")
	}
	end, err := p.object(i, "", p.topMember)
	if err != nil {
		return err
	}
	if end = p.skip(end); end != len(p.body) {
		return refuse(codeParseError, charge.BoundTrailing.String(), "")
	}
	return p.validate()
}

// object reads the object at body[i] member by member, handing each name
// (its raw content, escapes undecoded) and the value's offset to member,
// which returns the value's end. where names the object for refusals.
func (p *envParser) object(i int, where string, member func(name []byte, at int) (int, *envelopeError)) (int, *envelopeError) {
	var names [maxEnvelopeMembers]struct{ at, end int } // raw contents; no pointers to clear
	var escaped uint32                                  // bit k: names[k] holds a backslash
	n := 0
	p.nodes++
	i = p.skip(i + 1)
	if i < len(p.body) && p.body[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(p.body) || p.body[i] != '"' {
			return 0, refuse(codeParseError, charge.BoundSyntax.String(), where)
		}
		if n == maxEnvelopeMembers {
			return 0, &envelopeError{code: codeInvalidRequest, bound: "envelope-members", where: where, limit: maxEnvelopeMembers, unit: "members"}
		}
		end, plain := shortPlain(p.body, i)
		if !plain {
			var err error
			if end, _, err = p.env.CheckValue(p.body, i); err != nil {
				return 0, p.inner(err, codeParseError, where)
			}
		}
		nameAt, name := i, p.body[i+1:end-1]
		if len(name) > maxEnvelopeNameBytes {
			return 0, &envelopeError{code: codeInvalidRequest, bound: "envelope-name-bytes", where: where, limit: maxEnvelopeNameBytes, unit: "bytes"}
		}
		var bit uint32
		if !plain && bytes.IndexByte(name, '\\') >= 0 {
			bit = 1
		}
		for k, prev := range names[:n] {
			prev := p.body[prev.at:prev.end]
			// Two names without an escape are the same only byte for byte.
			if string(prev) == string(name) || (bit|escaped>>k)&1 != 0 && sameDecoded(prev, name) {
				return 0, &envelopeError{code: codeParseError, bound: charge.BoundDuplicateName.String(), where: where}
			}
		}
		names[n].at, names[n].end = i+1, end-1
		escaped |= bit << n
		n++
		p.nodes++
		i = p.skip(end)
		if i >= len(p.body) || p.body[i] != ':' {
			return 0, refuse(codeParseError, charge.BoundSyntax.String(), where)
		}
		i = p.skip(i + 1)
		if i >= len(p.body) {
			return 0, refuse(codeParseError, charge.BoundSyntax.String(), where)
		}
		p.nameAt = nameAt
		end, merr := member(name, i)
		if merr != nil {
			return 0, merr
		}
		if p.nodes > maxEnvelopeNodes {
			return 0, &envelopeError{code: codeInvalidRequest, bound: "envelope-nodes", where: where, limit: maxEnvelopeNodes, unit: "nodes"}
		}
		i = p.skip(end)
		if i < len(p.body) && p.body[i] == ',' {
			i = p.skip(i + 1)
			continue
		}
		if i < len(p.body) && p.body[i] == '}' {
			return i + 1, nil
		}
		return 0, refuse(codeParseError, charge.BoundSyntax.String(), where)
	}
}

// sameDecoded reports whether two gate-checked raw string contents (at most
// maxEnvelopeNameBytes each, as the frame's names are) decode to the same
// string, without allocating.
func sameDecoded(a, b []byte) bool {
	if string(a) == string(b) {
		return true
	}
	if bytes.IndexByte(a, '\\') < 0 && bytes.IndexByte(b, '\\') < 0 {
		return false // checked content without an escape decodes to itself
	}
	var ba, bb [maxEnvelopeNameBytes]byte
	return string(charge.AppendUnescaped(ba[:0], a)) == string(charge.AppendUnescaped(bb[:0], b))
}

// is reports whether a gate-checked raw string content decodes to s.
func is(raw []byte, s string) bool {
	if string(raw) == s {
		return true
	}
	if len(raw) > 6*len(s) { // no escape is longer than 6 bytes a byte
		return false
	}
	return sameDecoded(raw, []byte(s))
}

// shortPlainBytes bounds the strings shortPlain reads: the envelope's names
// and most of its string values are far shorter.
const shortPlainBytes = 64

// shortPlain is the end of the string at body[at] when its content is at
// most shortPlainBytes of printable ASCII without a quote or backslash: a
// string the envelope gate admits as one node whatever its limits (it
// bounds no string's length but by the charge, which the envelope's limits
// leave unbounded), read without it. Any other string, ok false, is the
// gate's to read.
func shortPlain(body []byte, at int) (end int, ok bool) {
	if at >= len(body) || body[at] != '"' {
		return 0, false
	}
	last := min(len(body), at+2+shortPlainBytes)
	for i := at + 1; i < last; i++ {
		switch c := body[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20 || c > 0x7e || c == '\\':
			return 0, false
		}
	}
	return 0, false
}

// value scans one envelope value with the envelope gate, counting its nodes.
func (p *envParser) value(at int, where string) (int, *envelopeError) {
	if end, ok := shortPlain(p.body, at); ok {
		p.nodes++
		return end, nil
	}
	end, rep, err := p.env.CheckValue(p.body, at)
	p.nodes += rep.Nodes
	if err != nil {
		return 0, p.inner(err, codeParseError, where)
	}
	return end, nil
}

// inner wraps a gate refusal of a value inside the frame.
func (p *envParser) inner(err error, code int64, where string) *envelopeError {
	var r *charge.Refusal
	if !errors.As(err, &r) {
		return refuse(code, "internal", where)
	}
	return &envelopeError{code: code, bound: r.Bound.String(), where: where, inner: r}
}

func (p *envParser) topMember(name []byte, at int) (int, *envelopeError) {
	switch knownKey(name) {
	case "jsonrpc":
		end, err := p.value(at, "/jsonrpc")
		p.version = span{at, end}
		return end, err
	case "method":
		end, err := p.value(at, "/method")
		if err != nil {
			return 0, err
		}
		if kindAt(p.body[at]) != kindString || end-at-2 > maxMethodBytes {
			return 0, &envelopeError{code: codeInvalidRequest, bound: "method", where: "/method", limit: maxMethodBytes, unit: "bytes"}
		}
		p.e.method = span{at, end}
		return end, nil
	case "id":
		return p.id(at)
	case "params":
		if kindAt(p.body[at]) != kindObject {
			// MCP params are always an object: the go-sdk would echo
			// anything else it fails to decode.
			return 0, refuse(codeInvalidRequest, "params-object", "/params")
		}
		end, err := p.object(at, "/params", p.paramsMember)
		p.e.params = span{at, end}
		return end, err
	case "result", "error":
		p.result = true
		key := knownKey(name)
		end, err := p.value(at, "/"+key)
		if key == "error" {
			p.errSpan = span{at, end}
		}
		return end, err
	}
	return p.value(at, "/*") // a member JSON-RPC does not define: its name is the caller's
}

func (p *envParser) id(at int) (int, *envelopeError) {
	end, err := p.value(at, "/id")
	if err != nil {
		return 0, err
	}
	tok := p.body[at:end]
	switch kindAt(tok[0]) {
	case kindString:
		if len(tok) > maxIDBytes {
			return 0, &envelopeError{code: codeInvalidRequest, bound: "id", where: "/id", limit: maxIDBytes, unit: "bytes"}
		}
	case kindNumber:
		if !safeInteger(tok) {
			return 0, &envelopeError{code: codeInvalidRequest, bound: "id", where: "/id", limit: maxSafeID, unit: "in magnitude, an integer"}
		}
	default:
		return 0, refuse(codeInvalidRequest, "id", "/id")
	}
	p.e.id, p.idOK = span{at, end}, true
	return end, nil
}

// safeInteger: -?(0|[1-9][0-9]*) within ±(2^53-1).
func safeInteger(tok []byte) bool {
	digits := tok
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 16 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	n, err := strconv.ParseInt(string(digits), 10, 64)
	return err == nil && n <= maxSafeID
}

func (p *envParser) paramsMember(name []byte, at int) (int, *envelopeError) {
	switch knownKey(name) {
	case "name":
		end, err := p.value(at, "/params/name")
		if err == nil && kindAt(p.body[at]) == kindString {
			p.e.tool = span{at, end}
		}
		if err == nil {
			p.rest[p.nrest] = span{p.nameAt, end}
			p.nrest++
			p.restBytes += end - p.nameAt + 1
		}
		return end, err
	case "arguments":
		end, rep, err := p.args.CheckValue(p.body, at)
		p.e.arguments, p.e.argsKind, p.e.argsRep = span{at, end}, kindAt(p.body[at]), rep
		if err != nil {
			e := p.inner(err, codeInvalidParams, "/params/arguments")
			e.args = true
			return 0, e
		}
		return end, nil
	}
	start := p.nameAt
	end, err := p.value(at, paramsPath(knownKey(name)))
	if err == nil {
		p.rest[p.nrest] = span{start, end}
		p.nrest++
		p.restBytes += end - start + 1
	}
	return end, err
}

// paramsPath names a params member in a refusal: only the members the go-sdk
// reads are named; any other is "*", so no caller key reaches the answer.
func paramsPath(key string) string {
	switch key {
	case "_meta":
		return "/params/_meta"
	case "inputResponses":
		return "/params/inputResponses"
	case "requestState":
		return "/params/requestState"
	}
	return "/params/*"
}

// knownKeys are the member names of the frame the gate reads.
var knownKeys = [...]string{"jsonrpc", "method", "id", "params", "result", "error",
	"name", "arguments", "_meta", "inputResponses", "requestState"}

// knownKey is the known key name decodes to, or "".
func knownKey(name []byte) string {
	for _, k := range knownKeys {
		if string(name) == k {
			return k
		}
	}
	if bytes.IndexByte(name, '\\') < 0 {
		return "" // only an escaped name can decode to a key it does not spell
	}
	for _, k := range knownKeys {
		if is(name, k) {
			return k
		}
	}
	return ""
}

// validate holds what was read to JSON-RPC 2.0 and, for tools/call, to the
// shape the go-sdk decodes without echoing.
func (p *envParser) validate() *envelopeError {
	e := &p.e
	if !p.version.ok() || kindAt(p.body[p.version.at]) != kindString || !is(p.body[p.version.at+1:p.version.end-1], "2.0") {
		return refuse(codeInvalidRequest, "jsonrpc-version", "/jsonrpc")
	}
	// The go-sdk decodes every message's error member into its WireError, a
	// request's too: one it cannot decode is answered HTTP 400 quoting the
	// bytes around the fault (found by the front gate's differential fuzz
	// target under libFuzzer: a tools/call with "error":[0]).
	if p.errSpan.ok() && !wireErrorDecodes(p.body[p.errSpan.at:p.errSpan.end]) {
		return refuse(codeInvalidRequest, "error-object", "/error")
	}
	if !e.method.ok() {
		if !p.idOK || !p.result {
			return refuse(codeInvalidRequest, "request-or-response", "")
		}
		return nil // a response to a server request
	}
	if !e.IsToolCall() {
		if e.params.end-e.params.at > maxOtherParamsBytes {
			return &envelopeError{code: codeInvalidRequest, bound: "params-bytes", where: "/params", limit: maxOtherParamsBytes, unit: "bytes"}
		}
		return p.typedParams(false)
	}
	if !p.idOK {
		return refuse(codeInvalidRequest, "id", "/id")
	}
	if !e.params.ok() {
		return refuse(codeInvalidParams, "params-object", "/params")
	}
	if !e.tool.ok() {
		return refuse(codeInvalidParams, "tool-name", "/params/name")
	}
	if e.tool.end-e.tool.at-2 > maxToolNameBytes {
		return &envelopeError{code: codeInvalidParams, bound: "tool-name", where: "/params/name", limit: maxToolNameBytes, unit: "bytes"}
	}
	if e.arguments.ok() && e.argsKind != kindObject {
		return refuse(codeInvalidParams, "arguments-object", "/params/arguments")
	}
	return p.typedParams(true)
}

// typedParams refuses params the go-sdk would fail to decode into the
// method's params type (and so echo whole): for tools/call, every params
// member but the arguments, rebuilt as one object; for any other method the
// SDK types, the params as sent.
func (p *envParser) typedParams(toolCall bool) *envelopeError {
	if toolCall {
		if p.nrest <= 1 && p.e.tool.ok() {
			return nil // only the name, a string: nothing else to decode
		}
		// The rebuilt object is the members with one byte each (restBytes:
		// a comma, or the closing brace) and the opening brace.
		if p.restBytes+1 > maxOtherParamsBytes {
			return &envelopeError{code: codeInvalidRequest, bound: "params-bytes", where: "/params", limit: maxOtherParamsBytes, unit: "bytes"}
		}
		obj := make([]byte, 0, p.restBytes+2)
		obj = append(obj, '{')
		for i, r := range p.rest[:p.nrest] {
			if i > 0 {
				obj = append(obj, ',')
			}
			obj = append(obj, p.body[r.at:r.end]...)
		}
		obj = append(obj, '}')
		if !sdkDecodes("tools/call", obj) {
			return refuse(codeInvalidParams, "params-type", "/params")
		}
		return nil
	}
	if p.e.params.ok() && !sdkDecodes(p.e.Method(), p.body[p.e.params.at:p.e.params.end]) {
		return refuse(codeInvalidParams, "params-type", "/params")
	}
	return nil
}

// envelopeLimits are the bounds of every value outside tools/call's
// arguments: the arguments' strictness, nesting and number bounds, no render
// budget (nothing renders those values into an answer: the gate bounds their
// echo by size), and maxEnvelopeNodes.
func envelopeLimits(l charge.Limits) charge.Limits {
	l.MaxParamsNodes = maxEnvelopeNodes
	l.MaxParamsRenderedChars = math.MaxInt64 / 8
	return l
}
