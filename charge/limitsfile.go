package charge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// MaxLimitsFileBytes bounds a limits file: ParseLimits refuses a longer one.
// Seven members need under 300 bytes; the rest is room for whitespace.
const MaxLimitsFileBytes = 64 << 10

// MaxSizeBytes bounds the text ParseSize reads: the widest int64 is 19
// digits, and 32 leaves room for separators and a unit.
const MaxSizeBytes = 32

// maxFileInt is the most an int member of the limits file takes, so that a
// file reads the same on every platform whatever the width of int.
const maxFileInt = math.MaxInt32

// limitMember is one Limits field: its member name in the limits file and the
// values Validate admits for it, [min, max].
type limitMember struct {
	name, field string
	min, max    int64
	why         string // why max is what it is, when it is not the type's own
	isInt       bool   // an int field: the file takes at most maxFileInt
	get         func(Limits) int64
	set         func(*Limits, int64)
}

// limitMembers is the one table of the limits: ParseLimits, SetMember, Member
// and Validate all read it. In the order the file format documents them.
var limitMembers = [...]limitMember{
	{name: "max_source_file_bytes", field: "MaxSourceFileBytes", min: 1, max: math.MaxInt64,
		get: func(l Limits) int64 { return l.MaxSourceFileBytes }, set: func(l *Limits, v int64) { l.MaxSourceFileBytes = v }},
	{name: "envelope", field: "EnvelopeAllowance", min: 0, max: math.MaxInt64,
		get: func(l Limits) int64 { return l.EnvelopeAllowance }, set: func(l *Limits, v int64) { l.EnvelopeAllowance = v }},
	{name: "budget", field: "MaxParamsRenderedChars", min: 1, max: math.MaxInt64,
		get: func(l Limits) int64 { return l.MaxParamsRenderedChars }, set: func(l *Limits, v int64) { l.MaxParamsRenderedChars = v }},
	{name: "max_nodes", field: "MaxParamsNodes", min: 1, max: math.MaxInt, isInt: true,
		get: func(l Limits) int64 { return int64(l.MaxParamsNodes) }, set: func(l *Limits, v int64) { l.MaxParamsNodes = int(v) }},
	{name: "max_nesting", field: "MaxParamsNesting", min: 1, max: maxNestingSupported, isInt: true,
		why: "the most the gate's pointer stack supports, one under the go-sdk's arguments depth",
		get: func(l Limits) int64 { return int64(l.MaxParamsNesting) }, set: func(l *Limits, v int64) { l.MaxParamsNesting = int(v) }},
	{name: "max_number_bytes", field: "MaxNumberBytes", min: 1, max: pythonMaxIntDigits, isInt: true,
		why: "CPython's json.loads refuses a longer integer",
		get: func(l Limits) int64 { return int64(l.MaxNumberBytes) }, set: func(l *Limits, v int64) { l.MaxNumberBytes = int(v) }},
	{name: "max_number_exponent", field: "MaxNumberExponent", min: 0, max: math.MaxInt, isInt: true,
		get: func(l Limits) int64 { return int64(l.MaxNumberExponent) }, set: func(l *Limits, v int64) { l.MaxNumberExponent = int(v) }},
}

// inRange is nil when v is in the member's range (file: as a limits file
// takes it), else an error naming the bound passed; the caller names the
// field or member.
func (m *limitMember) inRange(v int64, file bool) error {
	hi, why := m.max, m.why
	if file && m.isInt && hi > maxFileInt {
		hi, why = maxFileInt, "an int member of a limits file, on every platform"
	}
	switch {
	case v < m.min:
		return fmt.Errorf("must be at least %d, got %d", m.min, v)
	case v > hi && why != "":
		return fmt.Errorf("must be at most %d (%s), got %d", hi, why, v)
	case v > hi:
		return fmt.Errorf("must be at most %d, got %d", hi, v)
	}
	return nil
}

func memberNamed(name string) *limitMember {
	for i := range limitMembers {
		if limitMembers[i].name == name {
			return &limitMembers[i]
		}
	}
	return nil
}

// LimitsMembers is the limits file's member names, in the order the format
// documents them, in a fresh slice.
func LimitsMembers() []string {
	out := make([]string, len(limitMembers))
	for i, m := range limitMembers {
		out[i] = m.name
	}
	return out
}

// Member is the value of the Limits field the limits file's member name sets;
// ok is false when no member is named so.
func (l Limits) Member(name string) (v int64, ok bool) {
	m := memberNamed(name)
	if m == nil {
		return 0, false
	}
	return m.get(l), true
}

// SetMember sets the field the limits file's member name sets from value, as
// the file would hold it in a string ("16MiB", "100000"): ParseSize's syntax,
// then the member's range (Validate's, an int field at most 2^31-1). On an
// error l is unchanged; the error names the bound and never quotes value or
// an unknown name.
func (l *Limits) SetMember(name, value string) error {
	m := memberNamed(name)
	if m == nil {
		return fmt.Errorf("no limit has a name of %d bytes (the limits: %s)", len(name), strings.Join(LimitsMembers(), ", "))
	}
	v, err := ParseSize(value)
	if err != nil {
		return err
	}
	if err := m.inRange(v, true); err != nil {
		return err
	}
	m.set(l, v)
	return nil
}

var sizeUnits = [...]struct {
	suffix string
	scale  int64
}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"b", 1}}

var errSize = errors.New("want a whole number, bare or followed by B, KiB, MiB or GiB (e.g. 16MiB)")

// ParseSize reads a limits-file value: a whole number, bare or followed by a
// binary unit (B, KiB, MiB, GiB, any case), with spaces around it and before
// the unit and _ between digits allowed: "16777216", "16MiB", "16 mib",
// "1_024KiB". It refuses text longer than MaxSizeBytes, a sign, a fraction,
// an exponent, and a value past math.MaxInt64. Its errors never quote text.
func ParseSize(text string) (int64, error) {
	if len(text) > MaxSizeBytes {
		return 0, fmt.Errorf("%w; got %d bytes of text, over the %d a size may take", errSize, len(text), MaxSizeBytes)
	}
	s := strings.ToLower(strings.TrimSpace(text))
	scale := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, scale = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.scale
			break
		}
	}
	s = strings.ReplaceAll(s, "_", "")
	if s == "" {
		return 0, errSize
	}
	var v int64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, errSize
		}
		if v > (math.MaxInt64-int64(c-'0'))/10 {
			return 0, fmt.Errorf("the size is over %d, the most 64 bits hold", int64(math.MaxInt64))
		}
		v = v*10 + int64(c-'0')
	}
	if v > math.MaxInt64/scale {
		return 0, fmt.Errorf("the size is over %d, the most 64 bits hold", int64(math.MaxInt64))
	}
	return v * scale, nil
}

// ParseLimits reads a limits file: one JSON object whose members set Limits
// fields by their snake-case names (LimitsMembers), a member left out keeping
// its DefaultLimits value,
//
//	{"max_source_file_bytes": "16MiB", "budget": "17MiB", "max_nodes": 200000}
//
// each value a whole number or a string ParseSize reads. Each member is
// checked as SetMember checks it and the whole as Validate does. The file is held to the gate's strictness under DefaultLimits
// (RFC 8259, UTF-8, no repeated member, nothing after the object) and to
// MaxLimitsFileBytes; a member that is not a limit, a value that is neither a
// number nor a string, and a value out of its member's range are refused.
// The error names the member and the bound; it quotes nothing from data
// beyond a strictness refusal's pointer (a member name cut at KeyCut bytes,
// display-escaped). On an error the Limits are the zero value.
func ParseLimits(data []byte) (Limits, error) {
	if len(data) > MaxLimitsFileBytes {
		return Limits{}, fmt.Errorf("the limits file is %d bytes, over the %d it may hold", len(data), MaxLimitsFileBytes)
	}
	g, err := NewGate(Go, DefaultLimits())
	if err != nil {
		return Limits{}, err
	}
	if _, err := g.Check(data); err != nil {
		var r *Refusal
		if errors.As(err, &r) {
			return Limits{}, errors.New(r.describe("the limits file"))
		}
		return Limits{}, err
	}
	var members map[string]json.RawMessage
	if bytes.TrimSpace(data)[0] != '{' || json.Unmarshal(data, &members) != nil {
		return Limits{}, errors.New(`the limits file must be one JSON object, e.g. {"max_source_file_bytes": "16MiB"}`)
	}
	var unknown []int
	for name := range members {
		if memberNamed(name) == nil {
			unknown = append(unknown, len(name))
		}
	}
	if len(unknown) > 0 {
		sort.Ints(unknown)
		return Limits{}, fmt.Errorf("the limits file has %d member(s) that are no limit (names of %s bytes; the limits: %s)",
			len(unknown), joinInts(unknown), strings.Join(LimitsMembers(), ", "))
	}
	l := DefaultLimits()
	for i := range limitMembers {
		m := &limitMembers[i]
		raw, ok := members[m.name]
		if !ok {
			continue
		}
		var text string
		switch raw[0] {
		case '"':
			if json.Unmarshal(raw, &text) != nil {
				return Limits{}, fmt.Errorf("%s: not a JSON string", m.name) // unreachable after the gate
			}
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			text = string(raw)
		default:
			return Limits{}, fmt.Errorf("%s: %w; got a JSON %s", m.name, errSize, jsonKind(raw[0]))
		}
		if err := l.SetMember(m.name, text); err != nil {
			return Limits{}, fmt.Errorf("%s: %w", m.name, err)
		}
	}
	if most, ok := l.bodyCapFits(); !ok {
		return Limits{}, fmt.Errorf("max_source_file_bytes must be at most %s beside envelope %d (%s), got %d",
			most, l.EnvelopeAllowance, capFitsWhy, l.MaxSourceFileBytes)
	}
	if err := l.Validate(); err != nil {
		return Limits{}, err // unreachable: every member is in range and the cap fits
	}
	return l, nil
}

func jsonKind(first byte) string {
	switch first {
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	}
	return "null"
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// capFitsWhy says why MaxSourceFileBytes has a ceiling beside the allowance.
const capFitsWhy = "so the body cap, the file bytes times the widest wire ratio of any encoder family plus the allowance, fits in 63 bits"

// bodyCapFits reports whether BodyCap's Cap fits in an int64 for every set of
// encoders: ceil(ratio × MaxSourceFileBytes) + EnvelopeAllowance at the widest
// non-control ratio of any encoder family. most is the largest
// MaxSourceFileBytes that fits beside this EnvelopeAllowance.
func (l Limits) bodyCapFits() (most *big.Int, ok bool) {
	worst := BodyCap(Limits{}, Encoders()...).Multiplier // the widest over every family
	// most = floor((MaxInt64 - allowance) / worst), so worst × most is at most
	// the whole number MaxInt64 - allowance, and so is its ceiling; one more
	// file byte passes it.
	room := new(big.Rat).Quo(new(big.Rat).SetInt64(math.MaxInt64-max(l.EnvelopeAllowance, 0)), worst)
	most = new(big.Int).Quo(room.Num(), room.Denom())
	return most, big.NewInt(l.MaxSourceFileBytes).Cmp(most) <= 0
}
