package mcpvalidate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/theurian/boundlab/charge"
)

// draft202012 is the only $schema a published file may declare.
const draft202012 = "https://json-schema.org/draft/2020-12/schema"

// ToolKey is the member of a schema file that names the MCP tool the file is
// the input schema of. A file without it is a fragment: referenced by tool
// schemas, never a tool itself.
const ToolKey = "x-mcp-tool"

// source is where New takes the published schemas from.
type source interface {
	load() (map[string]*tool, error)
}

// filesSource is WithSchemaFiles.
type filesSource struct {
	fsys fs.FS
	dir  string
}

func (s filesSource) load() (map[string]*tool, error) { return loadRegistry(s.fsys, s.dir) }

// schemaFile is one published file, parsed.
type schemaFile struct {
	path string         // within the FS, e.g. mcp/knowledge-get.input.schema.json
	id   string         // its absolute $id
	tool string         // its x-mcp-tool, "" for a fragment
	doc  map[string]any // decoded with UseNumber
}

// tool is one published tool: its compiled schema and where it came from.
type tool struct {
	name   string
	file   string
	schema *jsonschema.Schema
	// bundled is the file with every fragment it references embedded under
	// $defs, so a client can resolve it without fetching anything.
	bundled json.RawMessage
	// typed holds the checks of a tool added with AddTool (typed.go), nil
	// for any other.
	typed *typedTool
	// plain is schema as plain.go reads it, nil when it is not plain or
	// typed checks more than the schema says.
	plain *plainSchema
}

// refuseLoader is the registry's only loader: nothing outside the published
// set is ever read, from disk or network.
type refuseLoader struct{}

func (refuseLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("offline registry: %s is not a published schema and nothing is fetched", u)
}

// loadRegistry reads every *.schema.json under dir in fsys, and compiles each
// tool schema. Any problem fails the whole load: nothing is skipped.
func loadRegistry(fsys fs.FS, dir string) (map[string]*tool, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.schema.json"))
	if err != nil {
		return nil, fmt.Errorf("mcpvalidate: listing schemas: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("mcpvalidate: no *.schema.json under %q", dir)
	}
	sort.Strings(names)
	// Schema files are trusted but still held to the gate's strictness: a
	// duplicate member name would otherwise be silently last-wins.
	strict, err := charge.NewGate(charge.Go, charge.DefaultLimits())
	if err != nil {
		return nil, err
	}
	var (
		files  []*schemaFile
		errs   []error
		byID   = map[string]string{}
		byTool = map[string]string{}
	)
	for _, name := range names {
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		f, err := parseSchemaFile(strict, name, raw)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, dup := byID[f.id]; dup {
			errs = append(errs, fmt.Errorf("%s: duplicate $id %s (also declared by %s)", name, f.id, prev))
			continue
		}
		byID[f.id] = name
		if f.tool != "" {
			if prev, dup := byTool[f.tool]; dup {
				errs = append(errs, fmt.Errorf("%s: tool %q already has a published schema (%s)", name, f.tool, prev))
				continue
			}
			byTool[f.tool] = name
		}
		files = append(files, f)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("mcpvalidate: loading published schemas: %w", errors.Join(errs...))
	}
	if len(byTool) == 0 {
		return nil, fmt.Errorf("mcpvalidate: no file under %q names a tool (%s)", dir, ToolKey)
	}

	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	for _, f := range files {
		if err := c.AddResource(f.id, f.doc); err != nil {
			return nil, fmt.Errorf("mcpvalidate: %s: adding resource %s: %w", f.path, f.id, err)
		}
	}
	tools := map[string]*tool{}
	for _, f := range files {
		// Fragments are compiled too: one that does not compile is a load
		// failure even if no tool references it yet.
		sch, err := c.Compile(f.id)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.path, err))
			continue
		}
		if f.tool == "" {
			continue
		}
		bundled, err := bundle(f, files)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		tools[f.tool] = &tool{name: f.tool, file: f.path, schema: sch, bundled: bundled}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("mcpvalidate: compiling published schemas: %w", errors.Join(errs...))
	}
	return tools, nil
}

// parseSchemaFile decodes one file and checks what the registry relies on:
// strict JSON, draft 2020-12, an absolute $id, and for a tool schema a
// top-level "type": "object" (the go-sdk refuses to register anything else)
// closed with "unevaluatedProperties": false (decision 4: unknown keys refuse).
func parseSchemaFile(strict *charge.Gate, name string, raw []byte) (*schemaFile, error) {
	if _, r := strict.Check(raw); r != nil {
		return nil, fmt.Errorf("%s: not strict JSON: %v", name, r)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if doc == nil {
		return nil, fmt.Errorf("%s: not a JSON object", name)
	}
	f := &schemaFile{path: name, doc: doc}
	if s, _ := doc["$schema"].(string); s != draft202012 {
		return nil, fmt.Errorf("%s: $schema must be %s", name, draft202012)
	}
	id, _ := doc["$id"].(string)
	u, err := url.Parse(id)
	if id == "" || err != nil || !u.IsAbs() || u.Fragment != "" {
		return nil, fmt.Errorf("%s: $id must be an absolute URL without a fragment", name)
	}
	f.id = id
	if t, present := doc[ToolKey]; present {
		s, ok := t.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return nil, fmt.Errorf("%s: %s must be a non-empty string", name, ToolKey)
		}
		f.tool = s
		if doc["type"] != "object" {
			return nil, fmt.Errorf("%s: a tool input schema must declare \"type\": \"object\"", name)
		}
		if doc["unevaluatedProperties"] != false {
			return nil, fmt.Errorf("%s: a tool input schema must be closed with \"unevaluatedProperties\": false", name)
		}
	}
	return f, nil
}

// bundle returns f with every fragment it references (directly or through
// another fragment) embedded under $defs. Each embedded fragment keeps its
// absolute $id, so f's relative $ref resolves to it inside the one document
// (draft 2020-12 compound documents).
func bundle(f *schemaFile, files []*schemaFile) (json.RawMessage, error) {
	byID := map[string]*schemaFile{}
	for _, g := range files {
		byID[g.id] = g
	}
	defs := map[string]any{}
	var visit func(g *schemaFile) error
	visit = func(g *schemaFile) error {
		base, _ := url.Parse(g.id)
		for _, ref := range refsIn(g.doc) {
			ru, err := base.Parse(ref)
			if err != nil {
				return fmt.Errorf("%s: bad $ref %q: %w", g.path, ref, err)
			}
			ru.Fragment = ""
			target, ok := byID[ru.String()]
			if !ok || target == f {
				continue // a local ref; the compiler has already resolved every other kind
			}
			key := strings.TrimSuffix(path.Base(target.path), ".schema.json")
			if _, seen := defs[key]; seen {
				continue
			}
			defs[key] = target.doc
			if err := visit(target); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(f); err != nil {
		return nil, err
	}
	out := maps.Clone(f.doc)
	if len(defs) > 0 {
		if _, clash := out["$defs"]; clash {
			return nil, fmt.Errorf("%s: already has $defs; bundling would overwrite them", f.path)
		}
		out["$defs"] = defs
	}
	return json.Marshal(out)
}

// refsIn lists every $ref string in a decoded schema document.
func refsIn(v any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if r, ok := x["$ref"].(string); ok {
				out = append(out, r)
			}
			for _, w := range x {
				walk(w)
			}
		case []any:
			for _, w := range x {
				walk(w)
			}
		}
	}
	walk(v)
	sort.Strings(out)
	return out
}
