// Package mcpvalidate protects an MCP server built on
// github.com/modelcontextprotocol/go-sdk: every tools/call is validated
// against the tool's published JSON Schema before any handler runs, every
// request is bounded before the SDK reads it, and no refusal ever repeats
// what the caller sent — nor does a tool's error repeat a long argument.
//
// # Protect a server
//
// Add the tools, then install the validator and serve:
//
//	mcpvalidate.AddTool(server, &mcp.Tool{Name: "search"}, search) // as mcp.AddTool
//	v, err := mcpvalidate.Install(server, nil)
//	h, err := v.Handler(func(*http.Request) *mcp.Server { return server }, nil)
//	log.Fatal(h.ListenAndServe("127.0.0.1:8080"))
//
// Install validates each call against what the server publishes in
// tools/list. Handler builds the SDK's streamable HTTP handler with a body cap
// and session settings that agree with the front gate in front of it.
// ListenAndServe serves it on an http.Server hardened by [Handler.Harden]:
// mount h on a server of your own and call Harden instead. For a handler
// built elsewhere (mcp-go's: see package mark3labs) use [Validator.Protect].
//
// # What is refused
//
// In order, each stage answering before the next runs:
//
//   - the request of a browser page from another origin (403): one not in
//     [HTTPOptions].AllowedOrigins, as net/http's CrossOriginProtection
//     judges it; requests without an Origin header (clients that are not
//     browsers) pass;
//   - the request: a body past [Validator.MaxBodyBytes] (413), no room in the
//     in-flight memory budget (503 with Retry-After), a body read too slowly
//     (408), a JSON-RPC message that is not strict JSON or whose envelope the
//     SDK would misread (duplicate names, invalid UTF-8, trailing bytes, ids
//     it cannot hold) (400);
//   - the arguments, in one pass over their bytes: syntax, nesting, node
//     count, number length, and what an error message rendering them could
//     cost;
//   - a tool with no published schema (fail-closed), then the schema itself;
//     for tools added with [AddTool], also what the Go input type cannot
//     hold.
//
// Each refusal is a [*Refusal]: its stage, the bound, where (a JSON
// pointer), the HTTP status. Its text is built from fixed templates, member
// names escaped and cut, and numbers; it is at most [MaxRefusalBytes] as
// answered. A refused call is answered as a tool result with isError, the
// shape the SDK gives a handler's own error; a refused request as a JSON-RPC
// error. [Options].OnRefusal sees every refusal.
//
// A handler's own error is its words, but not the caller's: each run of more
// than 255 bytes of one string argument it quotes (as sent, %q-quoted or
// JSON-escaped) reaches the caller as a mark that counts the bytes left out.
//
// # Memory
//
// Requests in flight, sessions with their streams, and open connections
// each have a budget ([HTTPOptions]); their sum with a baseline is
// [Handler.Ceiling], the memory the process can state. The weights a request,
// a session, a stream and a connection are admitted at were measured by
// boundlab's memory lab; they and every default are the constants of package
// bounds.
//
// # Open schemas
//
// A schema that admits members it neither names nor checks lets them reach
// the handler unvalidated, where a struct decode drops them silently. New
// refuses such tools, naming each open location; list the ones open on
// purpose in [Options].OpenTools.
//
// # Where it ends
//
// The Host header is the SDK's: its handler refuses a non-localhost Host
// on a loopback listener (DNS rebinding); Protect leaves it to next.
// It validates arguments, not _meta or other params, which stay the SDK's. It
// does not authorize, rate-limit per client or judge content. Without the
// front gate (the middleware alone) the SDK reads and decodes the whole body
// first, and its own errors quote the caller.
//
// How each bound is derived and measured: docs/mcpvalidate.md in boundlab's
// repository.
package mcpvalidate
