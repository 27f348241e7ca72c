// Package mark3labs validates every MCP tools/call a
// github.com/mark3labs/mcp-go (v1.2.1) server runs against the tool's
// published JSON Schema, with mcpvalidate's Validator: the same gate, the same
// schemas and the same refusal texts as mcpvalidate's go-sdk middleware.
//
// # Use
//
// A server whose tools carry their input schemas (mcp.NewTool with typed
// properties, or mcp.NewToolWithRawSchema), in one line after its tools are
// added:
//
//	v, err := mark3labs.Install(s, nil) // a validator over the tools s lists, + s.Use(Middleware(v))
//
// To run the validator outermost, in front of every other tool-handler
// middleware, build it before the server and pass it first:
//
//	v, err := mcpvalidate.New(mcpvalidate.SchemaFiles(os.DirFS("schemas"), "mcp"), nil)
//	s := server.NewMCPServer("name", "v1", server.WithToolHandlerMiddleware(mark3labs.Middleware(v)), ...)
//
// mark3labs' streamable HTTP server reads the request body with no cap: put
// the front gate in front of it, which caps it at the derived body cap and
// bounds the rest of the request,
//
//	h, err := v.Protect(server.NewStreamableHTTPServer(s), nil)
//	log.Fatal(h.ListenAndServe(addr))
//
// and over stdio, where one bad line would otherwise reach mcp-go's reader,
//
//	err := mark3labs.ListenStdio(ctx, server.NewStdioServer(s), v, nil, nil)
//
// A server that builds its own StdioServer (a context function, options)
// passes that one: ListenStdio stands where it called Listen.
//
// # What it promises
//
// Every call that reaches mark3labs' tool-handler middleware chain (a
// registered tool, found and past mark3labs' tool filters and task checks) is
// validated by Validator.Check before anything the middleware wraps runs; on
// a refusal the handler never runs.
//
// The bytes validated are the arguments as the client sent them: mark3labs'
// CallToolParams.UnmarshalJSON keeps the wire's arguments member verbatim in
// RawArguments (alongside its encoding/json decode in Arguments), over every
// transport that hands MCPServer.HandleMessage the message bytes (streamable
// HTTP, SSE, stdio, the in-process client). So duplicate member names,
// invalid UTF-8, lone surrogates and raw controls inside the arguments meet
// the charge gate as they do under the go-sdk, and a handler reading the
// decoded Arguments of an admitted call reads the one value the gate saw.
//
// A refusal is answered as a tool result, isError true, with one text content
// that is the refusal's Error(): the same text, byte for byte, as the go-sdk
// middleware answers for the same schema and arguments; at most
// mcpvalidate.MaxRefusalBytes long and holding no caller value.
//
// Install and Tools take each tool's schema as mark3labs' own encoding of the
// tool publishes it in tools/list, and never rewrite it: what a client reads
// is what is enforced. A tool with no schema (the zero InputSchema) and a tool
// added after the Validator was built have no contract: calls to them are
// refused (fail-closed); an open schema fails Install (below).
//
// # Where it ends
//
// It sees only what mark3labs hands tool-handler middleware. Before that:
// the body read (no cap, see above), mark3labs' JSON-RPC decode with
// encoding/json (duplicate members, case-variant member names and invalid
// UTF-8 in the envelope are accepted; for params' "arguments" the last
// occurrence wins, and that one is what both RawArguments and Arguments
// hold), the tool lookup and tool filters. A name no registered tool has is
// answered by mark3labs itself, with a JSON-RPC error that quotes the name
// unbounded; the middleware never sees that call. WithInputSchemaValidation,
// if enabled, runs before the middleware and answers with its own text: leave
// it off.
//
// Task tools (AddTaskTool) run without tool-handler middleware in mark3labs
// v1.2.1 (TestTaskToolsBypassMiddleware): they are not validated, and Tools
// does not list them. A regular tool called as a task runs through the
// middleware (mark3labs' executeRegularToolAsTask), so a refusal becomes the
// task's result.
// Per-session tools (SessionWithTools) are not listed either: a call to one is
// refused, and one that shadows a global tool's name is held to the global
// tool's schema.
//
// A request built in process without RawArguments (a test calling a handler
// chain, a middleware that rewrites the request) is validated as its
// Arguments re-encoded by encoding/json: its decode has already dropped all
// but the last of a duplicated member name and replaced invalid UTF-8 with
// U+FFFD, so those can no longer be refused. Over HTTP, mcpvalidate's front
// gate (an http.Handler in front of any SDK's handler) refuses duplicate
// member names and invalid UTF-8 anywhere in the body.
//
// # Open schemas
//
// mark3labs' typed tool schemas (mcp.NewTool) are open by default: an unknown
// member would reach the handler unvalidated. Install (and mcpvalidate.New
// over the tools s lists) fails over an open schema as it does for the go-sdk,
// naming each open tool and where in it, unless the tool is named in
// mcpvalidate.Options.OpenTools (see mcpvalidate's package doc, "Open
// schemas"). Close a typed tool with mcp.WithSchemaAdditionalProperties(false)
// and every mcp.WithObject member with mcp.AdditionalProperties(false);
// server.WithStrictInputSchemaDefault() closes the top level only.
//
// mark3labs, unlike the go-sdk, would let Install close the schemas itself
// (ListTools gives each handler back, and AddTools replaces a tool by name,
// tools/list then publishing the closed schema). It does not: closing is not
// mechanical under composition, a handler may read the members its schema
// leaves open, and one Options value keeps one meaning under both SDKs.
package mark3labs
