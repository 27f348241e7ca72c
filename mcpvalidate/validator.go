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
	hook     func(context.Context, RefusalEvent)
}

// Options configure a Validator. A nil *Options, and every zero field, means
// the default.
type Options struct {
	// Limits are the bounds the gate holds each call's arguments to, and the
	// source-file limit the body cap is derived from. The zero value means
	// charge.DefaultLimits(); any other value must be complete (New checks it).
	Limits charge.Limits
	// Encoders are the client encoder families the HTTP body cap must admit
	// an at-cap landed file from. Nil means charge.EnsureASCII and charge.Raw
	// (the Python client's default and the official Python/JS clients); a
	// server with Go clients (encoding/json escapes < > & U+2028 U+2029)
	// adds charge.GoJSON, which raises the multiplier from 3 to 6.
	Encoders []charge.Encoder
	// OnRefusal, when set, is called for every refusal the validator makes,
	// through Middleware, Check, CheckRequest and every FrontGate built from
	// it, with the context of the call or request. The event carries no
	// caller value; servers log and trace through it.
	OnRefusal func(context.Context, RefusalEvent)
	// OpenTools names the tools whose input schemas may stay open: an object
	// schema in them may admit members it neither names nor checks, and
	// such a member reaches the handler unvalidated. Without it New refuses
	// every tool whose schema is open, naming each open location (see the
	// package doc, "Open schemas"). A name with no published schema fails
	// New.
	OpenTools []string
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

// RefusalEvent is what the refusal hook (Options.OnRefusal) sees: nothing a
// caller wrote except, for a published tool, its name (which the server
// chose).
type RefusalEvent struct {
	Tool      string // the published tool name, or "" when the name resolved to none or the request was refused whole
	ToolBytes int    // the length of the name as called
	Stage     Stage
	Bound     string // StageGate and StageRequest: the bound; StageSchema: the first leaf's keyword
	Leaves    int    // StageSchema: failing leaves, elided included
	ArgsBytes int    // the arguments' length on the wire
	// Status is the HTTP status the front gate answered with; 0 when the
	// refusal was answered as a tool result through the middleware.
	Status int
}

// New compiles the published schemas from src and builds the gate. It fails
// on any schema problem (see the package doc): nothing is skipped.
func New(src Source, o *Options) (*Validator, error) {
	if src == nil {
		return nil, errors.New("mcpvalidate: no schema source: pass SchemaFiles, Tools or ServerTools")
	}
	if o == nil {
		o = &Options{}
	}
	cfg := config{limits: o.Limits, encoders: o.Encoders, hook: o.OnRefusal}
	if cfg.limits == (charge.Limits{}) {
		cfg.limits = charge.DefaultLimits()
	}
	if cfg.encoders == nil {
		cfg.encoders = []charge.Encoder{charge.EnsureASCII, charge.Raw}
	}
	if len(cfg.encoders) == 0 {
		return nil, errors.New("mcpvalidate: at least one encoder family is needed for the body cap")
	}
	cfg.encoders = append([]charge.Encoder(nil), cfg.encoders...)
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
	for n := range tools {
		v.names = append(v.names, n)
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

// Tools lists the published tool names, sorted.
func (v *Validator) Tools() []string { return append([]string(nil), v.names...) }

// SchemaSource says where tool's published schema came from: its path within
// the schema files, or "tools/list" for one taken from tool definitions.
func (v *Validator) SchemaSource(name string) (string, bool) {
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

// Limits are the limits the gate holds arguments to.
func (v *Validator) Limits() charge.Limits { return v.cfg.limits }

// BodyCap is the HTTP body cap for the configured limits and client encoder
// families, as plain values.
type BodyCap struct {
	// Bytes is the cap: set StreamableHTTPOptions.MaxRequestBodyBytes to it
	// (MaxRequestBodyBytes returns it too).
	Bytes int64
	// Multiplier is the worst wire bytes per landed byte over the non-control
	// code point classes of the encoders, exact (e.g. "3").
	Multiplier string
	// Encoders are the client encoder families the cap admits an at-limit
	// landed file from.
	Encoders []string
	// Residual counts the control classes whose wire ratio exceeds the
	// multiplier: a file dense enough in them meets the cap first.
	Residual int
}

// BodyCap is the derivation of the HTTP body cap (charge.BodyCap) for the
// configured limits and encoder families.
func (v *Validator) BodyCap() BodyCap {
	b := BodyCap{Bytes: v.body.Cap, Multiplier: v.body.Multiplier.RatString(), Residual: len(v.body.Residual)}
	for _, e := range v.body.Encoders {
		b.Encoders = append(b.Encoders, e.String())
	}
	return b
}

// MaxRequestBodyBytes is BodyCap().Bytes.
func (v *Validator) MaxRequestBodyBytes() int64 { return v.body.Cap }

// emptyObject stands in for absent arguments.
var emptyObject = []byte("{}")

// Check validates one tool call: resolve the tool's schema (or refuse,
// fail-closed) → charge gate over the raw bytes → decode into the values
// encoding/json gives with UseNumber (decode.go: nothing checked twice, each
// piece allocated at its size) → jsonschema/v6 Validate with panics recovered → a bounded
// refusal built from the error tree. It returns nil when the call is
// admitted, and otherwise an error that is a *Refusal (errors.As). ctx is
// handed to the refusal hooks.
//
// Absent arguments (nil or empty) are validated as {}: MCP makes arguments
// optional, and a tool whose schema requires a field still refuses. The JSON
// null is validated as what it is, so every object schema refuses it with a
// type leaf.
func (v *Validator) Check(ctx context.Context, tool string, arguments json.RawMessage) error {
	if r := v.refusal(ctx, tool, arguments); r != nil {
		return r
	}
	return nil // not a typed nil
}

// refusal is Check with the refusal's concrete type, hooks called.
func (v *Validator) refusal(ctx context.Context, tool string, arguments json.RawMessage) *Refusal {
	r := v.check(tool, arguments)
	if r != nil && v.cfg.hook != nil {
		ev := RefusalEvent{ToolBytes: len(tool), Stage: r.Stage, ArgsBytes: len(arguments)}
		if _, ok := v.tools[tool]; ok {
			ev.Tool = tool
		}
		switch {
		case r.Gate != nil:
			ev.Bound = r.Gate.Bound.String()
		case len(r.Leaves) > 0:
			ev.Bound = r.Leaves[0].Keyword
			ev.Leaves = len(r.Leaves) + r.Elided
		}
		v.cfg.hook(ctx, ev)
	}
	return r
}

func (v *Validator) check(name string, arguments json.RawMessage) *Refusal {
	t, ok := v.tools[name]
	if !ok {
		return &Refusal{Tool: charge.DisplayText(name, toolCut), Stage: StageUnknownTool}
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
				return &Refusal{Tool: charge.DisplayText(name, toolCut), Stage: StageInternal}
			}
			return &Refusal{Tool: charge.DisplayText(name, toolCut), Stage: StageGate, Gate: gr}
		}
		nodes = rep.Nodes
	}
	// The tree's unescaped strings alias arguments: it dies with this call
	// (see tree). A decoder's error is never read.
	doc, err := v.decode(arguments, nodes)
	if err != nil {
		return &Refusal{Tool: charge.DisplayText(name, toolCut), Stage: StageDecode}
	}
	err, panicked := validate(t.schema, doc)
	if panicked {
		return &Refusal{Tool: charge.DisplayText(name, toolCut), Stage: StageInternal}
	}
	if err == nil {
		if t.typed != nil {
			// What the schema cannot say about the tool's Go type (typed.go).
			return t.typed.refuse(name, doc, arguments)
		}
		return nil
	}
	r := &Refusal{Tool: charge.DisplayText(name, toolCut), Stage: StageSchema}
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
func leaves(root *jsonschema.ValidationError) ([]Leaf, int) {
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
	var kept []Leaf
	total := 0
	add := func(l Leaf) {
		total++
		i := sort.Search(len(kept), func(i int) bool { return leafLess(l, kept[i]) })
		if i >= maxLeaves {
			return
		}
		kept = append(kept, Leaf{})
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
			add(Leaf{Pointer: charge.DisplayPointer(append(loc, k.Property)), Keyword: keyword(e), Want: nameWant(e)})
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
				add(Leaf{Pointer: charge.DisplayPointer(append(loc, p)), Keyword: kw, Want: "false"})
			}
			return
		}
		add(Leaf{Pointer: charge.DisplayPointer(loc), Keyword: kw, Want: want(e.ErrorKind)})
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

func leafLess(a, b Leaf) bool {
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
