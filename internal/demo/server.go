package demo

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
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
}

// NewServer builds the demo MCP server: the seven tools, with v's middleware
// added first so it sees every tools/call before anything else.
func NewServer(v *mcpvalidate.Validator, o Options) (*mcp.Server, error) {
	st := o.Store
	if st == nil {
		st = NewStore()
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "boundlab-demo", Version: "v0"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	if !o.NoMiddleware {
		srv.AddReceivingMiddleware(v.Middleware())
	}
	if o.Typed {
		RegisterTyped(srv, st)
		return srv, nil
	}
	if err := RegisterRaw(srv, st, v.InputSchema); err != nil {
		return nil, err
	}
	return srv, nil
}

// Handler serves srv over streamable HTTP at Path, with the request body
// capped at v's derived MaxRequestBodyBytes.
func Handler(v *mcpvalidate.Validator, srv *mcp.Server) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: v.MaxRequestBodyBytes(),
	})
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	return mux
}
