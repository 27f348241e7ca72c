// Package charts draws boundlab's figures as SVG: the memory model's three
// family charts (package memmodel's data), the body cap's wire ratio per
// code-point class and encoder family (package charge's live class model),
// and the gate's throughput beside its peers (package bench's reading of the
// pinned benchmark run, results/bench/suite.txt).
//
// # What it promises
//
// Every chart is computed from live constants or pinned records, never from a
// figure typed in here, and never by running a benchmark or an interpreter.
// Each chart's title fits its width on one line, its legend sits below the
// data area (never over it), and its axes span the data with a margin, so no
// measured point sits on an edge. Rendering is deterministic: the same data
// gives the same bytes, which is how the SVGs in docs/ are held current.
//
// # Where it ends
//
// It draws; it does not judge. A chart shows what the records hold, and the
// records' own checks (`boundlab verify`) say whether they still hold. The
// throughput chart is one machine's run, named on the chart; it says nothing
// about another machine.
package charts
