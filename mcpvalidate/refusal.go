package mcpvalidate

import (
	"strconv"
	"strings"

	"github.com/theurian/boundlab/charge"
)

// Refusal is why a request or a tool call was refused, whichever stage
// refused it: Check, CheckRequest, the served paths and the OnRefusal hook
// all give this one shape. Every field is fixed text, a number, or a
// caller's key or tool name display-escaped and cut, so a refusal never
// holds a value the caller wrote and its answer is at most
// maxRefusalTextBytes.
type Refusal struct {
	Stage Stage
	// Bound names what was exceeded or broken: a bound of the request
	// (origin, body-bytes, in-flight-budget, duplicate-name, id-bytes...), of the
	// arguments (nesting, nodes, charge, syntax...), or the schema keyword
	// that failed first (required, maxLength, additionalProperties...);
	// "" for StageUnknownTool and StageInternal.
	Bound string
	// Where is a JSON pointer to where it failed, escaped and cut: into
	// the arguments for StageGate, StageSchema and StageType, into the
	// message for StageRequest; "" at the root or when none applies.
	Where string
	// Limit is the bound's limit (bytes, nodes, levels...), 0 when it has
	// none.
	Limit int64
	// Status is the HTTP status the front gate answered with; 0 when the
	// refusal was answered as a tool result with isError by the middleware.
	Status int
	// Tool is the tool's name as called, escaped and cut; "" when the
	// request was refused before its name was read.
	Tool string
	err  error // renders the answer's text
}

// Error is the refusal's text, as the caller receives it.
func (r *Refusal) Error() string { return r.err.Error() }

// public is r in the package's one refusal model.
func (r *callRefusal) public() *Refusal {
	p := &Refusal{Stage: r.Stage, Tool: r.Tool, err: r}
	switch {
	case r.Gate != nil:
		p.Bound, p.Where, p.Limit = r.Gate.Bound.String(), r.Gate.Pointer, r.Gate.Limit
	case len(r.Leaves) > 0:
		p.Bound, p.Where = r.Leaves[0].Keyword, r.Leaves[0].Pointer
	}
	return p
}

// public is f in the package's one refusal model.
func (f *requestRefusal) public() *Refusal {
	if f.Tool != nil {
		p := f.Tool.public()
		p.Status, p.err = f.Status, f
		return p
	}
	return &Refusal{Stage: StageRequest, Bound: f.Bound, Where: f.Where, Limit: f.Limit, Status: f.Status, Tool: f.tool, err: f}
}

// Stage is where a call was refused.
type Stage uint8

const (
	// StageUnknownTool: the tool name resolves to no published schema
	// (fail-closed: the handler never runs).
	StageUnknownTool Stage = iota + 1
	// StageGate: the charge gate refused the raw arguments bytes (syntax,
	// strictness, nesting, nodes, numbers, rendered width).
	StageGate
	// stageDecode: the decoder refused bytes the gate admitted. No input is
	// known to reach it; it is here so that one would still be refused.
	stageDecode
	// StageSchema: the arguments do not satisfy the tool's published schema.
	StageSchema
	// StageInternal: the schema validator panicked on this input; the panic
	// was recovered and the call refused.
	StageInternal
	// StageRequest: the front gate refused the request itself before the
	// SDK read it (a browser's foreign origin, the body cap, the in-flight budget, the body's read
	// deadline, the JSON-RPC envelope). Only RefusalEvent carries it; the
	// answer is a *requestRefusal.
	StageRequest
	// StageType: the arguments satisfy the schema, and the Go type of a tool
	// added with AddTool cannot hold them (an opaque member its own decoder
	// refuses, a number past float64 in an untyped member, a negative zero
	// for an unsigned integer, ...): what the SDK's decode would have
	// refused, answered by the validator instead.
	StageType
)

func (s Stage) String() string {
	switch s {
	case StageUnknownTool:
		return "unknown-tool"
	case StageGate:
		return "gate"
	case stageDecode:
		return "decode"
	case StageSchema:
		return "schema"
	case StageInternal:
		return "internal"
	case StageRequest:
		return "request"
	case StageType:
		return "type"
	}
	return "stage(" + strconv.Itoa(int(s)) + ")"
}

// callRefusal is the validator's answer to a call it will not admit. Every field
// is display-escaped and cut when the refusal is built; Error renders from
// fixed templates and those fields only, so a refusal is never longer than
// maxRefusalTextBytes and never holds a caller-written value (member names, which
// are the caller's keys, appear escaped and cut to charge.KeyCut bytes; the
// tool name is cut to toolCut bytes).
type callRefusal struct {
	Tool   string          // the tool name as called, display-escaped and cut
	Stage  Stage           // where the call was refused
	Gate   *charge.Refusal // StageGate: the gate's own refusal
	Leaves []leaf          // StageSchema, StageType: the first maxLeaves failing leaves, sorted
	Elided int             // StageSchema, StageType: how many further leaves failed
}

// leaf is one failing leaf of the schema's error tree.
type leaf struct {
	Pointer string `json:"pointer"`        // RFC 6901 pointer into the arguments, display-escaped and cut
	Keyword string `json:"keyword"`        // the schema keyword that failed, e.g. maxLength, unevaluatedProperties
	Want    string `json:"want,omitempty"` // the schema side of the failure (a limit, a pattern, an enum), cut; never the instance
}

const cutMark = "..."

// Templates. Every byte of a refusal's text comes from one of these, a number,
// or a field cut at one of the bounds above.
const (
	tplTool      = `tool "`
	tplUnknown   = `": refused: no published input schema for this tool (fail-closed)`
	tplGate      = `": `
	tplDecode    = `": arguments refused: not decodable as JSON`
	tplInternal  = `": arguments refused: the schema validator failed on this input (recovered)`
	tplSchema    = `": arguments refused by the tool's input schema: `
	tplType      = `": arguments refused by the tool's input type: `
	tplLeafAt    = `at "`
	tplRoot      = `at the root`
	tplLeafKw    = `": `
	tplLeafRootK = `: `
	tplLeafWant  = ` `
	tplLeafSep   = `; `
	tplMore      = `; and `
	tplMoreEnd   = ` more`
)

// maxRefusalTextBytes is the longest Error text any refusal can have, computed
// from the templates, the cuts and the gate's own ceiling.
func maxRefusalTextBytes() int {
	tool := len(tplTool) + toolCut + len(cutMark)
	stages := []int{
		len(tplUnknown),
		len(tplGate) + charge.MaxRefusalBytes(),
		len(tplDecode),
		len(tplInternal),
		len(tplSchema) + maxLeavesBytes(),
		len(tplType) + maxLeavesBytes(),
	}
	longest := 0
	for _, n := range stages {
		longest = max(longest, n)
	}
	return tool + longest
}

func maxLeafBytes() int {
	at := max(len(tplLeafAt)+charge.MaxPointerBytes+len(tplLeafKw), len(tplRoot)+len(tplLeafRootK))
	return at + fragmentCut + len(cutMark) + len(tplLeafWant) + fragmentCut + len(cutMark)
}

func maxLeavesBytes() int {
	return maxLeaves*maxLeafBytes() + (maxLeaves-1)*len(tplLeafSep) + len(tplMore) + 20 + len(tplMoreEnd)
}

// Error renders the refusal. It reads only the refusal's already-cut fields.
func (r *callRefusal) Error() string {
	var b strings.Builder
	b.WriteString(tplTool)
	b.WriteString(r.Tool)
	switch r.Stage {
	case StageUnknownTool:
		b.WriteString(tplUnknown)
	case StageGate:
		b.WriteString(tplGate)
		if r.Gate != nil {
			b.WriteString(r.Gate.Error())
		}
	case stageDecode:
		b.WriteString(tplDecode)
	case StageInternal:
		b.WriteString(tplInternal)
	default:
		if r.Stage == StageType {
			b.WriteString(tplType)
		} else {
			b.WriteString(tplSchema)
		}
		for i, l := range r.Leaves {
			if i > 0 {
				b.WriteString(tplLeafSep)
			}
			if l.Pointer == "" {
				b.WriteString(tplRoot)
				b.WriteString(tplLeafRootK)
			} else {
				b.WriteString(tplLeafAt)
				b.WriteString(l.Pointer)
				b.WriteString(tplLeafKw)
			}
			b.WriteString(l.Keyword)
			if l.Want != "" {
				b.WriteString(tplLeafWant)
				b.WriteString(l.Want)
			}
		}
		if r.Elided > 0 {
			b.WriteString(tplMore)
			b.WriteString(strconv.Itoa(r.Elided))
			b.WriteString(tplMoreEnd)
		}
	}
	return b.String()
}

// Unwrap is the charge gate's own refusal for StageGate, else nil.
func (r *callRefusal) Unwrap() error {
	if r.Gate == nil {
		return nil
	}
	return r.Gate
}
