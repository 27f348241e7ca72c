package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
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
	writeNotMeasured(tw, r)
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
	for _, o := range b.Origins {
		fmt.Fprintf(w, "%s %s, %s\t%s (%s)\n", o.Header, cell(o.Sent), o.Method, o.Verdict, o.Answer)
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

// SARIFSchema is the $schema WriteSARIF writes: the OASIS errata01 schema,
// the one audit/testdata/sarif holds and the tests validate against.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// DocsURL is where the rules are documented: each rule's helpUri is this
// with the rule's anchor (RuleAnchor).
const DocsURL = "https://github.com/theurian/boundlab/blob/main/docs/audit.md"

// DefaultFailOn is the least severity that fails a run by default: a
// warning or an error exits 1, a note is reported and passes (a protected
// server's notes — BLA012 on a server that serves before
// notifications/initialized, BLA104 on any unbounded string — are not
// defects to stop a build on). --fail-on note is the strict setting.
const DefaultFailOn = SeverityWarning

// RuleAnchor is the rule's anchor in docs/audit.md ("bla001"): an explicit
// <a id> in the rules table, so it does not move when the row's text does.
func RuleAnchor(id string) string { return strings.ToLower(id) }

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool      sarifTool       `json:"tool"`
	Artifacts []sarifArtifact `json:"artifacts"`
	Results   []sarifResult   `json:"results"`
}

type sarifTool struct {
	Driver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version"`
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
	FullDescription  sarifText `json:"fullDescription"`
	HelpURI          string    `json:"helpUri"`
	Help             sarifText `json:"help"`
	Default          struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifArtifact struct {
	Location    sarifArtifactLocation `json:"location"`
	Description sarifText             `json:"description"`
}

type sarifArtifactLocation struct {
	URI   string `json:"uri"`
	Index *int   `json:"index,omitempty"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           struct {
		StartLine int `json:"startLine"`
	} `json:"region"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// WriteSARIF is SARIFWriter("") : for a report of a server (every finding
// located at the server's artifact, below). A static report's findings then
// all stand at the artifact "static"; SARIFWriter(path) locates them at
// their schema files.
func WriteSARIF(w io.Writer, r *Report) error { return SARIFWriter("")(w, r) }

// SARIFWriter writes the findings as one SARIF 2.1.0 run for GitHub code
// scanning: every rule in the driver (its shortDescription, its helpUri in
// docs/audit.md), the driver's version (Version), one result per finding.
//
// Code scanning needs a physical location on every result, an artifact URI
// relative to the repository (it rejects an http: URI outright: "SARIF URI
// scheme did not match the checkout URI scheme file"), and a region. So
// each result stands at line 1 of an artifact, also listed in run.artifacts
// with what it is:
//   - a server over HTTP: its URL without the scheme, host and path,
//     percent-escaped (127.0.0.1%3A3001/mcp): a stable name per server,
//     never a file the repository has;
//   - a server over stdio: the first argument that names a file (a script:
//     server.py, ./dist/index.js), else the command, as given (an absolute
//     path becomes a file: URI, which code scanning makes relative to the
//     checkout);
//   - static findings (schemasPath set: --schemas): the schema file the
//     tool's schema came from — the saved tools/list answer, or in a
//     directory the *.schema.json whose "x-mcp-tool" names the tool (the
//     directory itself for target-wide findings or a name no file holds).
//
// The tool a finding concerns is also a logical location (kind function;
// the target, kind module), and each result carries a partial fingerprint
// of its rule, artifact and tool so code scanning matches it across runs.
func SARIFWriter(schemasPath string) func(io.Writer, *Report) error {
	return func(w io.Writer, r *Report) error {
		var run sarifRun
		run.Tool.Driver.Name = "boundlab audit"
		run.Tool.Driver.Version = Version()
		run.Tool.Driver.InformationURI = DocsURL
		index := map[string]int{}
		for i, rule := range Rules() {
			sr := sarifRule{ID: rule.ID, Name: rule.Name, ShortDescription: sarifText{rule.Text},
				FullDescription: sarifText{rule.Text + " (default level: " + rule.Severity + ")"},
				HelpURI:         DocsURL + "#" + RuleAnchor(rule.ID),
				Help:            sarifText{rule.ID + " " + rule.Name + ": " + rule.Text + ". What it measures and how to fix it: " + DocsURL + "#" + RuleAnchor(rule.ID)}}
			sr.Default.Level = rule.Severity
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sr)
			index[rule.ID] = i
		}
		artifacts := map[string]int{}
		artifact := func(uri, what string) sarifArtifactLocation {
			i, ok := artifacts[uri]
			if !ok {
				i = len(run.Artifacts)
				artifacts[uri] = i
				run.Artifacts = append(run.Artifacts, sarifArtifact{Location: sarifArtifactLocation{URI: uri}, Description: sarifText{what}})
			}
			return sarifArtifactLocation{URI: uri, Index: &i}
		}
		var files map[string]string
		if schemasPath != "" {
			files = schemaFiles(schemasPath)
		}
		run.Artifacts = []sarifArtifact{}
		run.Results = []sarifResult{}
		for _, f := range r.Findings {
			var loc sarifLocation
			switch {
			case schemasPath != "":
				file, ok := files[f.Tool]
				if !ok {
					file = schemasPath
				}
				loc.PhysicalLocation.ArtifactLocation = artifact(fileURI(file), "the published input schemas audited statically")
			default:
				loc.PhysicalLocation.ArtifactLocation = artifact(targetURI(r.Target), "the MCP server audited: "+r.Target)
			}
			loc.PhysicalLocation.Region.StartLine = 1
			lg := sarifLogical{Name: f.Tool, FullyQualifiedName: r.Target + "#" + f.Tool, Kind: "function"}
			if f.Tool == "" {
				lg = sarifLogical{Name: r.Target, FullyQualifiedName: r.Target, Kind: "module"}
			}
			loc.LogicalLocations = []sarifLogical{lg}
			sum := sha256.Sum256([]byte(f.Rule + "\x00" + loc.PhysicalLocation.ArtifactLocation.URI + "\x00" + f.Tool))
			run.Results = append(run.Results, sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: f.Severity,
				Message: sarifText{f.Message}, Locations: []sarifLocation{loc},
				PartialFingerprints: map[string]string{"boundlabFinding/v1": hex.EncodeToString(sum[:16])},
				Properties:          map[string]any{"figure": f.Figure, "unit": f.Unit}})
		}
		var log sarifLog
		log.Schema, log.Version, log.Runs = SARIFSchema, SARIFVersion, []sarifRun{run}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(log)
	}
}

// targetURI is the artifact a server's findings stand at (SARIFWriter).
func targetURI(target string) string {
	if u, err := url.Parse(target); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		p := strings.TrimPrefix(u.EscapedPath(), "/")
		host := strings.ReplaceAll(url.PathEscape(u.Host), ":", "%3A")
		if p == "" {
			return host
		}
		return host + "/" + p
	}
	words := strings.Fields(target)
	if len(words) == 0 {
		return "target"
	}
	file := words[0]
	for _, a := range words[1:] {
		if !strings.HasPrefix(a, "-") && (strings.Contains(a, "/") || path.Ext(a) != "") {
			file = a
			break
		}
	}
	return fileURI(file)
}

// fileURI is a file path as a URI reference: relative paths stay relative
// (slash-separated, each segment escaped, a colon too, so no segment reads
// as a scheme), absolute ones become file: URIs.
func fileURI(p string) string {
	p = filepath.ToSlash(p)
	abs := strings.HasPrefix(p, "/")
	var segs []string
	for _, s := range strings.Split(strings.Trim(p, "/"), "/") {
		segs = append(segs, strings.ReplaceAll(url.PathEscape(s), ":", "%3A"))
	}
	out := strings.Join(segs, "/")
	if abs {
		return "file:///" + out
	}
	if out == "" {
		return "."
	}
	return out
}

// schemaFiles maps each tool to the file its schema was read from: a saved
// tools/list answer holds every tool; in a directory, each *.schema.json
// that names a tool with "x-mcp-tool" (what mcpvalidate.SchemaFiles reads).
// A file it cannot read maps nothing: the finding then stands at the path.
func schemaFiles(p string) map[string]string {
	out := map[string]string{}
	st, err := os.Stat(p)
	if err != nil {
		return out
	}
	if !st.IsDir() {
		tools, err := LoadSchemas(p)
		if err == nil {
			for _, t := range tools {
				out[t.Name] = p
			}
		}
		return out
	}
	names, _ := filepath.Glob(filepath.Join(p, "*.schema.json"))
	for _, n := range names {
		data, err := readBounded(n, MaxToolsListBytes)
		if err != nil {
			continue
		}
		var head struct {
			Tool string `json:"x-mcp-tool"`
		}
		if json.Unmarshal(data, &head) == nil && head.Tool != "" {
			out[head.Tool] = n
		}
	}
	return out
}

// Version is the version of boundlab this binary was built from, for the
// SARIF driver: the main module's version as the Go toolchain stamped it
// (a tag, or a pseudo-version vX.Y.Z-TIME-COMMIT from `go install
// module@version` or a VCS checkout), else the VCS commit the build
// recorded (vcs.revision, "+dirty" when vcs.modified), else "(devel)"
// (a test binary, or a build with -buildvcs=false).
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	return versionOf(info)
}

func versionOf(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "(devel)"
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}
