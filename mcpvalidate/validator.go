package mcpvalidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/theurian/boundlab/charge"
)

// Validator holds the compiled published schemas and the charge gate. Build it
// once with New; it is safe for concurrent use.
type Validator struct {
	cfg   config
	gate  *charge.Gate
	tools map[string]*tool
	names []string
	// decode is the decode stage: tree, bound to the nesting limit, given
	// the arguments and the gate's count of their nodes; tests swap it to
	// drive the stage's refusal and to measure other decoders.
	decode func(doc []byte, nodes int) (any, error)
	body   charge.BodyCapDerivation
	// charged holds the front gate's verdicts on the arguments of the
	// requests it has in flight (charged.go).
	charged *chargedArgs
}

type config struct {
	limits   charge.Limits
	encoders []charge.Encoder
	hook     func(context.Context, *Refusal)
}

// Options configure a Validator. A nil *Options, and every zero field, means
// the default.
type Options struct {
	// MaxFileBytes is the largest file, in UTF-8 bytes, a tool call must be
	// able to carry in a string argument (default 8 MiB): the HTTP body cap
	// is derived from it, so such a file in any script reaches the schema
	// rather than a 413. It sets Limits.MaxSourceFileBytes.
	MaxFileBytes int64
	// GoClients sizes the body cap for clients that encode with Go's
	// encoding/json too, which escapes < > & U+2028 U+2029 (six bytes each):
	// the multiplier over MaxFileBytes goes from 3 to 6. Without it the cap
	// admits the Python and JavaScript SDKs' encodings.
	GoClients bool
	// Limits are every bound the gate holds a call's arguments to (nesting,
	// nodes, number length, the render budget...). Nil, and every zero
	// field, means that field's default (charge.DefaultLimits), so
	// EnvelopeAllowance and MaxNumberExponent cannot be set to 0 here.
	Limits *charge.Limits
	// OpenTools names the tools whose input schemas may stay open: an object
	// schema in them may admit members it neither names nor checks, and
	// such a member reaches the handler unvalidated. Without it New refuses
	// every tool whose schema is open, naming each open location. A name
	// with no published schema fails New.
	OpenTools []string
	// OnRefusal, when set, is called with every refusal, from the middleware
	// and the front gate alike, with the context of the call or request:
	// servers log and trace through it.
	OnRefusal func(context.Context, *Refusal)
}

// Source is where a Validator takes the published input schemas from:
// SchemaFiles, Tools or ServerTools.
type Source interface {
	load() (map[string]*tool, error)
}

// SchemaFiles takes the published schemas from the *.schema.json files in
// dir of fsys, under the schema-file contract in the package doc. Any problem
// with any file fails New.
func SchemaFiles(fsys fs.FS, dir string) Source { return filesSource{fsys, dir} }

// Tools takes the published schemas from tool definitions: each tool's
// InputSchema, as tools/list publishes it, compiled as its contract. A tool
// without an InputSchema is left out, so a call to it is refused
// (fail-closed); a schema that does not compile fails New.
func Tools(tools ...*mcp.Tool) Source {
	return toolsSource{tools: append([]*mcp.Tool(nil), tools...)}
}

// ServerTools takes the published schemas from what srv answers to
// tools/list at the time New runs (through an in-memory client, pagination
// followed), as Tools. A tool added to srv later has no schema here and is
// refused (fail-closed) until a new Validator is built.
func ServerTools(srv *mcp.Server) Source { return toolsSource{server: srv} }

// New compiles the published schemas from src and builds the gate. It fails
// on any schema problem (see the package doc): nothing is skipped.
func New(src Source, o *Options) (*Validator, error) {
	if src == nil {
		return nil, errors.New("mcpvalidate: no schema source: pass SchemaFiles, Tools or ServerTools")
	}
	if o == nil {
		o = &Options{}
	}
	cfg := config{limits: limitsOf(o), encoders: []charge.Encoder{charge.EnsureASCII, charge.Raw}, hook: o.OnRefusal}
	if o.GoClients {
		cfg.encoders = append(cfg.encoders, charge.GoJSON)
	}
	gate, err := charge.NewGate(charge.Go, cfg.limits)
	if err != nil {
		return nil, fmt.Errorf("mcpvalidate: %w", err)
	}
	tools, err := src.load()
	if err != nil {
		return nil, err
	}
	if err := refuseOpen(tools, o.OpenTools); err != nil {
		return nil, err
	}
	v := &Validator{
		cfg:     cfg,
		gate:    gate,
		tools:   tools,
		body:    charge.BodyCap(cfg.limits, cfg.encoders...),
		charged: newChargedArgs(),
	}
	depth := cfg.limits.MaxParamsNesting
	v.decode = func(doc []byte, nodes int) (any, error) { return tree(doc, depth, nodes) }
	for n, t := range tools {
		v.names = append(v.names, n)
		if t.typed == nil || t.typed.schemaAlone() {
			t.plain = plainOf(t.schema)
		}
	}
	sort.Strings(v.names)
	return v, nil
}

// Install validates every tools/call srv receives against the input schemas
// srv publishes: New(ServerTools(srv), o), then the validator's
// Middleware added to srv as its outermost receiving middleware. Call it
// after the tools and any other receiving middleware are added; a tool added
// later is refused (fail-closed) until Install runs again on a new server.
//
//	v, err := mcpvalidate.Install(server, nil)
func Install(srv *mcp.Server, o *Options) (*Validator, error) {
	v, err := New(ServerTools(srv), o)
	if err != nil {
		return nil, err
	}
	srv.AddReceivingMiddleware(v.Middleware())
	return v, nil
}

// ToolNames lists the published tool names, sorted.
func (v *Validator) ToolNames() []string { return append([]string(nil), v.names...) }

// schemaSource says where tool's published schema came from: its path within
// the schema files, or "tools/list" for one taken from tool definitions.
func (v *Validator) schemaSource(name string) (string, bool) {
	t, ok := v.tools[name]
	if !ok {
		return "", false
	}
	return t.file, true
}

// InputSchema is tool's published schema as one self-contained document (the
// fragments it references embedded under $defs): what a server registers as
// the tool's InputSchema so tools/list publishes the contract it enforces.
func (v *Validator) InputSchema(name string) (json.RawMessage, bool) {
	t, ok := v.tools[name]
	if !ok {
		return nil, false
	}
	return append(json.RawMessage(nil), t.bundled...), true
}

// MaxBodyBytes is the HTTP body cap: a body longer than this is refused
// with 413 before it is read. It is derived from Options.MaxFileBytes and
// the client encodings (Options.GoClients), so that a file at MaxFileBytes in
// any script, encoded by any of them, still fits with its envelope.
func (v *Validator) MaxBodyBytes() int64 { return v.body.Cap }

// limitsOf is o's limits, every zero field its default.
func limitsOf(o *Options) charge.Limits {
	l := charge.DefaultLimits()
	if o.Limits != nil {
		set := func(dst *int64, v int64) {
			if v != 0 {
				*dst = v
			}
		}
		setInt := func(dst *int, v int) {
			if v != 0 {
				*dst = v
			}
		}
		set(&l.MaxSourceFileBytes, o.Limits.MaxSourceFileBytes)
		set(&l.EnvelopeAllowance, o.Limits.EnvelopeAllowance)
		set(&l.MaxParamsRenderedChars, o.Limits.MaxParamsRenderedChars)
		setInt(&l.MaxParamsNodes, o.Limits.MaxParamsNodes)
		setInt(&l.MaxParamsNesting, o.Limits.MaxParamsNesting)
		setInt(&l.MaxNumberBytes, o.Limits.MaxNumberBytes)
		setInt(&l.MaxNumberExponent, o.Limits.MaxNumberExponent)
	}
	if o.MaxFileBytes != 0 {
		l.MaxSourceFileBytes = o.MaxFileBytes
	}
	return l
}

// emptyObject stands in for absent arguments.
var emptyObject = []byte("{}")

// Check validates one tool call: resolve the tool's schema (or refuse,
// fail-closed) → charge gate over the raw bytes → for a plain schema, one
// pass over the bytes that admits a call certainly valid (plain.go) →
// decode into the values encoding/json gives with UseNumber (decode.go:
// nothing checked twice, each piece allocated at its size) → jsonschema/v6
// Validate with panics recovered → a bounded refusal built from the error
// tree. It returns nil when the call is admitted, and otherwise a
// *Refusal. ctx is handed to the refusal hooks.
//
// Absent arguments (nil or empty) are validated as {}: MCP makes arguments
// optional, and a tool whose schema requires a field still refuses. The JSON
// null is validated as what it is, so every object schema refuses it with a
// type leaf.
func (v *Validator) Check(ctx context.Context, tool string, arguments json.RawMessage) error {
	if r := v.refusal(ctx, tool, arguments); r != nil {
		return r.public()
	}
	return nil // not a typed nil
}

// refusal is Check with the refusal's concrete type, hooks called.
func (v *Validator) refusal(ctx context.Context, tool string, arguments json.RawMessage) *callRefusal {
	r := v.check(tool, arguments)
	if r != nil && v.cfg.hook != nil {
		v.cfg.hook(ctx, r.public())
	}
	return r
}

func (v *Validator) check(name string, arguments json.RawMessage) *callRefusal {
	t, ok := v.tools[name]
	if !ok {
		return &callRefusal{Tool: charge.DisplayText(name, toolCut), Stage: StageUnknownTool}
	}
	if len(arguments) == 0 {
		arguments = emptyObject
	}
	// The front gate's verdict on these bytes when it charged them for this
	// request (charged.go); otherwise the gate runs here.
	nodes, charged := v.charged.nodes(arguments)
	if !charged {
		rep, err := v.gate.Check(arguments)
		if err != nil {
			var gr *charge.Refusal
			if !errors.As(err, &gr) {
				// Check's only error is a *charge.Refusal; anything else still refuses.
				return &callRefusal{Tool: charge.DisplayText(name, toolCut), Stage: StageInternal}
			}
			return &callRefusal{Tool: charge.DisplayText(name, toolCut), Stage: StageGate, Gate: gr}
		}
		nodes = rep.Nodes
	}
	if t.plain != nil && t.plain.admits(arguments) {
		return nil
	}
	// The tree's unescaped strings alias arguments: it dies with this call
	// (see tree). A decoder's error is never read.
	doc, err := v.decode(arguments, nodes)
	if err != nil {
		return &callRefusal{Tool: charge.DisplayText(name, toolCut), Stage: stageDecode}
	}
	err, panicked := validate(t.schema, doc)
	if panicked {
		return &callRefusal{Tool: charge.DisplayText(name, toolCut), Stage: StageInternal}
	}
	if err == nil {
		if t.typed != nil {
			// What the schema cannot say about the tool's Go type (typed.go).
			return t.typed.refuse(name, doc, arguments)
		}
		return nil
	}
	r := &callRefusal{Tool: charge.DisplayText(name, toolCut), Stage: StageSchema}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		// Not a tree: nothing about it is read (its text may hold the value).
		r.Stage = StageInternal
		return r
	}
	r.Leaves, r.Elided = leaves(ve)
	return r
}

// validate runs Validate with panics recovered: jsonschema/v6 has panicked on
// number instances (a nil *big.Rat); the gate's exponent bound keeps those out,
// and this keeps any other out of the server.
func validate(s *jsonschema.Schema, doc any) (err error, panicked bool) {
	defer func() {
		if recover() != nil {
			err, panicked = nil, true
		}
	}()
	return s.Validate(doc), false
}

// leaves walks the error tree and keeps the maxLeaves smallest failing leaves
// in (pointer, keyword, want) order, counting the rest. It reads only
// InstanceLocation (rendered through pointer), SchemaURL and the schema-side
// fields of each kind; it never calls Error or LocalizedString, which render
// instance values unbounded.
//
// A member whose value failed its own constraint also fails
// unevaluatedProperties (the failed branch's annotations are dropped, as the
// spec says); that second leaf names a known key as if it were unknown, so a
// false-schema leaf is left out when another leaf lies at or under its
// location. The call is refused either way: only the message is cleaner.
func leaves(root *jsonschema.ValidationError) ([]leaf, int) {
	failed := map[uint64]struct{}{}
	var mark func(e *jsonschema.ValidationError)
	mark = func(e *jsonschema.ValidationError) {
		loc := e.InstanceLocation
		if k, ok := e.ErrorKind.(*kind.PropertyNames); ok {
			loc = append(loc[:len(loc):len(loc)], k.Property) // a leaf: see walk
		} else {
			for _, c := range e.Causes {
				mark(c)
			}
			if len(e.Causes) > 0 {
				return
			}
		}
		if _, f := e.ErrorKind.(*kind.FalseSchema); f {
			return
		}
		var h maphash.Hash
		h.SetSeed(locSeed)
		for _, seg := range loc {
			h.WriteString(seg)
			h.WriteByte(0)
			failed[h.Sum64()] = struct{}{}
		}
	}
	mark(root)
	var kept []leaf
	total := 0
	add := func(l leaf) {
		total++
		i := sort.Search(len(kept), func(i int) bool { return leafLess(l, kept[i]) })
		if i >= maxLeaves {
			return
		}
		kept = append(kept, leaf{})
		copy(kept[i+1:], kept[i:])
		kept[i] = l
		if len(kept) > maxLeaves {
			kept = kept[:maxLeaves]
		}
	}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if k, ok := e.ErrorKind.(*kind.PropertyNames); ok {
			// jsonschema/v6 validates the name as a document of its own, so
			// its causes are located in the name, not the arguments: the
			// leaf is the name's pointer, with the first cause's schema side.
			loc := e.InstanceLocation[:len(e.InstanceLocation):len(e.InstanceLocation)]
			add(leaf{Pointer: charge.DisplayPointer(append(loc, k.Property)), Keyword: keyword(e), Want: nameWant(e)})
			return
		}
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		kw := keyword(e)
		loc := e.InstanceLocation[:len(e.InstanceLocation):len(e.InstanceLocation)]
		switch k := e.ErrorKind.(type) {
		case *kind.FalseSchema:
			if len(loc) > 0 {
				var h maphash.Hash
				h.SetSeed(locSeed)
				for _, seg := range loc {
					h.WriteString(seg)
					h.WriteByte(0)
				}
				if _, other := failed[h.Sum64()]; other {
					return
				}
			}
		case *kind.AdditionalProperties:
			// Properties are caller keys: one leaf each, named by pointer.
			for _, p := range k.Properties {
				add(leaf{Pointer: charge.DisplayPointer(append(loc, p)), Keyword: kw, Want: "false"})
			}
			return
		}
		add(leaf{Pointer: charge.DisplayPointer(loc), Keyword: kw, Want: want(e.ErrorKind)})
	}
	walk(root)
	return kept, total - len(kept)
}

// nameWant is what a property name failed under propertyNames: the first
// failing leaf's keyword and schema side ("pattern ^[a-z]+$"), or "false".
func nameWant(e *jsonschema.ValidationError) string {
	for len(e.Causes) > 0 {
		e = e.Causes[0]
	}
	if _, f := e.ErrorKind.(*kind.FalseSchema); f {
		return "false"
	}
	if _, self := e.ErrorKind.(*kind.PropertyNames); self {
		return ""
	}
	// Both parts are display text already (printable ASCII): cut, not
	// escaped again.
	s := strings.TrimSpace(keyword(e) + " " + want(e.ErrorKind))
	if len(s) > fragmentCut {
		s = s[:fragmentCut] + cutMark
	}
	return s
}

var locSeed = maphash.MakeSeed()

func leafLess(a, b leaf) bool {
	if a.Pointer != b.Pointer {
		return a.Pointer < b.Pointer
	}
	if a.Keyword != b.Keyword {
		return a.Keyword < b.Keyword
	}
	return a.Want < b.Want
}

// keyword is the failing keyword, from the kind's keyword path (schema-side,
// so bounded by what was published); a false schema has none, and is named by
// the keyword that holds it, the last segment of its schema location (e.g.
// unevaluatedProperties).
func keyword(e *jsonschema.ValidationError) string {
	if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
		return charge.DisplayText(kp[len(kp)-1], fragmentCut)
	}
	frag := e.SchemaURL
	if i := strings.IndexByte(frag, '#'); i >= 0 {
		frag = frag[i+1:]
	}
	if i := strings.LastIndexByte(frag, '/'); i >= 0 {
		frag = frag[i+1:]
	}
	return charge.DisplayText(frag, fragmentCut)
}

// want renders the schema side of a failure: the limit the instance missed.
// Only fields that come from the schema are read (Want, Missing); Got-side
// fields hold the instance and are skipped, except a type name, which is one
// of JSON's seven.
func want(k jsonschema.ErrorKind) string {
	var s string
	switch k := k.(type) {
	case *kind.Type:
		s = strings.Join(k.Want, "|") + " (got " + k.Got + ")"
	case *kind.Enum:
		s = enumList(k.Want)
	case *kind.Const:
		s = jsonList([]any{k.Want})
	case *kind.Required:
		m := append([]string(nil), k.Missing...)
		sort.Strings(m)
		s = strings.Join(m, ",")
	case *kind.DependentRequired:
		s = strings.Join(k.Missing, ",")
	case *kind.MinLength:
		s = strconv.Itoa(k.Want)
	case *kind.MaxLength:
		s = strconv.Itoa(k.Want)
	case *kind.MinItems:
		s = strconv.Itoa(k.Want)
	case *kind.MaxItems:
		s = strconv.Itoa(k.Want)
	case *kind.MinProperties:
		s = strconv.Itoa(k.Want)
	case *kind.MaxProperties:
		s = strconv.Itoa(k.Want)
	case *kind.Pattern:
		s = k.Want
	case *kind.Format:
		s = k.Want
	case *kind.Minimum:
		s = ratString(k.Want)
	case *kind.Maximum:
		s = ratString(k.Want)
	case *kind.ExclusiveMinimum:
		s = ratString(k.Want)
	case *kind.ExclusiveMaximum:
		s = ratString(k.Want)
	case *kind.MultipleOf:
		s = ratString(k.Want)
	case *kind.FalseSchema:
		s = "false"
	}
	return charge.DisplayText(s, fragmentCut)
}

func ratString(r *big.Rat) string {
	if r == nil {
		return ""
	}
	if r.IsInt() {
		if n := r.Num().String(); len(n) <= 21 {
			return n
		}
		// A bound like float32's (3.4028235677973366e+38, published by
		// jsonschema-go from a float64) reads as the decimal it was written
		// as, not as 39 digits: the shortest text that is exactly r.
		return new(big.Float).SetPrec(uint(r.Num().BitLen())).SetRat(r).Text('g', -1)
	}
	return r.RatString()
}

// enumList joins an enum's members with |, strings bare and others as JSON.
func enumList(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		if s, ok := v.(string); ok {
			parts[i] = s
		} else {
			parts[i] = jsonList([]any{v})
		}
	}
	return strings.Join(parts, "|")
}

func jsonList(vs []any) string {
	b, err := json.Marshal(vs)
	if err != nil {
		return ""
	}
	return string(b)
}
