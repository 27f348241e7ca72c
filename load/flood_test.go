package load

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// Each of the flood's bounds, at the bound and one past it.
func TestFloodConfigBounds(t *testing.T) {
	ok := func() FloodConfig {
		c := DefaultFloodConfig(FloodShape{Name: SessionFlood, Sessions: 10, Streams: 2})
		c.Bin = "boundlab"
		return c
	}
	if err := ok().Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		set   func(*FloodConfig)
		valid bool
	}{
		{"sessions-at-max", func(c *FloodConfig) { c.Sessions = MaxFloodSessions }, true},
		{"sessions-past-max", func(c *FloodConfig) { c.Sessions = MaxFloodSessions + 1 }, false},
		{"streams-at-sessions", func(c *FloodConfig) { c.Streams = c.Sessions }, true},
		{"streams-past-sessions", func(c *FloodConfig) { c.Streams = c.Sessions + 1 }, false},
		{"per-session-at-max", func(c *FloodConfig) { c.StreamsPerSession = MaxStreamsPer }, true},
		{"per-session-past-max", func(c *FloodConfig) { c.StreamsPerSession = MaxStreamsPer + 1 }, false},
		{"per-session-zero", func(c *FloodConfig) { c.StreamsPerSession = 0 }, false},
		{"held-at-max", func(c *FloodConfig) { c.Conns = MaxFloodHeld - c.Streams }, true},
		{"held-past-max", func(c *FloodConfig) { c.Conns = MaxFloodHeld - c.Streams + 1 }, false},
		{"held-past-max-by-streams", func(c *FloodConfig) {
			c.Sessions, c.Streams, c.StreamsPerSession = MaxFloodHeld, MaxFloodHeld/2, 2
			c.Conns = 1
		}, false},
		{"nothing", func(c *FloodConfig) { c.Sessions, c.Streams, c.Conns = 0, 0, 0 }, false},
		{"conns-alone", func(c *FloodConfig) { c.Sessions, c.Streams, c.Conns = 0, 0, 5 }, true},
		{"header-bytes-at-max", func(c *FloodConfig) { c.HeaderBytes = MaxFloodHeaderBytes }, true},
		{"header-bytes-past-max", func(c *FloodConfig) { c.HeaderBytes = MaxFloodHeaderBytes + 1 }, false},
		{"header-bytes-negative", func(c *FloodConfig) { c.HeaderBytes = -1 }, false},
		{"concurrency-at-max", func(c *FloodConfig) { c.Concurrency = MaxFloodConcurrency }, true},
		{"concurrency-past-max", func(c *FloodConfig) { c.Concurrency = MaxFloodConcurrency + 1 }, false},
		{"duration-at-max", func(c *FloodConfig) { c.Duration = MaxFloodDuration }, true},
		{"duration-past-max", func(c *FloodConfig) { c.Duration = MaxFloodDuration + time.Nanosecond }, false},
		{"hold-at-duration", func(c *FloodConfig) { c.Hold = c.Duration }, false},
		{"hold-under-duration", func(c *FloodConfig) { c.Hold = c.Duration - time.Second }, true},
		{"guard-at-min", func(c *FloodConfig) { c.GuardBytes = 64 << 20 }, true},
		{"guard-under-min", func(c *FloodConfig) { c.GuardBytes = 64<<20 - 1 }, false},
		{"probe-every-zero", func(c *FloodConfig) { c.ProbeEvery = 0 }, false},
		{"no-binary", func(c *FloodConfig) { c.Bin = "" }, false},
		{"no-variant", func(c *FloodConfig) { c.Variants = nil }, false},
		{"unknown-shape", func(c *FloodConfig) { c.Shape = "tide" }, false},
		{"idle-beside-header", func(c *FloodConfig) { c.Conns, c.HeaderBytes, c.IdleConns = 5, 100, 5 }, true},
		{"idle-without-header", func(c *FloodConfig) { c.Conns, c.IdleConns = 5, 5 }, false},
		{"idle-negative", func(c *FloodConfig) { c.Conns, c.HeaderBytes, c.IdleConns = 5, 100, -1 }, false},
		{"held-at-max-with-idle", func(c *FloodConfig) {
			c.HeaderBytes, c.IdleConns = 100, 10
			c.Conns = MaxFloodHeld - c.Streams - c.IdleConns
		}, true},
		{"held-past-max-by-idle", func(c *FloodConfig) {
			c.HeaderBytes, c.IdleConns = 100, 11
			c.Conns = MaxFloodHeld - c.Streams - 10
		}, false},
		{"held-past-max-by-attack", func(c *FloodConfig) {
			c.Hostile, c.HostileInFlight, c.ValidClients = 1, 10, 1
			c.Conns = MaxFloodHeld - c.Streams - 10
		}, false},
		{"hostile-at-max", func(c *FloodConfig) { c.Hostile, c.HostileInFlight = MaxRequests, 1 }, true},
		{"hostile-past-max", func(c *FloodConfig) { c.Hostile, c.HostileInFlight = MaxRequests+1, 1 }, false},
		{"hostile-alone", func(c *FloodConfig) { c.Sessions, c.Streams, c.Hostile, c.HostileInFlight = 0, 0, 1, 1 }, true},
		{"in-flight-at-max", func(c *FloodConfig) { c.Hostile, c.HostileInFlight = 1, MaxConcurrency }, true},
		{"in-flight-past-max", func(c *FloodConfig) { c.Hostile, c.HostileInFlight = 1, MaxConcurrency+1 }, false},
		{"in-flight-zero", func(c *FloodConfig) { c.Hostile, c.HostileInFlight = 1, 0 }, false},
		{"valid-clients-at-max", func(c *FloodConfig) { c.ValidClients = MaxConcurrency }, true},
		{"valid-clients-past-max", func(c *FloodConfig) { c.ValidClients = MaxConcurrency + 1 }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := ok()
			c.set(&cfg)
			if err := cfg.Check(); (err == nil) != c.valid {
				t.Errorf("valid %v: %v", c.valid, err)
			}
		})
	}
}

func smallFlood(t *testing.T) *FloodRun {
	t.Helper()
	data, err := os.ReadFile("testdata/flood-small.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseFloodRun(data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The synthetic flood: the guarded server's refusals, its 409 for a second
// stream (not a refusal of capacity), and a killed middleware-only server.
func TestFloodFigures(t *testing.T) {
	r := smallFlood(t)
	g, mw := r.Variants[0], r.Variants[1]
	if all, other := g.Refusals(); all != 5 || other != 1 {
		t.Errorf("guarded refusals %d, %d other; want 5 (3 + 1 in the flood, 1 probe), 1 other (the bare 503): the streams' 409 and 404 are no refusals", all, other)
	}
	if all, other := mw.Refusals(); all != 0 || other != 0 {
		t.Errorf("transport failures counted as refusals: %d, %d", all, other)
	}
	if per, ok := g.RSSPer(PhaseSessions); !ok || per != 8000 {
		t.Errorf("RSS per session %v, %v", per, ok)
	}
	if per, ok := g.RSSPer(PhaseStreams); !ok || per != 30000 {
		t.Errorf("RSS per stream %v, %v", per, ok)
	}
	if _, ok := g.RSSPer(PhaseConns); ok {
		t.Error("RSS per connection without a connections phase")
	}
	if s, n := g.ProbesServed(); s != 2 || n != 3 || g.ProbeP99() != 9 {
		t.Errorf("probes %d/%d, p99 %v", s, n, g.ProbeP99())
	}
	if c, ok := ceilingOf(g.Banner); !ok || c != 100<<20 {
		t.Errorf("ceiling %d, %v", c, ok)
	}
	if _, ok := ceilingOf(mw.Banner); ok {
		t.Error("a ceiling read from a banner without one")
	}
	got := map[string]bool{}
	for _, v := range r.Targets() {
		got[v.Target] = v.OK
		if v.Variant != Guarded {
			t.Errorf("a target on %s", v.Variant)
		}
	}
	want := map[string]bool{
		"peak RSS <= the printed ceiling 100.0 MiB": false, // 200 MiB
		"0 crashes": true,
		"new clients served during the flood >= 95%":      false, // 2 of 3
		"a new client served afterwards, everything held": true,
		"every refusal 503 with Retry-After":              false, // the bare 503
	}
	if len(got) != len(want) {
		t.Errorf("targets %v", got)
	}
	for k, v := range want {
		if ok, found := got[k]; !found || ok != v {
			t.Errorf("%s: %v (found %v), want %v", k, ok, found, v)
		}
	}
}

// The records read the synthetic flood: the guarded server's figures, and
// none of the killed server's service during the flood.
func TestFloodRecords(t *testing.T) {
	data, err := os.ReadFile("testdata/flood-small.json")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := FloodRecords(data, "testdata/flood-small.json", "small")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range recs {
		got[r.ID] = r.Value
		if r.Method != "measured" || !strings.Contains(r.Source, "testdata/flood-small.json") {
			t.Errorf("%s: %s, %s", r.ID, r.Method, r.Source)
		}
	}
	want := map[string]float64{
		"load.small.guarded.peak-rss":                             209715200,
		"load.small.guarded.killed-at-guard":                      0,
		"load.small.guarded.sessions-opened":                      1000,
		"load.small.guarded.rss-per-session":                      8000,
		"load.small.guarded.streams-held":                         10,
		"load.small.guarded.streams-alive-at-end":                 9,
		"load.small.guarded.rss-per-stream":                       30000,
		"load.small.guarded.refusals.not-503-retry-after":         1,
		"load.small.guarded.served-after":                         1,
		"load.small.guarded.printed-ceiling":                      100 << 20,
		"load.small.guarded.probes.served-fraction":               0.667,
		"load.small.guarded.probes.p99-ms":                        9,
		"load.small.middleware-only.killed-at-guard":              1,
		"load.small.middleware-only.sessions-opened":              800,
		"load.small.middleware-only.refusals.not-503-retry-after": 0,
	}
	for id, v := range want {
		if g, ok := got[id]; !ok || g != v {
			t.Errorf("%s = %v (%v), want %v", id, g, ok, v)
		}
	}
	for _, id := range []string{"load.small.middleware-only.probes.served-fraction", "load.small.middleware-only.printed-ceiling", "load.small.guarded.conns-held",
		"load.small.middleware-only.streams-held"} {
		if _, ok := got[id]; ok {
			t.Errorf("%s recorded", id)
		}
	}
	var bad map[string]any
	if err := json.Unmarshal(data, &bad); err != nil {
		t.Fatal(err)
	}
	bad["surplus"] = 1
	extra, _ := json.Marshal(bad)
	if _, err := FloodRecords(extra, "x", "x"); err == nil {
		t.Error("an unknown field was read")
	}
}

// Each flood at a tiny count against both stateful variants: the server
// takes what is asked, new clients are served beside it and afterwards, and
// everything is still held at the end.
func TestFloodsSmall(t *testing.T) {
	bin := testBin(t)
	for _, c := range []struct {
		shape                   string
		sessions, streams, conn int
	}{
		{SessionFlood, 300, 20, 0},
		{StreamFlood, 60, 60, 0},
		{ConnectionFlood, 0, 0, 100},
	} {
		t.Run(c.shape, func(t *testing.T) {
			shape, _ := FloodShapeNamed(c.shape)
			cfg := DefaultFloodConfig(shape)
			cfg.Bin, cfg.Sessions, cfg.Streams, cfg.Conns = bin, c.sessions, c.streams, c.conn
			cfg.Hold, cfg.ProbeEvery, cfg.Duration = 1500*time.Millisecond, 500*time.Millisecond, time.Minute
			run, err := Flood(cfg, func(s string) { t.Log(s) })
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Variants) != 2 {
				t.Fatalf("%d variants", len(run.Variants))
			}
			for _, v := range run.Variants {
				served, sent := v.ProbesServed()
				if v.Error != "" || v.Sessions != c.sessions || v.Streams != c.streams || v.Conns != c.conn ||
					v.StreamsAlive != c.streams || v.ConnsAlive != c.conn || v.Killed || v.Crashed || !v.ServedAfter ||
					sent == 0 || served != sent || v.PeakRSS <= 0 || len(v.Refused) != 0 || v.Unsent != 0 {
					t.Errorf("%s: %+v", v.Variant.Name, v)
				}
			}
			if _, ok := ceilingOf(run.Variants[0].Banner); !ok {
				t.Errorf("guarded: no ceiling in %q", run.Variants[0].Banner)
			}
		})
	}
}

// A session flood past a 64 MiB guard: the lab kills the unguarded server,
// stops the flood and reports it; no record of service during it.
func TestFloodGuardKills(t *testing.T) {
	bin := testBin(t)
	shape, _ := FloodShapeNamed(SessionFlood)
	cfg := DefaultFloodConfig(shape)
	cfg.Bin, cfg.Variants = bin, StatefulVariants()[1:]
	cfg.Sessions, cfg.Streams, cfg.GuardBytes, cfg.Duration = 200_000, 0, 64<<20, 2*time.Minute
	run, err := Flood(cfg, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	v := run.Variants[0]
	if !v.Killed || v.KilledRSS <= cfg.GuardBytes || v.Crashed || v.ServedAfter || v.Sessions >= cfg.Sessions || v.Sessions == 0 || v.Unsent == 0 {
		t.Fatalf("killed %v at %d, crashed %v, after %v, %d sessions, %d unsent", v.Killed, v.KilledRSS, v.Crashed, v.ServedAfter, v.Sessions, v.Unsent)
	}
	data, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := FloodRecords(data, "test", "kill")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if strings.Contains(r.ID, "probes.") {
			t.Errorf("%s recorded for a killed server", r.ID)
		}
		if r.ID == "load.kill.middleware-only.killed-at-guard" && r.Value != 1 {
			t.Errorf("%s = %v", r.ID, r.Value)
		}
	}
}

// Every budget at once, at tiny counts against the guarded server: the
// sessions, streams, idle and header-block connections are held while the
// at-cap requests (each shape once, on sessions of their own) are refused
// and the valid calls beside them served; the records read the ceiling's
// terms from the banner and the attack's figures.
func TestAllBudgetsSmall(t *testing.T) {
	bin := testBin(t)
	shape, _ := FloodShapeNamed(AllBudgets)
	cfg := DefaultFloodConfig(shape)
	cfg.Bin, cfg.Variants = bin, StatefulVariants()[:1]
	cfg.Sessions, cfg.Streams, cfg.IdleConns, cfg.Conns = 300, 20, 20, 40
	cfg.Hostile, cfg.HostileInFlight, cfg.ValidClients = 1, 4, 1
	cfg.Hold, cfg.ProbeEvery, cfg.Duration = 1500*time.Millisecond, 500*time.Millisecond, 2*time.Minute
	run, err := Flood(cfg, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	v := run.Variants[0]
	if v.Error != "" || v.Killed || v.Crashed || !v.ServedAfter || v.Sessions != cfg.Sessions || v.Streams != cfg.Streams ||
		v.StreamsAlive != cfg.Streams || v.IdleConns != cfg.IdleConns || v.Conns < cfg.Conns || !v.Ran(PhaseHostile) {
		t.Fatalf("%+v", v)
	}
	sent, unsent, refused, echoed, maxAnswer := v.attack().Hostile()
	valid, _ := v.attack().Shape(ValidShape)
	if sent != 8 || unsent != 0 || refused != sent || echoed != 0 || maxAnswer > TargetAnswerBytes || valid.Sent == 0 || valid.Outcomes[Served] != valid.Sent {
		t.Fatalf("attack: %d sent, %d unsent, %d refused, %d echoed, largest %d; valid %+v", sent, unsent, refused, echoed, maxAnswer, valid)
	}
	data, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := FloodRecords(data, "test", "all")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range recs {
		got[r.ID] = r.Value
	}
	ceiling, _ := ceilingOf(v.Banner)
	terms := 0.0
	for _, id := range []string{"in-flight-budget", "session-bytes", "conn-bytes"} {
		b, ok := got["load.all.guarded."+id]
		if !ok || b <= 0 {
			t.Errorf("%s: %v, %v", id, b, ok)
		}
		terms += b
	}
	if terms >= float64(ceiling) || float64(ceiling)-terms > 256<<20 {
		t.Errorf("the terms (%v) do not sum to the ceiling (%d) less a baseline", terms, ceiling)
	}
	for id, want := range map[string]float64{"hostile.echoed": 0, "hostile.unrefused": 0, "valid.served-fraction": 1, "idle-conns-held": float64(cfg.IdleConns)} {
		if g, ok := got["load.all.guarded."+id]; !ok || g != want {
			t.Errorf("%s = %v (%v), want %v", id, g, ok, want)
		}
	}
	if r, ok := got["load.all.guarded.peak-over-printed-ceiling"]; !ok || r <= 0 || r > 1 {
		t.Errorf("peak over ceiling %v, %v", r, ok)
	}
	if f, ok := got["load.all.guarded.rss-file-at-peak"]; !ok || f <= 0 {
		t.Errorf("file-backed RSS at the peak %v, %v", f, ok)
	}
	if _, ok := got["load.all.guarded.rss-per-conn"]; ok {
		t.Error("RSS per connection recorded for connections held beside the attack")
	}
}
