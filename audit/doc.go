// Package audit measures any MCP server's input boundary from outside, and
// audits the input schemas it publishes with boundlab's core (charge).
//
// # What it promises
//
// Targets. HTTP is a streamable-HTTP endpoint (extra headers, the session id
// learnt from the server); Handler serves an http.Handler in process, each
// request handed to ServeHTTP with no network (a go-sdk server through
// mcp.NewStreamableHTTPHandler, mark3labs' StreamableHTTPServer, or anything
// behind mcpvalidate's front gate); Stdio spawns a command and speaks
// newline-delimited JSON-RPC on its stdin and stdout, one process per
// session. LoadSchemas reads the tools of a static audit, which sends
// nothing, from what SchemasAt names: a directory read by mcpvalidate itself
// under its schema-file contract (the tools and the bundled schemas validate
// --schemas holds calls to), or a saved tools/list answer (ParseToolsList, the
// one reading of a tools/list answer, which a probe's pages go through too).
//
// Probes. Run initializes, follows tools/list's pagination, and calls the
// tools it may call (annotated readOnlyHint: true, named in Config.Call,
// given a valid call in Config.Examples, or all under Config.AllTools; the
// others are listed skipped, with the reason). Per called tool: a baseline
// call (Config.Examples' call, else arguments built from the schema —
// patterns from their syntax trees, formats, enums, bounds, required
// members, compositions — and admitted by jsonschema/v6 before they are
// sent; one the handler refuses is rebuilt with string values other tools'
// results hold; where none is admitted, NotMeasured names the keyword); an
// unknown member; a member of the wrong JSON type; the member named twice
// (a valid and a mistyped value, in both orders: refused, first-wins,
// last-wins); an integer sent as 5.0; number literals past int64, uint64,
// float32 and float64 and one Limits.EchoBytes digits long, measured by
// length and digits (a number cannot carry the canary); over-long strings
// of every Filler class in an unknown member's value, the key member and a
// member of the wrong type. Target-wide, through a carrier tool (a called
// tool whose baseline is a result when there is one, else a tool name no
// tool has, so nothing runs): over-long strings of every class in the
// tool name, the method, malformed params (the go-sdk's echo), an unknown
// member's name, params._meta, a tools/list cursor and, over HTTP, the id;
// "name" twice in params; invalid UTF-8, an escaped lone surrogate and a
// raw control character in a string (refused; normalised or accepted when
// the answer shows what became of them; else served, unknown whether
// normalised), bytes after the message, a call before
// notifications/initialized, the body cap (a ping padded with JSON
// whitespace, bisected to the byte up to Limits.BodyCeiling, with the
// answers at the cap and one past) and the deepest nesting answered in the
// shape of a two-level one (bisected up to Limits.DepthCeiling). Opt-in
// (Config.Sessions, HTTP only): how many sessions one client may hold at
// once, where initialize is refused, whether a session idle for the run
// expired; each closed with DELETE.
//
// A stdio server that exits or closes its stdout on a probe, or an HTTP
// server that cuts the connection without an answer, has ended the session
// on that input, a measured result: the probe's answer is "closed",
// Report.SessionEnds lists it (BLA019), and a new session (a new process
// over stdio; initialize, notifications/initialized) takes the remaining
// probes. An end found before a message was written is laid to the
// message before it. A run opens at most MaxRespawns such sessions besides the depth
// bisection's (bounded by its steps); past them the remaining probes are
// not measured, saying why. The body-cap probe's ends are its past_cap
// answer (BLA014), not session ends.
//
// Every caller string holds the run's canary (from Config.Seed); an echo
// is the canary followed by the whole value, as sent or in a form an
// encoder family writes it (Go's encoding/json, the required escapes only,
// ensure_ascii, Go's %q then JSON, U+FFFD for a lone byte), and its ratio
// is the answer's bytes per request byte, whatever came back. Every probe
// is bounded: Limits bound the requests of a run, the bytes of one body and
// of one answer read, and the time of one request; a place that draws no
// answer twice in a row is not swept further.
//
// Static audit, per tool: closed (unevaluatedProperties: false, or
// additionalProperties: false with no composition), open, or the pitfall
// (additionalProperties: false beside allOf/$ref, which refuses the composed
// members); every string without maxLength, array without maxItems and open
// object without maxProperties; the keywords whose error message renders
// the instance under jsonschema/v6 and under Python jsonschema; and at the
// discovered cap (or DefaultStaticCap) the widest render one string can
// force, from charge's per-code-point widths and wire sizes, and that times
// the most rendering keywords on one path: the refusal ceiling.
//
// Output: Report (JSON, documented field by field in docs/audit.md),
// WriteText, WriteJSON and WriteSARIF (SARIF 2.1.0, the stable rule ids of
// Rules, one result per finding, the tool as a logical location).
// RunCensus audits the servers of a census list (ReadCensus: URLs, and
// stdio commands with their environment, each process under an
// address-space bound) one after another; WriteCensusText writes a row of
// figures and findings per server (docs/census.md).
//
// # Where it ends
//
// It sees answers, not code. Two answers are told apart by their shape
// (HTTP status, result, isError, JSON-RPC code), never by their text. A
// probe whose answer cannot be told from its baseline's refusal (a handler
// that refuses the schema-built baseline: state the schema cannot see) is
// not measured: its field is null, Report.NotMeasured says why, and it
// raises nothing; a valid call (Config.Examples) makes it measurable. The
// differentials read "normalised" and "accepted" only where the answer
// quotes the string back; elsewhere an admitted value is "served". An echo
// rewritten by an encoder other than those named (truncated, escaped
// otherwise) shows in its ratio only. The depth found is where the
// answer's shape changes: a validator that refuses deep arguments with the
// same isError shape as a shallow unknown member is not seen in the
// arguments, and is tried in params._meta before the depth is said not
// measured. The id echo is measured over HTTP only (over stdio an answer is
// matched to its request by that id). The session probe sees initialize
// refused or sessions evicted, not why. Which message ended a session is told
// only by timing: a process that answers, then exits, before the next
// message is written is laid to the one answered; an HTTP server that
// closes an idle connection as a request is written is laid to that
// request. A refused connection is not a cut: the run stops there. The static figures take the body
// cap as the only bound: a charge gate in front of the validator
// (mcpvalidate) bounds the render far lower, which no schema shows.
// Probing calls tools with arguments they should refuse: a server that
// does not validate runs them, which is why only the tools the caller
// chose are called.
//
// This is a lab package: mcpvalidate imports nothing from it.
package audit
