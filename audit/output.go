package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/theurian/boundlab/charge"
)

// WriteText writes the report for people: the boundary, one row per tool,
// then the findings.
func WriteText(w io.Writer, r *Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "target\t%s\n", r.Target)
	if r.ProtocolVersion != "" {
		fmt.Fprintf(tw, "protocol\t%s\n", r.ProtocolVersion)
	}
	fmt.Fprintf(tw, "seed\t%d (canary %s), %d requests\n", r.Seed, r.Canary, r.Requests)
	if b := r.Boundary; b != nil {
		writeBoundary(tw, b)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "tool\tcalled\tunknown\tmismatch\tduplicate\techo\tschema")
	for _, t := range r.Tools {
		called := "no"
		if t.Probed {
			called = "yes"
		}
		echo := "-"
		if t.Echo != nil {
			echo = fmt.Sprintf("%.3g", t.Echo.Ratio)
		}
		schema := "-"
		if t.Schema != nil {
			schema = t.Schema.Closure
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cell(t.Name), called, dash(t.UnknownMember), dash(t.TypeMismatch),
			dash(t.Duplicates), echo, schema)
	}
	for _, t := range r.Tools {
		if t.Skipped != "" {
			fmt.Fprintf(tw, "skipped %s: %s\n", cell(t.Name), t.Skipped)
		}
	}
	writeRenders(tw, r.Tools)
	fmt.Fprintf(tw, "\n%d findings\n", len(r.Findings))
	for _, f := range r.Findings {
		where := "target"
		if f.Tool != "" {
			where = cell(f.Tool)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Rule, f.Severity, where, f.Message)
	}
	return tw.Flush()
}

// writeRenders lists, per tool and validator, the keywords whose error text
// renders the instance and what one refusal can then quote: figures, not
// findings (nearly every schema has such a keyword).
func writeRenders(w io.Writer, tools []ToolReport) {
	first := true
	for _, t := range tools {
		sa := t.Schema
		if sa == nil {
			continue
		}
		for _, d := range charge.Dialects() {
			k := d.String()
			if sa.RenderPath[k] == 0 {
				continue
			}
			if first {
				fmt.Fprintf(w, "\nrenders the instance (not findings: the figures at the %d-byte cap)\n", sa.Cap)
				first = false
			}
			fmt.Fprintf(w, "%s\t%s\t%s\tworst render %d %s, a refusal up to %d\n", cell(t.Name), validatorName(d),
				strings.Join(cut(sa.Renders[k], 4), ", "), sa.WorstRender[k], d.Unit(), sa.RefusalCeiling[k])
		}
	}
}

func writeBoundary(w io.Writer, b *Boundary) {
	capText := fmt.Sprintf("none below %d bytes", b.BodyCeiling)
	if b.BodyCap != nil {
		capText = fmt.Sprintf("%d bytes (at cap: %s; one past: %s)", *b.BodyCap, b.AtCap, b.PastCap)
	}
	depth := fmt.Sprintf("none below %d levels", b.DepthCeiling)
	if b.MaxDepth != nil {
		depth = fmt.Sprintf("%d levels", *b.MaxDepth)
	}
	fmt.Fprintf(w, "body cap\t%s\n", capText)
	fmt.Fprintf(w, "max depth\t%s\n", depth)
	fmt.Fprintf(w, "echo ratio\t%.3f (%s)\n", b.EchoRatio, b.EchoInstance)
	for _, kv := range [][2]string{
		{"unknown keys", b.UnknownKeys}, {"duplicate names", b.DuplicateNames},
		{"duplicate names (envelope)", b.DuplicateNamesEnvelope}, {"invalid UTF-8", b.InvalidUTF8},
		{"lone surrogates", b.LoneSurrogates}, {"raw controls", b.RawControls}, {"trailing bytes", b.TrailingBytes},
		{"integral float", b.IntegralFloat}, {"before initialized", b.BeforeInitialized},
		{"before initialize", b.BeforeInitialize}, {"unknown params member", b.UnknownParamsMember},
	} {
		fmt.Fprintf(w, "%s\t%s\n", kv[0], dash(kv[1]))
	}
	if b.Refusal != nil {
		fmt.Fprintf(w, "refusal shape\t%s, id echoed: %v\n", b.Refusal, b.Refusal.IDEchoed)
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cell is a tool name fit for a table: the server chose it, so it is cut
// and its controls escaped.
func cell(s string) string {
	q := fmt.Sprintf("%q", s)
	q = q[1 : len(q)-1]
	if len(q) > 48 {
		q = q[:45] + "..."
	}
	return strings.ReplaceAll(q, "\t", " ")
}

// NDJSONFinding is one line of WriteNDJSON: a finding and the target it
// was found on.
type NDJSONFinding struct {
	Target string `json:"target"`
	Finding
}

// WriteNDJSON writes one finding a line, each a JSON object (the finding's
// members and "target"); no finding, no line.
func WriteNDJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	for _, f := range r.Findings {
		if err := enc.Encode(NDJSONFinding{r.Target, f}); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the report as one indented JSON value.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// SARIFVersion is the SARIF version WriteSARIF writes.
const SARIFVersion = "2.1.0"

const sarifSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver struct {
		Name           string      `json:"name"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	} `json:"driver"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID               string    `json:"id"`
	Name             string    `json:"name"`
	ShortDescription sarifText `json:"shortDescription"`
	Default          struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Locations  []sarifLocation `json:"locations"`
	Properties map[string]any  `json:"properties"`
}

type sarifLocation struct {
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// WriteSARIF writes the findings as a SARIF 2.1.0 log: every rule in the
// driver, one result per finding, located at the tool it concerns (the
// target, for target-wide findings) as a logical location.
func WriteSARIF(w io.Writer, r *Report) error {
	var run sarifRun
	run.Tool.Driver.Name = "boundlab audit"
	run.Tool.Driver.InformationURI = "https://github.com/theurian/boundlab/blob/main/docs/audit.md"
	index := map[string]int{}
	for i, rule := range Rules() {
		sr := sarifRule{ID: rule.ID, Name: rule.Name, ShortDescription: sarifText{rule.Text}}
		sr.Default.Level = rule.Severity
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sr)
		index[rule.ID] = i
	}
	run.Results = []sarifResult{}
	for _, f := range r.Findings {
		loc := sarifLogical{Name: f.Tool, FullyQualifiedName: r.Target + "#" + f.Tool, Kind: "function"}
		if f.Tool == "" {
			loc = sarifLogical{Name: r.Target, FullyQualifiedName: r.Target, Kind: "module"}
		}
		run.Results = append(run.Results, sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: f.Severity,
			Message: sarifText{f.Message}, Locations: []sarifLocation{{LogicalLocations: []sarifLogical{loc}}},
			Properties: map[string]any{"figure": f.Figure, "unit": f.Unit}})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: SARIFVersion, Runs: []sarifRun{run}})
}
