package mcpvalidate

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/theurian/boundlab/charge"
)

// codeServerBusy is the JSON-RPC code of a 503: an implementation-defined
// server error (JSON-RPC reserves -32000..-32099 for those).
const codeServerBusy = -32000

// requestRefusal is the front gate's answer to a request it will not pass to
// the SDK. Every field is fixed text, a number, or a caller key escaped and
// cut (Where, under charge.DisplayPointer's rules), so the answer is bounded
// by MaxRefusalBytes and holds no caller value; ID is the request's id
// token when it passed its check (maxIDBytes), else absent.
type requestRefusal struct {
	Status int    // HTTP status: 400, 403, 404, 408, 413, 429 or 503
	Code   int64  // JSON-RPC error code
	Bound  string // which bound, e.g. duplicate-name, body-bytes, in-flight-budget
	Where  string // an envelope path, e.g. /params/name, with the gate's pointer beneath it
	Limit  int64  // the bound's limit, 0 when it has none
	Unit   string
	Offset int // the byte the gate refused at, -1 when not a scan refusal
	// Tool is set when only the arguments failed the gate under a sound
	// envelope: then the answer is the middleware's refusal shape (a tool
	// result with isError), and this is that refusal.
	Tool *callRefusal
	id   []byte
	tool string // the tool's name, display-escaped and cut, when the scan read it
	// complete: stamp resultType "complete" (protocol 2026-07-28).
	complete bool
}

// Error is the refusal's message.
func (f *requestRefusal) Error() string {
	if f.Tool != nil {
		return f.Tool.Error()
	}
	var b strings.Builder
	b.WriteString(tplFront)
	b.WriteString(f.Bound)
	if f.Where != "" {
		b.WriteString(tplFrontAt)
		b.WriteString(f.Where)
	}
	if f.Offset >= 0 {
		b.WriteString(tplFrontByte)
		b.WriteString(strconv.Itoa(f.Offset))
	}
	if f.Limit > 0 {
		b.WriteString(tplFrontLimit)
		b.WriteString(strconv.FormatInt(f.Limit, 10))
		b.WriteString(" ")
		b.WriteString(f.Unit)
	}
	return b.String()
}

// ID is the id token echoed in the answer ("" when none passed its check).
func (f *requestRefusal) ID() string { return string(f.id) }

// Templates of a front refusal's message.
const (
	tplFront      = "request refused by the front gate: bound "
	tplFrontAt    = " at "
	tplFrontByte  = ", byte "
	tplFrontLimit = ", limit "
	// maxBoundBytes and maxUnitBytes bound the fixed names the front gate
	// uses (held by a test over every name it can use; none holds a byte
	// JSON escapes).
	maxBoundBytes = 32
	maxUnitBytes  = 32
	// maxPathBytes is the longest envelope path a gate pointer can sit
	// beneath: a value under /params/inputResponses is scanned by the gate,
	// so its refusal's pointer follows that path (held by a test over every
	// path in the sources).
	maxPathBytes = len("/params/inputResponses")
	// maxCodeBytes is the widest JSON-RPC error code: the codes the gate
	// answers with are in JSON-RPC's reserved range, -32768..-32000.
	maxCodeBytes = len("-32768")
)

// The widest numbers an answer writes: a limit (a positive int64), an offset
// or an elided count (a non-negative int).
var (
	maxLimitDigits = len(strconv.FormatInt(math.MaxInt64, 10))
	maxIntDigits   = len(strconv.Itoa(math.MaxInt))
)

// maxPointerJSONBytes is the widest display pointer as JSON string content:
// every display byte of a member name may be half of a \" or \\ escape, which
// escapes again; the slashes, cut marks and elision do not. (A function, not
// a constant, so that mutation testing reaches its arithmetic.)
func maxPointerJSONBytes() int {
	return charge.MaxPointerBytes + charge.PointerSegments*charge.KeyCut
}

// maxCutJSONBytes is the same for a text cut at cut display bytes (a tool
// name, a keyword, a schema-side limit).
func maxCutJSONBytes(cut int) int { return 2*cut + len(cutMark) }

// jsonBytes is how many bytes s takes as JSON string content (appendString).
func jsonBytes(s string) int { return len(appendString(nil, s)) - len(`""`) }

// MaxRefusalBytes is the longest answer body a refusal is written as,
// whichever stage refused: a JSON-RPC error, or a tool result with isError
// and the refusal's text (whose own bound, within this one, is computed the
// same way). It is computed from the templates, the cuts and JSON escaping,
// and exact: the widest answer of each shape is built and measured by this
// package's tests.
func MaxRefusalBytes() int {
	return max(maxFrontErrorBytes(), maxFrontToolBytes())
}

// maxFrontErrorBytes is the widest JSON-RPC error answer: the longest id,
// code, bound, unit, envelope path with the widest pointer beneath it, limit
// and offset, each in the message and again in data.
func maxFrontErrorBytes() int {
	where := maxPathBytes + maxPointerJSONBytes()
	msg := jsonBytes(tplFront) + maxBoundBytes + jsonBytes(tplFrontAt) + where + jsonBytes(tplFrontByte) + maxIntDigits +
		jsonBytes(tplFrontLimit) + maxLimitDigits + jsonBytes(" ") + maxUnitBytes
	data := len(`,"data":{"bound":""`) + maxBoundBytes + len(`,"where":""`) + where + len(`,"limit":`) + maxLimitDigits +
		len(`,"unit":""`) + maxUnitBytes + len(`,"offset":`) + maxIntDigits + len(`}}}`)
	return len(`{"jsonrpc":"2.0","id":`) + maxIDBytes + len(`,"error":{"code":`) + maxCodeBytes + len(`,"message":""`) + msg + data
}

// maxFrontToolBytes is the widest tool-result answer: the longest id and the
// widest refusal text of any stage, escaped.
func maxFrontToolBytes() int {
	text := max(maxRefusalJSONBytes(StageUnknownTool), maxRefusalJSONBytes(StageGate), maxRefusalJSONBytes(stageDecode),
		maxRefusalJSONBytes(StageInternal), maxRefusalJSONBytes(StageSchema))
	return len(`{"jsonrpc":"2.0","id":`) + maxIDBytes +
		len(`,"result":{"content":[{"type":"text","text":""}],"isError":true,"resultType":"complete"}}`) + text
}

// maxRefusalJSONBytes is the widest Error text of a refusal at stage s as
// JSON string content: maxRefusalTextBytes' templates and cuts, each escaped.
func maxRefusalJSONBytes(s Stage) int {
	tool := jsonBytes(tplTool) + maxCutJSONBytes(toolCut)
	switch s {
	case StageUnknownTool:
		return tool + jsonBytes(tplUnknown)
	case StageGate:
		// The gate's text escapes again in the quotes around its pointer and
		// in the pointer's names; its other bytes are plain.
		return tool + jsonBytes(tplGate) + charge.MaxRefusalBytes() + len(`""`) + charge.PointerSegments*charge.KeyCut
	case stageDecode:
		return tool + jsonBytes(tplDecode)
	case StageInternal:
		return tool + jsonBytes(tplInternal)
	}
	// A leaf at the root is shorter than one under a pointer (held by the
	// same test).
	leaf := jsonBytes(tplLeafAt) + maxPointerJSONBytes() + jsonBytes(tplLeafKw) + maxCutJSONBytes(fragmentCut) + jsonBytes(tplLeafWant) + maxCutJSONBytes(fragmentCut)
	return tool + jsonBytes(tplSchema) + maxLeaves*leaf + (maxLeaves-1)*jsonBytes(tplLeafSep) + jsonBytes(tplMore) + maxIntDigits + jsonBytes(tplMoreEnd)
}

// originRefusal is the answer to a browser's request from an origin not
// allowed. Nothing of the request is in it: its Origin is the caller's text,
// and its body is never read, so it has no id.
func originRefusal() *requestRefusal {
	return &requestRefusal{Status: http.StatusForbidden, Code: codeInvalidRequest, Bound: "origin", Offset: -1}
}

// frontRefusal turns a scan refusal into the answer.
func frontRefusal(err *envelopeError, e *envelope) *requestRefusal {
	f := &requestRefusal{Status: http.StatusBadRequest, Code: err.code, Bound: err.bound, Where: err.where,
		Limit: err.limit, Unit: err.unit, Offset: -1}
	if err.idOK {
		f.id = e.body[err.idSpan.at:err.idSpan.end]
	}
	if e.IsToolCall() && e.tool.ok() {
		f.tool = charge.DisplayText(e.Tool(), toolCut)
	}
	if r := err.inner; r != nil {
		f.Where += r.Pointer
		f.Offset, f.Limit, f.Unit = r.Offset, r.Limit, r.Unit
		if err.args && err.idOK && e.IsToolCall() && e.tool.ok() {
			// Only the arguments failed, under a frame read whole up to them:
			// the middleware's answer, so clients see one contract.
			// Its offset counts from the arguments, as the middleware's does.
			rel := *r
			rel.Offset -= e.arguments.at
			f.Status = http.StatusOK
			f.Tool = &callRefusal{Tool: charge.DisplayText(e.Tool(), toolCut), Stage: StageGate, Gate: &rel}
		}
	}
	return f
}

// write answers f as JSON. e is the envelope read when the refusal came
// from the scan, else nil.
func (fg *frontGate) write(w http.ResponseWriter, r *http.Request, f *requestRefusal, e *envelope) {
	f.complete = r.Header.Get("Mcp-Protocol-Version") >= multiRoundTripVersion
	fg.v.noteFront(r.Context(), f, e)
	body := f.AppendJSON(nil)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if f.Status == http.StatusRequestEntityTooLarge || f.Status == http.StatusRequestTimeout {
		h.Set("Connection", "close") // the rest of the body is not read
	}
	w.WriteHeader(f.Status)
	_, _ = w.Write(body)
}

// AppendJSON appends the answer's JSON-RPC message to dst.
func (f *requestRefusal) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	if len(f.id) > 0 {
		dst = append(dst, f.id...)
	} else {
		dst = append(dst, "null"...)
	}
	if f.Tool != nil {
		dst = append(dst, `,"result":{"content":[{"type":"text","text":`...)
		dst = appendString(dst, f.Tool.Error())
		dst = append(dst, `}],"isError":true`...)
		if f.complete {
			dst = append(dst, `,"resultType":"complete"`...)
		}
		return append(dst, "}}"...)
	}
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, f.Code, 10)
	dst = append(dst, `,"message":`...)
	dst = appendString(dst, f.Error())
	dst = append(dst, `,"data":{"bound":`...)
	dst = appendString(dst, f.Bound)
	if f.Where != "" {
		dst = append(dst, `,"where":`...)
		dst = appendString(dst, f.Where)
	}
	if f.Limit > 0 {
		dst = append(dst, `,"limit":`...)
		dst = strconv.AppendInt(dst, f.Limit, 10)
		dst = append(dst, `,"unit":`...)
		dst = appendString(dst, f.Unit)
	}
	if f.Offset >= 0 {
		dst = append(dst, `,"offset":`...)
		dst = strconv.AppendInt(dst, int64(f.Offset), 10)
	}
	return append(dst, "}}}"...)
}

// appendString appends s as a JSON string. s is display text (printable
// ASCII by construction); any other byte becomes '?', so no byte grows past
// two.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		// An if chain, not a switch: gremlins maps an if's condition to
		// coverage, not a switch case's.
		c := s[i]
		if c == '"' || c == '\\' {
			dst = append(dst, '\\', c)
		} else if c < 0x20 || c >= 0x7f {
			dst = append(dst, '?')
		} else {
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// noteFront hands a front refusal to the refusal hook.
func (v *Validator) noteFront(ctx context.Context, f *requestRefusal, e *envelope) {
	if v.cfg.hook != nil {
		v.cfg.hook(ctx, f.public())
	}
}

// Unwrap is the middleware-shaped refusal of the arguments, when the answer
// took that shape, else nil.
func (f *requestRefusal) Unwrap() error {
	if f.Tool == nil {
		return nil
	}
	return f.Tool
}
