// Package memmodel is boundlab's per-request memory model: what one request
// costs the CPython server the seed ADR describes (ADR-0031 Amendment 1 and
// its two addenda), calibrated against the interpreter, and what it costs our
// own validator (package mcpvalidate), measured.
//
// # The Python model
//
// A request's Python heap is priced moment by moment, and the peak is the
// maximum over the moments its path has, never their sum:
//
//   - transport: the body's bytearray (grown by CPython's policy, so between
//     1.0x and 1.125x of the wire bytes; BytearrayAlloc) and its bytes copy;
//   - parse: transport + the parser's own peak, a named property of the
//     parser (Parser.Peak): PydanticCore (pydantic_core.from_json) holds the
//     leaf's UTF-8 length times (old kind + new kind) at each PEP 393
//     widening; JSONLoads also holds the whole body as a str;
//   - charge: transport + the parsed leaf + the seed's chunked repr transient;
//   - render, family (ii) only: transport + the parsed leaf + repr(leaf) and
//     jsonschema's message built from it, at the repr output's kind (the kind
//     of the widest code point repr leaves raw; escapes are ASCII).
//
// Widths come from charge.Python (RuneWidth, RuneClass, StringWidth). The
// families: (i) charge-refused, (ii) refused by jsonschema, (iii) valid
// (FamilyOf). SearchWorst searches body shapes for each family's worst ratio
// and worst absolute peak at a cap and budget. SeedModel and SeedAdditive are
// the seed's own expressions, kept to set beside ours.
//
// # Bodies of many small values
//
// A body whose arguments hold an array of many small values pays CPython's
// per-object overhead, not a multiple of one leaf's width. PredictSmall
// prices its parse moment as the transport, the parser's body term, the
// outer array's slots (Slots: CPython's list growth under json.loads) and
// each value's cost, composed from the costs CalibrateSmall measures for
// each SmallKinds kind in the interpreter. SmallHolds is its promise: at or
// above every pinned measurement, and within SmallMargin of it.
//
// # Calibration
//
// Calibrate runs calibrate.py (embedded) in one fresh CPython process per row
// with tracemalloc over bodies the lab builds, and sets each moment measured
// beside predicted; CalibratedRow.Holds is the model's promise (prediction >=
// measurement, moment by moment). The pinned rows live in calibration.json
// and become measured records; Records re-checks every pinned row against the
// live model without an interpreter, which is what CI does.
//
// # The Go rows
//
// MeasureGoHere measures one shape through our validator in this process:
// PathCheck is (*mcpvalidate.Validator).Check from the raw arguments, PathHTTP
// a whole request into a go-sdk streamable HTTP handler with the middleware
// wired. MeasureGo runs each row in a fresh child process. The peak is
// runtime/metrics' heap objects sampled in a busy goroutine at GOGC=2, in
// steady state after a warm-up; total allocation is exact. GoMiddlewareModel
// and GoHTTPModel are fitted bounds that the producer holds every pinned row
// (gorows.json) under.
//
// # The state rows
//
// MeasureState measures what a stateful go-sdk server behind the front gate
// keeps between requests (StateKinds: an idle session, one that served a
// call, a standalone GET stream on its own connection, an idle keep-alive
// connection, a connection holding an unfinished header block): each count in fresh children (ServeStateChild), the driver
// the client; the child reads its live memory before and after (heap
// objects, stacks, what the soft memory limit counts, VmRSS); a unit's cost
// is the slope over the counts. CheckStateWeights fails when a pinned row
// (staterows.json) costs more than the weight the gate charges for it
// (StateWeights: a stream on its own connection charged the stream's and
// the connection's), or a stream more beyond its connection than the
// stream's weight.
//
// # Where it ends
//
// The model is an upper bound on the tracemalloc-visible heap of single-
// large-leaf bodies, the shape the cap is sized for. tracemalloc does not see
// memory a native extension allocates outside CPython's allocators (jiter's
// Rust buffers inside pydantic_core), nor the interpreter's own baseline;
// ru_maxrss is recorded beside it and answers a different question. Bodies
// of many small values are priced per value for the kinds SmallKinds
// calibrates and no others, with costs that belong to the interpreter they
// were calibrated on. Printability is Unicode 15.1 (CPython 3.13); an interpreter on an
// older Unicode (3.11 is on 14.0) reprs the code points assigned since then
// differently, and the shapes avoid them. The Go fits are fitted to this
// machine's rows (go1.26.8, go-sdk v1.8.0, sonic v1.15.5, jsonschema/v6
// v6.0.3), not derived from those libraries' source, and a sampled peak can
// miss a spike shorter than the sampler's period. The state rows are a quiet
// server's live memory: under a flood the collector's headroom comes on top
// (the load lab's floods measure it from outside).
package memmodel
