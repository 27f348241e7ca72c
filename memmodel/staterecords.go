package memmodel

import (
	"fmt"
	"math"
	"strings"

	"github.com/theurian/boundlab/mcpvalidate/bounds"
	"github.com/theurian/boundlab/results"
)

// stateWhat is each kind's instance, as a reader needs it.
var stateWhat = map[StateKind]string{
	StateSession:       "an idle session (initialize, then notifications/initialized, over keep-alive connections whose number does not grow with the count)",
	StateSessionCalled: "an idle session that has served one tools/call (project.list)",
	StateStream:        fmt.Sprintf("a standalone GET stream held on a connection of its own, above its session (each session asked for %d)", StreamsAsked),
	StateConn:          "an idle keep-alive connection (one GET without a session, answered 400 and read whole, then nothing)",
	StateConnHeader:    fmt.Sprintf("a connection that has sent %d bytes of a GET's header block and not the blank line that ends it (http.Server.MaxHeaderBytes %d)", HeaderBlockBytes, bounds.MaxHeaderBytes),
}

// stateRecords are the pinned state rows as measured records: each kind's
// cost per unit and what it is made of, the weight the front gate charges
// for it and the one over the other; and what a stream costs without its
// connection. The producer fails when a row costs more than its weight
// (CheckStateWeights).
func stateRecords() ([]results.Record, error) {
	rows, err := PinnedStateRows()
	if err != nil {
		return nil, err
	}
	w := GateStateWeights()
	if err := CheckStateWeights(rows, w); err != nil {
		return nil, err
	}
	src := "runtime/metrics and VmRSS, read by the server process itself after two collections and debug.FreeOSMemory, before and after the units are opened from another process; the least-squares slope of the growth over the units held: `boundlab memmodel measure-state --out " + StateRowsFile + "`"
	var out []results.Record
	costs := map[StateKind]StateCost{}
	for _, r := range rows {
		c, err := r.Cost()
		if err != nil {
			return nil, err
		}
		costs[r.Kind] = c
		var ns []string
		procs := 0
		for _, p := range r.Points {
			ns = append(ns, fmt.Sprint(p.Held))
			procs = max(procs, p.Processes)
		}
		inst := fmt.Sprintf("%s; the demo server stateful behind the default front gate (demo.Guarded without Stateless, http.Server as `boundlab serve` sets it) on 127.0.0.1; %s units held, each count the highest of %d fresh processes",
			stateWhat[r.Kind], strings.Join(ns, ", "), procs)
		b := build(r.Modules)
		id := "memmodel.go.state." + string(r.Kind)
		out = append(out,
			results.Record{ID: id + ".cost", Title: "what one " + string(r.Kind) + " costs the server: the higher of the growth per unit of what the soft memory limit counts and of VmRSS",
				Value: math.Round(c.Cost), Unit: "bytes per unit", Instance: inst, Method: results.Measured, Source: src, Tolerance: round1(c.Cost / 10), Build: b},
			results.Record{ID: id + ".heap", Title: "the live heap objects one " + string(r.Kind) + " holds (runtime/metrics /memory/classes/heap/objects:bytes per unit)",
				Value: math.Round(c.Heap.PerUnit), Unit: "bytes per unit", Instance: inst, Method: results.Measured, Source: src, Tolerance: round1(c.Heap.PerUnit / 10), Build: b},
			results.Record{ID: id + ".stacks", Title: "the goroutine stacks one " + string(r.Kind) + " holds (/memory/classes/heap/stacks:bytes per unit)",
				Value: math.Round(c.Stacks.PerUnit), Unit: "bytes per unit", Instance: inst, Method: results.Measured, Source: src, Tolerance: round1(max(c.Stacks.PerUnit/10, 512)), Build: b},
			results.Record{ID: id + ".goroutines", Title: "the goroutines one " + string(r.Kind) + " holds (/sched/goroutines:goroutines per unit)",
				Value: round2(c.Goroutines.PerUnit), Unit: "goroutines per unit", Instance: inst, Method: results.Measured, Source: src, Tolerance: 0.1, Build: b},
		)
		weight, _ := w.Of(r.Kind)
		out = append(out,
			results.Record{ID: id + ".weight", Title: "what the front gate charges for one " + string(r.Kind) + weightNote(r.Kind),
				Value: float64(weight), Unit: "bytes", Instance: "bounds.SessionCost, StreamCost and ConnCost", Method: results.Derived,
				Source: "memmodel.GateStateWeights().Of(" + string(r.Kind) + ")", Build: build(nil)},
			results.Record{ID: id + ".weight-margin", Title: "the front gate's weight for one " + string(r.Kind) + " over its measured cost",
				Value: round2(float64(weight) / c.Cost), Unit: "x cost", Instance: inst, Method: results.Measured,
				Source: id + ".weight / " + id + ".cost", Tolerance: round2(float64(weight) / c.Cost / 10), Build: b},
		)
		if r.Kind == StateStream {
			held, asked := 0, 0
			for _, p := range r.Points {
				held += p.Held
				asked += p.N
			}
			out = append(out, results.Record{ID: id + ".held-per-session",
				Title: fmt.Sprintf("standalone GET streams the server holds per session when each asks for %d: the SDK answers the others 409 (one standalone stream per session)", StreamsAsked),
				Value: float64(held) / float64(asked), Unit: "streams per session", Instance: inst, Method: results.Measured,
				// A count, not a size: any drift is the SDK holding more or
				// fewer streams, which verify must report.
				Source: src, Tolerance: 0.01, Build: b})
		}
	}
	s, c := costs[StateStream], costs[StateConn]
	alone := s.Cost - c.Cost
	out = append(out, results.Record{ID: "memmodel.go.state.stream-alone.cost",
		Title: "what a standalone GET stream costs beyond its connection: the stream row's cost less the idle connection's",
		Value: math.Round(alone), Unit: "bytes per stream", Method: results.Measured,
		Instance: "memmodel.go.state.stream.cost - memmodel.go.state.conn.cost",
		Source:   "the two records' values, as " + StateRowsFile + " pins them", Tolerance: math.Round(alone / 5), Build: build(rows[0].Modules)},
		results.Record{ID: "memmodel.go.state.stream-alone.weight", Title: "what the front gate charges a stream beyond its connection",
			Value: float64(w.Stream), Unit: "bytes", Instance: "bounds.StreamCost", Method: results.Derived,
			Source: "memmodel.GateStateWeights().Stream", Build: build(nil)},
		results.Record{ID: "memmodel.go.state.stream-alone.weight-margin", Title: "the front gate's stream weight over what a stream costs beyond its connection",
			Value: round2(float64(w.Stream) / alone), Unit: "x cost", Method: results.Measured,
			Instance: "memmodel.go.state.stream-alone.weight / memmodel.go.state.stream-alone.cost",
			Source:   "the two records' values", Tolerance: round2(float64(w.Stream) / alone / 5), Build: build(rows[0].Modules)})
	return out, nil
}

func weightNote(k StateKind) string {
	if k == StateStream {
		return " on its own connection: the stream's weight and the connection's"
	}
	return ""
}

func round1(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }
func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }
