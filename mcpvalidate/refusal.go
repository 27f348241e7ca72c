package mcpvalidate

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
)

// Stage is where a call was refused.
type Stage uint8

const (
	// StageUnknownTool: the tool name resolves to no published schema
	// (fail-closed: the handler never runs).
	StageUnknownTool Stage = iota + 1
	// StageGate: the charge gate refused the raw arguments bytes (syntax,
	// strictness, nesting, nodes, numbers, rendered width).
	StageGate
	// StageDecode: the decoder refused bytes the gate admitted. No input is
	// known to reach it; it is here so that one would still be refused.
	StageDecode
	// StageSchema: the arguments do not satisfy the tool's published schema.
	StageSchema
	// StageInternal: the schema validator panicked on this input; the panic
	// was recovered and the call refused.
	StageInternal
)

func (s Stage) String() string {
	switch s {
	case StageUnknownTool:
		return "unknown-tool"
	case StageGate:
		return "gate"
	case StageDecode:
		return "decode"
	case StageSchema:
		return "schema"
	case StageInternal:
		return "internal"
	}
	return "stage(" + strconv.Itoa(int(s)) + ")"
}

// Refusal is the validator's answer to a call it will not admit. Every field
// is display-escaped and cut when the refusal is built; Error renders from
// fixed templates and those fields only, so a refusal is never longer than
// MaxRefusalBytes and never holds a caller-written value (member names, which
// are the caller's keys, appear escaped and cut to charge.KeyCut bytes; the
// tool name is cut to ToolCut bytes).
type Refusal struct {
	Tool   string          // the tool name as called, display-escaped and cut
	Stage  Stage           // where the call was refused
	Gate   *charge.Refusal // StageGate: the gate's own refusal
	Leaves []Leaf          // StageSchema: the first MaxLeaves failing leaves, sorted
	Elided int             // StageSchema: how many further leaves failed
}

// Leaf is one failing leaf of the schema's error tree.
type Leaf struct {
	Pointer string `json:"pointer"`        // RFC 6901 pointer into the arguments, display-escaped and cut
	Keyword string `json:"keyword"`        // the schema keyword that failed, e.g. maxLength, unevaluatedProperties
	Want    string `json:"want,omitempty"` // the schema side of the failure (a limit, a pattern, an enum), cut; never the instance
}

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
	// RefusalCeiling is the size every refusal must fit in. New computes the
	// longest refusal the templates and cuts can build and refuses to
	// construct a validator whose templates exceed it.
	RefusalCeiling = 4096
	cutMark        = "..."
)

// Templates. Every byte of a refusal's text comes from one of these, a number,
// or a field cut at one of the bounds above.
const (
	tplTool      = `tool "`
	tplUnknown   = `": refused: no published input schema for this tool (fail-closed)`
	tplGate      = `": `
	tplDecode    = `": arguments refused: not decodable as JSON`
	tplInternal  = `": arguments refused: the schema validator failed on this input (recovered)`
	tplSchema    = `": arguments refused by the tool's input schema: `
	tplLeafAt    = `at "`
	tplRoot      = `at the root`
	tplLeafKw    = `": `
	tplLeafRootK = `: `
	tplLeafWant  = ` `
	tplLeafSep   = `; `
	tplMore      = `; and `
	tplMoreEnd   = ` more`
)

// MaxRefusalBytes is the longest Error text any refusal can have, computed
// from the templates, the cuts and the gate's own ceiling.
func MaxRefusalBytes() int {
	tool := len(tplTool) + ToolCut + len(cutMark)
	stages := []int{
		len(tplUnknown),
		len(tplGate) + charge.MaxRefusalBytes(),
		len(tplDecode),
		len(tplInternal),
		len(tplSchema) + maxLeavesBytes(),
	}
	longest := 0
	for _, n := range stages {
		longest = max(longest, n)
	}
	return tool + longest
}

func maxLeafBytes() int {
	at := max(len(tplLeafAt)+maxPointerBytes()+len(tplLeafKw), len(tplRoot)+len(tplLeafRootK))
	return at + FragmentCut + len(cutMark) + len(tplLeafWant) + FragmentCut + len(cutMark)
}

func maxLeavesBytes() int {
	return MaxLeaves*maxLeafBytes() + (MaxLeaves-1)*len(tplLeafSep) + len(tplMore) + 20 + len(tplMoreEnd)
}

// maxPointerBytes: every segment cut to charge.KeyCut display bytes plus the
// cut mark and its slash, at most charge.PointerSegments of them, plus the
// elision marker. Display bytes are printable ASCII and never " or \ unescaped.
func maxPointerBytes() int {
	return charge.PointerSegments*(1+charge.KeyCut+len(cutMark)) + len("/...")
}

// checkCeiling is the construction-time assertion: the longest refusal the
// templates can build must fit in ceiling.
func checkCeiling(ceiling int) error {
	if n := MaxRefusalBytes(); n > ceiling {
		return fmt.Errorf("mcpvalidate: a refusal can reach %d bytes, above its ceiling of %d", n, ceiling)
	}
	return nil
}

// Error renders the refusal. It reads only the refusal's already-cut fields.
func (r *Refusal) Error() string {
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
	case StageDecode:
		b.WriteString(tplDecode)
	case StageInternal:
		b.WriteString(tplInternal)
	default:
		b.WriteString(tplSchema)
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

// display renders s for a refusal: printable ASCII other than " and \ as
// itself, " and \ backslash-escaped, everything else (controls, DEL, non-ASCII,
// invalid bytes) as \uXXXX escapes (astral code points as a surrogate pair,
// invalid bytes as \ufffd), cut at limit display bytes with a "..." mark. It
// reads at most limit+1 code points of s, so its cost is bounded whatever
// len(s) is.
func display(s string, limit int) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		var piece string
		switch {
		case r == '"' || r == '\\':
			piece = `\` + string(r)
		case r >= 0x20 && r < 0x7f:
			piece = string(r)
		case r < 0x10000:
			piece = `\u` + hex4(uint32(r))
		default:
			r -= 0x10000
			piece = `\u` + hex4(uint32(0xd800+(r>>10)&0x3ff)) + `\u` + hex4(uint32(0xdc00+r&0x3ff))
		}
		if n+len(piece) > limit {
			b.WriteString(cutMark)
			return b.String()
		}
		b.WriteString(piece)
		n += len(piece)
	}
	return b.String()
}

func hex4(v uint32) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[v>>12&0xf], digits[v>>8&0xf], digits[v>>4&0xf], digits[v&0xf]})
}

// pointer renders an instance location as an RFC 6901 pointer: each segment
// ~-escaped, then display-escaped and cut at charge.KeyCut; a location deeper
// than charge.PointerSegments keeps its first and last halves around "/...".
func pointer(loc []string) string {
	var b strings.Builder
	emit := func(seg string) {
		b.WriteByte('/')
		seg = strings.NewReplacer("~", "~0", "/", "~1").Replace(cutRaw(seg, charge.KeyCut))
		b.WriteString(display(seg, charge.KeyCut))
	}
	if len(loc) <= charge.PointerSegments {
		for _, s := range loc {
			emit(s)
		}
		return b.String()
	}
	half := charge.PointerSegments / 2
	for _, s := range loc[:half] {
		emit(s)
	}
	b.WriteString("/...")
	for _, s := range loc[len(loc)-half:] {
		emit(s)
	}
	return b.String()
}

// cutRaw shortens s to at most limit+1 code points before any escaping, so
// the replacer above never copies a long key.
func cutRaw(s string, limit int) string {
	n := 0
	for i := range s {
		if n > limit {
			return s[:i]
		}
		n++
	}
	return s
}
