// Package load is boundlab's load lab: it starts `boundlab serve` as a child
// process, drives it over loopback with hostile and valid tools/call requests,
// and measures from outside what the process ceiling is.
//
// # What it promises
//
//   - The server under test is a child process the lab starts itself
//     (`boundlab serve --addr 127.0.0.1:0 --stateless` plus a variant's
//     flags); its URL is read from serve's banner and refused unless its host
//     is 127.0.0.1. Nothing else is ever driven.
//   - Everything is bounded: requests per shape, requests in flight, the
//     run's duration, the slow-trickle clients' patience (Config.Check and
//     the Max constants), and the child's memory: VmRSS is sampled every
//     Config.Sample from /proc/PID/status and the child is killed the first
//     time it passes Config.GuardBytes, which is reported as a result
//     ("killed at guard"), not as a failure of the lab.
//   - Measured from outside only: the child's peak RSS (VmHWM, or the largest
//     VmRSS sampled when the child was killed), each answer's size (read to
//     the end, counted, never held: the lab keeps 64 KiB of an answer to
//     classify it), whether an answer holds Canary (every hostile shape puts
//     it in caller values, so an echo shows byte for byte), HTTP statuses,
//     resets, per-shape latency p50/p99, the fraction of small valid calls
//     served while the hostile ones run, and whether a valid call is served
//     afterwards.
//   - Shapes (Shapes): echo-shaped params, maxLength-failing arguments,
//     duplicate names in the envelope and in the arguments, deep nesting,
//     invalid UTF-8, trailing bytes, all at the body size under test (the
//     server's printed cap - 1 by default); node-chains, chains of
//     one-member objects (memmodel.NodeChain) filling the arguments' node
//     bound, whatever the size under test, in a member the schema refuses;
//     a slow-trickle valid call; a valid ~1 KB call.
//   - Floods (Flood, FloodShapes): against a stateful serve (Variant.Stateful,
//     StatefulVariants), sessions opened and never closed, standalone GET
//     streams held on the newest of them, idle keep-alive connections, each
//     bounded in count (MaxFloodSessions, MaxFloodHeld) and time
//     (MaxFloodDuration), with a new client's whole conversation
//     (initialize, initialized, tools/call; internal/sessclient) timed every
//     FloodConfig.ProbeEvery and once more afterwards, everything still held.
//   - A saved run (Run, as JSON) becomes measured records (RunRecords), a
//     saved flood (FloodRun) too (FloodRecords); verify reads the saved runs
//     and never re-runs the load.
//
// # Where it ends
//
// The figures hold for the machine and build the run names (Run.Lab): RSS
// and latency move with the kernel, the allocator's return of memory, and
// what else the machine runs. The lab measures one process from outside; it
// does not say where inside the process the memory went (memmodel does).
// The attack is the shapes above, not a search for the worst request.
//
// This is a lab package: production code does not import it.
package load
