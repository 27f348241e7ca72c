package mcpvalidate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/theurian/boundlab/charge"
)

// toolsSource is WithTools and WithServerTools: the contract is each tool's
// InputSchema as tools/list publishes it.
type toolsSource struct {
	tools  []*mcp.Tool
	server *mcp.Server // listed when New runs, if set
}

// toolBase names a listed tool's schema inside the compiler. It is never
// fetched (the registry's loader refuses every URL), and .invalid (RFC 2606)
// cannot collide with a real schema's $id.
const toolBase = "https://mcpvalidate.invalid/tools/"

func (s toolsSource) load() (map[string]*tool, error) {
	tools := s.tools
	var typed map[string]*typedTool
	if s.server != nil {
		typed = typedTools(s.server)
		listed, err := listTools(context.Background(), s.server)
		if err != nil {
			return nil, fmt.Errorf("mcpvalidate: listing the server's tools: %w", err)
		}
		tools = listed
	}
	strict, err := charge.NewGate(charge.Go, charge.DefaultLimits())
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	out := map[string]*tool{}
	var errs []error
	for _, t := range tools {
		if t == nil {
			continue
		}
		if _, dup := out[t.Name]; dup {
			errs = append(errs, fmt.Errorf("tool %q is listed twice", t.Name))
			continue
		}
		if t.InputSchema == nil {
			continue // no contract: calls to it are refused (fail-closed)
		}
		compiled, err := compileTool(c, strict, t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		attachTyped(compiled, typed[t.Name])
		out[t.Name] = compiled
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("mcpvalidate: compiling listed input schemas: %w", errors.Join(errs...))
	}
	return out, nil
}

// compileTool compiles one tool's InputSchema as published: marshalled as
// tools/list sends it, held to the gate's strictness, compiled under draft
// 2020-12 unless it names another $schema.
func compileTool(c *jsonschema.Compiler, strict *charge.Gate, t *mcp.Tool) (*tool, error) {
	raw, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	if _, r := strict.Check(raw); r != nil {
		return nil, fmt.Errorf("tool %q: input schema is not strict JSON: %v", t.Name, r)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	if obj, ok := doc.(map[string]any); !ok || obj["type"] != "object" {
		// MCP requires an object schema; the go-sdk refuses to register
		// anything else, and arguments are always an object.
		return nil, fmt.Errorf("tool %q: input schema must declare \"type\": \"object\"", t.Name)
	}
	id := toolBase + url.PathEscape(t.Name) + ".json"
	if err := c.AddResource(id, doc); err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	return &tool{name: t.Name, file: "tools/list", schema: sch, bundled: raw}, nil
}

// listTools lists srv's tools as a client sees them, through an in-memory
// client (pagination followed). The *mcp.Server has no public listing; this
// path goes through srv's receiving middleware like any client's.
func listTools(ctx context.Context, srv *mcp.Server) ([]*mcp.Tool, error) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpvalidate", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	var out []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
