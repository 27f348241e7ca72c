package main

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/mcpvalidate"
)

const draft = `"$schema":"https://json-schema.org/draft/2020-12/schema"`

// fragment is a schema file with no tool: referenced by tool schemas.
func fragment(id, body string) string {
	return `{` + draft + `,"$id":"https://x.test/` + id + `",` + body + `}`
}

// TestAuditAndValidateReadADirectoryAlike: `audit --schemas DIR` and
// `validate --schemas DIR` read one directory under one set of rules —
// mcpvalidate's schema-file contract. Where it loads, both verbs see the same
// tools, each with the same bundled schema (the fragments it references,
// directly or through another fragment, and no other); where it does not,
// both refuse it with the same reason.
func TestAuditAndValidateReadADirectoryAlike(t *testing.T) {
	type dir map[string]string
	cases := []struct {
		name   string
		files  dir
		path   string   // a directory in the repository instead of files
		tools  []string // nil: refused
		refuse string   // what the refusal says
	}{
		{name: "the demo schemas", path: "../../schemas/mcp",
			tools: []string{"knowledge.get", "knowledge.search", "knowledge.status", "project.list", "review.findings", "review.search", "system.capabilities"}},
		{name: "fragments, nested and unreferenced", files: dir{
			"ctx.schema.json":    fragment("ctx", `"type":"object","properties":{"projectId":{"$ref":"id"}}`),
			"id.schema.json":     fragment("id", `"type":"string","maxLength":8`),
			"unused.schema.json": fragment("unused", `"type":"string"`),
			"get.schema.json":    toolSchema("get", `"allOf":[{"$ref":"ctx"}],"properties":{"id":{"$ref":"id"}}`),
			"list.schema.json":   toolSchema("list", `"properties":{"n":{"type":"integer","maximum":5}}`),
			"notes.json":         `not read: not *.schema.json`,
		}, tools: []string{"get", "list"}},
		{name: "a fragment clash", files: dir{
			"ctx.schema.json": fragment("ctx", `"type":"object"`),
			"get.schema.json": toolSchema("get", `"allOf":[{"$ref":"ctx"}],"$defs":{"own":{"type":"string"}}`),
		}, refuse: "already has $defs; bundling would overwrite them"},
		{name: "a broken reference", files: dir{
			"get.schema.json": toolSchema("get", `"allOf":[{"$ref":"missing"}]`),
		}, refuse: "https://x.test/missing"},
		{name: "a duplicate id", files: dir{
			"a.schema.json":   fragment("ctx", `"type":"object"`),
			"b.schema.json":   fragment("ctx", `"type":"object"`),
			"get.schema.json": toolSchema("get", `"allOf":[{"$ref":"ctx"}]`),
		}, refuse: "duplicate $id"},
		{name: "no tool", files: dir{
			"ctx.schema.json": fragment("ctx", `"type":"object"`),
		}, refuse: "names a tool"},
		{name: "an open tool schema", files: dir{
			"get.schema.json": `{` + draft + `,"$id":"https://x.test/get","x-mcp-tool":"get","type":"object","additionalProperties":false}`,
		}, refuse: `closed with "unevaluatedProperties": false`},
		{name: "a repeated member", files: dir{
			"get.schema.json": toolSchema("get", `"properties":{},"properties":{}`),
		}, refuse: "not strict JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path
			if path == "" {
				path = t.TempDir()
				for name, body := range c.files {
					writeSchema(t, path, name, body)
				}
			}
			// what runAudit reads, and what runValidate builds (at limits
			// other than the defaults: they do not move the schemas)
			tools, auditErr := audit.LoadSchemas(path)
			l := charge.DefaultLimits()
			l.MaxSourceFileBytes = 1 << 20
			v, validateErr := validatorFrom(path, "", &mcpvalidate.Options{Limits: &l}, io.Discard)
			// and each verb whole, as a user runs it
			auditCode, auditOut, auditStderr := runVerb(t, "", "audit", "--schemas", path, "--json")
			validateCode, validateOut, validateStderr := runVerb(t, "", "validate", "--list", "--json", "--schemas", path)

			if c.tools == nil {
				if auditErr == nil || validateErr == nil {
					t.Fatalf("loaded: audit %v, validate %v", auditErr, validateErr)
				}
				if auditErr.Error() != validateErr.Error() || !strings.Contains(auditErr.Error(), c.refuse) {
					t.Errorf("the reasons differ or miss %q:\naudit:    %v\nvalidate: %v", c.refuse, auditErr, validateErr)
				}
				a, aok := strings.CutPrefix(auditStderr, "boundlab audit: ")
				b, bok := strings.CutPrefix(validateStderr, "boundlab validate: ")
				if auditCode != exitUsage || validateCode != exitUsage || !aok || !bok || a != b {
					t.Errorf("the verbs answer differently: audit exit %d %q, validate exit %d %q", auditCode, auditStderr, validateCode, validateStderr)
				}
				return
			}
			if auditErr != nil || validateErr != nil {
				t.Fatalf("refused: audit %v, validate %v", auditErr, validateErr)
			}
			var names []string
			bundled := map[string]json.RawMessage{}
			for _, tool := range tools {
				names = append(names, tool.Name)
				bundled[tool.Name] = tool.InputSchema
			}
			if !slices.Equal(names, c.tools) || !slices.Equal(v.ToolNames(), c.tools) {
				t.Fatalf("tools: audit %v, validate %v, want %v", names, v.ToolNames(), c.tools)
			}
			for _, name := range c.tools {
				want, _ := v.InputSchema(name)
				if !bytes.Equal(bundled[name], want) {
					t.Errorf("%s: audit reads\n%s\nvalidate holds calls to\n%s", name, bundled[name], want)
				}
			}
			if c.files != nil {
				// the bundle holds what get references, through ctx too,
				// and nothing else: the rule is mcpvalidate's, not "embed
				// every fragment"
				var get struct {
					Defs map[string]json.RawMessage `json:"$defs"`
				}
				if err := json.Unmarshal(bundled["get"], &get); err != nil {
					t.Fatal(err)
				}
				if keys := slices.Sorted(maps.Keys(get.Defs)); !slices.Equal(keys, []string{"ctx", "id"}) {
					t.Errorf("get's bundle embeds %v, want [ctx id]", keys)
				}
				if strings.Contains(string(bundled["list"]), "$defs") {
					t.Errorf("list references nothing, yet its bundle has $defs: %s", bundled["list"])
				}
			}
			var listed []listedJSON
			var rep struct {
				Tools []struct{ Name string } `json:"tools"`
			}
			if validateCode != exitOK || json.Unmarshal([]byte(validateOut), &listed) != nil {
				t.Fatalf("validate --list: exit %d %s", validateCode, validateStderr)
			}
			if auditCode == exitUsage || json.Unmarshal([]byte(auditOut), &rep) != nil {
				t.Fatalf("audit: exit %d %s", auditCode, auditStderr)
			}
			var fromValidate, fromAudit []string
			for _, l := range listed {
				fromValidate = append(fromValidate, l.Tool)
			}
			for _, r := range rep.Tools {
				fromAudit = append(fromAudit, r.Name)
			}
			if !slices.Equal(fromValidate, c.tools) || !slices.Equal(fromAudit, c.tools) {
				t.Errorf("the verbs list: validate %v, audit %v, want %v", fromValidate, fromAudit, c.tools)
			}
		})
	}
}

// A saved tools/list answer is read by one parser for both verbs: the same
// tools, and the same refusal of what is not one.
func TestAuditAndValidateReadASavedListAlike(t *testing.T) {
	dir := t.TempDir()
	schema := `{"type":"object","properties":{"text":{"type":"string","maxLength":4}},"unevaluatedProperties":false}`
	files := map[string]string{
		"response.json": `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":` + schema + `},{"name":"say","inputSchema":` + schema + `}]}}`,
		"array.json":    `[{"name":"echo","inputSchema":` + schema + `},{"name":"say","inputSchema":` + schema + `}]`,
		"error.json":    `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`,
		"page.json":     `{"tools":[{"name":"echo","inputSchema":` + schema + `}],"nextCursor":"2"}`,
		"twice.json":    `{"tools":[{"name":"echo","inputSchema":` + schema + `},{"name":"echo"}]}`,
		"garbage.json":  `CANARY` + strings.Repeat("x", 300),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		file   string
		tools  []string
		refuse string
	}{
		{"response.json", []string{"echo", "say"}, ""},
		{"array.json", []string{"echo", "say"}, ""},
		{"error.json", nil, "JSON-RPC error"},
		{"page.json", nil, "one page of several"},
		{"twice.json", nil, "tools[1] has the name of tools[0]"},
		{"garbage.json", nil, "not strict JSON"},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			auditCode, auditOut, auditStderr := runVerb(t, "", "audit", "--schemas", path, "--json")
			validateCode, validateOut, validateStderr := runVerb(t, "", "validate", "--list", "--json", "--schemas", path)
			if c.tools == nil {
				a, _ := strings.CutPrefix(auditStderr, "boundlab audit: ")
				b, _ := strings.CutPrefix(validateStderr, "boundlab validate: ")
				if auditCode != exitUsage || validateCode != exitUsage || a != b || !strings.Contains(a, c.refuse) || strings.Contains(a, "CANARY") {
					t.Errorf("want both refused saying %q: audit exit %d %q, validate exit %d %q", c.refuse, auditCode, auditStderr, validateCode, validateStderr)
				}
				return
			}
			var listed []listedJSON
			var rep struct {
				Tools []struct{ Name string } `json:"tools"`
			}
			if json.Unmarshal([]byte(validateOut), &listed) != nil || json.Unmarshal([]byte(auditOut), &rep) != nil {
				t.Fatalf("audit exit %d %s; validate exit %d %s", auditCode, auditStderr, validateCode, validateStderr)
			}
			var fromValidate, fromAudit []string
			for _, l := range listed {
				fromValidate = append(fromValidate, l.Tool)
			}
			for _, r := range rep.Tools {
				fromAudit = append(fromAudit, r.Name)
			}
			if !slices.Equal(fromValidate, c.tools) || !slices.Equal(fromAudit, c.tools) {
				t.Errorf("validate lists %v, audit %v, want %v", fromValidate, fromAudit, c.tools)
			}
		})
	}
}
