package charge

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
)

// Limits are the bounds the gate holds a document to, and the source-file cap
// the body cap is derived from. The zero value is not usable; start from
// DefaultLimits.
type Limits struct {
	// MaxSourceFileBytes is the largest file a tool call may land, in UTF-8
	// bytes. The body cap is derived from it (see BodyCap).
	MaxSourceFileBytes int64
	// EnvelopeAllowance is what the body cap adds for the JSON-RPC envelope and
	// the sibling arguments. It is an allowance, not a derived figure.
	EnvelopeAllowance int64
	// MaxParamsRenderedChars is the charge budget: the total width, in the
	// dialect's unit, of every leaf and member name a document holds.
	MaxParamsRenderedChars int64
	// MaxParamsNodes bounds containers + member names + values.
	MaxParamsNodes int
	// MaxParamsNesting bounds how deep containers nest; the root container is
	// depth 1.
	MaxParamsNesting int
	// MaxNumberBytes bounds one number token's length in bytes.
	MaxNumberBytes int
	// MaxNumberExponent bounds the magnitude of a number token's written
	// exponent (the digits after e/E).
	MaxNumberExponent int
}

const (
	mib = 1 << 20

	// pythonMaxIntDigits is CPython's default sys.int_info.default_max_str_digits:
	// json.loads refuses an integer literal longer than this.
	pythonMaxIntDigits = 4300
)

// DefaultLimits are the seed ADR's values (MaxSourceFileBytes 8 MiB, the 1 MiB
// envelope allowance, MaxParamsRenderedChars 12 MiB, MaxParamsNodes 100,000)
// and boundlab's own choices for the bounds the seed does not state:
//
//   - MaxParamsNesting 64. A tool's arguments are an object of fields; the
//     published schemas nest two levels. 64 leaves room for any real schema and
//     sits far below every parser on the path — the go-sdk's pre-scan leaves
//     arguments 998 levels (record mcpvalidate.residual.sdk.arguments-max-depth), CPython recurses out near 1000, sonic stops at 4096
//     — so the gate's bounded refusal answers before any of them, and a refusal's
//     pointer never has more than 64 segments.
//   - MaxNumberBytes 64. The longest shortest-round-trip binary64 literal is 24
//     bytes and the longest 64-bit integer 20; 64 admits both with room, and is
//     far below CPython's 4300-digit int limit, so no admitted token makes
//     json.loads raise.
//   - MaxNumberExponent 999. jsonschema/v6 turns every number into a big.Rat:
//     at 1e999999 that costs ~44 ms, and 1e1000001 makes it panic. Three
//     exponent digits cover binary64's whole range (1e-324 .. 1e308) and keep
//     the big.Rat a few hundred digits.
func DefaultLimits() Limits {
	return Limits{
		MaxSourceFileBytes:     8 * mib,
		EnvelopeAllowance:      1 * mib,
		MaxParamsRenderedChars: 12 * mib,
		MaxParamsNodes:         100_000,
		MaxParamsNesting:       64,
		MaxNumberBytes:         64,
		MaxNumberExponent:      999,
	}
}

// Validate reports whether the limits can be enforced as documented: each
// field in its range (at least 1, or 0 for EnvelopeAllowance and
// MaxNumberExponent; MaxParamsNesting at most 997, MaxNumberBytes at most
// CPython's 4,300 digits), and MaxSourceFileBytes small enough beside
// EnvelopeAllowance that BodyCap's Cap fits in an int64 under any encoders.
// Each error names the field, the bound and the value.
func (l Limits) Validate() error {
	var errs []error
	for i := range limitMembers {
		m := &limitMembers[i]
		if err := m.inRange(m.get(l), false); err != nil {
			errs = append(errs, fmt.Errorf("%s %w", m.field, err))
		}
	}
	if most, ok := l.bodyCapFits(); !ok && l.MaxSourceFileBytes > 0 {
		errs = append(errs, fmt.Errorf("MaxSourceFileBytes must be at most %s beside EnvelopeAllowance %d (%s), got %d",
			most, l.EnvelopeAllowance, capFitsWhy, l.MaxSourceFileBytes))
	}
	return errors.Join(errs...)
}

// maxNestingSupported keeps the gate's frame stack and a refusal's pointer
// small whatever the caller configures; it is one under the go-sdk's own
// arguments depth (record mcpvalidate.residual.sdk.arguments-max-depth).
const maxNestingSupported = 997

// Punctuation is what a dialect's whole-document render adds around and
// between the leaves the charge prices.
type Punctuation struct {
	Container int // what a container costs of its own: [] and {} in Python; "value" in Go
	Quotes    int // the delimiters around a rendered string or member name
	Separator int // between two members of a container: ", "
	Colon     int // between a member name and its value: ": "
}

// Punctuation is the dialect's punctuation table.
//
// Python renders a document as repr of the dict/list json.loads builds:
// {'k': v, ...} and [v, ...]. Go's jsonschema/v6 never renders a container's
// contents — its display() prints the word "value" for one — so its whole
// render is each node's display, concatenated, with no separators.
func (d Dialect) Punctuation() Punctuation {
	if d == Python {
		return Punctuation{Container: 2, Quotes: 2, Separator: 2, Colon: 2}
	}
	return Punctuation{Container: len("value"), Quotes: 2}
}

// PerNodeMax is the most punctuation one node can add to a whole render, so
// that render <= charge + nodes*PerNodeMax for every document. Derived by
// attributing each separator to the node after it and each colon to the name
// before it:
//
//	the root:          max(Container, Quotes)
//	an array element:  Separator + max(Container, Quotes)
//	a name and value:  Quotes + Colon + Separator + max(Container, Quotes), over two nodes
//
// (numbers and literals add nothing; the charge holds their whole render).
func (d Dialect) PerNodeMax() int {
	p := d.Punctuation()
	wrap := max(p.Container, p.Quotes)
	element := p.Separator + wrap
	pair := p.Quotes + p.Colon + p.Separator + wrap
	return max(wrap, element, (pair+1)/2)
}

// ComposedCeiling is the most a document the gate admits can render to as a
// whole, in the dialect's unit: the budget plus the punctuation of the most
// nodes the gate admits.
func ComposedCeiling(d Dialect, l Limits) int64 {
	return l.MaxParamsRenderedChars + int64(l.MaxParamsNodes)*int64(d.PerNodeMax())
}

// BodyCapDerivation is the transport body cap for a set of encoder families:
// the multiplier is the worst wire ratio over the non-control classes of those
// families, and the classes above it are the residual. Each BodyCap call
// returns new slices and big.Rats, shared with nothing.
type BodyCapDerivation struct {
	Encoders   []Encoder    // the families the cap is derived for, as the caller named them
	Multiplier *big.Rat     // worst wire/landed ratio over non-control classes
	Worst      []ClassRatio // the non-control classes at the multiplier
	Cap        int64        // ceil(Multiplier * MaxSourceFileBytes) + EnvelopeAllowance
	Residual   []ClassRatio // the classes above the multiplier: a file dense in them can pass the cap
}

// ClassRatio is one wire class under one encoder and its wire ratio.
type ClassRatio struct {
	Encoder Encoder
	Class   WireClass
	Ratio   *big.Rat // Class.Ratio(Encoder)
}

// BodyCap derives the body cap the limits need for clients using any of the
// encoder families.
func BodyCap(l Limits, encoders ...Encoder) BodyCapDerivation {
	d := BodyCapDerivation{Encoders: slices.Clone(encoders), Multiplier: new(big.Rat)}
	for _, e := range encoders {
		for _, c := range wireClasses[:] {
			r := c.Ratio(e)
			if c.Control {
				continue
			}
			switch r.Cmp(d.Multiplier) {
			case 1:
				d.Multiplier.Set(r)
				d.Worst = d.Worst[:0]
				fallthrough
			case 0:
				d.Worst = append(d.Worst, ClassRatio{e, c, r})
			}
		}
	}
	for _, e := range encoders {
		for _, c := range wireClasses[:] {
			if r := c.Ratio(e); r.Cmp(d.Multiplier) > 0 {
				d.Residual = append(d.Residual, ClassRatio{e, c, r})
			}
		}
	}
	scaled := new(big.Rat).Mul(d.Multiplier, new(big.Rat).SetInt64(l.MaxSourceFileBytes))
	q, m := new(big.Int).QuoRem(scaled.Num(), scaled.Denom(), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	d.Cap = q.Int64() + l.EnvelopeAllowance
	return d
}
