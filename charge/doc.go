// Package charge is boundlab's core: what an MCP tool call's arguments cost to
// render in a validator's error messages, how many bytes a client puts on the
// wire for them, and a gate that refuses a document past any bound before a
// validator sees it.
//
// # What it promises
//
// Dialects. A Dialect is how a validator renders an instance: Python is CPython
// 3.13's repr() of what json.loads builds, in characters, with printability
// from Unicode 15.1.0 (a table generated from UCD data, PythonUnicodeVersion);
// Go is what github.com/santhosh-tekuri/jsonschema/v6 prints, in bytes, with
// strconv.IsPrint (unicode.Version). String and member-name widths are exact —
// proven over every code point against an independent renderer (package
// reference), against jsonschema/v6 itself, and against CPython 3.13 when it is
// installed. Number widths are exact for Python and the wider of v6's two
// renders for Go.
//
// The charge. The gate charges every string, member name, number and literal
// its rendered width; containers are punctuation. A document's whole render is
// at most charge + nodes × Dialect.PerNodeMax, so ComposedCeiling bounds what an
// admitted document can render to.
//
// The gate. Gate.Check reads the raw bytes once, builds no tree and refuses at
// the first bound a document passes: RFC 8259 grammar, UTF-8 validity, lone
// surrogate escapes, raw control characters, repeated member names (compared
// after unescaping), trailing bytes, nesting, nodes, number length and
// exponent, and the charge budget. Its error is nil on admission and a
// *Refusal otherwise (reach it with errors.As): the Refusal names the bound,
// its limit and a JSON pointer to where it tripped, with caller member names
// escaped and cut at KeyCut bytes; it never holds a caller value, and its text
// is at most MaxRefusalBytes. Check does not allocate on the admit path once
// its scratch is warm.
//
// Encoders and the body cap. Encoder families (EnsureASCII, Raw, GoJSON) give
// the wire bytes of each code point; WireClasses partitions every scalar value
// into classes with one wire size per family; BodyCap derives the transport cap
// a source-file cap needs: the worst wire ratio over non-control classes, times
// the file cap, plus an envelope allowance, with the classes above that ratio
// listed as the residual.
//
// The limits file. ParseLimits reads Limits from a JSON object of
// snake-case members ({"max_source_file_bytes": "16MiB"}), strictly: the
// gate's own strictness, no unknown member, each value in its field's range
// (Validate's), errors naming the member and the bound. SetMember sets one
// member the same way, for flags.
//
// No state to change. The package has no exported variable: Bounds, Dialects,
// Encoders and WireClasses return fresh copies, so nothing a caller does to
// them moves BodyCap, MaxRefusalBytes or a gate's verdict.
//
// # Where the promise ends
//
// The widths are what the named validator versions render; another CPython
// Unicode version or another jsonschema/v6 release may differ (the tests pin
// both). The charge bounds one render of each node: a validator that renders
// a node several times (one error per failing keyword, or a location repeated
// in every error beneath it) can print more in total; bounding that is the
// caller's job, which is why mcpvalidate builds refusals from the error tree
// and never calls Error(). Package charge does no I/O and imports only the
// standard library.
//
// On amd64 with AVX2 (chosen at start-up by CPUID) a string is read 32 bytes
// at a time where it allows: a long plain ASCII run (plainrun_amd64.s), and a
// multi-byte run validated as UTF-8 in registers and charged from the width
// tables only where a lead's lookup flags its code point (multiblock_amd64.s,
// multiblock.go), and a stretch of two-byte escapes and plain ASCII bytes
// charged from masks of its stop bytes, backslashes, odd bytes and escape
// letters (escaperun_amd64.s, escaperun.go). The build tag purego, or any other architecture, keeps the
// portable scalar paths. Both are held to one code-point-at-a-time reference,
// and CI runs the package's proofs under both builds.
package charge
