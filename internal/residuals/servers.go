package residuals

import (
	"context"
	"net/http"

	m3 "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/internal/demo"
)

// The real servers the audit records (and audit's tests) are taken over, in
// process: built here so the records and the tests audit the same servers.

// Calls are the demo tools an audit of the demo calls: both only read the
// store (the demo's tools carry no readOnlyHint annotation).
var Calls = []string{"project.list", "knowledge.search"}

// Seed is the seed of every recorded audit.
const Seed = 7

// BareSDK is the go-sdk with nothing of boundlab: the demo's tools typed
// (mcp.AddTool: the SDK's own inferred schemas and validation), no
// middleware of mcpvalidate's.
func BareSDK() (*mcp.Server, error) {
	v, err := demo.NewValidator(nil)
	if err != nil {
		return nil, err
	}
	return demo.NewServer(v, demo.Options{NoMiddleware: true, Typed: true})
}

// BareSDKTarget is BareSDK served by the SDK's default streamable handler
// (nil options) at /mcp, as an observing target: each answer also says what
// reached the SDK's receiving middleware.
func BareSDKTarget() (*audit.HTTP, error) {
	srv, err := BareSDK()
	if err != nil {
		return nil, err
	}
	return audit.GoSDK("go-sdk bare", srv, nil, nil, "/mcp"), nil
}

// Demo is the demo with mcpvalidate's middleware, behind the front gate
// (guarded: what `boundlab serve` runs) or not, and the body cap its
// validator derives.
func Demo(guarded bool) (http.Handler, int64, error) {
	v, err := demo.NewValidator(nil)
	if err != nil {
		return nil, 0, err
	}
	srv, err := demo.NewServer(v, demo.Options{})
	if err != nil {
		return nil, 0, err
	}
	if !guarded {
		return demo.Handler(v, srv, nil), v.MaxBodyBytes(), nil
	}
	h, _, err := demo.Guarded(v, srv, nil, nil)
	return h, v.MaxBodyBytes(), err
}

// Mark3labs is mark3labs/mcp-go with two tools: "lookup", annotated
// read-only (an open typed schema, a bounded required string, an unbounded
// number), and "delete", not annotated, whose handler panics: an audit that
// calls it breaks its own safety rule. Its streamable HTTP server as is, at
// /mcp.
func Mark3labs() http.Handler {
	s := m3server.NewMCPServer("m3", "v0", m3server.WithToolCapabilities(true))
	s.AddTool(m3.NewTool("lookup",
		m3.WithString("key", m3.Required(), m3.MaxLength(64)),
		m3.WithNumber("limit"),
		m3.WithReadOnlyHintAnnotation(true),
	), func(ctx context.Context, req m3.CallToolRequest) (*m3.CallToolResult, error) {
		return m3.NewToolResultText("found nothing"), nil
	})
	s.AddTool(m3.NewTool("delete", m3.WithString("key", m3.Required())),
		func(ctx context.Context, req m3.CallToolRequest) (*m3.CallToolResult, error) {
			panic("the auditor called a tool it was not allowed to call")
		})
	return m3server.NewStreamableHTTPServer(s)
}

// GuardedTarget is Demo(true) as an observing target: the demo behind
// mcpvalidate's front gate (default options), the SDK's handler with the
// derived body cap, an observing middleware outermost on the server (so it
// sees what passed the gate and the SDK's decoding, before the validator).
func GuardedTarget() (*audit.HTTP, error) {
	v, err := demo.NewValidator(nil)
	if err != nil {
		return nil, err
	}
	srv, err := demo.NewServer(v, demo.Options{})
	if err != nil {
		return nil, err
	}
	var gateErr error
	t := audit.GoSDK("demo guarded (observed)", srv, &mcp.StreamableHTTPOptions{MaxRequestBodyBytes: v.MaxBodyBytes()},
		func(h http.Handler) http.Handler {
			fg, err := v.Protect(h, nil)
			if err != nil {
				gateErr = err
				return h
			}
			mux := http.NewServeMux()
			mux.Handle(demo.Path, fg)
			return mux
		}, demo.Path)
	return t, gateErr
}
