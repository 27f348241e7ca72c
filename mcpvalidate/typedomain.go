package mcpvalidate

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	sdkschema "github.com/google/jsonschema-go/jsonschema"
)

// The domain of a Go input type: what a JSON value must be for the go-sdk's
// decode of a typed tool's arguments (sdkdecode.go's four steps) to succeed,
// derived by walking the type the way the SDK's decoder walks it.
//
// derive produces, for one declared Go type, two schemas and a plan:
//
//   - published: the schema jsonschema-go infers (what mcp.AddTool would
//     publish), tightened to the domain — integer and float ranges, the
//     member set the decoder actually reads, base64 strings for []byte, a
//     string for a ",string" field — and loosened where jsonschema-go's
//     reading of a type is false (a json.Number is a number, not a string; an
//     opaque type is described by nothing it does not guarantee). Its
//     conventions stay: a non-pointer member refuses null, a member without
//     omitempty/omitzero is required, a struct is closed, an array's length
//     is fixed;
//   - domain: the decode domain alone, without those conventions (null is
//     accepted everywhere the decoder accepts it, nothing is required,
//     unknown members are admitted because the decoder ignores them): what
//     mcpvalidatetest holds a published schema to;
//   - plan: the checks JSON Schema cannot state, run by the validator after
//     the schema admits a call (opaque members, numbers in untyped members,
//     negative zero for unsigned integers, base64, ",string" members,
//     map keys). nil when the schema says it all.

// numBounds are the inclusive bounds published for a numeric kind.
type numBounds struct{ min, max float64 }

// kindBounds computes, with the SDK's own decoder as the oracle, each numeric
// kind's bounds: the float64 furthest from zero on each side whose rendering
// by step 3 (encoding/json, shortest form) step 4 decodes into the kind.
// Every published bound is therefore a float64 (so jsonschema-go, which
// compares float64, admits all that jsonschema/v6, which compares exactly,
// admits), and every number at or inside it decodes: both roundings are
// monotone. For 64-bit integers this is narrower than the Go range: the SDK
// turns 9223372036854775807 into the float64 2^63 and renders it
// "9223372036854776000", which overflows int64.
var kindBounds = sync.OnceValue(func() map[reflect.Kind]numBounds {
	out := map[reflect.Kind]numBounds{}
	for _, k := range []reflect.Kind{
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
	} {
		out[k] = searchBounds(kindType[k])
	}
	return out
})

var kindType = map[reflect.Kind]reflect.Type{
	reflect.Int: reflect.TypeFor[int](), reflect.Int8: reflect.TypeFor[int8](), reflect.Int16: reflect.TypeFor[int16](),
	reflect.Int32: reflect.TypeFor[int32](), reflect.Int64: reflect.TypeFor[int64](),
	reflect.Uint: reflect.TypeFor[uint](), reflect.Uint8: reflect.TypeFor[uint8](), reflect.Uint16: reflect.TypeFor[uint16](),
	reflect.Uint32: reflect.TypeFor[uint32](), reflect.Uint64: reflect.TypeFor[uint64](), reflect.Uintptr: reflect.TypeFor[uintptr](),
	reflect.Float32: reflect.TypeFor[float32](), reflect.Float64: reflect.TypeFor[float64](),
}

// floatDecodes is the oracle for one float64 as steps 3 and 4 see it.
func floatDecodes(typ reflect.Type, f float64) bool {
	b, err := json.Marshal(f)
	if err != nil {
		return false // ±Inf, NaN: not JSON
	}
	return sdkUnmarshal(b, reflect.New(typ).Interface()) == nil
}

// searchBounds finds typ's bounds by bisection over float64 bit patterns
// between a value that decodes and one that does not. Within each bracket the
// oracle is monotone: for an integer kind of at most 53 bits the bracket is
// [limit, limit±1] (every float64 strictly between is fractional and fails);
// above 2^53 every float64 is an integer; floats fail only past their range.
func searchBounds(typ reflect.Type) numBounds {
	ok := func(f float64) bool { return floatDecodes(typ, f) }
	var hiIn, hiOut, loIn, loOut float64
	switch typ.Kind() {
	case reflect.Float32, reflect.Float64:
		hiIn, hiOut = 1, math.Inf(1)
		loIn, loOut = -1, math.Inf(-1)
	default:
		bits := typ.Bits()
		signed := typ.Kind() >= reflect.Int && typ.Kind() <= reflect.Int64
		if bits <= 32 {
			if signed {
				hiIn = float64(int64(1)<<(bits-1) - 1)
				loIn = -float64(int64(1) << (bits - 1))
			} else {
				hiIn = float64(uint64(1)<<bits - 1)
			}
			hiOut, loOut = hiIn+1, loIn-1
		} else {
			// The bracket stops at 2^bits: past it segmentio's unsigned
			// parse wraps some 20-digit values silently (36893488147419103000
			// decodes into a uint64 as 18446744073709551384), so the oracle is
			// not monotone there.
			if signed {
				hiIn, hiOut = math.Ldexp(1, bits-2), math.Ldexp(1, bits-1)
				loIn, loOut = -hiIn, -hiOut
			} else {
				hiIn, hiOut = math.Ldexp(1, bits-1), math.Ldexp(1, bits)
			}
		}
		if !signed {
			loIn, loOut = 0, -1
		}
	}
	return numBounds{min: -bisect(func(f float64) bool { return ok(-f) }, -loIn, -loOut), max: bisect(ok, hiIn, hiOut)}
}

// bisect returns the largest float64 in [in, out) for which ok holds, given
// ok(in), !ok(out), 0 <= in < out and ok monotone (true then false) between.
func bisect(ok func(float64) bool, in, out float64) float64 {
	if in == out || !ok(in) || ok(out) {
		panic("mcpvalidate: numeric bound bracket does not hold") // a go-sdk or decoder change: TestKindBounds says which
	}
	lo, hi := math.Float64bits(in), math.Float64bits(out)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok(math.Float64frombits(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Float64frombits(lo)
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonNumberType      = reflect.TypeFor[json.Number]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
)

// stringOpaque are the decoder-opaque types whose jsonschema-go schema
// ({"type": "string"}) states a necessary condition, kept as published:
// TestStringOpaqueTypesRefuseEveryOtherKind drives each through the SDK's
// decoder with a value of every other JSON kind. (big.Int is not here:
// jsonschema-go publishes it as a string, and its decoder refuses every
// string.)
var stringOpaque = map[reflect.Type]bool{
	reflect.TypeFor[time.Time]():  true,
	reflect.TypeFor[slog.Level](): true,
	reflect.TypeFor[big.Rat]():    true,
	reflect.TypeFor[big.Float]():  true,
}

// opaque reports whether the decoder hands values of t to t's own code: an
// UnmarshalJSON or UnmarshalText on t or *t. Nothing about such a type's
// domain is derived; its members are decoded at check time (planDecode).
func opaque(t reflect.Type) bool {
	if t.Kind() == reflect.Interface {
		return false
	}
	p := reflect.PointerTo(t)
	return p.Implements(jsonUnmarshalerType) || p.Implements(textUnmarshalerType)
}

// textOnly: an UnmarshalText and no UnmarshalJSON. The decoder itself
// refuses anything but a JSON string (or null) for such a type before the
// type's code runs, so "string" is true of it whatever the type does.
func textOnly(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(textUnmarshalerType) && !p.Implements(jsonUnmarshalerType)
}

// decField is one struct member as the decoder reads it (encoding/json's
// field rules, which segmentio/encoding follows; the SDK's flag makes the
// match case-sensitive).
type decField struct {
	name     string
	index    []int
	sf       reflect.StructField
	tagged   bool
	omit     bool // omitempty or omitzero: jsonschema-go leaves it out of required
	quoted   bool // the ",string" option applies to its kind
	settable bool // false: reached through an embedded pointer to an unexported struct, which the decoder cannot allocate
}

// decoderFields lists t's members as the decoder resolves them: embedded
// structs flattened unless tagged, hidden and ambiguous names dropped by Go's
// embedding rules with tags promoted (encoding/json typeFields).
func decoderFields(t reflect.Type) []decField {
	type queued struct {
		typ      reflect.Type
		index    []int
		settable bool
	}
	var fields []decField
	next := []queued{{typ: t, settable: true}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := 0; i < f.typ.NumField(); i++ {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(slices.Clip(f.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				optSet := map[string]bool{}
				for _, o := range strings.Split(opts, ",") {
					optSet[o] = true
				}
				quoted := false
				if optSet["string"] {
					switch ft.Kind() {
					case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64, reflect.String:
						quoted = true
					}
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					df := decField{
						name: name, tagged: name != "", index: index, sf: sf,
						omit: optSet["omitempty"] || optSet["omitzero"], quoted: quoted, settable: f.settable,
					}
					if df.name == "" {
						df.name = sf.Name
					}
					fields = append(fields, df)
					if count[f.typ] > 1 {
						fields = append(fields, df) // a duplicate, so the same name at the same depth annihilates
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					settable := f.settable && !(sf.Type.Kind() == reflect.Pointer && !sf.IsExported())
					next = append(next, queued{typ: ft, index: index, settable: settable})
				}
			}
		}
	}
	slices.SortStableFunc(fields, func(a, b decField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := len(a.index) - len(b.index); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	var out []decField
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		group := fields[i:j]
		if len(group) == 1 || len(group[0].index) != len(group[1].index) || group[0].tagged != group[1].tagged {
			out = append(out, group[0])
		}
		i = j
	}
	slices.SortFunc(out, func(a, b decField) int { return slices.Compare(a.index, b.index) })
	return out
}

// validTagName is encoding/json's isValidTag.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// schemaGoFields replays jsonschema-go's reading of t's members (infer.go:
// reflect.VisibleFields, embedded fields skipped for their promoted ones, the
// json tag's name taken as is, the last field of a name winning): name ->
// the field it described.
func schemaGoFields(t reflect.Type) map[string][]int {
	m := map[string][]int{}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			n, _, found := strings.Cut(tag, ",")
			if n == "-" && !found {
				continue
			}
			if n != "" {
				name = n
			}
		}
		m[name] = f.Index
	}
	return m
}

// planKind is what a plan node checks.
type planKind uint8

const (
	planStruct   planKind = iota + 1 // walk the members that have plans
	planElems                        // walk every element
	planMap                          // walk every value; check keys when keyed
	planDecode                       // opaque: the node must decode into typ through the SDK's steps
	planQuoted                       // ",string": {"v": node} must decode into typ, a one-field struct with the tag
	planFinite                       // untyped: every number in the subtree must be a finite float64 (step 1)
	planUnsigned                     // no negative zero (the decoder refuses "-0" for an unsigned kind)
	planBytes                        // []byte: a string must decode as base64 into typ; an array walks elem
)

// plan is the checks one place of a Go type needs beyond its schema.
type plan struct {
	kind   planKind
	fields map[string]*plan
	elem   *plan
	typ    reflect.Type
	keys   reflect.Type // planMap: map[K]struct{} for a key type the decoder parses, nil for plain string keys
}

// forOptions are the go-sdk's inference options (mcp/server.go setSchema).
var forOptions = &sdkschema.ForOptions{}

// deriver derives one input type. domain selects the decode domain instead
// of the published schema.
type deriver struct {
	domain bool
	depth  int
}

// errTooDeep stops a derivation that does not end (jsonschema-go refuses
// cyclic types first; this is the backstop).
var errTooDeep = errors.New("type nests deeper than 512 levels")

func typedSchema(nullable bool, ts ...string) *sdkschema.Schema {
	if nullable {
		ts = append([]string{"null"}, ts...)
	}
	if len(ts) == 1 {
		return &sdkschema.Schema{Type: ts[0]}
	}
	return &sdkschema.Schema{Types: ts}
}

// keepMeta carries base's description onto a replaced schema.
func keepMeta(s, base *sdkschema.Schema) *sdkschema.Schema {
	if base != nil {
		s.Description = base.Description
	}
	return s
}

func falseSchema() *sdkschema.Schema { return &sdkschema.Schema{Not: &sdkschema.Schema{}} }

// derive returns the schema of a value of declared type t, whose
// jsonschema-go schema is base (nil in domain mode), and the checks it needs
// at run time. quoted: a ",string" struct member.
func (d *deriver) derive(t reflect.Type, base *sdkschema.Schema, quoted bool) (*sdkschema.Schema, *plan, error) {
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > 512 {
		return nil, nil, errTooDeep
	}
	elem, ptr := t, false
	for elem.Kind() == reflect.Pointer {
		elem, ptr = elem.Elem(), true
	}
	nullable := ptr || d.domain
	if quoted {
		// The decoder reads a ",string" member from a JSON string (or
		// null); what the string may hold is checked by decoding it.
		st := reflect.StructOf([]reflect.StructField{{Name: "V", Type: t, Tag: `json:"v,string"`}})
		return keepMeta(typedSchema(nullable, "string"), base), &plan{kind: planQuoted, typ: st}, nil
	}
	switch {
	case elem == jsonNumberType:
		b := kindBounds()[reflect.Float64]
		s := keepMeta(typedSchema(nullable, "number"), base)
		s.Minimum, s.Maximum = &b.min, &b.max
		return s, nil, nil
	case elem == rawMessageType:
		return keepMeta(&sdkschema.Schema{}, base), &plan{kind: planFinite}, nil
	case opaque(elem):
		var s *sdkschema.Schema
		switch {
		case stringOpaque[elem] || textOnly(elem):
			s = typedSchema(nullable, "string")
		default:
			s = &sdkschema.Schema{} // says nothing it cannot keep
		}
		return keepMeta(s, base), &plan{kind: planDecode, typ: t}, nil
	}
	switch elem.Kind() {
	case reflect.Bool:
		return d.scalar(base, nullable, "boolean"), nil, nil
	case reflect.String:
		return d.scalar(base, nullable, "string"), nil, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		kind := "integer"
		if elem.Kind() == reflect.Float32 || elem.Kind() == reflect.Float64 {
			kind = "number"
		}
		s := d.scalar(base, nullable, kind)
		b := kindBounds()[elem.Kind()]
		s.Minimum, s.Maximum = &b.min, &b.max
		if elem.Kind() >= reflect.Uint && elem.Kind() <= reflect.Uintptr {
			return s, &plan{kind: planUnsigned}, nil
		}
		return s, nil, nil
	case reflect.Interface:
		if elem.NumMethod() > 0 {
			// Nothing but null decodes into a non-empty interface.
			return keepMeta(&sdkschema.Schema{Type: "null"}, base), nil, nil
		}
		return keepMeta(&sdkschema.Schema{}, base), &plan{kind: planFinite}, nil
	case reflect.Map:
		return d.mapSchema(elem, base, nullable)
	case reflect.Slice, reflect.Array:
		return d.listSchema(elem, base, nullable)
	case reflect.Struct:
		return d.structSchema(elem, base, nullable)
	}
	return nil, nil, fmt.Errorf("type %v is unsupported by jsonschema", elem)
}

// scalar is base as jsonschema-go inferred it, or a fresh typed schema.
func (d *deriver) scalar(base *sdkschema.Schema, nullable bool, kind string) *sdkschema.Schema {
	if d.domain || base == nil {
		return keepMeta(typedSchema(nullable, kind), base)
	}
	return base.CloneSchemas()
}

// intKeyPattern is the key syntax the decoder parses into an integer map
// key: an optional minus, then 0 or digits without a leading zero (no plus,
// no leading space, no exponent), then any JSON whitespace (segmentio skips
// it). Its range is checked at run time. TestIntKeyPattern holds it to the
// decoder.
const (
	intKeyPattern  = `^-?(0|[1-9][0-9]*)[ \t\n\r]*$`
	uintKeyPattern = `^(0|[1-9][0-9]*)[ \t\n\r]*$`
)

var textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()

// mapSchema: segmentio decodes a map key through encoding.TextUnmarshaler
// whenever the key type implements encoding.TextMarshaler or its pointer
// implements TextUnmarshaler (codec.go constructMapCodec). A key type with
// MarshalText and no UnmarshalText — exactly what jsonschema-go requires of a
// key that is not a string — therefore panics the decoder on the first key
// (an interface conversion), and the go-sdk does not recover it: one call
// takes the server down. Such a map admits no member (propertyNames false).
// A key with UnmarshalText is opaque (decoded at check time); an integer key
// without either (reachable only with a schema of the tool's own) is parsed
// as a number.
func (d *deriver) mapSchema(t reflect.Type, base *sdkschema.Schema, nullable bool) (*sdkschema.Schema, *plan, error) {
	var vbase *sdkschema.Schema
	if base != nil {
		vbase = base.AdditionalProperties
	}
	vs, vp, err := d.derive(t.Elem(), vbase, false)
	if err != nil {
		return nil, nil, err
	}
	var s *sdkschema.Schema
	if d.domain || base == nil {
		s = keepMeta(typedSchema(nullable, "object"), base)
	} else {
		s = base.CloneSchemas()
	}
	s.AdditionalProperties = vs
	p := &plan{kind: planMap, elem: vp}
	key := t.Key()
	textKey := reflect.PointerTo(key).Implements(textUnmarshalerType)
	switch {
	case textKey:
		p.keys = reflect.MapOf(key, reflect.TypeFor[struct{}]())
	case key.Implements(textMarshalerType):
		s.PropertyNames = falseSchema()
		p.elem = nil // no member is ever admitted
	case key.Kind() == reflect.String:
	default:
		p.keys = reflect.MapOf(key, reflect.TypeFor[struct{}]())
		switch key.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			s.PropertyNames = &sdkschema.Schema{Pattern: intKeyPattern}
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			s.PropertyNames = &sdkschema.Schema{Pattern: uintKeyPattern}
		}
	}
	if p.elem == nil && p.keys == nil {
		p = nil
	}
	return s, p, nil
}

func (d *deriver) listSchema(t reflect.Type, base *sdkschema.Schema, nullable bool) (*sdkschema.Schema, *plan, error) {
	bytesKind := t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8
	if bytesKind && opaque(t.Elem()) {
		// A slice of opaque bytes: which form the decoder takes is not
		// derived; the whole value is decoded.
		return keepMeta(&sdkschema.Schema{}, base), &plan{kind: planDecode, typ: t}, nil
	}
	var ibase *sdkschema.Schema
	if base != nil {
		ibase = base.Items
	}
	is, ip, err := d.derive(t.Elem(), ibase, false)
	if err != nil {
		return nil, nil, err
	}
	var s *sdkschema.Schema
	switch {
	case d.domain || base == nil:
		// A slice decodes from null (jsonschema-go publishes it nullable);
		// an array takes any length (zero-filled, or cut), so only the
		// published convention fixes it.
		s = keepMeta(typedSchema(nullable || t.Kind() == reflect.Slice, "array"), base)
		if !d.domain && t.Kind() == reflect.Array {
			s.MinItems, s.MaxItems = sdkschema.Ptr(t.Len()), sdkschema.Ptr(t.Len())
		}
	default:
		s = base.CloneSchemas()
	}
	s.Items = is
	if bytesKind {
		// The decoder takes a []byte as a base64 string (what
		// encoding/json marshals it to) or as an array of bytes.
		ts := s.Types
		if s.Type != "" {
			ts = []string{s.Type}
		}
		s.Type, s.Types = "", append(slices.Clone(ts), "string")
		s.ContentEncoding = "base64"
		return s, &plan{kind: planBytes, typ: t, elem: ip}, nil
	}
	if ip == nil {
		return s, nil, nil
	}
	return s, &plan{kind: planElems, elem: ip}, nil
}

func (d *deriver) structSchema(t reflect.Type, base *sdkschema.Schema, nullable bool) (*sdkschema.Schema, *plan, error) {
	var s *sdkschema.Schema
	var goFields map[string][]int
	if d.domain || base == nil {
		s = keepMeta(typedSchema(nullable, "object"), base)
		if !d.domain {
			s.AdditionalProperties = falseSchema()
		}
	} else {
		s = base.CloneSchemas()
		goFields = schemaGoFields(t)
	}
	fields := decoderFields(t)
	props := map[string]*sdkschema.Schema{}
	var required, order []string
	p := &plan{kind: planStruct, fields: map[string]*plan{}}
	for _, f := range fields {
		order = append(order, f.name)
		if !f.settable {
			// Present, the decoder fails: "cannot set embedded pointer".
			props[f.name] = falseSchema()
			continue
		}
		var fbase *sdkschema.Schema
		if !d.domain {
			if idx, ok := goFields[f.name]; ok && slices.Equal(idx, f.index) && base != nil {
				fbase = base.Properties[f.name]
			} else {
				// jsonschema-go described another field under this name,
				// or none: infer this one as it would.
				fs, err := sdkschema.ForType(f.sf.Type, forOptions)
				if err != nil {
					return nil, nil, fmt.Errorf("member %q: %w", f.name, err)
				}
				if desc, ok := f.sf.Tag.Lookup("jsonschema"); ok {
					fs.Description = desc
				}
				fbase = fs
			}
		}
		fs, fp, err := d.derive(f.sf.Type, fbase, f.quoted)
		if err != nil {
			return nil, nil, err
		}
		props[f.name] = fs
		if fp != nil {
			p.fields[f.name] = fp
		}
		if !d.domain && !f.omit {
			required = append(required, f.name)
		}
	}
	if len(props) > 0 || (base != nil && base.Properties != nil) {
		s.Properties = props
	} else {
		s.Properties = nil
	}
	s.Required = required
	s.PropertyOrder = order
	if len(p.fields) == 0 {
		p = nil
	}
	return s, p, nil
}

// typeDomain is one input type derived.
type typeDomain struct {
	published *sdkschema.Schema // nil when the tool brings its own InputSchema
	domain    *sdkschema.Schema
	plan      *plan
}

// deriveInput derives In as mcp.AddTool treats it: one level of pointer
// stripped (setSchema), inferred with the SDK's options, 'any' taken as an
// empty object schema. inferred is false when the tool brings its own schema.
func deriveInput(in reflect.Type, inferred bool) (*typeDomain, error) {
	if in == reflect.TypeFor[any]() {
		obj := &sdkschema.Schema{Type: "object"}
		td := &typeDomain{domain: obj, plan: &plan{kind: planFinite}}
		if inferred {
			td.published = obj.CloneSchemas()
		}
		return td, nil
	}
	rt := in
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	td := &typeDomain{}
	if inferred {
		base, err := sdkschema.ForType(rt, forOptions)
		if err != nil {
			return nil, err
		}
		pub, p, err := (&deriver{}).derive(rt, base, false)
		if err != nil {
			return nil, err
		}
		td.published, td.plan = pub, p
	}
	dom, p, err := (&deriver{domain: true}).derive(rt, nil, false)
	if err != nil {
		return nil, err
	}
	td.domain = dom
	if !inferred {
		td.plan = p
	}
	// The arguments are an object: the top level is never null.
	if dom.Types != nil {
		dom.Types = slices.DeleteFunc(slices.Clone(dom.Types), func(s string) bool { return s == "null" })
		if len(dom.Types) == 1 {
			dom.Type, dom.Types = dom.Types[0], nil
		}
	}
	return td, nil
}
