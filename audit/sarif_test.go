package audit_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/theurian/boundlab/audit"
)

// sarifSchema compiles the vendored OASIS schema (testdata/sarif, see its
// README), formats asserted: uri and uri-reference are what code scanning
// checks an artifact's URI against.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sarif", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(audit.SARIFSchema, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(audit.SARIFSchema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// everyRule is a report holding one finding of every rule, half of them
// target-wide, with a message holding what a JSON encoder and a URI must
// escape.
func everyRule(target string) *audit.Report {
	r := &audit.Report{Target: target}
	for i, rule := range audit.Rules() {
		tool := ""
		if i%2 == 1 {
			tool = "tool <" + rule.Name + "> \u2028"
		}
		r.Findings = append(r.Findings, audit.Finding{Rule: rule.ID, Tool: tool, Severity: rule.Severity,
			Message: rule.Text + ` "quoted" & <b>`, Figure: float64(i), Unit: "things"})
	}
	return r
}

type sarifOut struct {
	Schema string `json:"$schema"`
	Runs   []struct {
		Tool struct {
			Driver struct {
				Name, Version string
				Rules         []struct {
					ID               string
					ShortDescription struct{ Text string } `json:"shortDescription"`
					HelpURI          string                `json:"helpUri"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Artifacts []struct {
			Location struct{ URI string } `json:"location"`
		} `json:"artifacts"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI   string
						Index *int
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
		} `json:"results"`
	} `json:"runs"`
}

// TestSARIFSchema: the log of every rule, over each kind of target, is valid
// SARIF 2.1.0 under the official schema, and holds what GitHub code
// scanning needs beyond the schema: a driver version, each rule's
// shortDescription and helpUri, and on every result a physical location
// whose URI is relative or file: (code scanning refuses any other scheme)
// with a start line, matching its run.artifacts entry.
func TestSARIFSchema(t *testing.T) {
	schema := sarifSchema(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.schema.json"), []byte(`{"x-mcp-tool":"tool <unbounded> \u2028"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, target, schemas string
	}{
		{"http", "http://127.0.0.1:3001/mcp", ""},
		{"http_no_path", "https://mcp.example.com", ""},
		{"stdio", "node dist/index.js stdio", ""},
		{"stdio_absolute", "/usr/local/bin/my server --port 1", ""},
		{"in_process", "demo guarded", ""},
		{"static_dir", "static", dir},
		{"static_relative", "static", "schemas/mcp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := audit.SARIFWriter(c.schemas)(&buf, everyRule(c.target)); err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Fatalf("not valid SARIF 2.1.0: %v", err)
			}
			var log sarifOut
			if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
				t.Fatal(err)
			}
			run := log.Runs[0]
			if run.Tool.Driver.Version == "" {
				t.Errorf("no driver version")
			}
			for _, r := range run.Tool.Driver.Rules {
				if r.ShortDescription.Text == "" || !strings.HasPrefix(r.HelpURI, audit.DocsURL+"#") {
					t.Errorf("rule %s: shortDescription %q, helpUri %q", r.ID, r.ShortDescription.Text, r.HelpURI)
				}
			}
			if len(run.Results) != len(audit.Rules()) {
				t.Fatalf("%d results for %d findings", len(run.Results), len(audit.Rules()))
			}
			prints := map[string]bool{}
			for _, res := range run.Results {
				if len(res.Locations) != 1 {
					t.Fatalf("%s: %d locations", res.RuleID, len(res.Locations))
				}
				p := res.Locations[0].PhysicalLocation
				u := p.ArtifactLocation.URI
				if u == "" || (strings.Contains(strings.SplitN(u, "/", 2)[0], ":") && !strings.HasPrefix(u, "file:///")) {
					t.Errorf("%s: artifact URI %q is neither relative nor file:", res.RuleID, u)
				}
				if p.Region.StartLine < 1 {
					t.Errorf("%s: no start line", res.RuleID)
				}
				if i := p.ArtifactLocation.Index; i == nil || *i >= len(run.Artifacts) || run.Artifacts[*i].Location.URI != u {
					t.Errorf("%s: artifact index %v does not name %q", res.RuleID, i, u)
				}
				fp := res.PartialFingerprints["boundlabFinding/v1"]
				if fp == "" || prints[fp] {
					t.Errorf("%s: fingerprint %q missing or repeated", res.RuleID, fp)
				}
				prints[fp] = true
			}
			t.Logf("%s: %d artifacts, first %q", c.target, len(run.Artifacts), run.Artifacts[0].Location.URI)
		})
	}
	// the schema bites: a log of another version, and a result without its
	// message, are refused
	for name, bad := range map[string]string{
		"version":    `{"version":"2.0.0","runs":[]}`,
		"no_message": `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"X"}]}]}`,
		"bad_uri":    `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","informationUri":"not a uri"}}}]}`,
	} {
		t.Run("refuses_"+name, func(t *testing.T) {
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
			if err != nil {
				t.Fatal(err)
			}
			if schema.Validate(inst) == nil {
				t.Errorf("the schema admits %s", bad)
			}
		})
	}
}

// TestSARIFLocations: where each kind of target's findings stand.
func TestSARIFLocations(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "get.schema.json")
	if err := os.WriteFile(file, []byte(`{"x-mcp-tool":"get"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, target, schemas, tool, want string
	}{
		{"http_port_escaped", "http://127.0.0.1:3001/mcp", "", "", "127.0.0.1%3A3001/mcp"},
		{"https_host", "https://mcp.example.com/v1/mcp", "", "t", "mcp.example.com/v1/mcp"},
		{"stdio_script", "node dist/index.js stdio", "", "", "dist/index.js"},
		{"stdio_flags_skipped", "python3 -u server.py", "", "", "server.py"},
		{"stdio_command", "my-server --stdio", "", "", "my-server"},
		{"stdio_absolute", "/opt/srv/bin/run", "", "", "file:///opt/srv/bin/run"},
		{"label_with_space", "demo guarded", "", "", "demo"},
		{"static_tool_file", "static", dir, "get", "file://" + filepath.ToSlash(file)},
		{"static_target_wide", "static", dir, "", "file://" + filepath.ToSlash(dir)},
		{"static_unknown_tool", "static", "schemas/mcp", "nope", "schemas/mcp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &audit.Report{Target: c.target, Findings: []audit.Finding{{Rule: audit.RuleOpenSchema, Tool: c.tool, Severity: audit.SeverityWarning, Message: "m"}}}
			var buf bytes.Buffer
			if err := audit.SARIFWriter(c.schemas)(&buf, r); err != nil {
				t.Fatal(err)
			}
			var log sarifOut
			if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
				t.Fatal(err)
			}
			if got := log.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI; got != c.want {
				t.Errorf("stands at %q, want %q", got, c.want)
			}
		})
	}
}

// TestSARIFHelpAnchors: each rule's helpUri names an anchor docs/audit.md
// has (an explicit <a id> in the rules table).
func TestSARIFHelpAnchors(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "audit.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`<a id="([^"]+)"></a>`).FindAllStringSubmatch(string(doc), -1) {
		anchors[m[1]] = true
	}
	var buf bytes.Buffer
	if err := audit.WriteSARIF(&buf, &audit.Report{Target: "x"}); err != nil {
		t.Fatal(err)
	}
	var log sarifOut
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	rules := log.Runs[0].Tool.Driver.Rules
	if len(rules) != len(audit.Rules()) {
		t.Fatalf("%d rules in the driver, %d in audit.Rules", len(rules), len(audit.Rules()))
	}
	for _, r := range rules {
		t.Run(r.ID, func(t *testing.T) {
			_, frag, _ := strings.Cut(r.HelpURI, "#")
			if !anchors[frag] {
				t.Errorf("helpUri %s: docs/audit.md has no <a id=%q></a>", r.HelpURI, frag)
			}
		})
	}
}

// TestSARIFVersion: the driver's version is the stamped module version,
// else the VCS commit, else (devel).
func TestSARIFVersion(t *testing.T) {
	for _, c := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"tag", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"pseudo", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261202091920-e0c64cb1a2b3+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "e0c64cb"}}}, "v0.0.0-20261202091920-e0c64cb1a2b3+dirty"},
		{"commit", debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "e0c64cb"}, {Key: "vcs.modified", Value: "false"}}}, "e0c64cb"},
		{"dirty_commit", debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "e0c64cb"}, {Key: "vcs.modified", Value: "true"}}}, "e0c64cb+dirty"},
		{"nothing", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := audit.VersionOf(&c.info); got != c.want {
				t.Errorf("version %q, want %q", got, c.want)
			}
		})
	}
}
