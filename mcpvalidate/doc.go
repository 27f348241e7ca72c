// Package mcpvalidate validates every MCP tools/call against the tool's
// published JSON Schema before any handler runs: the production side of
// boundlab, for github.com/modelcontextprotocol/go-sdk (v1.8.0).
//
// # Use
//
// A server whose tools carry their input schemas (typed tools registered with
// mcp.AddTool, or Server.AddTool with a schema) validates against what it
// already publishes in tools/list, in one line, after its tools are added:
//
//	v, err := mcpvalidate.Install(server) // New(WithServerTools(server)) + outermost middleware
//
// A server whose contract lives in schema files:
//
//	v, err := mcpvalidate.New(mcpvalidate.WithSchemaFiles(os.DirFS("schemas"), "mcp"))
//	server.AddReceivingMiddleware(v.Middleware()) // the LAST call: outermost
//
// Either way, cap the HTTP body at the derived cap and put the front gate in
// front of the SDK's handler:
//
//	sdk := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
//		MaxRequestBodyBytes: v.MaxRequestBodyBytes(),
//	})
//	front, err := v.FrontGate(sdk, nil)
//	http.Handle("/mcp", front)
//
// Check validates one call offline (tests, fuzzing, tools): it returns nil
// when the call is admitted, or an error that is a *Refusal (errors.As).
//
// # Schema sources
//
// Exactly one per Validator.
//
// WithTools and WithServerTools compile each tool's InputSchema as tools/list
// publishes it (draft 2020-12 unless it names another $schema), offline: a
// schema that is not strict JSON, is not "type": "object", refers to anything
// outside itself, or does not compile fails New. A tool with no InputSchema
// gets no contract, and every call to it is refused. Closure is the
// contract's: an open schema admits unknown members (the go-sdk infers
// additionalProperties: false for typed tools).
//
// WithSchemaFiles reads every *.schema.json in a directory of an fs.FS. The
// schema-file contract, each clause checked at load:
//
//   - strict JSON (no duplicate member names, valid UTF-8);
//   - "$schema": "https://json-schema.org/draft/2020-12/schema";
//   - an absolute "$id" without a fragment, unique across the files;
//   - a tool schema names its tool with ToolKey ("x-mcp-tool"), one file per
//     tool; a file without it is a fragment that tool schemas $ref;
//   - a tool schema declares "type": "object" and is closed with
//     "unevaluatedProperties": false (so members composed in with allOf and
//     $ref count as evaluated, and nothing else is admitted);
//   - every $ref resolves within the files: the registry's loader refuses
//     every URL, nothing is read from disk or network beyond the directory.
//
// # The front gate
//
// FrontGate bounds the whole HTTP request before the SDK reads a byte: the
// body cap before the read, admission against a process-wide in-flight
// Budget (weight = RequestWeight: a fixed cost, a cost per body byte and per
// node the body can hold, all measured by boundlab's memory lab; 503 with
// Retry-After past MaxWait), a read deadline per body (408), and one pass over the body
// (strict JSON everywhere; the JSON-RPC frame; params.arguments under the
// arguments' own limits and charge, as the middleware's gate holds them).
// It refuses only what the SDK would mishandle (echoes, duplicates it reads
// last-wins, invalid UTF-8 it rewrites, trailing bytes it ignores, ids it
// truncates) with a JSON-RPC error of at most MaxFrontRefusalBytes that echoes
// only a checked id; when only the arguments fail, with the middleware's own
// answer. The admitted bytes go to the SDK unchanged, and the middleware
// stays authoritative.
//
// # What it promises
//
// Loading: any problem with any schema fails New: nothing is skipped.
//
// Each call, in order: the tool name resolves to its compiled schema or the
// call is refused (fail-closed: a tool registered on the server with no
// published schema is unreachable); the charge gate (package charge, dialect
// charge.Go, charge.DefaultLimits unless WithLimits) checks the raw
// arguments bytes in one pass — syntax, UTF-8, lone surrogates, raw controls,
// duplicate member names, nesting, nodes, number length and exponent, and the
// rendered-width budget; they are decoded into the values encoding/json
// gives with UseNumber, without checking again what the gate checked;
// jsonschema/v6 validates with panics recovered; a failure becomes a Refusal
// built from the error tree — pointer (caller keys escaped and cut to
// charge.KeyCut), keyword and schema-side limit per leaf, leaves sorted, at
// most MaxLeaves named and the rest counted. Error() is never called on
// anything that holds caller input. Absent arguments are validated as {}; the
// JSON null is validated as itself and refused by every object schema.
//
// A refusal's text never exceeds MaxRefusalBytes, which is computed from the
// templates and cuts and held under RefusalCeiling by the tests. It never
// holds a caller value: only caller keys (escaped, cut) and the tool name
// (escaped, cut to ToolCut).
//
// Through Middleware a refusal reaches the caller as a tool result with
// isError true and the refusal text as its content — the shape the SDK gives a
// handler's own error, resultType included on protocol 2026-07-28.
//
// HTTP: MaxRequestBodyBytes is charge.BodyCap over the encoder families
// (default EnsureASCII and Raw: multiplier 3, 26,214,400 bytes at the default
// limits), so an 8 MiB landed file in any script reaches the validator and is
// answered by its schema rather than by a 413. A server whose clients use Go's
// encoding/json should pass WithEncoders(charge.EnsureASCII, charge.Raw,
// charge.GoJSON): encoding/json escapes < > & as 6 bytes, multiplier 6.
//
// # Where it ends
//
// Without the front gate it does not bound what the go-sdk does before
// receiving middleware runs: the HTTP body read, the JSON-RPC decode
// (duplicate keys, invalid UTF-8 and lone surrogates in the envelope are
// accepted there), and the SDK's own error for params that do not fit
// CallToolParamsRaw, which echoes the params unbounded. With it, those are
// refused first; the initialization gate and the order of initialize and
// notifications/initialized remain the SDK's. Those are measured from outside as residual
// records by boundlab's lab. It validates arguments only: _meta and other params
// members are the SDK's. It does not authorize, rate-limit or judge content.
// Control characters dense enough to pass 3x on the wire meet the transport's
// bare 413 before any MCP framing (the body cap's residual classes). Over
// stdio and the in-memory transport the SDK caps a message at
// mcp.DefaultMaxLineLength (16 MiB) and closes the connection past it; set
// StdioTransport.MaxLineLength from MaxRequestBodyBytes to admit the same
// files there.
//
// Memory: Check's decode allocates the tree and nothing more. A string
// without escapes, a member name and a number alias the arguments (the tree
// dies with the call; nothing Check returns or hands a hook holds any of it);
// a string with escapes is allocated once at its decoded length; maps and
// slices are made at their final size. Entries are collected on a pooled
// stack; a document holding more open at once than the pool keeps grows its
// own once, to what the rest of the document can hold (bounded by the gate's
// node count), and an array that fills such a stack takes it as its slice
// (at most an eighth of it unused) instead of a copy, so a node-dense call
// peaks at its tree. What a call allocates beyond that is
// jsonschema/v6's: it copies every string leaf it validates
// ([]byte(str) before its contentEncoding check), and utf8.RuneCount copies a
// non-ASCII leaf's tail again for min/maxLength — about 1x the wire bytes for
// an at-cap ASCII leaf, 2x the decoded bytes for a non-ASCII one — and builds
// its own per-call state (scopes, unevaluated-property sets, a big.Rat per
// number). BenchmarkCheck reports heap/wire; BenchmarkCheckDecoders sets the
// decode beside the sonic decode Check ran before.
package mcpvalidate
