package demo

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/schemas"
)

// Path is where the streamable-HTTP endpoint is served.
const Path = "/mcp"

// Options configure NewServer.
type Options struct {
	// NoMiddleware leaves mcpvalidate's middleware off: tests use it to show
	// the seat is load-bearing. Never set it on a served server.
	NoMiddleware bool
	// Typed registers the tools with mcp.AddTool (SDK-inferred schemas and
	// the SDK's own validation) instead of Server.AddTool with the published
	// schemas.
	Typed bool
	// Store is the store to serve; nil means NewStore().
	Store *Store
	// PageSize is the server's list page size (0: the SDK's default).
	PageSize int
	// Inner middleware runs inside the validator: it sees only admitted
	// calls (and every other method).
	Inner []mcp.Middleware
}

// NewServer builds the demo MCP server: the seven tools, with v's middleware
// outermost so it sees every tools/call before anything else.
//
// The go-sdk wraps the current handler on each AddReceivingMiddleware call, so
// the middleware added by the LAST call runs FIRST (within one call, the first
// listed runs first). The validator is therefore added after o.Inner.
func NewServer(v *mcpvalidate.Validator, o Options) (*mcp.Server, error) {
	st := o.Store
	if st == nil {
		st = NewStore()
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "boundlab-demo", Version: "v0"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		PageSize:     o.PageSize,
	})
	if o.Typed {
		RegisterTyped(srv, st)
	} else if err := RegisterRaw(srv, st, v.InputSchema); err != nil {
		return nil, err
	}
	srv.AddReceivingMiddleware(o.Inner...)
	if !o.NoMiddleware {
		srv.AddReceivingMiddleware(v.Middleware())
	}
	return srv, nil
}

// Handler serves srv over streamable HTTP at Path. o is the SDK's options
// (nil: the defaults, e.g. Stateless() for protocol 2026-07-28); a zero
// MaxRequestBodyBytes is set to v's derived cap.
func Handler(v *mcpvalidate.Validator, srv *mcp.Server, o *mcp.StreamableHTTPOptions) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(Path, sdkHandler(v, srv, o))
	return mux
}

// Guarded is srv served at Path behind v's protection (o nil: the
// defaults), built by v.Handler exactly as an adopter builds it: what
// `boundlab serve` runs. Only the SDK options mcpvalidate does not set are
// taken from sdk.
func Guarded(v *mcpvalidate.Validator, srv *mcp.Server, o *mcpvalidate.HTTPOptions, sdk *mcp.StreamableHTTPOptions) (http.Handler, *mcpvalidate.Handler, error) {
	var opts mcpvalidate.HTTPOptions
	if o != nil {
		opts = *o
	}
	if sdk != nil {
		opts.Stateless = opts.Stateless || sdk.Stateless
		opts.SDK = sdk
	}
	h, err := v.Handler(func(*http.Request) *mcp.Server { return srv }, &opts)
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	return mux, h, nil
}

// sdkHandler is the go-sdk's streamable HTTP handler for srv under a copy of
// o, its body capped at v's derived cap unless o sets one.
func sdkHandler(v *mcpvalidate.Validator, srv *mcp.Server, o *mcp.StreamableHTTPOptions) http.Handler {
	var opts mcp.StreamableHTTPOptions
	if o != nil {
		opts = *o
	}
	if opts.MaxRequestBodyBytes == 0 {
		opts.MaxRequestBodyBytes = v.MaxBodyBytes()
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &opts)
}

// Stateless is the SDK options of a stateless server, which go-sdk v1.8.0
// requires for protocol 2026-07-28 over HTTP (a stateful server refuses it).
func Stateless() *mcp.StreamableHTTPOptions { return &mcp.StreamableHTTPOptions{Stateless: true} }

// NewValidator builds the validator for the demo's published schema files
// (package schemas) under o (nil: the defaults).
func NewValidator(o *mcpvalidate.Options) (*mcpvalidate.Validator, error) {
	return mcpvalidate.New(mcpvalidate.SchemaFiles(schemas.FS, schemas.Dir), o)
}
