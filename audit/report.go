package audit

import (
	"encoding/json"
	"slices"

	"github.com/theurian/boundlab/charge"
)

// Report is one audit's answer. docs/audit.md documents every field.
type Report struct {
	Target          string `json:"target"`
	ProtocolVersion string `json:"protocol_version"`
	Seed            uint64 `json:"seed"`
	Canary          string `json:"canary"`
	Requests        int    `json:"requests"`
	// TimedRequests are the requests among Requests the timed probes sent:
	// how many depends on how fast the server answered (growth stops at the
	// first step that hurts, which is then sent again for a median).
	TimedRequests int          `json:"timed_requests"`
	Tools         []ToolReport `json:"tools"`
	Boundary      *Boundary    `json:"boundary"`
	Findings      []Finding    `json:"findings"`
	// NotMeasured are the measurements not made, and why; their fields are
	// null and raise nothing.
	NotMeasured []NotMeasured `json:"not_measured"`
	// SessionEnds are the probes on which the server ended the session
	// (over stdio: its process exited or closed its stdout; over HTTP: it
	// cut the connection without an answer), in order; the probe's answer
	// is "closed" and a new session went on. The body-cap
	// probe's ends are its past_cap answer (closed-past-cap), not listed.
	SessionEnds []SessionEnd `json:"session_ended"`
}

// SessionEnd is one probe on which the server ended the session.
type SessionEnd struct {
	Probe string `json:"probe"` // the probe's step and, where it names one, its message
	Tool  string `json:"tool,omitempty"`
	// Cut says the server cut the HTTP connection without an answer; else
	// a stdio process exited or closed its stdout.
	Cut bool `json:"cut,omitempty"`
}

// ToolReport is one tool: probed or skipped, what the probes saw, and its
// schema's static audit.
type ToolReport struct {
	Name     string `json:"name"`
	Probed   bool   `json:"probed"`
	Why      string `json:"why,omitempty"`     // why it was probed
	Skipped  string `json:"skipped,omitempty"` // why it was not
	Baseline *Shape `json:"baseline,omitempty"`
	// BaselineFrom is where the baseline arguments came from: "given"
	// (--call, --calls) or "schema".
	BaselineFrom  string  `json:"baseline_from,omitempty"`
	UnknownMember Verdict `json:"unknown_member"`
	TypeMismatch  Verdict `json:"type_mismatch"`
	Refusal       *Shape  `json:"refusal,omitempty"`
	Duplicates    Verdict `json:"duplicate_names"`
	// DuplicateAnswers are the answers to the key member twice: valid value
	// first, then mistyped first.
	DuplicateAnswers []Shape `json:"duplicate_answers,omitempty"`
	IntegralFloat    Verdict `json:"integral_float"`
	// BoundaryValues are values just past the bounds the schema publishes.
	BoundaryValues []BoundaryValue `json:"boundary_values,omitempty"`
	Echo           *Echo           `json:"echo,omitempty"`
	// Numbers are the number literals sent in the first integer and the
	// first number member: past int64, past float32 and float64, and one
	// Limits.EchoBytes digits long.
	Numbers []NumberProbe `json:"numbers,omitempty"`
	// Echoes are the worst answer of each place of the tool's arguments
	// the echo sweep sent over-long values to (Echo is the worst of them).
	Echoes []*Echo `json:"echoes,omitempty"`
	// Amplification is what costly inputs cost in time: a crafted string
	// for each backtracking pattern and, on the carrier, long digit
	// strings, wide arrays and duplicate names.
	Amplification []Amplification `json:"amplification,omitempty"`
	Schema        *SchemaAudit    `json:"schema"`
}

// Verdict is a probe's classification; "" (not measured) is null in JSON.
type Verdict = string

// Boundary is what the target-wide probes found.
type Boundary struct {
	BodyCap      *int64 `json:"body_cap"` // null: none below BodyCeiling
	BodyCeiling  int64  `json:"body_ceiling"`
	AtCap        *Shape `json:"at_cap"`
	PastCap      *Shape `json:"past_cap"`
	MaxDepth     *int   `json:"max_depth"` // null: none below DepthCeiling
	DepthCeiling int    `json:"depth_ceiling"`
	// DepthPlacement is where the nesting was sent: "params._meta" or
	// "arguments".
	DepthPlacement string `json:"depth_placement"`

	EchoRatio    float64 `json:"echo_ratio"`
	EchoInstance string  `json:"echo_instance"`
	EnvelopeEcho *Echo   `json:"envelope_echo"`
	// Echoes are the worst answer of each place of the envelope the echo
	// sweep sent over-long values to (EnvelopeEcho is the first).
	Echoes []*Echo `json:"echoes"`

	UnknownKeys             Verdict        `json:"unknown_keys"`
	DuplicateNames          Verdict        `json:"duplicate_names"`
	DuplicateNamesEnvelope  Verdict        `json:"duplicate_names_envelope"`
	InvalidUTF8             Verdict        `json:"invalid_utf8"`
	LoneSurrogates          Verdict        `json:"lone_surrogates"`
	RawControls             Verdict        `json:"raw_controls"`
	TrailingBytes           Verdict        `json:"trailing_bytes"`
	TrailingAnswer          *Shape         `json:"trailing_answer"`
	Differentials           []Differential `json:"differentials"`
	IntegralFloat           Verdict        `json:"integral_float"`
	BeforeInitialized       Verdict        `json:"before_initialized"` // served | refused
	BeforeInitializedAnswer *Shape         `json:"before_initialized_answer"`
	// BeforeInitialize is a tools/call on a connection that sent nothing
	// before it (over HTTP: no session id).
	BeforeInitialize       Verdict `json:"before_initialize"` // served | refused
	BeforeInitializeAnswer *Shape  `json:"before_initialize_answer"`
	// UnknownParamsMember is a params member no MCP version names, beside
	// the carrier's name and arguments.
	UnknownParamsMember Verdict `json:"unknown_params_member"` // refused | accepted | echoed
	UnknownParamsAnswer *Shape  `json:"unknown_params_answer"`
	// DuplicateNamesEnvelopeAnswers are the answers to params holding
	// "name" twice, the carrier first and second.
	DuplicateNamesEnvelopeAnswers []Shape `json:"duplicate_names_envelope_answers"`
	// AtDepth and PastDepth are the answers at max_depth and one deeper.
	AtDepth   *Shape `json:"at_depth"`
	PastDepth *Shape `json:"past_depth"`
	// Observed is the white-box view of an observing target (GoSDK); null
	// for every other target.
	Observed *Observed `json:"observed"`
	// Memory is the stdio process's peak resident set growth for one
	// message at the cap (Config.Memory); null when it did not run.
	Memory *Memory `json:"memory"`
	// Sessions is the session-cap probe's answer (Config.Sessions); null
	// when it did not run.
	Sessions *SessionCap `json:"sessions"`
	// Origins are the requests sent with a forged Origin or Host header
	// (HTTP targets only).
	Origins         []OriginProbe `json:"origins,omitempty"`
	Carrier         string        `json:"carrier"` // the tool the target-wide probes call; "" for a tool name no tool has
	CarrierBaseline Shape         `json:"carrier_baseline"`
	UnknownTool     *Shape        `json:"unknown_tool"`
	Refusal         *Shape        `json:"refusal"`
}

// Severity levels, SARIF's.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityNote    = "note"
)

// Finding is one thing the audit found; Figure is the measured number it
// rests on, in Unit.
type Finding struct {
	Rule     string  `json:"rule"`
	Tool     string  `json:"tool"`
	Severity string  `json:"severity"`
	Message  string  `json:"message"`
	Figure   float64 `json:"figure"`
	Unit     string  `json:"unit"`
}

// MarshalJSON writes a "" verdict as null.
func (b Boundary) MarshalJSON() ([]byte, error) {
	type plain Boundary
	return marshalNulls(plain(b))
}

// MarshalJSON writes a "" verdict as null.
func (t ToolReport) MarshalJSON() ([]byte, error) {
	type plain ToolReport
	return marshalNulls(plain(t))
}

// marshalNulls encodes v and turns its verdict members that are "" into null.
func marshalNulls(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, raw := range m {
		if string(raw) == `""` && slices.Contains(verdictFields, k) {
			m[k] = json.RawMessage("null")
		}
	}
	return json.Marshal(m)
}

var verdictFields = []string{"unknown_member", "type_mismatch", "duplicate_names", "integral_float", "unknown_keys",
	"duplicate_names_envelope", "invalid_utf8", "lone_surrogates", "raw_controls", "trailing_bytes", "before_initialized",
	"before_initialize", "unknown_params_member", "verdict"}

// Observed is what an observing target (GoSDK) saw reach the server's
// receiving middleware over the whole run: the white-box measurements the
// black-box figures are held to.
type Observed struct {
	// ArgumentsMaxDepth is the deepest arguments nesting (the arguments
	// object is level 1) whose tools/call reached the middleware, bisected
	// over 1..depth_ceiling; null when depth_ceiling itself reached it.
	ArgumentsMaxDepth *int `json:"arguments_max_depth"`
	// Calls are the tools/calls of the run that reached the middleware and
	// whose arguments the auditor can read back from what it sent;
	// ArgumentsAltered, those whose arguments arrived as other bytes.
	Calls            int `json:"calls"`
	ArgumentsAltered int `json:"arguments_altered"`
}

// tool returns the index of name's row, adding one.
func (r *Report) tool(name string) int {
	for i := range r.Tools {
		if r.Tools[i].Name == name {
			return i
		}
	}
	r.Tools = append(r.Tools, ToolReport{Name: name})
	return len(r.Tools) - 1
}

// DefaultStaticCap is the cap a static audit takes its figures at unless
// Config.Cap names one: the cap mcpvalidate derives for its default limits
// and default encoder families (ensure_ascii and raw clients), 25 MiB.
func DefaultStaticCap() int64 {
	return charge.BodyCap(charge.DefaultLimits(), charge.EnsureASCII, charge.Raw).Cap
}

// finish fills the boundary's headline figures from the tools and derives
// the findings.
func (r *Report) finish(staticCap int64) {
	b := r.Boundary
	capAt := staticCap
	if capAt <= 0 {
		capAt = DefaultStaticCap()
	}
	if b != nil {
		capAt = b.BodyCeiling
		if b.BodyCap != nil {
			capAt = *b.BodyCap
		}
		r.headline(b)
	}
	for i := range r.Tools {
		if t := &r.Tools[i]; t.Schema != nil {
			t.Schema.figures(t.Name, capAt)
		}
	}
	r.Findings = append(r.Findings, r.boundaryFindings()...)
	for _, t := range r.Tools {
		r.Findings = append(r.Findings, toolFindings(t)...)
	}
}

// rank orders the unknown-member verdicts from best to worst.
var rank = map[string]int{"": 0, VerdictRefused: 1, VerdictAccepted: 2, VerdictEchoed: 3}

func (r *Report) headline(b *Boundary) {
	for _, e := range b.Echoes {
		if e.Ratio > b.EchoRatio {
			b.EchoRatio, b.EchoInstance = e.Ratio, e.Instance
		}
	}
	for _, t := range r.Tools {
		if t.Echo != nil && t.Echo.Ratio > b.EchoRatio {
			b.EchoRatio, b.EchoInstance = t.Echo.Ratio, t.Echo.Instance
		}
		if rank[t.UnknownMember] > rank[b.UnknownKeys] {
			b.UnknownKeys = t.UnknownMember
		}
		if b.DuplicateNames == "" {
			b.DuplicateNames = t.Duplicates
		}
		if b.IntegralFloat == "" {
			b.IntegralFloat = t.IntegralFloat
		}
		if b.Refusal == nil && t.Refusal != nil {
			b.Refusal = t.Refusal
		}
	}
	if b.Refusal == nil {
		b.Refusal = b.UnknownTool
	}
}
