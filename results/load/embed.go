// Package loaddata holds boundlab's saved load-lab runs (`boundlab load
// --out`), each a JSON run of package load naming the machine and build it
// was measured on. Package load's producer reads its records from them, so
// `boundlab verify` checks the load records against these files rather than
// re-running the load (a shared CI runner has neither the memory nor the
// timings).
package loaddata

import _ "embed"

// Saved is one saved run.
type Saved struct {
	// Label prefixes the run's record IDs ("" for the main run).
	Label string
	// File is the run's path within the module.
	File string
	Data []byte
}

var (
	//go:embed run.json
	run []byte
	//go:embed run-in-flight-64.json
	runInFlight64 []byte
	//go:embed run-node-chains.json
	runNodeChains []byte

	//go:embed session-flood.json
	sessionFlood []byte
	//go:embed stream-flood.json
	streamFlood []byte
	//go:embed connection-flood.json
	connectionFlood []byte
	//go:embed session-flood-1m.json
	sessionFlood1M []byte
	//go:embed header-flood.json
	headerFlood []byte
	//go:embed header-flood-at-cap.json
	headerFloodAtCap []byte
	//go:embed all-budgets.json
	allBudgets []byte
	//go:embed all-budgets-over-bound.json
	allBudgetsOverBound []byte
	//go:embed before-session-flood.json
	beforeSessionFlood []byte
	//go:embed before-stream-flood.json
	beforeStreamFlood []byte
	//go:embed before-connection-flood.json
	beforeConnectionFlood []byte
	//go:embed before-session-flood-1m.json
	beforeSessionFlood1M []byte
	//go:embed before-header-flood.json
	beforeHeaderFlood []byte
)

// Runs are the saved runs: the main one (both variants; middleware-only with
// fewer requests in flight, so it survives to be compared), and the
// middleware-only server at the guarded one's 64 in flight, which the RSS
// guard kills, and both variants under node-chains alone, 64 in flight: what
// the node-dense shape costs each by itself.
func Runs() []Saved {
	return []Saved{
		{Label: "", File: "results/load/run.json", Data: append([]byte(nil), run...)},
		{Label: "in-flight-64", File: "results/load/run-in-flight-64.json", Data: append([]byte(nil), runInFlight64...)},
		{Label: "node-chains", File: "results/load/run-node-chains.json", Data: append([]byte(nil), runNodeChains...)},
	}
}

// Floods are the saved floods (`boundlab load FLOOD --out`), each a FloodRun
// of package load against a stateful serve, labelled by its flood: the
// session flood at issue 24's size (200,000 sessions, then 2,000 streams on
// the newest), the stream flood and the connection flood at their defaults,
// the session flood of 1,000,000 sessions, and the header flood (slowloris:
// connections that never finish their header block), and the header flood
// at the header cap (each connection sends a block just under the
// MaxHeaderBytes Harden sets: the connection weight's assumption, held);
// every budget at once (all-budgets: sessions past the table's size,
// streams, idle and header-block connections within the connection bound,
// at-cap hostile calls beside them), and the same with the header-block
// connections past the bound (all-budgets-over-bound). The before- runs
// are the same
// floods against the serve before sessions, streams and connections were
// bounded (labels before-FLOOD), kept beside as the comparison; the header
// flood's before- run is against the serve before LimitConns closed new
// connections past their header grace.
func Floods() []Saved {
	var out []Saved
	for _, f := range []struct {
		label string
		data  []byte
	}{
		{"session-flood", sessionFlood},
		{"stream-flood", streamFlood},
		{"connection-flood", connectionFlood},
		{"session-flood-1m", sessionFlood1M},
		{"header-flood", headerFlood},
		{"header-flood-at-cap", headerFloodAtCap},
		{"all-budgets", allBudgets},
		{"all-budgets-over-bound", allBudgetsOverBound},
		{"before-session-flood", beforeSessionFlood},
		{"before-stream-flood", beforeStreamFlood},
		{"before-connection-flood", beforeConnectionFlood},
		{"before-session-flood-1m", beforeSessionFlood1M},
		{"before-header-flood", beforeHeaderFlood},
	} {
		out = append(out, Saved{Label: f.label, File: "results/load/" + f.label + ".json", Data: append([]byte(nil), f.data...)})
	}
	return out
}
