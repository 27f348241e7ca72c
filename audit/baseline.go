package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Where a tool's baseline arguments came from (ToolReport.BaselineFrom).
const (
	BaselineGiven  = "given"  // Config.Examples: --call or --calls
	BaselineSchema = "schema" // built from the schema and admitted by jsonschema/v6
	// BaselineUnchecked: no value the schema admits was built (the reason
	// is in NotMeasured, probe "baseline"): every required member at its
	// const, default, first enum member or example, else a minimal value
	BaselineUnchecked = "unchecked"
)

// schemaBaseline builds the tool's baseline arguments from its schema
// (valueGen: checked against jsonschema/v6); when none can be built it says
// which keyword stopped it and falls back to the required members at
// values read off their schemas, unchecked.
func (a *auditor) schemaBaseline(tp *toolProbe, tr *ToolReport) {
	g, err := newValueGen(tp.tool.InputSchema, a.canary)
	if err == nil {
		tp.gen = g
		var raw json.RawMessage
		if raw, err = g.Root(); err == nil {
			if ms, err := orderedMembers(raw); err == nil {
				tp.base = ms
				return
			}
			err = errors.New("the schema admits arguments that are not a JSON object")
		}
	}
	a.notMeasured("baseline", tp.tool.Name, "no arguments its schema admits were built: "+err.Error()+
		"; the baseline holds the required members unchecked (give a valid call with --call)")
	tr.BaselineFrom = BaselineUnchecked
	for _, p := range tp.props {
		if p.required {
			tp.base = append(tp.base, member{p.name, validValue(p.schema, a.canary, 4)})
		}
	}
}

// NotMeasured is a measurement the audit did not make, and why: a probe
// whose answer cannot be told from its baseline's refusal says so here and
// raises nothing.
type NotMeasured struct {
	Probe string `json:"probe"` // the report field left null, e.g. "max_depth", "unknown_member"
	Tool  string `json:"tool,omitempty"`
	Why   string `json:"why"`
}

func (a *auditor) notMeasured(probe, tool, why string) {
	a.rep.NotMeasured = append(a.rep.NotMeasured, NotMeasured{probe, tool, why})
}

// unmeasured reports whether probe was not measured (target-wide: tool "").
func (r *Report) unmeasured(probe, tool string) bool {
	for _, n := range r.NotMeasured {
		if n.Probe == probe && n.Tool == tool {
			return true
		}
	}
	return false
}

// MaxExampleBytes bounds one example call's arguments, and MaxExamples the
// example calls of one run: they are the operator's, but a file of them is
// read whole.
const (
	MaxExampleBytes = 64 << 10
	MaxExamples     = 1024
)

// ParseCall reads one --call value, TOOL=JSON: the tool's name and its
// arguments, a JSON object.
func ParseCall(s string) (string, json.RawMessage, error) {
	for i := 0; i < len(s); i++ {
		if s[i] != '=' {
			continue
		}
		name, args := s[:i], json.RawMessage(s[i+1:])
		if err := checkExample(args); err != nil {
			return "", nil, fmt.Errorf("--call %s: %w", cutName(name), err)
		}
		return name, args, nil
	}
	return "", nil, errors.New("--call takes TOOL=JSON (the tool's arguments, a JSON object)")
}

// ReadCalls reads a file of example calls: a JSON array of tools/call
// params, each {"name": TOOL, "arguments": {...}}; a tool named twice keeps
// its last call. At most MaxExamples calls of MaxExampleBytes each.
func ReadCalls(path string) (map[string]json.RawMessage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if limit := int64(MaxExamples) * (MaxExampleBytes + 256); st.Size() > limit {
		return nil, fmt.Errorf("--calls: the file is %d bytes, past the %d the calls it may hold take", st.Size(), limit)
	}
	var calls []struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	dec := json.NewDecoder(f)
	if err := dec.Decode(&calls); err != nil {
		return nil, fmt.Errorf("--calls: not a JSON array of {\"name\", \"arguments\"} objects: %w", scrubJSON(err))
	}
	if len(calls) > MaxExamples {
		return nil, fmt.Errorf("--calls: %d calls, past the %d one run takes", len(calls), MaxExamples)
	}
	out := map[string]json.RawMessage{}
	for i, c := range calls {
		if c.Name == nil {
			return nil, fmt.Errorf("--calls: call %d has no name", i)
		}
		if err := checkExample(c.Arguments); err != nil {
			return nil, fmt.Errorf("--calls: call %d (%s): %w", i, cutName(*c.Name), err)
		}
		out[*c.Name] = c.Arguments
	}
	return out, nil
}

// checkExample: a JSON object of at most MaxExampleBytes bytes.
func checkExample(args json.RawMessage) error {
	if len(args) > MaxExampleBytes {
		return fmt.Errorf("the arguments are %d bytes, past the %d one example call may hold", len(args), MaxExampleBytes)
	}
	if _, err := orderedMembers(args); err != nil {
		return err
	}
	return nil
}

// orderedMembers reads a JSON object's members in their order, each value
// as compact raw JSON.
func orderedMembers(args json.RawMessage) ([]member, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return nil, errors.New("the arguments are not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.Token() // the opening brace, checked above
	var out []member
	for dec.More() {
		k, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errors.New("the arguments are not a JSON object")
		}
		var c bytes.Buffer
		json.Compact(&c, v)
		out = with(out, k.(string), c.String())
	}
	return out, nil
}

// cutName is a name fit for an error message: at most 64 bytes, quoted.
func cutName(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// scrubJSON keeps a decode error's kind without the bytes it may quote.
func scrubJSON(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Errorf("a value of the wrong type at byte %d", te.Offset)
	}
	return errors.New("invalid JSON")
}

// writeNotMeasured lists, for the text report, the measurements not made
// and why (nothing when every one was made): the section WriteText writes
// after the skipped tools.
func writeNotMeasured(w io.Writer, r *Report) {
	if len(r.NotMeasured) == 0 {
		return
	}
	fmt.Fprintf(w, "\nnot measured (no finding raised)\n")
	for _, n := range r.NotMeasured {
		where := "target"
		if n.Tool != "" {
			where = cell(n.Tool)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", n.Probe, where, n.Why)
	}
}
