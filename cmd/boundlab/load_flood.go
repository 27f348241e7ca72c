package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/theurian/boundlab/load"
)

// floodJSON is `boundlab load FLOOD --json`: the flood and the targets'
// verdicts.
type floodJSON struct {
	*load.FloodRun
	Targets []load.Verdict `json:"targets"`
}

func floodList() string {
	var b strings.Builder
	for i, s := range load.FloodShapes() {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "  %s: %d sessions, %d streams, %d connections", s.Name, s.Sessions, s.Streams, s.Conns+s.IdleConns)
		what := s.What
		if s.Hostile > 0 {
			what += fmt.Sprintf(" (%d at-cap requests of each hostile shape, %d in flight)", s.Hostile, s.HostileInFlight)
		}
		for _, line := range wrap(what, helpWidth, "      ") {
			b.WriteString("\n" + line)
		}
	}
	return b.String()
}

// runFlood is `boundlab load FLOOD`: a flood of state against a stateful
// serve, or, given FILE, a saved flood reported.
func runFlood(shape load.FloodShape, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("load "+shape.Name, []string{"load " + shape.Name + " [--sessions N] [--streams N] [--conns N]\n                [--out PATH] [flags]",
		"load " + shape.Name + " [--json] FILE|-"},
		"Starts boundlab serve (stateful: sessions, serve's default) as a child process on 127.0.0.1, once per variant "+
			"(guarded: the front gate; middleware-only: --front-gate=false), and floods it with state: sessions opened "+
			"and never closed, standalone GET streams held on the newest of them, idle keep-alive connections. Beside the "+
			"flood, a new client's whole conversation (initialize, notifications/initialized, tools/call) is timed every "+
			"--probe-every, and one more after it with everything still held. Measured from outside: the child's peak RSS "+
			"(VmHWM) and its VmRSS once a second, what it took and still holds, every refusal's status and Retry-After. "+
			"The child is killed when its VmRSS passes the guard, reported as \"killed at\". Exit 1 when the guarded server "+
			"misses a target of issue 24.\n\nThe floods:\n\n"+floodList())
	d := load.DefaultFloodConfig(shape)
	bin := c.String("bin", "", "the boundlab `PATH` to run as serve (default: go build this module's ./cmd/boundlab)")
	variants := c.String("variants", load.Guarded+","+load.MiddlewareOnly, "the servers under test, comma-separated")
	sessions := c.Int("sessions", d.Sessions, fmt.Sprintf("sessions to open (at most %d)", load.MaxFloodSessions))
	streams := c.Int("streams", d.Streams, "GET streams to hold, on the newest sessions (at most --sessions)")
	per := c.Int("streams-per-session", d.StreamsPerSession, fmt.Sprintf("GET streams asked of each streamed session (1 to %d)", load.MaxStreamsPer))
	conns := c.Int("conns", d.Conns, "connections to hold (idle keep-alive ones; with --header-bytes, unfinished requests)")
	headerBytes := c.Int("header-bytes", d.HeaderBytes, fmt.Sprintf("send this much of a header block on each held connection and never the rest (0: a whole GET, then idle; at most %d)", load.MaxFloodHeaderBytes))
	idle := c.Int("idle-conns", d.IdleConns, "with --header-bytes: idle keep-alive connections to hold beside, opened first")
	hostile := c.Int("hostile", d.Hostile, fmt.Sprintf("once everything is held: at-cap requests of each hostile shape of the attack mix (at most %d; 0: none)", load.MaxRequests))
	inFlight := c.Int("in-flight", d.HostileInFlight, fmt.Sprintf("hostile requests in flight at once (at most %d)", load.MaxConcurrency))
	validClients := c.Int("valid-clients", d.ValidClients, "clients sending valid 1 KB calls beside the hostile requests")
	conc := c.Int("concurrency", d.Concurrency, fmt.Sprintf("connections carrying the sessions' POSTs, and openers of streams and connections (at most %d)", load.MaxFloodConcurrency))
	hold := c.Duration("hold", d.Hold, "hold everything this long once open, new clients still timed")
	probeEvery := c.Duration("probe-every", d.ProbeEvery, "a new client's conversation this often")
	duration := c.Duration("duration", d.Duration, fmt.Sprintf("the flood's bound per variant (at most %v)", load.MaxFloodDuration))
	guardMiB := c.Int64("guard-mib", d.GuardBytes>>20, "kill the child when its VmRSS passes this many MiB")
	out := c.String("out", "", "also save the flood as JSON to `PATH`")
	asJSON := c.Bool("json", false, "print the flood and the targets' verdicts as JSON")
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	var run *load.FloodRun
	switch {
	case c.NArg() > 1:
		return c.usageError(stderr, "want at most one FILE, got %d arguments", c.NArg())
	case c.NArg() == 1:
		data, err := readInput(c.Arg(0), stdin)
		if err == nil {
			run, err = load.ParseFloodRun(data)
		}
		if err != nil {
			return c.fail(stderr, err)
		}
	default:
		cfg := d
		cfg.Bin, cfg.Sessions, cfg.Streams, cfg.StreamsPerSession, cfg.Conns = *bin, *sessions, *streams, *per, *conns
		cfg.HeaderBytes, cfg.IdleConns = *headerBytes, *idle
		cfg.Hostile, cfg.HostileInFlight, cfg.ValidClients = *hostile, *inFlight, *validClients
		cfg.Concurrency, cfg.Hold, cfg.ProbeEvery, cfg.Duration = *conc, *hold, *probeEvery, *duration
		if err := floodConfig(&cfg, *variants, *guardMiB); err != nil {
			return c.usageError(stderr, "%v", err)
		}
		var err error
		if run, err = executeFlood(cfg, shape.Name, args, *out, stderr); err != nil {
			return c.fail(stderr, err)
		}
	}
	verdicts := run.Targets()
	var unmeasured [][2]string
	for _, v := range run.Variants {
		unmeasured = append(unmeasured, [2]string{v.Variant.Name, v.Error})
	}
	return c.verdicts(stdout, stderr, *asJSON, floodJSON{run, verdicts},
		func(w io.Writer) error { return load.WriteFloodTable(w, run, verdicts) }, unmeasured, verdicts)
}

// floodConfig applies the flags that need parsing and checks the config.
func floodConfig(cfg *load.FloodConfig, variants string, guardMiB int64) error {
	if guardMiB < 0 || guardMiB > 1<<30 {
		return fmt.Errorf("--guard-mib %d: out of range", guardMiB)
	}
	cfg.GuardBytes = guardMiB << 20
	known := map[string]load.Variant{}
	for _, v := range load.StatefulVariants() {
		known[v.Name] = v
	}
	cfg.Variants = nil
	for _, n := range strings.Split(variants, ",") {
		v, ok := known[n]
		if !ok {
			return fmt.Errorf("unknown variant %q: want %s or %s", n, load.Guarded, load.MiddlewareOnly)
		}
		cfg.Variants = append(cfg.Variants, v)
	}
	chk := *cfg
	if chk.Bin == "" {
		chk.Bin = "boundlab"
	}
	return chk.Check()
}

// executeFlood builds the binary unless --bin named one, runs the flood and
// saves it when --out asks.
func executeFlood(cfg load.FloodConfig, shape string, args []string, out string, stderr io.Writer) (*load.FloodRun, error) {
	commit := ""
	if cfg.Bin == "" {
		root, err := moduleRoot()
		if err != nil {
			return nil, fmt.Errorf("%v (or name a binary with --bin)", err)
		}
		dir, err := os.MkdirTemp("", "boundlab-load-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		fmt.Fprintln(stderr, "boundlab load: building ./cmd/boundlab")
		if cfg.Bin, err = load.Build(context.Background(), root, dir); err != nil {
			return nil, err
		}
		commit = load.Commit(context.Background(), root)
	}
	r, err := load.Flood(cfg, func(s string) { fmt.Fprintln(stderr, "boundlab load:", s) })
	if err != nil {
		return nil, err
	}
	r.Lab.Command = strings.TrimSpace("boundlab load " + shape + " " + strings.Join(args, " "))
	if commit != "" {
		r.Lab.Commit = commit
	}
	if out != "" {
		data, err := json.MarshalIndent(r, "", "  ")
		if err == nil {
			err = os.WriteFile(out, append(data, '\n'), 0o644)
		}
		if err != nil {
			return nil, fmt.Errorf("--out: %w", err)
		}
	}
	return r, nil
}
