package memmodel

import (
	"github.com/theurian/boundlab/charge"
)

// Code points the shapes are made of; each is named for its class.
const (
	ASCII          = 'a'     // 1 byte, kind 1, printable
	DEL            = 0x7f    // 1 byte raw, kind 1, repr \x7f: 4 characters
	Latin1         = 0xe9    // é: 2 UTF-8 bytes, still kind 1, printable
	Cyrillic       = 0x416   // Ж: 2 UTF-8 bytes, kind 2, printable
	Arabic         = 0x600   // U+0600: 2 UTF-8 bytes, kind 2, not printable (\u0600: 6)
	CJK            = 0x4e2d  // 中: 3 UTF-8 bytes, kind 2, printable
	Emoji          = 0x1f600 // 😀: 4 UTF-8 bytes, kind 4, printable
	AstralNonPrint = 0xe0001 // LANGUAGE TAG: 4 bytes, kind 4, repr \U000e0001: 10
)

// Scale is the request size the shapes are built at: the transport cap and
// the charge budget. The full scale is the seed's (BodyCap over ensure_ascii
// and raw, DefaultLimits' budget); a small scale divides both.
type Scale struct {
	Cap    int64
	Limits charge.Limits
}

// FullScale is the seed's transport cap and limits.
func FullScale() Scale {
	l := charge.DefaultLimits()
	return Scale{Cap: charge.BodyCap(l, charge.EnsureASCII, charge.Raw).Cap, Limits: l}
}

// Scaled divides the cap and the budget by div (the shapes keep their
// proportions; the seed's named instances are fixed-size and stay out).
func (s Scale) Scaled(div int64) Scale {
	s.Cap /= div
	s.Limits.MaxParamsRenderedChars /= div
	return s
}

// fill is how many r fit in the wire bytes the cap leaves after the envelope
// and the given singletons.
func fill(sc Scale, e charge.Encoder, r rune, singles ...rune) int {
	return fillFrame(sc, FrameCall, e, r, singles...)
}

// fillFrame is fill around frame f's envelope.
func fillFrame(sc Scale, f Frame, e charge.Encoder, r rune, singles ...rune) int {
	fb := f.bytes(NodeZero)
	room := sc.Cap - int64(len(fb.envPrefix)+len(fb.envSuffix))
	for _, s := range singles {
		room -= int64(e.RuneWireBytes(s))
	}
	return int(room / int64(e.RuneWireBytes(r)))
}

// chargeFill is how many r the budget admits beside the given singletons,
// and the cap too: the most the charge lets through, so the shape lands in
// family (ii) when the cap allows it.
func chargeFill(sc Scale, r rune, singles ...rune) int {
	base := Shape{Encoder: charge.Raw, Verdict: Refuses}
	for _, s := range singles {
		base.Segments = append(base.Segments, Segment{s, 1})
	}
	room := sc.Limits.MaxParamsRenderedChars - base.Stats().Charge
	return min(int(room/int64(charge.Python.RuneWidth(r))), fill(sc, charge.Raw, r, singles...))
}

func seg(r rune, n int) Segment { return Segment{r, n} }

// SeedRowShapes are the seed's family-(i) table at the cap: ASCII, dense DEL,
// DEL + one 2-byte character, DEL + one astral character.
func SeedRowShapes(sc Scale) []Shape {
	raw := charge.Raw
	return []Shape{
		{Name: "ascii", Segments: []Segment{seg(ASCII, fill(sc, raw, ASCII))}, Encoder: raw, Verdict: Refuses},
		{Name: "del", Segments: []Segment{seg(DEL, fill(sc, raw, DEL))}, Encoder: raw, Verdict: Refuses},
		{Name: "del+2byte", Segments: []Segment{seg(DEL, fill(sc, raw, DEL, Arabic)), seg(Arabic, 1)}, Encoder: raw, Verdict: Refuses},
		{Name: "del+astral", Segments: []Segment{seg(DEL, fill(sc, raw, DEL, Emoji)), seg(Emoji, 1)}, Encoder: raw, Verdict: Refuses},
	}
}

// WideningShapes widen the parsed string more than once (ASCII, then a kind-2
// character, then an astral one) and hold the same characters in other
// orders, at the cap.
func WideningShapes(sc Scale) []Shape {
	raw := charge.Raw
	n := fill(sc, raw, ASCII, Cyrillic, Emoji)
	h := n / 2
	return []Shape{
		{Name: "ascii,2byte,astral", Segments: []Segment{seg(ASCII, n), seg(Cyrillic, 1), seg(Emoji, 1)}, Encoder: raw, Verdict: Refuses},
		{Name: "ascii,astral,2byte", Segments: []Segment{seg(ASCII, n), seg(Emoji, 1), seg(Cyrillic, 1)}, Encoder: raw, Verdict: Refuses},
		{Name: "2byte,ascii,astral", Segments: []Segment{seg(Cyrillic, 1), seg(ASCII, n), seg(Emoji, 1)}, Encoder: raw, Verdict: Refuses},
		{Name: "astral,2byte,ascii", Segments: []Segment{seg(Emoji, 1), seg(Cyrillic, 1), seg(ASCII, n)}, Encoder: raw, Verdict: Refuses},
		{Name: "ascii,2byte,ascii,astral", Segments: []Segment{seg(ASCII, h), seg(Cyrillic, 1), seg(ASCII, n-h), seg(Emoji, 1)}, Encoder: raw, Verdict: Refuses},
		{Name: "ascii,latin1,astral", Segments: []Segment{seg(ASCII, fill(sc, raw, ASCII, Latin1, Emoji)), seg(Latin1, 1), seg(Emoji, 1)}, Encoder: raw, Verdict: Refuses},
		{Name: "ascii,2byte,astral/ensure_ascii", Segments: []Segment{seg(ASCII, fill(sc, charge.EnsureASCII, ASCII, Cyrillic, Emoji)), seg(Cyrillic, 1), seg(Emoji, 1)}, Encoder: charge.EnsureASCII, Verdict: Refuses},
	}
}

// RatioWorstSeedShape is the seed's named family-(ii) ratio-worst instance:
// "\x7f" x 3,145,717 plus one U+1F600. Its size is the seed's, not the
// lab's, so it exists at full scale only.
func RatioWorstSeedShape() Shape {
	return Shape{Name: "seed-ratio-worst", Segments: []Segment{seg(DEL, 3_145_717), seg(Emoji, 1)}, Encoder: charge.Raw, Verdict: Refuses}
}

// FamilyTwoShapes are the charge-admitted, schema-refused shapes the seed
// names: printable CJK at the cap (parse decides), printable 2-byte at the
// budget (the additive form's over-statement), the two non-printable classes
// the seed's render term over-priced, and DEL saturating the budget with one
// astral (the ratio-worst, at the lab's own envelope).
func FamilyTwoShapes(sc Scale) []Shape {
	raw := charge.Raw
	return []Shape{
		{Name: "cjk-at-cap", Segments: []Segment{seg(CJK, fill(sc, raw, CJK))}, Encoder: raw, Verdict: Refuses},
		{Name: "2byte-printable-at-budget", Segments: []Segment{seg(Cyrillic, chargeFill(sc, Cyrillic))}, Encoder: raw, Verdict: Refuses},
		{Name: "astral-nonprintable-at-budget", Segments: []Segment{seg(AstralNonPrint, chargeFill(sc, AstralNonPrint))}, Encoder: raw, Verdict: Refuses},
		{Name: "arabic-at-budget", Segments: []Segment{seg(Arabic, chargeFill(sc, Arabic))}, Encoder: raw, Verdict: Refuses},
		{Name: "del+astral-at-budget", Segments: []Segment{seg(DEL, chargeFill(sc, DEL, Emoji)), seg(Emoji, 1)}, Encoder: raw, Verdict: Refuses},
		{Name: "cjk-at-cap/ensure_ascii", Segments: []Segment{seg(CJK, fill(sc, charge.EnsureASCII, CJK))}, Encoder: charge.EnsureASCII, Verdict: Refuses},
	}
}

// ValidShapes are family (iii): the schema accepts, nothing renders.
func ValidShapes(sc Scale) []Shape {
	raw := charge.Raw
	return []Shape{
		{Name: "cjk-at-cap/valid", Segments: []Segment{seg(CJK, fill(sc, raw, CJK))}, Encoder: raw, Verdict: Accepts},
		{Name: "ascii,2byte,astral-at-budget/valid", Segments: []Segment{seg(ASCII, chargeFill(sc, ASCII, Cyrillic, Emoji)), seg(Cyrillic, 1), seg(Emoji, 1)}, Encoder: raw, Verdict: Accepts},
	}
}

// underGoBudget is how many ASCII fit in frame f at the cap and under the
// Go dialect's charge budget (one byte each), with room for the names and
// the short values: so the front gate refuses the body for its frame, not
// for its charge.
func underGoBudget(sc Scale, f Frame) int {
	return min(fillFrame(sc, f, charge.Raw, ASCII), int(sc.Limits.MaxParamsRenderedChars)-64)
}

// SmallCallBytes is the wire size of GateShapes' small valid call: the
// typical call the front gate's small lane is for.
const SmallCallBytes = 1024

// GateShapes are the front gate's own shapes, measured through the HTTP
// paths only (the CPython model does not price them): the hostile envelopes
// the gate refuses before the SDK decodes a byte (issue 9's echo-shaped
// params with a numeric params.name over a DEL leaf at the cap; duplicate
// names in the arguments and invalid UTF-8, each at the Go charge budget so
// that the frame, not the charge, is what the gate refuses), one small valid
// call of SmallCallBytes, whose cost is the SDK's fixed cost, not a
// multiple of its bytes, and the node-dense calls, arguments at the node
// bound made of one node kind each (NodeZero, NodeObject, NodeArray,
// NodeMember, NodeChain; 200-300 KB), whose cost is per node. The small call
// and the node-dense ones are the same at every scale.
func GateShapes(sc Scale) []Shape {
	raw := charge.Raw
	small := SmallCallBytes - EnvelopeBytes
	return []Shape{
		{Name: "echo/del", Segments: []Segment{seg(DEL, fillFrame(sc, FrameEcho, raw, DEL))}, Encoder: raw, Verdict: Refuses, Frame: FrameEcho},
		{Name: "dup-name/ascii", Segments: []Segment{seg(ASCII, underGoBudget(sc, FrameDupName))}, Encoder: raw, Verdict: Refuses, Frame: FrameDupName},
		{Name: "invalid-utf8/ascii", Segments: []Segment{seg(ASCII, underGoBudget(sc, FrameInvalidUTF8))}, Encoder: raw, Verdict: Refuses, Frame: FrameInvalidUTF8},
		{Name: "small-1k/valid", Segments: []Segment{seg(ASCII, small)}, Encoder: raw, Verdict: Accepts},
		{Name: "nodes-at-bound", Segments: []Segment{seg(ASCII, 1)}, Encoder: raw, Verdict: Refuses, Frame: FrameNodes, Node: NodeZero},
		{Name: "objects-at-bound", Segments: []Segment{seg(ASCII, 1)}, Encoder: raw, Verdict: Refuses, Frame: FrameNodes, Node: NodeObject},
		{Name: "arrays-at-bound", Segments: []Segment{seg(ASCII, 1)}, Encoder: raw, Verdict: Refuses, Frame: FrameNodes, Node: NodeArray},
		{Name: "members-at-bound", Segments: []Segment{seg(ASCII, 1)}, Encoder: raw, Verdict: Refuses, Frame: FrameNodes, Node: NodeMember},
		{Name: "chains-at-bound", Segments: []Segment{seg(ASCII, 1)}, Encoder: raw, Verdict: Refuses, Frame: FrameNodes, Node: NodeChain},
	}
}

// CalibrationShapes is every shape Calibrate runs at a scale: the seed's rows,
// the widening orders, family (ii) and (iii), the searched worst instances
// and, at full scale, the seed's named ratio-worst instance.
func CalibrationShapes(sc Scale, full bool) []Shape {
	var out []Shape
	out = append(out, SeedRowShapes(sc)...)
	out = append(out, WideningShapes(sc)...)
	out = append(out, FamilyTwoShapes(sc)...)
	if full {
		out = append(out, RatioWorstSeedShape())
	}
	out = append(out, ValidShapes(sc)...)
	for _, p := range Parsers {
		for _, w := range SearchWorst(sc, p) {
			out = append(out, w.Shape)
		}
	}
	return out
}
