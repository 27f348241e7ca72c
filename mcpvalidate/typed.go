package mcpvalidate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"weak"

	sdkschema "github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/theurian/boundlab/charge"
)

// AddTool registers a typed tool on srv as mcp.AddTool does, and makes its
// Go input type's domain part of the contract: a drop-in replacement for
// mcp.AddTool[In, Out].
//
// When t.InputSchema is nil, the schema is inferred from In exactly as the
// go-sdk infers it (jsonschema-go, the SDK's options), then tightened to
// what the SDK's decode into In accepts: integer and float members get the
// bounds of their kind, the member set is the one the decoder reads, []byte
// takes its base64 string, a json.Number is a number, a ",string" member is a
// string, and a type with its own UnmarshalJSON or UnmarshalText (opaque) is
// described by nothing it does not guarantee. That schema is set as the
// tool's InputSchema, so tools/list publishes it and the SDK validates
// against it. When t.InputSchema is set, it is published as given.
//
// What JSON Schema cannot say is recorded for srv: Install and ServerTools
// find the record and, after a call passes the schema, refuse anything the
// SDK's decode into In would refuse (an opaque member its own decoder
// refuses, a number past float64 range in an untyped member, a negative
// zero for an unsigned integer, bad base64, a ",string" member that does not
// hold its value, a map key its key type does not parse; with a schema of
// the tool's own, also whatever the SDK's validation and decode of the whole
// arguments refuse) with a callRefusal at StageType, naming the member and the
// bound and never the value. The SDK's own decode error (which quotes the
// caller's bytes and Go type names) is then never reached.
//
// It panics where mcp.AddTool panics, with the same message.
func AddTool[In, Out any](srv *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	tt := *t
	in := reflect.TypeFor[In]()
	td, err := deriveInput(in, t.InputSchema == nil)
	if err != nil {
		panic(fmt.Sprintf("AddTool: tool %q: input schema: %v", t.Name, err))
	}
	if td.published != nil {
		tt.InputSchema = td.published
	}
	rec, err := newTypedTool(in, &tt, td)
	if err != nil {
		panic(fmt.Sprintf("AddTool: tool %q: %v", t.Name, err))
	}
	mcp.AddTool(srv, &tt, h)
	registerTyped(srv, tt.Name, rec)
}

// typedTool is what the validator keeps for a tool added with AddTool.
type typedTool struct {
	published []byte // the InputSchema registered, canonical: tools/list must show this for the record to apply
	domain    []byte // the Go type's decode domain as JSON Schema (typeDomain)
	plan      *plan
	// A tool with its own InputSchema: the domain compiled (it names the
	// member and bound of most failures), and the SDK's whole path.
	domainSchema *jsonschema.Schema
	whole        func(args []byte) bool
}

func newTypedTool(in reflect.Type, tt *mcp.Tool, td *typeDomain) (*typedTool, error) {
	pub, err := canonicalJSON(tt.InputSchema)
	if err != nil {
		return nil, err
	}
	dom, err := canonicalJSON(td.domain)
	if err != nil {
		return nil, err
	}
	rec := &typedTool{published: pub, domain: dom, plan: td.plan}
	if td.published != nil {
		return rec, nil
	}
	// The tool's own schema: the SDK resolves it as setSchema does.
	var own *sdkschema.Schema
	if s, ok := tt.InputSchema.(*sdkschema.Schema); ok && s != nil {
		own = s
	} else if err := json.Unmarshal(pub, &own); err != nil || own == nil {
		return nil, fmt.Errorf("input schema: %v", err)
	}
	resolved, err := own.Resolve(&sdkschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	rec.whole = func(args []byte) bool { return sdkTypedPath(args, resolved, in) }
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	var doc any
	d := json.NewDecoder(bytes.NewReader(dom))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	const id = toolBase + "domain.json"
	if err := c.AddResource(id, doc); err != nil {
		return nil, err
	}
	if rec.domainSchema, err = c.Compile(id); err != nil {
		return nil, err
	}
	return rec, nil
}

// sdkTypedPath runs the SDK's four steps (sdkdecode.go) on the arguments
// with the tool's resolved schema: whether its handler would be reached.
func sdkTypedPath(args []byte, resolved *sdkschema.Resolved, in reflect.Type) bool {
	m := map[string]any{}
	if len(args) > 0 && sdkUnmarshal(args, &m) != nil {
		return false
	}
	var v any = m
	if resolved.ApplyDefaults(&v) != nil || resolved.Validate(&v) != nil {
		return false
	}
	out, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return sdkUnmarshal(out, reflect.New(in).Interface()) == nil
}

// canonicalJSON is v as JSON with keys sorted and numbers as float64
// renders them: the form a schema has after a trip through tools/list.
func canonicalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

// The per-server records. A server's entry dies with the server (weak key,
// cleanup on collection), so servers built per request or per test leak
// nothing here.
var (
	typedMu sync.Mutex
	typedBy = map[weak.Pointer[mcp.Server]]map[string]*typedTool{}
)

func registerTyped(srv *mcp.Server, name string, rec *typedTool) {
	wp := weak.Make(srv)
	typedMu.Lock()
	defer typedMu.Unlock()
	m, ok := typedBy[wp]
	if !ok {
		m = map[string]*typedTool{}
		typedBy[wp] = m
		runtime.AddCleanup(srv, func(wp weak.Pointer[mcp.Server]) {
			typedMu.Lock()
			delete(typedBy, wp)
			typedMu.Unlock()
		}, wp)
	}
	m[name] = rec
}

// typedTools is srv's records, by tool name.
func typedTools(srv *mcp.Server) map[string]*typedTool {
	typedMu.Lock()
	defer typedMu.Unlock()
	out := map[string]*typedTool{}
	for k, v := range typedBy[weak.Make(srv)] {
		out[k] = v
	}
	return out
}

// domainOf is the decode domain of the Go input type of tool, added to srv
// with AddTool, as one JSON Schema document: what a value must be for the
// go-sdk's decode into In to succeed, as far as JSON Schema can say it. Null
// is admitted wherever the decoder admits it, nothing is required and unknown
// members are admitted (the decoder ignores them); an opaque member (own
// UnmarshalJSON or UnmarshalText) or an untyped one is described only by
// what the decoder itself guarantees. mcpvalidatetest.CheckAgreement holds
// published schemas to it.
func domainOf(srv *mcp.Server, tool string) (json.RawMessage, bool) {
	rec, ok := typedTools(srv)[tool]
	if !ok {
		return nil, false
	}
	return append(json.RawMessage(nil), rec.domain...), true
}

// attachTyped gives a compiled tool its record when the schema tools/list
// shows is the one AddTool registered (a tool replaced since by another
// registration keeps only its listed schema).
func attachTyped(t *tool, rec *typedTool) {
	if rec == nil {
		return
	}
	listed, err := canonicalJSON(json.RawMessage(t.bundled))
	if err != nil || !bytes.Equal(listed, rec.published) {
		return
	}
	t.typed = rec
}

// Leaves of a StageType refusal. Keywords and wants are fixed text or a
// bound; the pointer is the caller's keys, escaped and cut.
const (
	kwDecode        = "decode"
	wantOpaque      = "(opaque type)"
	wantQuoted      = "(a JSON string holding the value)"
	wantInputType   = "(input type)"
	wantKeyType     = "(key type)"
	wantNoNegZero   = "0 (no negative zero)"
	kwPropertyNames = "propertyNames"
	kwEncoding      = "contentEncoding"
)

// finite is the check of an untyped value, used on the whole arguments to
// place a failure of the SDK's whole path.
var finite = &plan{kind: planFinite}

// schemaAlone says whether the record checks nothing past the schema: an
// inferred schema (a tool's own comes with the domain and the SDK's whole
// path) over an input type it describes whole (strings, signed integers,
// booleans, and structs, slices and maps of them), so refuse would admit
// whatever the schema admits.
func (rec *typedTool) schemaAlone() bool {
	return rec.plan == nil && rec.domainSchema == nil
}

// refuse runs the record's checks on arguments the schema admitted: nil, or
// a StageType refusal.
func (rec *typedTool) refuse(name string, doc any, args []byte) *callRefusal {
	var ls leafSet
	if rec.domainSchema != nil {
		err, panicked := validate(rec.domainSchema, doc)
		if panicked {
			return &callRefusal{Tool: charge.DisplayText(name, toolCut), Stage: StageInternal}
		}
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			found, elided := leaves(ve)
			for _, l := range found {
				ls.add(l)
			}
			ls.total += elided
		} else if err != nil {
			return &callRefusal{Tool: charge.DisplayText(name, toolCut), Stage: StageInternal}
		}
	}
	if rec.plan != nil && ls.total == 0 {
		rec.plan.walk(doc, nil, ls.add)
	}
	if ls.total == 0 && rec.whole != nil && !rec.whole(args) {
		finite.walk(doc, nil, ls.add)
		if ls.total == 0 {
			ls.add(leaf{Keyword: kwDecode, Want: wantInputType})
		}
	}
	if ls.total == 0 {
		return nil
	}
	return &callRefusal{Tool: charge.DisplayText(name, toolCut), Stage: StageType, Leaves: ls.kept, Elided: ls.total - len(ls.kept)}
}

// leafSet keeps the maxLeaves smallest leaves and counts the rest, as a
// schema refusal does.
type leafSet struct {
	kept  []leaf
	total int
}

func (s *leafSet) add(l leaf) {
	s.total++
	i := sort.Search(len(s.kept), func(i int) bool { return leafLess(l, s.kept[i]) })
	if i >= maxLeaves {
		return
	}
	s.kept = append(s.kept, leaf{})
	copy(s.kept[i+1:], s.kept[i:])
	s.kept[i] = l
	if len(s.kept) > maxLeaves {
		s.kept = s.kept[:maxLeaves]
	}
}

// pathSeg is one step of the path to a value: a member name, or an array
// index (idx >= 0). The path is rendered only when a leaf is added, so a
// walk that finds nothing allocates nothing for it.
type pathSeg struct {
	key string
	idx int
}

func pointer(path []pathSeg) string {
	tokens := make([]string, len(path))
	for i, s := range path {
		if s.idx >= 0 {
			tokens[i] = strconv.Itoa(s.idx)
		} else {
			tokens[i] = s.key
		}
	}
	return charge.DisplayPointer(tokens)
}

func memberSeg(k string) pathSeg { return pathSeg{key: k, idx: -1} }

// walk checks node, a value of the arguments tree at path, against p, adding
// a leaf for each failure. Nothing of a value is kept: a leaf holds the
// pointer (the caller's keys, escaped and cut) and fixed text or a bound.
func (p *plan) walk(node any, path []pathSeg, add func(leaf)) {
	at := func(kw, want string) { add(leaf{Pointer: pointer(path), Keyword: kw, Want: want}) }
	switch p.kind {
	case planDecode:
		if !sdkDecodesInto(node, p.typ) {
			at(kwDecode, wantOpaque)
		}
		return
	case planQuoted:
		if !sdkDecodesInto(map[string]any{"v": node}, p.typ) {
			at(kwDecode, wantQuoted)
		}
		return
	case planFinite:
		walkNumbers(node, path, add)
		return
	}
	switch n := node.(type) {
	case json.Number:
		if p.kind == planUnsigned && strings.HasPrefix(string(n), "-") {
			// The schema's minimum 0 admits -0, equal to 0; the decoder
			// reads the sign and refuses it for an unsigned kind.
			at("minimum", wantNoNegZero)
		}
	case string:
		if p.kind == planBytes && !sdkDecodesInto(n, p.typ) {
			at(kwEncoding, "base64")
		}
	case []any:
		if (p.kind == planElems || p.kind == planBytes) && p.elem != nil {
			for i, v := range n {
				p.elem.walk(v, append(path, pathSeg{idx: i}), add)
			}
		}
	case map[string]any:
		switch p.kind {
		case planStruct:
			for k, v := range n {
				if fp := p.fields[k]; fp != nil {
					fp.walk(v, append(path, memberSeg(k)), add)
				}
			}
		case planMap:
			for k, v := range n {
				if p.keys != nil && !keyDecodes(k, p.keys) {
					add(leaf{Pointer: pointer(append(path, memberSeg(k))), Keyword: kwPropertyNames, Want: wantKeyType})
				}
				if p.elem != nil {
					p.elem.walk(v, append(path, memberSeg(k)), add)
				}
			}
		}
	}
}

// walkNumbers refuses every number of an untyped value that the SDK's first
// step (numbers as float64) cannot hold.
func walkNumbers(node any, path []pathSeg, add func(leaf)) {
	switch n := node.(type) {
	case json.Number:
		if _, err := strconv.ParseFloat(string(n), 64); err != nil {
			kw, want := "maximum", maxFloat64Text
			if strings.HasPrefix(string(n), "-") {
				kw, want = "minimum", "-"+maxFloat64Text
			}
			add(leaf{Pointer: pointer(path), Keyword: kw, Want: want})
		}
	case []any:
		for i, v := range n {
			walkNumbers(v, append(path, pathSeg{idx: i}), add)
		}
	case map[string]any:
		for k, v := range n {
			walkNumbers(v, append(path, memberSeg(k)), add)
		}
	}
}

// maxFloat64Text is math.MaxFloat64 as encoding/json renders it: past it
// (after rounding) strconv.ParseFloat, and so the SDK's first step, fails.
var maxFloat64Text = strconv.FormatFloat(math.MaxFloat64, 'g', -1, 64)

// keyDecodes reports whether key decodes as a key of the map type m.
func keyDecodes(key string, m reflect.Type) bool {
	b, err := json.Marshal(map[string]any{key: nil})
	if err != nil {
		return false
	}
	return sdkUnmarshal(b, reflect.New(m).Interface()) == nil
}
