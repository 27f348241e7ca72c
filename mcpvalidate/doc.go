// Package mcpvalidate validates every MCP tools/call against the tool's
// published JSON Schema before any handler runs, for servers built on
// github.com/modelcontextprotocol/go-sdk (v1.8.0): fail-closed, bounded in
// what a request may cost, and with refusals that never echo the caller.
//
// # Use
//
// After the tools are added, one line validates every call against what the
// server publishes in tools/list, and a second puts the front gate in front
// of the SDK's HTTP handler:
//
//	v, err := mcpvalidate.Install(server, nil) // New(ServerTools(server), nil) + outermost middleware
//	sdk := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
//		MaxRequestBodyBytes: v.MaxRequestBodyBytes(),
//	})
//	front, err := v.frontGate(sdk, nil)
//	http.Handle("/mcp", front)
//
// A contract kept in schema files instead: [New] with [SchemaFiles], then
// [Validator.Middleware] added with the server's LAST AddReceivingMiddleware
// call (the go-sdk runs the most recently added middleware first). Every
// option struct follows the go-sdk's convention: a nil *[Options] or
// *[frontGateOptions], and every zero field, means the default.
// [Validator.Check] answers one call and [Validator.CheckRequest] one whole
// request offline (tests, fuzzing, tools); [Options.OnRefusal] sees every
// refusal, from the middleware and the front gate alike, as a
// [RefusalEvent] that holds no caller value.
//
// # Typed tools
//
// A typed tool added with [AddTool] instead of mcp.AddTool (same signature)
// gets its Go input type's domain enforced: the schema the go-sdk infers is
// tightened to what the SDK's decode into In accepts (integer and float
// bounds where the SDK's float64 round trip still decodes, the members its
// decoder reads, base64 for []byte, a number for json.Number, a string for a
// ",string" member) and published as the tool's InputSchema, so tools/list
// tells the truth and the SDK's own validation uses it. What JSON Schema
// cannot state — a type with its own UnmarshalJSON or UnmarshalText, a
// number past float64 range in an untyped member, a negative zero for an
// unsigned integer, base64, a map key — is recorded for the server, and
// [Install] and [ServerTools] (not [Tools]) check it after the schema admits
// a call, with the SDK's own decoder: a failure is a [callRefusal] at
// [StageType] naming the member and the bound. [TypeDomain] exposes the
// domain for tests. A type that takes any member (In = any, a
// map[string]any) publishes an open schema: name its tool in
// [Options.OpenTools] (see Open schemas). With plain mcp.AddTool only the inferred schema is
// enforced: a value the Go type cannot hold (an int past int64, a float32
// past its range, -0 for a uint, an opaque member its decoder refuses) passes
// and the SDK's decode answers with its own error, which quotes the caller's
// bytes and Go type names; a map keyed by a type with MarshalText and no
// UnmarshalText panics that decoder and the server with it.
//
// # Guarantees
//
// Fail-closed: a tool name that resolves to no published schema is refused,
// so a tool registered without one is unreachable; any problem with any
// schema fails [New], nothing is skipped. Schema files follow a contract
// checked at load (strict JSON, draft 2020-12, an absolute unique $id, one
// file per tool named by [ToolKey], the tool schema "type": "object" and
// closed with "unevaluatedProperties": false, every $ref resolved within
// the files: nothing is read from disk or network beyond them).
//
// Each call, in order: the tool's schema resolves or the call is refused;
// the charge gate (package charge, Go dialect) checks the raw arguments in
// one pass — syntax, UTF-8, lone surrogates, raw controls, duplicate member
// names, nesting, nodes, number length and exponent, rendered width; they
// are decoded into the values encoding/json gives with UseNumber;
// jsonschema/v6 validates them with panics recovered; a failure becomes a
// [callRefusal] built from the error tree, never from a library's Error text.
//
// A refusal is at most [MaxRefusalBytes] of text and holds no caller value:
// only member names the caller sent (escaped and cut to charge.KeyCut
// bytes, 32) and the tool name (escaped, cut to 64 bytes); the rest is
// templates, keywords and schema-side bounds — never the SDK's or a
// library's error text, never a Go type name. Through the
// middleware it reaches the caller as a tool result with isError true, the
// shape the SDK gives a handler's own error.
//
// [Validator.frontGate] bounds the whole HTTP request before the SDK reads
// a byte: the body cap ([Validator.BodyCap], derived so an 8 MiB file
// landed in any script reaches the schema rather than a 413), admission
// against the process's [inFlight] memory budget (weights measured by
// boundlab's memory lab; 503 with Retry-After past the wait), a read
// deadline per body (408), and one strict pass over the JSON-RPC message.
// It refuses only what the SDK would mishandle (envelopes it would echo,
// duplicates it reads last-wins, invalid UTF-8 it rewrites, trailing bytes
// it ignores, ids it truncates), with a JSON-RPC error of at most
// [MaxFrontRefusalBytes] that echoes only a checked id; the bytes it admits
// go to the SDK unchanged, and the middleware stays the validation seat.
//
// # Sessions
//
// In front of a stateful handler the front gate also bounds what requests
// leave behind. A session table weighs each session with its first GET
// stream, and each further stream, in bytes ([frontGateOptions].SessionBytes;
// the number of sessions derived from weights boundlab's memory lab
// measures). An initialize that does not fit closes the least recently used
// idle session — a DELETE the gate sends the SDK, so the SDK frees it — and
// is refused (503, Retry-After, a JSON-RPC error without the count) only
// when every session is active. Sessions idle past SessionIdle are closed
// the same way; a request naming a session the table does not hold is
// answered 404 without reaching the SDK; a session holds at most
// StreamsPerSession streams. Set Stateless in front of a stateless handler:
// the gate then keeps no table. [Validator.StreamableHTTPOptions] fills the
// SDK's options the gate assumes; [limitConns] bounds an http.Server's open
// connections, closing idle keep-alive ones first. The table holds counts
// and weights, not the memory: what a session costs is the SDK's.
//
// # Open schemas
//
// An object schema is open where it admits a member it neither names
// (properties, patternProperties) nor checks ("additionalProperties" or
// "unevaluatedProperties" false, or a schema that constrains something): such
// a member reaches the handler unvalidated, and a handler that decodes into a
// struct drops it silently, so a misspelt optional argument becomes its
// default. [New] refuses every tool whose schema is open anywhere a call's
// arguments reach (the top level, and every schema a member or an item is
// validated against, through $ref, allOf, anyOf, oneOf, then and else),
// naming each tool (escaped, cut to 64 bytes) and at most four open
// locations as JSON pointers, never schema text. A tool named in
// [Options.OpenTools] stays open on purpose: its unknown members are
// admitted, everything its schema does say is still enforced.
//
// Refusing, not closing, for every source and adapter: closing is not
// mechanical ("additionalProperties": false beside allOf or $ref refuses the
// members they compose; "unevaluatedProperties": false changes what anyOf
// and if branches admit; a $defs entry used both in a closed and an open
// place cannot be both), and a handler written against an open schema may
// read the members it leaves open, so a rewrite would fail its calls in
// production rather than at startup, in front of the one who can decide.
// And what a go-sdk server publishes is its own: *mcp.Server gives no
// registered handler back to re-register it with a closed schema, and
// closing only what the validator enforces would publish a contract that
// admits what the server refuses. So the schema a client reads is always
// the one enforced.
//
// What is not open: a schema that says nothing about objects ({}, true, an
// array with no items) admits any value and says so; a declared map
// ("additionalProperties" with a constraining schema) checks every member,
// so a typed tool whose In is map[string]int installs as it is, while
// map[string]any (inferred "additionalProperties": true) needs OpenTools;
// a fragment composed in place under the tool's "unevaluatedProperties":
// false. patternProperties, propertyNames and minProperties never close.
//
// # Limits
//
// It validates arguments only: _meta and other params members are the
// SDK's. It does not authorize, rate-limit or judge content. Without the
// front gate it cannot bound what the go-sdk does before middleware runs:
// the body read, the JSON-RPC decode, and the SDK's own error for params
// that do not fit, which echoes them unbounded. The initialization gate and
// the order of initialize and notifications/initialized stay the SDK's.
// Control characters dense enough to pass the cap's multiplier on the wire
// meet the transport's bare 413 (the body cap's residual classes). Over
// stdio and the in-memory transport the SDK caps a message at 16 MiB; set
// StdioTransport.MaxLineLength from [Validator.MaxRequestBodyBytes] to
// admit the same files there.
//
// What each stage allocates, the measured memory of a request, and the
// history of these choices: docs/mcpvalidate.md and docs/records.md in
// boundlab's repository.
package mcpvalidate
