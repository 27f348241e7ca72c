package derivation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/results"
	"github.com/theurian/boundlab/schemas"
	"github.com/theurian/boundlab/sweeps"
)

// The served frame: every worst instance is emitted as a call to a tool
// `boundlab serve` serves, knowledge.search, with the demo store's project
// and the string in "query" (the published schema's maxLength 2000 is what a
// long value fails, so a validator renders it — the role the seed's "body"
// field plays in the sweeps' instances).
const (
	ServedTool    = "knowledge.search"
	ServedProject = "demo"
	ServedKey     = "query"
	projectKey    = "projectId"
	// docQuery is the query a document instance carries: one ASCII letter,
	// so its long member name is the only thing the schema refuses.
	docQuery = "a"
)

const (
	servedOpen  = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + ServedTool + `","arguments":`
	servedClose = `}}`
	servedArgs  = `{"` + projectKey + `":"` + ServedProject + `","` + ServedKey + `":`
)

// Stages a served call can end at, in the order the request path meets them.
const (
	StageTransport = "transport" // the body cap: HTTP 413 from the front gate
	StageGate      = "gate"      // the charge gate: a tool result with isError
	StageSchema    = "schema"    // the published schema: a tool result with isError
	StageAdmit     = "admit"     // served by the handler
)

// Outcome is what one path answers a served instance.
type Outcome struct {
	Stage  string `json:"stage"`            // transport, gate, schema or admit
	Bound  string `json:"bound,omitempty"`  // which bound refuses: body cap, charge, nodes, maxLength, unevaluatedProperties
	Status int    `json:"http,omitempty"`   // the HTTP status serve answers (413, or 200 for a tool result)
	Reason string `json:"reason,omitempty"` // the arithmetic, in words
}

// ServedInstance is one worst instance framed as a knowledge.search call:
// either a string instance (the worst string of a worst-render scenario,
// re-solved so the served frame's envelope and member names are paid for)
// or a document instance (the widest whole render under the exact charge).
type ServedInstance struct {
	Name     string         `json:"name"` // file stem; emitted as Name + ".json"
	Scenario string         `json:"scenario"`
	Dialect  charge.Dialect `json:"-"`
	Encoder  charge.Encoder `json:"-"`
	Rule     string         `json:"rule"` // codepoint or exact
	// Instance says what the body holds, in words (Describe).
	Instance    string `json:"instance"`
	DialectName string `json:"dialect"`
	EncoderName string `json:"encoder"`
	// Spans is the query string (string instances).
	Spans []sweeps.Span `json:"runs,omitempty"`
	// Key and EmptyArrays are the document instance's third member: a name
	// of Key's runs whose value is an array of EmptyArrays empty arrays.
	Key         []sweeps.Span `json:"key_runs,omitempty"`
	EmptyArrays int64         `json:"empty_arrays,omitempty"`
	Bytes       int64         `json:"bytes"`
	// What the scenario's own gate does with it (its dialect and rule, its
	// cap and budget): admits it, and the string renders Render.
	CodePoints  int64   `json:"code_points"`
	Charge      int64   `json:"scenario_charge"`
	Budget      int64   `json:"budget"`
	Transport   int64   `json:"scenario_cap"`
	Render      int64   `json:"render,omitempty"`
	Ratio       float64 `json:"render_x_budget,omitempty"`
	Binds       string  `json:"binds"`
	ServedNodes int     `json:"served_nodes"`
	// ServedCharge is the served gate's charge (go dialect, exact rule).
	ServedCharge int64 `json:"served_charge"`
	// Serve is what `boundlab serve` and `boundlab validate --request`
	// answer at the same limits (the body cap, then the front gate's
	// envelope checks and charge, then the schema); ServeGo what they answer
	// with --go-clients (the body cap sized for Go clients too).
	Serve   Outcome `json:"serve"`
	ServeGo Outcome `json:"serve_go_clients"`
}

// Describe says what the instance holds, in words.
func (s ServedInstance) Describe() string {
	if s.EmptyArrays > 0 {
		return fmt.Sprintf("%s.json: tools/call %q, arguments {%q: %q, %q: %q, %s: [[] x %s]}, %s bytes", s.Name, ServedTool,
			projectKey, ServedProject, ServedKey, docQuery, runsText(s.Key), thousands(s.EmptyArrays), thousands(s.Bytes))
	}
	return fmt.Sprintf("%s.json: tools/call %q, %s-encoded, arguments {%q: %q, %q: %s}, %s bytes", s.Name, ServedTool, s.Encoder,
		projectKey, ServedProject, ServedKey, runsText(s.Spans), thousands(s.Bytes))
}

func runsText(runs []sweeps.Span) string {
	var parts []string
	for _, r := range runs {
		parts = append(parts, fmt.Sprintf("%s x %s", sweeps.RuneName(r.Rune), thousands(r.N)))
	}
	return strings.Join(parts, " + ")
}

func runsWire(e charge.Encoder, runs []sweeps.Span) int64 {
	var n int64
	for _, r := range runs {
		n += r.N * int64(len(sweeps.EncodeRune(e, r.Rune)))
	}
	return n
}

// size is the body's length, computed without building it.
func (s ServedInstance) size() int64 {
	n := int64(len(servedOpen)+len(servedArgs)+len(servedClose)) + 1 // the arguments' closing brace
	if s.EmptyArrays > 0 {
		// "a","<key>":[ + "[]," per element, the last comma a "]"
		return n + int64(len(`"`+docQuery+`","`)+len(`":`)) + runsWire(charge.Raw, s.Key) + 1 + 3*s.EmptyArrays
	}
	return n + 2 + runsWire(s.Encoder, s.Spans)
}

// Build writes the request body.
func (s ServedInstance) Build() []byte {
	b := make([]byte, 0, s.Bytes)
	b = append(b, servedOpen...)
	b = append(b, servedArgs...)
	appendRuns := func(e charge.Encoder, runs []sweeps.Span) {
		for _, r := range runs {
			b = append(b, bytes.Repeat(sweeps.EncodeRune(e, r.Rune), int(r.N))...)
		}
	}
	if s.EmptyArrays > 0 {
		b = append(b, `"`+docQuery+`","`...)
		appendRuns(charge.Raw, s.Key)
		b = append(b, `":[`...)
		b = append(b, strings.Repeat("[],", int(s.EmptyArrays))...)
		b[len(b)-1] = ']'
	} else {
		b = append(b, '"')
		appendRuns(s.Encoder, s.Spans)
		b = append(b, '"')
	}
	b = append(b, '}')
	return append(b, servedClose...)
}

// Emit writes the body to dir/Name.json.
func (s ServedInstance) Emit(dir string) (string, error) {
	path := filepath.Join(dir, s.Name+".json")
	return path, os.WriteFile(path, s.Build(), 0o644)
}

// servedSchema is what the prediction reads from the published schema files:
// the query's maxLength and every member the arguments may hold.
type servedSchema struct {
	maxLength int64
	members   map[string]bool
}

func readServedSchema() (servedSchema, error) {
	type doc struct {
		Properties map[string]struct {
			MaxLength *int64 `json:"maxLength"`
		} `json:"properties"`
	}
	read := func(file string) (doc, error) {
		var d doc
		b, err := schemas.FS.ReadFile(schemas.Dir + "/" + file)
		if err == nil {
			err = json.Unmarshal(b, &d)
		}
		return d, err
	}
	tool, err := read("knowledge-search.input.schema.json")
	if err != nil {
		return servedSchema{}, err
	}
	ctx, err := read("tool-context.schema.json")
	if err != nil {
		return servedSchema{}, err
	}
	q, ok := tool.Properties[ServedKey]
	if !ok || q.MaxLength == nil {
		return servedSchema{}, fmt.Errorf("derivation: the %s schema has no %s maxLength", ServedTool, ServedKey)
	}
	s := servedSchema{maxLength: *q.MaxLength, members: map[string]bool{}}
	for _, d := range []doc{tool, ctx} {
		for k := range d.Properties {
			s.members[k] = true
		}
	}
	return s, nil
}

// spanWidth is the dialect's render width of a string of runs, computed
// from a fit on short strings (StringWidth is linear in the counts once every
// run is present) and checked on a fourth.
func spanWidth(d charge.Dialect, runs []sweeps.Span) (int64, error) {
	build := func(n []int64) string {
		var b strings.Builder
		for i, r := range runs {
			b.WriteString(strings.Repeat(string(r.Rune), int(n[i])))
		}
		return b.String()
	}
	at := func(n []int64) int64 { return int64(d.StringWidth(build(n))) }
	ones := make([]int64, len(runs))
	for i := range ones {
		ones[i] = 1
	}
	base := at(ones)
	coef := make([]int64, len(runs))
	for i := range runs {
		n := append([]int64(nil), ones...)
		n[i] = 2
		coef[i] = at(n) - base
	}
	eval := func(n []int64) int64 {
		v := base
		for i := range n {
			v += coef[i] * (n[i] - 1)
		}
		return v
	}
	check := make([]int64, len(runs))
	for i := range check {
		check[i] = int64(3 + 2*i)
	}
	if at(check) != eval(check) {
		return 0, fmt.Errorf("derivation: %s width of %s is not linear in its counts", d, runsText(runs))
	}
	want := make([]int64, len(runs))
	for i, r := range runs {
		want[i] = r.N
		if r.N < 1 {
			return 0, fmt.Errorf("derivation: an empty run in %s", runsText(runs))
		}
	}
	return eval(want), nil
}

// frameCharge is what the served frame's other strings cost under a rule: the
// exact rule prices every member name and string; the code-point rule only
// string values, at their length in code points.
func frameCharge(d charge.Dialect, rule sweeps.Rule, names, values []string) int64 {
	var c int64
	for _, v := range values {
		if rule == sweeps.ExactRule {
			c += int64(d.StringWidth(v))
		} else {
			c += int64(utf8.RuneCountInString(v))
		}
	}
	if rule == sweeps.ExactRule {
		for _, n := range names {
			c += int64(d.NameWidth(n))
		}
	}
	return c
}

// ServedInstances frames every worst instance the lab derives at l as a
// knowledge.search call: each scenario's worst string and worst one-class
// string (and, for python-raw-codepoint-shipped, the DEL and astral
// non-printable classes the seed quotes), re-solved by sweeps.Derive so the
// served frame's envelope bytes and member charges are paid for out of the
// scenario's cap and budget, and the widest whole document per dialect.
// Each carries what its scenario's gate does with it and what the served
// validator does: the go dialect's exact charge at l, the body cap serve
// derives (ensure_ascii and raw clients, or all three with --go-clients),
// then the published schema.
func ServedInstances(l charge.Limits) ([]ServedInstance, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	sch, err := readServedSchema()
	if err != nil {
		return nil, err
	}
	sw := sweeps.Shared()
	if err := sw.Err(); err != nil {
		return nil, err
	}
	var out []ServedInstance
	seen := map[string]bool{}
	for _, sc := range sweeps.Scenarios(l) {
		rows, err := sw.Table(sc.Dialect)
		if err != nil {
			return nil, err
		}
		leaf := sweeps.LeafInstance("", sc.Encoder, nil)
		served := ServedInstance{Encoder: sc.Encoder}
		dWire := served.size() - leaf.Size()
		dCharge := frameCharge(sc.Dialect, sc.Rule, []string{projectKey, ServedKey}, []string{ServedProject}) -
			frameCharge(sc.Dialect, sc.Rule, []string{sweeps.ValueKey}, nil)
		adj := sc
		adj.Transport -= dWire
		adj.Budget -= dCharge
		d, err := sweeps.Derive(adj, rows)
		if err != nil {
			return nil, err
		}
		reaches := []sweeps.Reach{d.WorstPure, d.Worst}
		if sc.ID == "python-raw-codepoint-shipped" {
			for _, r := range []rune{0x7f, 0x1000c} {
				if c, ok := d.ClassReach(r); ok {
					reaches = append(reaches, c)
				}
			}
		}
		for _, r := range reaches {
			in := ServedInstance{Name: r.Instance().Name, Scenario: sc.ID, Dialect: sc.Dialect, Encoder: sc.Encoder, Rule: sc.Rule.String(),
				Spans: r.Spans, CodePoints: r.Admitted, Charge: r.Charge + dCharge, Budget: sc.Budget, Transport: sc.Transport,
				Render: r.Render, Ratio: float64(r.Render) / float64(sc.Budget), Binds: r.Binds, ServedNodes: 5}
			if seen[in.Name] {
				continue
			}
			seen[in.Name] = true
			in.Bytes = in.size()
			if in.Bytes != r.Wire+dWire {
				return nil, fmt.Errorf("derivation: %s: the served body is %d bytes, the re-solved reach says %d", in.Name, in.Bytes, r.Wire+dWire)
			}
			w, err := spanWidth(charge.Go, in.Spans)
			if err != nil {
				return nil, err
			}
			in.ServedCharge = w + frameCharge(charge.Go, sweeps.ExactRule, []string{projectKey, ServedKey}, []string{ServedProject})
			in.finish(l, sch)
			out = append(out, in)
		}
	}
	for _, dl := range charge.Dialects() {
		doc := sweeps.DocumentWorst(dl, l)
		// The served frame adds four nodes (projectId, its value, query, its
		// value) and their charge; the long name takes what is left.
		fc := frameCharge(dl, sweeps.ExactRule, []string{projectKey, ServedKey}, []string{ServedProject, docQuery})
		keyN := l.MaxParamsRenderedChars - fc
		arrays := doc.Instance.EmptyArrays - 4
		if keyN < 1 || arrays < 1 {
			continue // limits too small for the served frame
		}
		in := ServedInstance{Name: "document-" + dl.String() + "-exact", Scenario: "document-" + dl.String(), Dialect: dl,
			Encoder: charge.Raw, Rule: sweeps.ExactRule.String(), Key: []sweeps.Span{{Rune: 'a', N: keyN}}, EmptyArrays: arrays,
			Charge: keyN*int64(dl.RuneWidth('a')) + fc, Budget: l.MaxParamsRenderedChars, Binds: "charge and nodes",
			ServedNodes: doc.Nodes}
		in.Bytes = in.size()
		in.ServedCharge = keyN*int64(charge.Go.RuneWidth('a')) + frameCharge(charge.Go, sweeps.ExactRule,
			[]string{projectKey, ServedKey}, []string{ServedProject, docQuery})
		in.finish(l, sch)
		out = append(out, in)
	}
	return out, nil
}

// finish names the instance in words and predicts its outcomes.
func (s *ServedInstance) finish(l charge.Limits, sch servedSchema) {
	s.DialectName, s.EncoderName = s.Dialect.String(), s.Encoder.String()
	s.Instance = s.Describe()
	s.predict(l, sch)
}

// predict fills the three outcomes from the instance's served charge, nodes
// and size, the limits, the derived body caps and the published schema.
func (s *ServedInstance) predict(l charge.Limits, sch servedSchema) {
	var inner Outcome
	switch {
	case s.ServedNodes > l.MaxParamsNodes:
		inner = Outcome{Stage: StageGate, Bound: "nodes", Status: 200,
			Reason: fmt.Sprintf("%s nodes > MaxParamsNodes %s", thousands(int64(s.ServedNodes)), thousands(int64(l.MaxParamsNodes)))}
	case s.ServedCharge > l.MaxParamsRenderedChars:
		inner = Outcome{Stage: StageGate, Bound: "charge", Status: 200,
			Reason: fmt.Sprintf("go exact charge %s > budget %s", thousands(s.ServedCharge), thousands(l.MaxParamsRenderedChars))}
	case s.EmptyArrays > 0 && !sch.members[runsString(s.Key)]:
		inner = Outcome{Stage: StageSchema, Bound: "unevaluatedProperties", Status: 200,
			Reason: fmt.Sprintf("go exact charge %s <= budget %s; a member the schema does not name", thousands(s.ServedCharge), thousands(l.MaxParamsRenderedChars))}
	case s.EmptyArrays == 0 && s.CodePoints > sch.maxLength:
		inner = Outcome{Stage: StageSchema, Bound: "maxLength", Status: 200,
			Reason: fmt.Sprintf("go exact charge %s <= budget %s; %s code points > maxLength %d", thousands(s.ServedCharge),
				thousands(l.MaxParamsRenderedChars), thousands(s.CodePoints), sch.maxLength)}
	default:
		inner = Outcome{Stage: StageAdmit, Status: 200, Reason: "every bound holds"}
	}
	atCap := func(encs ...charge.Encoder) Outcome {
		bc := charge.BodyCap(l, encs...).Cap
		if s.Bytes > bc {
			return Outcome{Stage: StageTransport, Bound: "body cap", Status: 413,
				Reason: fmt.Sprintf("%s bytes > body cap %s", thousands(s.Bytes), thousands(bc))}
		}
		o := inner
		o.Reason = fmt.Sprintf("%s bytes <= body cap %s; %s", thousands(s.Bytes), thousands(bc), inner.Reason)
		return o
	}
	s.Serve = atCap(charge.EnsureASCII, charge.Raw)
	s.ServeGo = atCap(charge.EnsureASCII, charge.Raw, charge.GoJSON)
}

func runsString(runs []sweeps.Span) string {
	if runsWire(charge.Raw, runs) > 1<<10 {
		return "" // no published member name is that long
	}
	var b strings.Builder
	for _, r := range runs {
		b.WriteString(strings.Repeat(string(r.Rune), int(r.N)))
	}
	return b.String()
}

func thousands(n int64) string { return results.Thousands(n) }
