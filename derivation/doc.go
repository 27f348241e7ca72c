// Package derivation is the whole derivation for one set of limits: every
// figure `boundlab derive` prints, as one call, For(limits, measured).
//
// # What it promises
//
// For any limits charge.Limits.Validate accepts, For recomputes from the live
// code what the lab derives: the composed ceiling per dialect; the body cap,
// multiplier and residual per set of encoder families; the worst render of
// every worst-render scenario (sweeps.Scenarios) at those limits' caps and
// budget, with the bound that binds and the instance; where a file at the
// source-file limit lands in every class of every dialect under every encoder
// family (the schema, the charge or the transport); the CPython memory model's
// predicted rows at the derived cap; and the consistency findings between the
// limits, each with its arithmetic. Nothing here is pinned: the records under
// results/ hold for charge.DefaultLimits only, and Derivation.Default says
// whether this derivation is at them.
//
// A finding Contradicts the limits when it breaks a limit's stated purpose:
// printable text at MaxSourceFileBytes that the charge refuses (the source-file
// limit is the largest file a call may land), or a nesting bound the go-sdk's
// own pre-scan undercuts (MaxParamsNesting exists so the gate's bounded
// refusal answers before any parser). The other findings are facts a reader
// needs — non-printable classes the charge refuses at the limit (what the
// budget is for), classes the cap refuses at any budget (the cap's residual),
// a budget or node bound the cap makes unreachable — and do not contradict.
//
// Two more things live here. LandingRecords pins, at the default limits,
// where a file at the source-file limit lands class by class (producer
// "landing", records landing.<dialect>.*), so the docs can quote which text
// reaches its schema and which the charge refuses. ServedInstances frames the
// worst instances as knowledge.search calls, a tool `boundlab serve` serves,
// each re-solved for the call's own envelope and members and carrying what
// serve and `validate --request` answer it (`derive --instances`).
//
// # Where it ends
//
// The SDK's nesting depth is measured, not derived: For takes it from
// Measured (MeasuredFrom reads it from the pinned records), and states that
// the finding was not checked when it is missing. The memory rows are the
// Python model's predictions; the Go validator's rows are measured and exist
// only at the default limits (`boundlab memmodel --dialect go`). A file is
// priced as one string of one class (the sweeps' class tables); real files mix
// classes and land between the classes' figures.
package derivation
