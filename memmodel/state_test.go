package memmodel

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestStateChild is the measured server when the test binary runs as a
// measure-state child (stateChildEnv set); otherwise it has nothing to do.
func TestStateChild(t *testing.T) {
	if os.Getenv(stateChildEnv) == "" {
		t.Skip("runs only as a measure-state child")
	}
	if err := ServeStateChild(os.Stdin, os.Stdout); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}

const stateChildEnv = "BOUNDLAB_MEMMODEL_STATE_CHILD"

// The least-squares fit recovers a line's slope and intercept exactly, and
// a point off the line moves the slope.
func TestFit(t *testing.T) {
	pts := func(f func(n int) int64) []StatePoint {
		var out []StatePoint
		for _, n := range []int{1000, 4000, 16000} {
			out = append(out, StatePoint{N: n, Held: n, Growth: StateReading{Governed: f(n)}})
		}
		return out
	}
	s := fit(pts(func(n int) int64 { return 7000*int64(n) + 1<<20 }), func(r StateReading) int64 { return r.Governed })
	if s.PerUnit != 7000 || s.Intercept != 1<<20 {
		t.Errorf("%+v, want 7000 per unit and %d", s, 1<<20)
	}
	off := pts(func(n int) int64 { return 7000 * int64(n) })
	off[2].Growth.Governed += 16000
	if s := fit(off, func(r StateReading) int64 { return r.Governed }); s.PerUnit <= 7000 {
		t.Errorf("a high last point left the slope at %v", s.PerUnit)
	}
	// The slope is over what the server held, not what was asked.
	held := pts(func(n int) int64 { return 7000 * int64(n) / 2 })
	for i := range held {
		held[i].Held /= 2
	}
	if s := fit(held, func(r StateReading) int64 { return r.Governed }); s.PerUnit != 7000 {
		t.Errorf("over the units held: %v per unit, want 7000", s.PerUnit)
	}
}

// A row's cost is the higher of the governed and the RSS slopes; a row
// with one point or a point where nothing was held has none.
func TestStateRowCost(t *testing.T) {
	row := func(gov, rss int64) StateRow {
		r := StateRow{Kind: StateSession}
		for _, n := range []int{100, 200} {
			r.Points = append(r.Points, StatePoint{N: n, Held: n, Growth: StateReading{Governed: gov * int64(n), RSS: rss * int64(n), Goroutines: int64(n)}})
		}
		return r
	}
	for _, c := range []struct {
		name      string
		gov, rss  int64
		wantCost  float64
		wantGorou float64
	}{
		{"governed-higher", 8000, 7000, 8000, 1},
		{"rss-higher", 7000, 9000, 9000, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := row(c.gov, c.rss).Cost()
			if err != nil || got.Cost != c.wantCost || got.Goroutines.PerUnit != c.wantGorou {
				t.Errorf("%+v, %v", got, err)
			}
		})
	}
	one := row(1, 1)
	one.Points = one.Points[:1]
	if _, err := one.Cost(); err == nil {
		t.Error("one point gave a slope")
	}
	none := row(1, 1)
	none.Points[1].Held = 0
	if _, err := none.Cost(); err == nil || !strings.Contains(err.Error(), "held none") {
		t.Errorf("a point holding nothing: %v", err)
	}
}

// flatRow is a row whose every point costs cost bytes per unit.
func flatRow(k StateKind, cost int64) StateRow {
	r := StateRow{Kind: k}
	for _, n := range []int{1000, 4000} {
		r.Points = append(r.Points, StatePoint{N: n, Held: n, Growth: StateReading{Governed: cost * int64(n), RSS: cost * int64(n)}})
	}
	return r
}

// The check holds each kind to its weight, at the weight and one byte past
// it; a stream on its own connection to the stream's and the connection's
// weights together; and wants a row of every kind.
func TestCheckStateWeights(t *testing.T) {
	w := StateWeights{Session: 10000, Stream: 12000, Conn: 20000}
	rows := func(session, called, stream, conn int64) []StateRow {
		return []StateRow{flatRow(StateSession, session), flatRow(StateSessionCalled, called), flatRow(StateStream, stream),
			flatRow(StateConn, conn), flatRow(StateConnHeader, conn)}
	}
	for _, c := range []struct {
		name string
		rows []StateRow
		bad  StateKind
	}{
		{"all-at-weight", rows(10000, 10000, 32000, 20000), ""},
		{"session-past", rows(10001, 10000, 32000, 20000), StateSession},
		{"called-past", rows(10000, 10001, 32000, 20000), StateSessionCalled},
		{"stream-past-both", rows(10000, 10000, 32001, 20000), StateStream},
		{"stream-past-its-own-alone", rows(10000, 10000, 12001, 20000), ""},
		{"stream-alone-at-weight", rows(10000, 10000, 32000, 20000), ""},
		{"stream-alone-past-weight", rows(10000, 10000, 30001, 18000), "stream"},
		{"conn-past", rows(10000, 10000, 32000, 20001), StateConn},
		{"header-past", append(rows(10000, 10000, 32000, 20000)[:4], flatRow(StateConnHeader, 20001)), StateConnHeader},
		{"missing-header", rows(1, 1, 1, 1)[:4], StateConnHeader},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckStateWeights(c.rows, w)
			if (err != nil) != (c.bad != "") || (err != nil && !strings.Contains(err.Error(), " "+string(c.bad)+" ")) {
				t.Errorf("%v, want a failure naming %q", err, c.bad)
			}
		})
	}
	if err := CheckStateWeights(append(rows(1, 1, 1, 1), flatRow("tab", 1)), w); err == nil {
		t.Error("an unknown kind passed")
	}
}

// The pinned rows hold the weights the gate charges (what verify checks),
// and each row fails a weight one byte under its cost.
func TestPinnedStateRowsFitTheirWeights(t *testing.T) {
	rows, err := PinnedStateRows()
	if err != nil {
		t.Fatal(err)
	}
	w := GateStateWeights()
	if err := CheckStateWeights(rows, w); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		t.Run(caseName(string(r.Kind)), func(t *testing.T) {
			c, err := r.Cost()
			if err != nil {
				t.Fatal(err)
			}
			under := w
			switch r.Kind {
			case StateSession, StateSessionCalled:
				under.Session = int64(c.Cost) - 1
			case StateStream:
				under.Stream = int64(c.Cost) - under.Conn - 1
				// Beyond its connection too: the stream alone one byte over.
				conn, _ := rowOf(t, rows, StateConn).Cost()
				alone := w
				alone.Stream = int64(c.Cost-conn.Cost) - 1
				if err := CheckStateWeights(rows, alone); err == nil || !strings.Contains(err.Error(), "beyond its connection") {
					t.Errorf("a stream weight one byte under the stream alone: %v", err)
				}
			case StateConn, StateConnHeader:
				under.Conn = int64(c.Cost) - 1
			}
			if err := CheckStateWeights(rows, under); err == nil {
				t.Errorf("%s at %.0f bytes passed a weight one byte under it", r.Kind, c.Cost)
			}
			// Three counts, the first at least a thousand units (conn-header a
			// quarter of that), each in fresh processes.
			least := 1000
			if r.Kind == StateConnHeader {
				least /= headerCountDiv
			}
			if len(r.Points) < 3 || r.Points[0].Held < least || r.Points[0].Processes < 2 {
				t.Errorf("%s: pinned at %d points, the first holding %d units in %d processes", r.Kind, len(r.Points), r.Points[0].Held, r.Points[0].Processes)
			}
		})
	}
}

func rowOf(t *testing.T, rows []StateRow, k StateKind) StateRow {
	t.Helper()
	for _, r := range rows {
		if r.Kind == k {
			return r
		}
	}
	t.Fatalf("no %s row", k)
	return StateRow{}
}

// The stream records say what the SDK does with a second stream, and the
// stream alone is the stream row less the connection row.
func TestStateRecords(t *testing.T) {
	recs, err := stateRecords()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range recs {
		got[r.ID] = r.Value
	}
	for _, k := range StateKinds {
		t.Run(caseName(string(k)), func(t *testing.T) {
			for _, fig := range []string{"cost", "heap", "stacks", "goroutines", "weight", "weight-margin"} {
				if _, ok := got["memmodel.go.state."+string(k)+"."+fig]; !ok {
					t.Errorf("no record memmodel.go.state.%s.%s", k, fig)
				}
			}
			w, _ := GateStateWeights().Of(k)
			if got["memmodel.go.state."+string(k)+".weight"] != float64(w) {
				t.Errorf("%s weight %v, want %d", k, got["memmodel.go.state."+string(k)+".weight"], w)
			}
		})
	}
	if got["memmodel.go.state.stream.held-per-session"] != 1 {
		t.Errorf("streams held per session: %v", got["memmodel.go.state.stream.held-per-session"])
	}
	if d := got["memmodel.go.state.stream.cost"] - got["memmodel.go.state.conn.cost"] - got["memmodel.go.state.stream-alone.cost"]; d < -1 || d > 1 {
		t.Errorf("stream alone is off by %v", d)
	}
}

func TestReplaceStateRows(t *testing.T) {
	pinned := []StateRow{{Kind: StateSession, Go: "a"}, {Kind: StateConn, Go: "b"}}
	fresh := []StateRow{{Kind: StateConn, Go: "c"}, {Kind: StateStream, Go: "d"}}
	got := ReplaceStateRows(pinned, fresh)
	want := []StateRow{{Kind: StateSession, Go: "a"}, {Kind: StateConn, Go: "c"}, {Kind: StateStream, Go: "d"}}
	if !reflect.DeepEqual(got, want) || pinned[1].Go != "b" {
		t.Fatalf("%+v", got)
	}
	path := filepath.Join(t.TempDir(), "rows.json")
	if err := WriteStateRows(path, got); err != nil {
		t.Fatal(err)
	}
	if back, err := ReadStateRows(path); err != nil || !reflect.DeepEqual(back, got) {
		t.Fatalf("%+v, %v", back, err)
	}
}

// CI's small-scale measurement: every kind at two small counts in fresh
// children (this test binary as TestStateChild). The server holds every
// unit asked, one goroutine per session and per connection, two per
// stream, and a second stream per session is answered 409; conn-header at a
// quarter of the counts.
func TestMeasureStateSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child servers")
	}
	t.Setenv(stateChildEnv, "1")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rows, err := MeasureState(ctx, []string{os.Args[0], "-test.run=^TestStateChild$"}, StateKinds, []int{40, 120}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(StateKinds) {
		t.Fatalf("%d rows", len(rows))
	}
	goroutines := map[StateKind]float64{StateSession: 1, StateSessionCalled: 1, StateStream: 2, StateConn: 1, StateConnHeader: 1}
	for _, r := range rows {
		for i, p := range r.Points {
			if want := []int{40, 120}[i]; r.Kind == StateConnHeader && p.N != want/headerCountDiv || r.Kind != StateConnHeader && p.N != want {
				t.Errorf("%s: point %d at %d units", r.Kind, i, p.N)
			}
			if p.Held != p.N || p.Growth.Governed <= 0 || p.Processes != 1 {
				t.Errorf("%s at %d: %+v", r.Kind, p.N, p)
			}
			wantRefused := map[string]int{}
			if r.Kind == StateStream {
				wantRefused["http-409"] = p.N * (StreamsAsked - 1)
			}
			if len(p.Refused) != len(wantRefused) || p.Refused["http-409"] != wantRefused["http-409"] {
				t.Errorf("%s at %d: refused %v, want %v", r.Kind, p.N, p.Refused, wantRefused)
			}
		}
		c, err := r.Cost()
		if err != nil {
			t.Fatal(err)
		}
		if g := c.Goroutines.PerUnit; g < goroutines[r.Kind]-0.05 || g > goroutines[r.Kind]+0.05 {
			t.Errorf("%s: %.2f goroutines per unit, want %v", r.Kind, g, goroutines[r.Kind])
		}
		t.Logf("%s: %.0f bytes per unit (heap %.0f, stacks %.0f)", r.Kind, c.Cost, c.Heap.PerUnit, c.Stacks.PerUnit)
	}
}
