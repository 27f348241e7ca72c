package load

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
	"github.com/theurian/boundlab/results"
)

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// testBin builds ./cmd/boundlab once for the package's tests.
func testBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the boundlab binary")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "boundlab-load-test-")
		if binErr == nil {
			binPath, binErr = Build(context.Background(), "..", binDir)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// variant returns the named variant of Variants.
func variant(t *testing.T, name string) Variant {
	for _, v := range Variants() {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no variant %s", name)
	return Variant{}
}

func smallConfig(bin string, vs ...Variant) Config {
	c := DefaultConfig()
	c.Bin, c.Variants = bin, vs
	c.BodyBytes, c.Requests, c.Concurrency = 64<<10, 3, 4
	c.ValidClients, c.Trickles, c.TrickleEvery, c.TrickleFor = 1, 1, 50*time.Millisecond, time.Second
	c.Duration = 30 * time.Second
	return c
}

func pinned(t *testing.T, id string) float64 {
	t.Helper()
	recs, err := results.Load("../results")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs["mcpvalidate-residuals"] {
		if r.ID == id {
			return r.Value
		}
	}
	t.Fatalf("no pinned record %s", id)
	return 0
}

// TestLabMeasuresTheUnguardedSDK drives the real binary at a small scale and
// holds the lab's measurements to facts established elsewhere: the SDK's
// params echo (its ratio is the pinned residual record), the duplicate name
// and trailing bytes it lets through (served iff the residual records say it
// tolerates them), the middleware's refusals that never echo.
func TestLabMeasuresTheUnguardedSDK(t *testing.T) {
	bin := testBin(t)
	v := variant(t, MiddlewareOnly)
	run, err := Execute(smallConfig(bin, v), func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	vr := run.Variants[0]
	if vr.Error != "" {
		t.Fatal(vr.Error)
	}
	if vr.PeakRSS <= 0 || vr.Samples == 0 || vr.Killed || vr.Crashed || !vr.ServedAfter {
		t.Fatalf("%s: peak %d, samples %d, killed %v, crashed %v, served after %v", v.Name, vr.PeakRSS, vr.Samples, vr.Killed, vr.Crashed, vr.ServedAfter)
	}
	row := func(t *testing.T, name string) ShapeResult {
		s, ok := vr.Shape(name)
		if !ok || s.Sent != map[bool]int{true: 3, false: s.Sent}[s.Hostile] || s.Unsent != 0 {
			t.Fatalf("%s: %+v", name, s)
		}
		return s
	}
	echo := row(t, "echo-params")
	ratio := float64(echo.MaxAnswer) / float64(echo.BodyBytes)
	if want := pinned(t, "mcpvalidate.residual.params-echo.worst-ratio"); echo.Echoed != echo.Sent || math.Abs(ratio-want) > 0.01 {
		t.Errorf("echo-params: %d of %d echoed, answer/body %.4f, want the pinned %.3f", echo.Echoed, echo.Sent, ratio, want)
	}
	for shape, id := range map[string]string{
		"dup-envelope": "mcpvalidate.residual.sdk.tolerates.duplicate-params-name",
		"trailing":     "mcpvalidate.residual.sdk.tolerates.trailing-bytes",
	} {
		t.Run(caseName(shape), func(t *testing.T) {
			s := row(t, shape)
			if tolerated := pinned(t, id) == 1; (s.Outcomes[Served] == s.Sent) != tolerated {
				t.Errorf("%s: outcomes %v; the SDK tolerates it: %v", shape, s.Outcomes, tolerated)
			}
		})
	}
	for _, shape := range []string{"maxlength", "dup-arguments", "invalid-utf8", NodeChainsShape} {
		t.Run(caseName(shape), func(t *testing.T) {
			if s := row(t, shape); s.Outcomes[Refused] != s.Sent || s.Echoed != 0 || s.MaxAnswer > TargetAnswerBytes {
				t.Errorf("%s (the middleware refuses it): outcomes %v, echoed %d, max answer %d", shape, s.Outcomes, s.Echoed, s.MaxAnswer)
			}
		})
	}
	if s := row(t, ValidShape); s.Sent < 3 || s.Outcomes[Served] != s.Sent {
		t.Errorf("valid calls: %+v", s)
	}
	if s := row(t, TrickleShape); s.Sent != 1 {
		t.Errorf("trickle: %+v", s)
	}
	data, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := RunRecords(data, "test run", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.ID == "load."+v.Name+".hostile.echoed" && r.Value != float64(echo.Sent) {
			t.Errorf("%s = %v, want %d", r.ID, r.Value, echo.Sent)
		}
	}
}

// TestLabHoldsTheGuardedServerToTheTargets runs the guarded server at a small
// scale: every target holds, and the shapes the SDK lets through are refused.
func TestLabHoldsTheGuardedServerToTheTargets(t *testing.T) {
	bin := testBin(t)
	run, err := Execute(smallConfig(bin, variant(t, Guarded)), func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	vs := run.Targets()
	if len(vs) < 7 {
		t.Fatalf("%d verdicts: %+v", len(vs), vs)
	}
	for _, v := range vs {
		if !v.OK {
			t.Errorf("%s: %s: %s", v.Variant, v.Target, v.Got)
		}
	}
	// The budget record reads what serve printed: the default budget at its cap.
	vr := run.Variants[0]
	if b, ok := budgetOf(vr.Banner); !ok || b != bounds.Request(vr.BodyCap, charge.DefaultLimits())+bounds.DefaultSmallReserve {
		t.Errorf("budget from the banner %d (%v); banner %q", b, ok, vr.Banner)
	}
	for _, shape := range []string{"echo-params", "dup-envelope", "trailing", NodeChainsShape} {
		t.Run(caseName(shape), func(t *testing.T) {
			if s, ok := run.Variants[0].Shape(shape); !ok || s.Sent == 0 || s.Outcomes[Refused] != s.Sent {
				t.Errorf("%s: %+v", shape, s)
			}
		})
	}
}

// TestGuardKillsTheChild: echoes of 2 MiB bodies, four at a time, take the
// SDK past a 64 MiB guard; the lab kills the child and reports it.
func TestGuardKillsTheChild(t *testing.T) {
	bin := testBin(t)
	c := smallConfig(bin, variant(t, MiddlewareOnly))
	c.Shapes, c.BodyBytes, c.Requests, c.GuardBytes, c.Trickles = []string{"echo-params"}, 2<<20, 8, 64<<20, 0
	run, err := Execute(c, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	vr := run.Variants[0]
	if !vr.Killed || vr.KilledRSS <= c.GuardBytes || vr.PeakRSS < vr.KilledRSS || vr.Crashed || vr.ServedAfter {
		t.Fatalf("killed %v at %d (guard %d), peak %d, crashed %v, served after %v", vr.Killed, vr.KilledRSS, c.GuardBytes, vr.PeakRSS, vr.Crashed, vr.ServedAfter)
	}
	if s, _ := vr.Shape("echo-params"); s.Outcomes[Reset] == 0 {
		t.Errorf("no request saw the kill: %v", s.Outcomes)
	}
}

// TestUnknownFlagIsReported: a variant whose flag serve does not know is
// recorded as not measured, naming the flag; the next variant still runs.
func TestUnknownFlagIsReported(t *testing.T) {
	bin := testBin(t)
	c := smallConfig(bin, Variant{Name: "bogus", Flags: []string{"--no-such-flag"}}, Variant{Name: "plain"})
	c.Shapes, c.Requests = []string{ValidShape}, 1
	run, err := Execute(c, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	if e := run.Variants[0].Error; !strings.Contains(e, ErrFlagUnknown.Error()) || !strings.Contains(e, "--no-such-flag") {
		t.Errorf("bogus: %q", e)
	}
	if run.Variants[1].Error != "" || !run.Variants[1].ServedAfter {
		t.Errorf("plain: %+v", run.Variants[1])
	}
}
