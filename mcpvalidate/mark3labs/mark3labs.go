package mark3labs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	m3 "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
)

// Middleware returns the mark3labs tool-handler middleware that validates
// every call with v before anything it wraps (inner middleware, the handler)
// runs. It validates the arguments bytes as the client sent them
// (CallToolParams.RawArguments, which mark3labs keeps from the wire); a
// request built in process without them is validated as its Arguments
// re-encoded (see the package doc, "Where it ends").
//
// A refused call is answered as mcp.NewToolResultError(refusal text): one
// text content and isError true, the shape and the text mcpvalidate's go-sdk
// middleware answers the same call with. An admitted call's error, a result
// with isError or an error returned, reaches the caller with every run of
// more than 255 bytes of one of its string arguments replaced by a mark that
// counts them, as mcpvalidate's middleware answers it.
func Middleware(v *mcpvalidate.Validator) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req m3.CallToolRequest) (*m3.CallToolResult, error) {
			args, err := arguments(req.Params)
			if err != nil {
				return m3.NewToolResultError(unreadable), nil
			}
			// Check returns nil or a *mcpvalidate.Refusal, whose text is
			// bounded and holds no caller value.
			if err := v.Check(ctx, req.Params.Name, args); err != nil {
				return m3.NewToolResultError(err.Error()), nil
			}
			res, err := next(ctx, req)
			return withoutQuotes(res, err, args)
		}
	}
}

// unreadable answers a request whose Arguments no JSON encoding can carry;
// only a request built in process can hold one.
const unreadable = "tools/call refused: arguments the validator cannot read"

// arguments are the bytes to validate: the wire's when mark3labs kept them,
// else the decoded value re-encoded, else none (absent: validated as {}).
func arguments(p m3.CallToolParams) (json.RawMessage, error) {
	if len(p.RawArguments) > 0 {
		return p.RawArguments, nil
	}
	switch a := p.Arguments.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return a, nil
	}
	return json.Marshal(p.Arguments)
}

// Install validates every tools/call s runs through its tool-handler
// middleware against the input schemas s publishes: New(Tools(defs), o) for the definitions s lists
// (o nil: the defaults), then Middleware added with s.Use. Call it after the tools are
// added: a tool added later has no contract here and is refused
// (fail-closed) until a new Validator is installed on a new server. An open
// schema fails Install, naming the tool, unless o.OpenTools names it (see the
// package doc, "Open schemas").
//
// mark3labs runs tool-handler middleware in the order added, outermost first,
// and has no way to put one in front: middleware given at construction
// (server.WithToolHandlerMiddleware, server.WithRecovery) runs before this one
// and sees calls not yet validated. The handler never runs on a refused call
// either way.
//
//	v, err := mark3labs.Install(s, nil)
func Install(s *server.MCPServer, o *mcpvalidate.Options) (*mcpvalidate.Validator, error) {
	defs, err := tools(s)
	if err != nil {
		return nil, err
	}
	v, err := mcpvalidate.New(mcpvalidate.Tools(defs...), o)
	if err != nil {
		return nil, err
	}
	s.Use(Middleware(v))
	return v, nil
}

// Tools are s's registered tools (s.ListTools, sorted by name) as go-sdk tool
// definitions for mcpvalidate.Tools: see convert. Task tools
// (AddTaskTool) and per-session tools are not among them.
func tools(s *server.MCPServer) ([]*mcp.Tool, error) {
	listed := s.ListTools()
	names := make([]string, 0, len(listed))
	for name := range listed {
		names = append(names, name)
	}
	sort.Strings(names)
	defs := make([]m3.Tool, 0, len(names))
	for _, name := range names {
		defs = append(defs, listed[name].Tool)
	}
	return convert(defs...)
}

// convert turns mark3labs tool definitions into go-sdk ones for
// mcpvalidate.Tools: each keeps its name, and its InputSchema is the
// inputSchema member mark3labs' own encoding of the tool publishes in
// tools/list (RawInputSchema verbatim, or the typed InputSchema encoded).
// A tool with neither (the zero InputSchema, which mark3labs publishes as
// {"type":"","properties":{}}) converts with no InputSchema, so calls to it
// are refused (fail-closed). A tool mark3labs cannot encode (both schemas set)
// fails convert.
func convert(defs ...m3.Tool) ([]*mcp.Tool, error) {
	out := make([]*mcp.Tool, 0, len(defs))
	var errs []error
	for _, d := range defs {
		t := &mcp.Tool{Name: d.Name}
		out = append(out, t)
		if d.RawInputSchema == nil && d.InputSchema.Type == "" {
			continue // no schema: no contract
		}
		enc, err := json.Marshal(d)
		if err != nil {
			errs = append(errs, fmt.Errorf("tool %q: %w", d.Name, err))
			continue
		}
		var published struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(enc, &published); err != nil {
			errs = append(errs, fmt.Errorf("tool %q: %w", d.Name, err))
			continue
		}
		t.InputSchema = published.InputSchema
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("mark3labs: converting tool definitions: %w", errors.Join(errs...))
	}
	return out, nil
}
