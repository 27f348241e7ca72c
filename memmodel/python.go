package memmodel

import (
	"fmt"

	"github.com/theurian/boundlab/charge"
)

// Family is the path a request takes through the seed's server.
type Family uint8

const (
	// ChargeRefused requests pass the charge budget and are refused before
	// jsonschema runs: only the parse and charge moments exist.
	ChargeRefused Family = iota + 1
	// SchemaRefused requests pass the charge and fail a keyword that renders
	// the instance: the render moment exists too.
	SchemaRefused
	// Valid requests pass both and render nothing.
	Valid
)

func (f Family) String() string {
	switch f {
	case ChargeRefused:
		return "i"
	case SchemaRefused:
		return "ii"
	case Valid:
		return "iii"
	}
	return "?"
}

// Families lists the three families in the seed's order.
var Families = []Family{ChargeRefused, SchemaRefused, Valid}

// Describe names the family the way the seed does.
func (f Family) Describe() string {
	switch f {
	case ChargeRefused:
		return "(i) charge-refused"
	case SchemaRefused:
		return "(ii) refused by jsonschema"
	case Valid:
		return "(iii) valid"
	}
	return "?"
}

// FamilyOf is the family a shape's request takes under limits l.
func FamilyOf(st Stats, v Verdict, l charge.Limits) Family {
	if st.Charge > l.MaxParamsRenderedChars {
		return ChargeRefused
	}
	if v == Refuses {
		return SchemaRefused
	}
	return Valid
}

// Parser is a named JSON parser the seed's server could parse a body with.
// Its parse term is a property of the parser, not of the model: the seed
// priced pydantic_core's, and json.loads widens differently.
type Parser struct {
	Name   string // pydantic_core.from_json, json.loads
	Module string // the importable module the calibration script reports the version of
	// Peak is the parse moment's own peak, in bytes traced by tracemalloc,
	// above the transport's buffers.
	Peak func(st Stats, e charge.Encoder) int64
	// Mechanism says, in one sentence, why Peak has its form.
	Mechanism string
}

// widenSum is the most bytes per input unit CPython's string builder holds
// while it widens along kinds: the old buffer and the new one are both live
// for a moment, and each is sized by the input, not by the finished string.
func widenSum(kinds []int) int64 {
	m := int64(kinds[0])
	for i := 1; i < len(kinds); i++ {
		m = max(m, int64(kinds[i-1]+kinds[i]))
	}
	return m
}

// PydanticCore is pydantic_core.from_json(bytes), the parse the seed's SDK
// (mcp==2.1.1, streamable_http.py) runs. jiter unescapes the leaf in Rust
// memory, which tracemalloc does not see, then hands CPython UTF-8 bytes;
// CPython's UTF-8 decoder sizes its buffer by the input bytes (L) at kind 1
// and widens in place each time a wider code point arrives.
var PydanticCore = Parser{
	Name:   "pydantic_core.from_json",
	Module: "pydantic_core",
	Peak: func(st Stats, e charge.Encoder) int64 {
		return st.Landed * widenSum(st.Kinds)
	},
	Mechanism: "CPython's UTF-8 decoder holds L bytes x (old kind + new kind) at each widening; L is the leaf's UTF-8 length",
}

// JSONLoads is json.loads(bytes): the whole body is decoded to a str first
// (widening like PydanticCore, over the body's bytes), then the leaf is cut
// out of it: a copy at the body's kind when the leaf has no escapes, or built
// by a writer that over-allocates by a quarter and widens the same way when
// it does.
var JSONLoads = Parser{
	Name:   "json.loads",
	Module: "json",
	Peak: func(st Stats, e charge.Encoder) int64 {
		if e == charge.EnsureASCII {
			// the body is ASCII: decoded at kind 1, then the unescaping writer
			return st.Wire + (st.CodePoints+st.CodePoints/4+8)*widenSum(st.Kinds)
		}
		bodyCP := st.Wire - st.LeafWire + st.CodePoints
		k := int64(st.Kind)
		return max(st.Wire*widenSum(st.Kinds), bodyCP*k+st.CodePoints*k)
	},
	Mechanism: "the body's str (decoded with the same widening over the body's bytes) and the leaf's copy at the same kind are both live; with escapes the leaf is built by a writer over-allocated by 1/4",
}

// SeedParse is the parse term the seed recorded: 1x, 3x or 5x the wire bytes
// by the widest code point's kind ("the finished string ... and above the
// 1-byte kind ... one further wire-byte-sized buffer while it widens").
var SeedParse = Parser{
	Name:   "seed (ADR-0031 Amendment 1)",
	Module: "pydantic_core",
	Peak: func(st Stats, e charge.Encoder) int64 {
		k := int64(st.Kind)
		if k == 1 {
			return st.Wire
		}
		return st.Wire * (k + 1)
	},
	Mechanism: "the finished string at its kind plus one wire-sized buffer while it widens",
}

// Parsers lists the parsers the model prices.
var Parsers = []Parser{PydanticCore, JSONLoads}

// ParserNamed finds a parser by name.
func ParserNamed(name string) (Parser, error) {
	for _, p := range append(Parsers, SeedParse) {
		if p.Name == name {
			return p, nil
		}
	}
	return Parser{}, fmt.Errorf("unknown parser %q", name)
}

// The seed's charge fallback: strings that are not all printable are reprred
// whole up to chunkCodePoints, in chunks above it.
const chunkCodePoints = 8192

// Fixed is what a request costs whatever its body: the parsed dict and its
// small strings, the frames the stages run in, object headers. Measured below
// 40 KiB on every calibrated row; the model carries it so that it bounds small
// bodies too.
const Fixed = 64 << 10

// Moments is the model's price of each moment of one request, in bytes of
// Python heap (what tracemalloc traces).
type Moments struct {
	Transport int64 // the body's bytearray and its bytes copy
	Parse     int64 // transport + the parse's own peak
	Charge    int64 // transport + the parsed leaf + the charge's transient
	Render    int64 // transport + the parsed leaf + repr and the message built from it; 0 unless family (ii)
}

// Prediction is the model's answer for one shape.
type Prediction struct {
	Shape   Shape
	Stats   Stats
	Parser  string
	Family  Family
	Moments Moments
	Peak    int64  // the maximum over the moments the family has
	Decider string // which moment is the maximum
}

// Ratio is the peak over the wire bytes.
func (p Prediction) Ratio() float64 { return float64(p.Peak) / float64(p.Stats.Wire) }

// TransportChunk is the read size the calibration's transport accumulates the
// body in; uvicorn hands Starlette at most 64 KiB a chunk.
const TransportChunk = 64 << 10

// BytearrayAlloc is how many bytes CPython's bytearray holds after body is
// appended to it chunk bytes at a time (Objects/bytearrayobject.c,
// PyByteArray_Resize): an exact resize while a chunk is more than an eighth
// of the buffer, then growth by an eighth. It is why the transport term is
// between 2.0x and 2.125x of the wire bytes, not exactly 2x.
func BytearrayAlloc(size, chunk int64) int64 {
	var alloc, n int64
	for n < size {
		n = min(n+chunk, size)
		if n+1 <= alloc {
			continue
		}
		if float64(n) <= float64(alloc)*1.125 {
			alloc = n + n>>3 + 6
			if n < 9 {
				alloc = n + n>>3 + 3
			}
		} else {
			alloc = n + 1
		}
	}
	return alloc
}

// Predict prices one shape under one parser and limits l.
func Predict(s Shape, p Parser, l charge.Limits) Prediction {
	st := s.Stats()
	fam := FamilyOf(st, s.Verdict, l)
	leaf := st.CodePoints * int64(st.Kind)
	var m Moments
	m.Transport = Fixed + st.Wire + BytearrayAlloc(st.Wire, TransportChunk)
	m.Parse = m.Transport + p.Peak(st, s.Encoder)
	m.Charge = m.Transport + leaf + chargeTransient(st)
	if fam == SchemaRefused {
		repr := (st.Rendered + 2) * int64(st.ReprKind)
		msg := (st.Rendered + 2 + int64(len(" is too long"))) * int64(st.ReprKind)
		m.Render = m.Transport + leaf + repr + msg
	}
	pr := Prediction{Shape: s, Stats: st, Parser: p.Name, Family: fam, Moments: m}
	pr.Peak, pr.Decider = m.Parse, "parse"
	if m.Charge > pr.Peak {
		pr.Peak, pr.Decider = m.Charge, "charge"
	}
	if m.Render > pr.Peak {
		pr.Peak, pr.Decider = m.Render, "render"
	}
	return pr
}

// chargeTransient is the seed's _rendered_width cost above the parsed leaf:
// nothing on the isprintable fast path; otherwise repr of a slice of at most
// chunkCodePoints code points (the slice, then its repr).
func chargeTransient(st Stats) int64 {
	if st.Printable {
		return 0
	}
	c := min(st.CodePoints, chunkCodePoints)
	slice := c * int64(st.Kind)
	if st.CodePoints <= chunkCodePoints {
		slice = 0 // the whole leaf is reprred, no slice
	}
	return slice + (c*int64(st.MaxRuneRepr)+2)*int64(st.ReprKind)
}

// SeedModel is the seed's composition as written (round three): the parse
// moment with its parse term, and the render moment at the parsed string's
// kind, "2*wire + code_points*kind + 2*rendered*kind".
func SeedModel(s Shape, l charge.Limits) (peak int64, fam Family) {
	st := s.Stats()
	fam = FamilyOf(st, s.Verdict, l)
	k := int64(st.Kind)
	peak = 2*st.Wire + SeedParse.Peak(st, s.Encoder)
	if fam == SchemaRefused {
		peak = max(peak, 2*st.Wire+st.CodePoints*k+2*st.Rendered*k)
	}
	return peak, fam
}

// SeedAdditive is the additive form the seed withdrew: transport, parse and
// the two render strings summed, as if none were freed before the next.
func SeedAdditive(s Shape, l charge.Limits) int64 {
	st := s.Stats()
	k := int64(st.Kind)
	v := 2*st.Wire + SeedParse.Peak(st, s.Encoder)
	if FamilyOf(st, s.Verdict, l) == SchemaRefused {
		v += 2 * st.Rendered * k // the parsed leaf is already inside the parse term
	}
	return v
}
