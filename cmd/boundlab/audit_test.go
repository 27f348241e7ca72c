package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeSchema(t *testing.T, dir, name, schema string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
}

// toolSchema is a schema file of mcpvalidate's contract for tool: draft
// 2020-12, an absolute $id, x-mcp-tool, type object, closed; body is the
// rest of its members.
func toolSchema(tool, body string) string {
	return `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://x.test/` + tool +
		`","x-mcp-tool":"` + tool + `","type":"object","unevaluatedProperties":false,` + body + `}`
}

// pitfallList is a saved tools/list answer whose one tool closes with
// additionalProperties: false beside allOf: the closure pitfall (a schema
// file would be refused by mcpvalidate's contract, which demands
// unevaluatedProperties: false).
const pitfallList = `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get","inputSchema":{"type":"object",` +
	`"allOf":[{"$ref":"#/$defs/ctx"}],"$defs":{"ctx":{"type":"object","properties":{"projectId":{"type":"string"}}}},` +
	`"properties":{"id":{"type":"string"}},"additionalProperties":false}}]}}`

func TestAuditExitStatuses(t *testing.T) {
	clean, unbounded, open, dir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	// closed and bounded: its maximum renders the instance in both
	// validators' errors, a figure in the per-tool report and no finding
	writeSchema(t, clean, "count.schema.json", toolSchema("count", `"properties":{"n":{"type":"integer","maximum":5}}`))
	writeSchema(t, unbounded, "say.schema.json", toolSchema("say", `"properties":{"s":{"type":"string","maxLength":8},"t":{"type":"string"}}`))
	// open: not mcpvalidate's contract, so the directory is refused (as
	// validate --schemas refuses it), not audited
	writeSchema(t, open, "say.schema.json", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://x.test/say","x-mcp-tool":"say","type":"object"}`)
	pitfall := filepath.Join(dir, "tools.json")
	writeSchema(t, dir, "tools.json", pitfallList)
	// a listed tool whose schema is open (BLA102, a warning) and bounded
	openList := filepath.Join(dir, "open.json")
	writeSchema(t, dir, "open.json", `[{"name":"get","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}]`)
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"nothing found", []string{"--schemas", clean}, exitOK},
		{"nothing found, fail on note", []string{"--schemas", clean, "--fail-on", "note"}, exitOK},
		{"one note, an unbounded string, passes by default", []string{"--schemas", unbounded}, exitOK},
		{"one note, fail on note", []string{"--schemas", unbounded, "--fail-on", "note"}, exitNo},
		{"one note, fail on warning", []string{"--schemas", unbounded, "--fail-on", "warning"}, exitOK},
		{"an open schema file is refused", []string{"--schemas", open}, exitUsage},
		{"a warning, an open listed schema, fails by default", []string{"--schemas", openList}, exitNo},
		{"a warning, fail on error", []string{"--schemas", openList, "--fail-on", "error"}, exitOK},
		{"the allOf pitfall", []string{"--schemas", pitfall}, exitNo},
		{"the allOf pitfall, fail on error", []string{"--schemas", pitfall, "--fail-on", "error"}, exitNo},
		{"no target", nil, exitUsage},
		{"two targets", []string{"--schemas", clean, "--url", "http://127.0.0.1:1/mcp"}, exitUsage},
		{"stdio without a command", []string{"--stdio"}, exitUsage},
		{"bad format", []string{"--schemas", clean, "--format", "xml"}, exitUsage},
		{"bad fail-on", []string{"--schemas", clean, "--fail-on", "all"}, exitUsage},
		{"unreachable", []string{"--url", "http://127.0.0.1:1/mcp", "--timeout", "2s"}, exitUsage},
		{"stdio that exits", []string{"--stdio", "false"}, exitUsage},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runVerb(t, "", append([]string{"audit"}, c.args...)...)
			if code != c.want {
				t.Errorf("exit %d, want %d (%s)", code, c.want, errOut)
			}
		})
	}
}

// TestAuditRendersAreFiguresNotFindings: a closed, bounded schema whose
// keywords render the instance draws no finding, and the text report still
// lists what renders and the refusal ceiling.
func TestAuditRendersAreFiguresNotFindings(t *testing.T) {
	dir := t.TempDir()
	writeSchema(t, dir, "count.schema.json", toolSchema("count", `"properties":{"n":{"type":"integer","maximum":5}}`))
	code, out, _ := runVerb(t, "", "audit", "--schemas", dir)
	if code != exitOK || !strings.Contains(out, "0 findings") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "renders the instance") || !strings.Contains(out, "maximum") || !strings.Contains(out, "a refusal up to") {
		t.Errorf("the text report does not list the rendering keywords:\n%s", out)
	}
}

// A directory's fragment reaches the audit inside the tool's bundled schema:
// the fragment's unbounded member is reported under the tool.
func TestAuditAuditsTheBundledSchema(t *testing.T) {
	dir := t.TempDir()
	writeSchema(t, dir, "ctx.schema.json", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://x.test/ctx","type":"object","properties":{"projectId":{"type":"string"}}}`)
	writeSchema(t, dir, "get.schema.json", toolSchema("get", `"allOf":[{"$ref":"ctx"}],"properties":{"id":{"type":"string"}}`))
	_, out, errOut := runVerb(t, "", "audit", "--schemas", dir, "--json")
	var rep struct {
		Tools []struct {
			Name   string `json:"name"`
			Schema struct {
				Closure   string   `json:"closure"`
				Unbounded []string `json:"unbounded"`
			} `json:"schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Tools) != 1 || rep.Tools[0].Name != "get" || rep.Tools[0].Schema.Closure != "closed" {
		t.Fatalf("report %+v (%v): %s", rep, err, errOut)
	}
	u := strings.Join(rep.Tools[0].Schema.Unbounded, "\n")
	if !strings.Contains(u, "/properties/id: string without maxLength") || !strings.Contains(u, "/properties/projectId: string without maxLength") {
		t.Errorf("unbounded places %v, want both strings", rep.Tools[0].Schema.Unbounded)
	}
}

func TestAuditJSONAndSARIF(t *testing.T) {
	dir := t.TempDir()
	writeSchema(t, dir, "tools.json", pitfallList)
	list := filepath.Join(dir, "tools.json")
	_, out, _ := runVerb(t, "", "audit", "--schemas", list, "--json")
	var rep struct {
		Target   string          `json:"target"`
		Boundary json.RawMessage `json:"boundary"`
		Tools    []struct {
			Name   string `json:"name"`
			Schema struct {
				Closure   string   `json:"closure"`
				Unbounded []string `json:"unbounded"`
			} `json:"schema"`
		} `json:"tools"`
		Findings []struct {
			Rule string `json:"rule"`
			Tool string `json:"tool"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json does not decode: %v", err)
	}
	if rep.Target != "static" || string(rep.Boundary) != "null" || len(rep.Tools) != 1 || rep.Tools[0].Schema.Closure != "pitfall" {
		t.Fatalf("static report: %+v", rep)
	}
	// the composed member is audited with the tool
	u := strings.Join(rep.Tools[0].Schema.Unbounded, "\n")
	if !strings.Contains(u, "/properties/id: string without maxLength") || !strings.Contains(u, "/properties/projectId: string without maxLength") {
		t.Errorf("unbounded places %v, want both strings", rep.Tools[0].Schema.Unbounded)
	}
	_, sarif, _ := runVerb(t, "", "audit", "--schemas", list, "--format", "sarif")
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string } `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
					LogicalLocations []struct{ Name string } `json:"logicalLocations"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(sarif), &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("SARIF: %v, version %q", err, log.Version)
	}
	run := log.Runs[0]
	if len(run.Results) != len(rep.Findings) {
		t.Fatalf("%d SARIF results for %d findings", len(run.Results), len(rep.Findings))
	}
	for i, r := range run.Results {
		if r.RuleID != rep.Findings[i].Rule || run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID ||
			r.Locations[0].LogicalLocations[0].Name != rep.Findings[i].Tool {
			t.Errorf("result %d: %+v does not match finding %+v", i, r, rep.Findings[i])
		}
		// a static finding stands at the schema file --schemas named
		if u := r.Locations[0].PhysicalLocation.ArtifactLocation.URI; u != "file://"+filepath.ToSlash(list) {
			t.Errorf("result %d stands at %q, want the tools/list file %s", i, u, list)
		}
	}
	if !strings.Contains(sarif, `"BLA103"`) {
		t.Errorf("no closure-pitfall result")
	}
	_, nd, _ := runVerb(t, "", "audit", "--schemas", list, "--format", "ndjson")
	lines := strings.Split(strings.TrimSuffix(nd, "\n"), "\n")
	if len(lines) != len(rep.Findings) {
		t.Fatalf("%d NDJSON lines for %d findings:\n%s", len(lines), len(rep.Findings), nd)
	}
	for i, l := range lines {
		var f struct{ Target, Rule, Tool, Severity string }
		if err := json.Unmarshal([]byte(l), &f); err != nil || f.Target != "static" || f.Rule != rep.Findings[i].Rule || f.Tool != rep.Findings[i].Tool || f.Severity == "" {
			t.Errorf("line %d %q: %+v (%v), want finding %+v", i, l, f, err, rep.Findings[i])
		}
	}
}
