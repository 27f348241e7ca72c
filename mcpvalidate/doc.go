// Package mcpvalidate validates every MCP tools/call against the tool's
// published JSON Schema before any handler runs: the production side of
// boundlab, for github.com/modelcontextprotocol/go-sdk (v1.8.0).
//
// # Use
//
//	v, err := mcpvalidate.New()                  // the embedded schemas.FS
//	server.AddReceivingMiddleware(v.Middleware()) // the LAST call: outermost
//	handler := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
//		MaxRequestBodyBytes: v.MaxRequestBodyBytes(),
//	})
//
// Offline (tests, fuzzing, `boundlab validate`, memory measurement):
//
//	func (v *Validator) Check(tool string, arguments json.RawMessage) *Refusal
//
// returns nil when the call is admitted. Check's signature is stable.
//
// # What it promises
//
// Loading: every *.schema.json in the schema directory is read and compiled
// (draft 2020-12) in an offline registry whose loader refuses every URL. A
// file that is not strict JSON, a duplicate $id, a tool named by two files, an
// unresolvable $ref, a tool schema not closed with unevaluatedProperties:
// false, or a schema that fails to compile fails New: nothing is skipped.
//
// Each call, in order: the tool name resolves to its compiled schema or the
// call is refused (fail-closed: a tool registered on the server with no
// published schema is unreachable); the charge gate (package charge, dialect
// charge.Go, charge.DefaultLimits unless WithLimits/WithDialect) checks the raw
// arguments bytes in one pass — syntax, UTF-8, lone surrogates, raw controls,
// duplicate member names, nesting, nodes, number length and exponent, and the
// rendered-width budget; sonic decodes them (UseNumber, ValidateString);
// jsonschema/v6 validates with panics recovered; a failure becomes a Refusal
// built from the error tree — pointer (caller keys escaped and cut to
// charge.KeyCut), keyword and schema-side limit per leaf, leaves sorted, at
// most MaxLeaves named and the rest counted. Error() is never called on
// anything that holds caller input. Absent arguments are validated as {}; the
// JSON null is validated as itself and refused by every published schema.
//
// A refusal's text never exceeds MaxRefusalBytes, which is computed from the
// templates and cuts; New fails if that exceeds RefusalCeiling. It never
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
// It does not bound what the go-sdk does before receiving middleware runs: the
// HTTP body read, the JSON-RPC decode (duplicate keys, invalid UTF-8 and lone
// surrogates in the envelope are accepted there), the initialization gate, and
// the SDK's own error for params that do not fit CallToolParamsRaw, which
// echoes the params unbounded. Those are measured as residual records (package
// mcpvalidate/residuals). It validates arguments only: _meta and other params
// members are the SDK's. It does not authorize, rate-limit or judge content.
// Control characters dense enough to pass 3x on the wire meet the transport's
// bare 413 before any MCP framing (the body cap's residual classes). Over
// stdio and the in-memory transport the SDK caps a message at
// mcp.DefaultMaxLineLength (16 MiB) and closes the connection past it; set
// StdioTransport.MaxLineLength from MaxRequestBodyBytes to admit the same
// files there.
//
// Memory: Check decodes zero-copy (sonic's strings alias the arguments when
// they hold no escape), so what it allocates per call is mostly jsonschema/v6's:
// it copies every string leaf it validates ([]byte(str) before its
// contentEncoding check, and again to count runes for min/maxLength) — about
// 1x the wire bytes for an at-cap ASCII leaf. An escaped leaf costs more: sonic
// sizes the unescaped string's buffer at the escaped length (24 MiB for 8 MiB
// of ensure_ascii-escaped 2-byte text). BenchmarkCheck reports heap/wire.
package mcpvalidate
