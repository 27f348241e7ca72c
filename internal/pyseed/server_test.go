package pyseed

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/theurian/boundlab/memmodel"
	"github.com/theurian/boundlab/results"
)

// /proc/PID/status reads as bytes, the high-water mark at or above the
// resident size.
func TestProcStatusReadsThisProcess(t *testing.T) {
	st, err := procStatus(os.Getpid())
	if err != nil {
		t.Skip("no /proc status (not Linux): " + err.Error())
	}
	if st.RSS <= 0 || st.HWM < st.RSS {
		t.Errorf("%+v", st)
	}
	if _, err := procStatus(-1); err == nil {
		t.Error("a process that does not exist has a status")
	}
}

// The server receives the worst body at the cap of every family the model
// prices, each under the cap, each with the model's prediction.
func TestServerBodiesCoverEveryFamily(t *testing.T) {
	bodies, err := serverBodies()
	if err != nil {
		t.Fatal(err)
	}
	sc := memmodel.FullScale()
	var labels []string
	for _, b := range bodies {
		labels = append(labels, b.label)
		if int64(len(b.body)) > sc.Cap || int64(len(b.body)) < sc.Cap-4096 || b.predicted <= int64(len(b.body)) {
			t.Errorf("%s: %d wire bytes (cap %d), predicted %d", b.label, len(b.body), sc.Cap, b.predicted)
		}
	}
	if got := strings.Join(labels, " "); got != "family-i family-ii family-iii small-values" {
		t.Errorf("bodies %s", got)
	}
}

// Without uvicorn or the SDK the server producer is unavailable, saying
// what to provide.
func TestServerNoPythonIsUnavailable(t *testing.T) {
	t.Setenv(PythonEnv, "/nonexistent/python3")
	_, err := ServerRecords(context.Background())
	if why, ok := results.IsUnavailable(err); !ok || !strings.Contains(why, "PYTHONPATH") {
		t.Fatalf("%v", err)
	}
}

// With the SDK at hand: the seat refuses a body past the schema's maxLength
// by the keyword, never echoing the value, and the watchdog kills a server
// that grows past its limit (a small-values body a few MiB on the wire
// grows the parse by tens of MiB, past a limit just above the idle server).
func TestServerInCPython(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two Python servers (-short)")
	}
	py, err := serverPython(context.Background())
	if why, ok := results.IsUnavailable(err); ok {
		t.Skip("no CPython with the Python MCP SDK, uvicorn and starlette: " + why)
	}
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	leaf := strings.Repeat("secret", 1000)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"knowledge.search","arguments":{"query":"` + leaf + `"}}}`
	r, err := MeasureServer(ctx, py, ServerOptions{Mode: ModeGate, Cap: 1 << 20}, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Answer, "maxLength") || strings.Contains(r.Answer, "secret") || r.After.HWM < r.Before.RSS {
		t.Errorf("HTTP %d %q, before %+v after %+v", r.Status, r.Answer, r.Before, r.After)
	}
	s, err := StartServer(ctx, py, ServerOptions{Mode: ModeGate, Cap: 8 << 20, RSSLimit: r.Before.RSS + 16<<20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	chains := memmodel.SmallShapes()[len(memmodel.SmallShapes())-1]
	big, _ := chains.Body(8 << 20)
	if _, _, err := s.Post(ctx, big); err == nil || !strings.Contains(err.Error(), "killed past") {
		t.Errorf("a server growing past its limit: %v", err)
	}
}
