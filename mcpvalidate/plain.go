package mcpvalidate

import (
	"math"
	"math/big"
	"reflect"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A plain schema is a compiled input schema made only of the keywords most
// tools publish — type, properties, required, additionalProperties, items,
// a string enum, minLength, maxLength, and integer bounds — with no $ref and
// no applicator. For such a schema, admits reads the arguments' bytes once
// and says whether they are certainly valid, with no tree and no
// allocation: an admitted call skips the decode and jsonschema/v6.
//
// It only ever admits. Whatever it cannot decide — an escaped member name,
// an escaped string under an enum or a length, a number under a bound that
// is not a short integer literal, and every call that breaks the schema —
// goes the full way (decode, then jsonschema/v6), so every refusal is
// jsonschema/v6's, worded as before. It reads bytes the charge gate has
// admitted — well-formed JSON, valid UTF-8, no repeated member name — and
// leans on that; given other bytes it never panics, but its answer means
// nothing.
type plainSchema struct {
	types plainTypes // 0: every type

	// object members
	props    []plainProp
	index    map[string]int // name → props index, for objects with many
	required uint64         // bits over props
	closed   bool           // additionalProperties false
	extra    *plainSchema   // additionalProperties as a schema; nil: any

	items *plainSchema // nil: any

	enum                 []string // nil: none; the values are strings
	minLength, maxLength int      // -1: none

	// integer bounds, already rounded to the integers they admit; a number
	// that is not a short integer literal is declined under them
	bounded bool
	lo, hi  int64
}

// plainProp is one member name the schema reads: a property (its schema
// nil when it admits anything), or a name only required (declared false),
// which additionalProperties still judges.
type plainProp struct {
	name     string
	schema   *plainSchema
	declared bool
}

type plainTypes uint8

const (
	plainNull plainTypes = 1 << iota
	plainBoolean
	plainNumber
	plainInteger
	plainString
	plainArray
	plainObject
)

var plainTypeNames = map[string]plainTypes{
	"null": plainNull, "boolean": plainBoolean, "number": plainNumber, "integer": plainInteger,
	"string": plainString, "array": plainArray, "object": plainObject,
}

// plainAny stands for a schema that admits every value: a value under it is
// skipped, not read.
var plainAny = &plainSchema{minLength: -1, maxLength: -1}

// plainDepth bounds how deep a schema admits reads; a deeper one is not
// plain (a schema without $ref is a finite tree, so this only keeps the
// recursion of admits as shallow as the schema is).
const plainDepth = 32

// maxPlainRequired is how many required names a plain object may list: they
// are tracked as bits of one word.
const maxPlainRequired = 64

// linearProps is how many members an object's schema names before admits
// looks names up in a map rather than comparing each.
const linearProps = 8

// plainOf is s reduced to a plain schema, or nil when any keyword of s (or
// of a schema under it) is one admits does not check.
func plainOf(s *jsonschema.Schema) *plainSchema {
	p, ok := plainAt(s, 0)
	if !ok {
		return nil
	}
	return p
}

func plainAt(s *jsonschema.Schema, depth int) (*plainSchema, bool) {
	if s == nil || depth > plainDepth || !onlyPlainKeywords(s) {
		return nil, false
	}
	if s.Bool != nil {
		if *s.Bool {
			return plainAny, true
		}
		return nil, false
	}
	p := &plainSchema{minLength: -1, maxLength: -1}
	if s.Types != nil {
		for _, name := range s.Types.ToStrings() {
			t, ok := plainTypeNames[name]
			if !ok {
				return nil, false
			}
			p.types |= t
		}
	}
	if s.Enum != nil {
		p.enum = make([]string, 0, len(s.Enum.Values))
		for _, v := range s.Enum.Values {
			str, ok := v.(string)
			if !ok {
				return nil, false
			}
			p.enum = append(p.enum, str)
		}
	}
	if s.MinLength != nil {
		p.minLength = *s.MinLength
	}
	if s.MaxLength != nil {
		p.maxLength = *s.MaxLength
	}
	p.boundBy(s)
	for name, sub := range s.Properties {
		ps, ok := plainAt(sub, depth+1)
		if !ok {
			return nil, false
		}
		if ps == plainAny {
			ps = nil
		}
		p.props = append(p.props, plainProp{name: name, schema: ps, declared: true})
	}
	for _, name := range s.Required {
		i := p.lookup([]byte(name))
		if i < 0 {
			p.props = append(p.props, plainProp{name: name})
			i = len(p.props) - 1
		}
		if i >= maxPlainRequired {
			return nil, false
		}
		p.required |= 1 << i
	}
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		p.closed = !a
	case *jsonschema.Schema:
		extra, ok := plainAt(a, depth+1)
		if !ok {
			return nil, false
		}
		if extra != plainAny {
			p.extra = extra
		}
	default:
		return nil, false
	}
	if s.Items2020 != nil {
		items, ok := plainAt(s.Items2020, depth+1)
		if !ok {
			return nil, false
		}
		if items != plainAny {
			p.items = items
		}
	}
	if len(p.props) > linearProps {
		p.index = make(map[string]int, len(p.props))
		for i, m := range p.props {
			p.index[m.name] = i
		}
	}
	if p.types == 0 && p.enum == nil && p.minLength < 0 && p.maxLength < 0 && !p.bounded &&
		p.props == nil && !p.closed && p.extra == nil && p.items == nil {
		return plainAny, true
	}
	return p, true
}

// boundBy sets p's integer bounds from s's minimum, maximum and their
// exclusive forms, each rounded to the integers it admits (a bound past the
// int64 range is held at its end, where no literal admits reads lies).
func (p *plainSchema) boundBy(s *jsonschema.Schema) {
	p.lo, p.hi = math.MinInt64, math.MaxInt64
	tighten := func(r *big.Rat, lower, exclusive bool) {
		if r == nil {
			return
		}
		p.bounded = true
		// the least (lower) or greatest (upper) integer the bound admits
		q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int)) // truncated toward zero
		switch {
		case lower && (m.Sign() > 0 || (m.Sign() == 0 && exclusive)):
			q.Add(q, big.NewInt(1))
		case !lower && (m.Sign() < 0 || (m.Sign() == 0 && exclusive)):
			q.Sub(q, big.NewInt(1))
		}
		v := int64(math.MaxInt64)
		if q.IsInt64() {
			v = q.Int64()
		} else if q.Sign() < 0 {
			v = math.MinInt64
		}
		if lower && v > p.lo {
			p.lo = v
		}
		if !lower && v < p.hi {
			p.hi = v
		}
	}
	tighten(s.Minimum, true, false)
	tighten(s.ExclusiveMinimum, true, true)
	tighten(s.Maximum, false, false)
	tighten(s.ExclusiveMaximum, false, true)
}

// plainFields are the exported fields of jsonschema.Schema admits reads or
// that assert nothing; a schema that sets any other field is not plain.
// TestPlainKnowsEveryField holds this list to the library's struct, so a
// field a new version adds is judged before it can be missed.
var plainFields = map[string]bool{
	"DraftVersion": true, "Location": true, "ID": true, "Anchor": true, "DynamicAnchor": true,
	"RecursiveAnchor": true, "Bool": true, "Types": true, "Enum": true,
	"Required": true, "Properties": true, "AdditionalProperties": true, "Items2020": true,
	"MinLength": true, "MaxLength": true,
	"Maximum": true, "Minimum": true, "ExclusiveMaximum": true, "ExclusiveMinimum": true,
	"Title": true, "Description": true, "Default": true, "Comment": true, "ReadOnly": true,
	"WriteOnly": true, "Examples": true, "Deprecated": true,
}

// onlyPlainKeywords says whether every field of s outside plainFields is
// its zero value.
func onlyPlainKeywords(s *jsonschema.Schema) bool {
	v := reflect.ValueOf(s).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || plainFields[f.Name] {
			continue
		}
		if !v.Field(i).IsZero() {
			return false
		}
	}
	return true
}

// admits says whether doc, bytes the charge gate admitted, is certainly
// valid under p. False is no verdict: the call goes the full way.
func (p *plainSchema) admits(doc []byte) bool {
	i, ok := p.value(doc, skipSpace(doc, 0))
	return ok && skipSpace(doc, i) == len(doc)
}

// value reads the value at b[i:] under p, returning where it ends.
func (p *plainSchema) value(b []byte, i int) (int, bool) {
	if p == nil || p == plainAny {
		return skipValue(b, i)
	}
	if i >= len(b) || (p.enum != nil && b[i] != '"') {
		return 0, false // the enum holds strings only
	}
	switch c := b[i]; c {
	case '{':
		if !p.allows(plainObject) {
			return 0, false
		}
		return p.object(b, i)
	case '[':
		if !p.allows(plainArray) {
			return 0, false
		}
		return p.array(b, i)
	case '"':
		if !p.allows(plainString) {
			return 0, false
		}
		return p.str(b, i)
	case 't', 'f', 'n':
		t, word := plainBoolean, "true"
		switch c {
		case 'f':
			word = "false"
		case 'n':
			t, word = plainNull, "null"
		}
		if !p.allows(t) || len(b)-i < len(word) {
			return 0, false
		}
		return i + len(word), true // spelled as the gate checked
	default:
		return p.number(b, i)
	}
}

func (p *plainSchema) allows(t plainTypes) bool { return p.types == 0 || p.types&t != 0 }

func (p *plainSchema) object(b []byte, i int) (int, bool) {
	var seen uint64
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, p.required == 0
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		end, escaped := scanString(b, i)
		if end < 0 || escaped {
			return 0, false // an escaped name is matched by its decoded form: declined
		}
		name := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		i = skipSpace(b, i+1)
		at := p.lookup(name)
		var sub *plainSchema
		switch {
		case at >= 0 && p.props[at].declared:
			sub = p.props[at].schema
		case p.closed:
			return 0, false
		default:
			sub = p.extra
		}
		if at >= 0 {
			seen |= 1 << at
		}
		var ok, more bool
		if i, ok = sub.value(b, i); !ok {
			return 0, false
		}
		if i, more, ok = afterMember(b, i, '}'); !ok || !more {
			return i, ok && seen&p.required == p.required
		}
	}
}

func (p *plainSchema) lookup(name []byte) int {
	if p.index != nil {
		if at, ok := p.index[string(name)]; ok {
			return at
		}
		return -1
	}
	for at, m := range p.props {
		if m.name == string(name) {
			return at
		}
	}
	return -1
}

func (p *plainSchema) array(b []byte, i int) (int, bool) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok, more bool
		if i, ok = p.items.value(b, i); !ok {
			return 0, false
		}
		if i, more, ok = afterMember(b, i, ']'); !ok || !more {
			return i, ok
		}
	}
}

// afterMember reads what follows a member or an element at b[i]: a comma
// (more follow; i past it and its spaces) or the container's closing byte
// (i past it).
func afterMember(b []byte, i int, closing byte) (next int, more, ok bool) {
	i = skipSpace(b, i)
	switch {
	case i >= len(b):
		return 0, false, false
	case b[i] == ',':
		return skipSpace(b, i+1), true, true
	case b[i] == closing:
		return i + 1, false, true
	}
	return 0, false, false
}

func (p *plainSchema) str(b []byte, i int) (int, bool) {
	end, escaped := scanString(b, i)
	if end < 0 {
		return 0, false
	}
	if p.enum == nil && p.minLength < 0 && p.maxLength < 0 {
		return end, true
	}
	if escaped {
		return 0, false // compared by its decoded form: declined
	}
	s := b[i+1 : end-1]
	if p.minLength >= 0 || p.maxLength >= 0 {
		// jsonschema/v6 counts code points; the gate admitted valid UTF-8
		n := utf8.RuneCount(s)
		if n < p.minLength || (p.maxLength >= 0 && n > p.maxLength) {
			return 0, false
		}
	}
	if p.enum != nil {
		for _, e := range p.enum {
			if e == string(s) {
				return end, true
			}
		}
		return 0, false
	}
	return end, true
}

// maxPlainDigits is the longest integer literal admits reads under a
// bound: every one fits an int64.
const maxPlainDigits = 18

func (p *plainSchema) number(b []byte, i int) (int, bool) {
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == digits {
		return 0, false
	}
	// a fraction or an exponent: the literal may still be an integer to
	// jsonschema/v6 ("1.0", "1e2"), so it is declined where that matters
	end := i
	for end < len(b) && !isDelimiter(b[end]) {
		end++
	}
	integral := end == i
	switch {
	case p.types == 0 || p.types&plainNumber != 0:
	case p.types&plainInteger != 0 && integral:
	default:
		return 0, false
	}
	if !p.bounded {
		return end, true
	}
	if !integral || i-digits > maxPlainDigits {
		return 0, false
	}
	var n int64
	for _, c := range b[digits:i] {
		n = n*10 + int64(c-'0')
	}
	if b[start] == '-' {
		n = -n
	}
	return end, n >= p.lo && n <= p.hi
}

// scanString returns where the string at b[i] (its opening quote) ends,
// past its closing quote, and whether it holds an escape; -1 if it does not
// end.
func scanString(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1, escaped
		case '\\':
			escaped = true
			j++
		}
	}
	return -1, false
}

// skipValue returns where the value at b[i] ends, reading no more of it
// than its brackets and strings: the gate has checked the rest.
func skipValue(b []byte, i int) (int, bool) {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			end, _ := scanString(b, i)
			if end < 0 {
				return 0, false
			}
			i = end
		case '{', '[':
			depth++
			i++
			continue
		case '}', ']':
			if depth == 0 {
				return 0, false
			}
			depth--
			i++
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return 0, false
			}
			i++
			continue
		default:
			for i < len(b) && !isDelimiter(b[i]) {
				i++
			}
		}
		if depth == 0 {
			return i, true
		}
	}
	return 0, false
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', ':', '}', ']', '{', '[', '"', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
