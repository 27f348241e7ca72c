package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/theurian/boundlab/load"
	loaddata "github.com/theurian/boundlab/results/load"
)

func init() {
	register(verb{
		name:    "load",
		summary: "drive serve as a child on loopback: peak RSS, echoes, latency",
		run:     runLoad,
	})
}

// loadJSON is `boundlab load --json`: the run and the targets' verdicts.
type loadJSON struct {
	*load.Run
	Targets []load.Verdict `json:"targets"`
}

const loadAbout = `Starts boundlab serve --stateless as a child process on 127.0.0.1, once per variant (guarded: serve's default, the front gate in front of the SDK; middleware-only: serve --front-gate=false), sends hostile tools/call requests just under the body cap (node-chains at the arguments' node bound), mixed over the shapes, with small valid calls beside them, and measures from outside: the child's peak RSS (VmHWM), every answer's size and whether it echoes the caller's bytes, statuses, resets, p50/p99 latency per shape, the valid calls served during the attack, and a valid call afterwards. The child is killed when its RSS passes the guard, and that is reported as a result. Given FILE (a run saved with --out) it reports that run instead. The pinned run is ` + "results/load/run.json" + `. Exit 1 when the guarded server misses a target of issue 9.`

func runLoad(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if f, ok := load.FloodShapeNamed(args[0]); ok {
			return runFlood(f, args[1:], stdin, stdout, stderr)
		}
	}
	c := newCommand("load", []string{"load [--variants LIST] [--out PATH] [--json] [flags]", "load [--json] FILE|-",
		"load FLOOD [flags]  (run `boundlab load FLOOD -h`)"},
		loadAbout+"\n\nThe shapes (--shapes):\n\n"+shapeList()+"\n\nThe floods (stateful serve; a run of their own):\n\n"+floodList()+
			"\n\nWhat the targets are and the pinned run's reading: docs/load.md. "+
			"--json prints one object: "+jsonFields(loadJSON{})+".")
	d := load.DefaultConfig()
	bin := c.String("bin", "", "the boundlab `PATH` to run as serve (default: go build this module's ./cmd/boundlab)")
	variants := c.String("variants", load.Guarded+","+load.MiddlewareOnly, "the servers under test, comma-separated")
	shapes := c.String("shapes", "", "the shapes to send, comma-separated (default: all)")
	conc := c.Int("concurrency", d.Concurrency, fmt.Sprintf("hostile requests in flight (at most %d)", load.MaxConcurrency))
	concMW := c.Int("concurrency-mw", 0, "hostile requests in flight for middleware-only (default: --concurrency)")
	requests := c.Int("requests", d.Requests, "requests per hostile shape")
	bodyBytes := c.Int("body-bytes", 0, "hostile body size in bytes (default: the cap serve prints, minus 1)")
	guardMiB := c.Int64("guard-mib", d.GuardBytes>>20, "kill the child when its VmRSS passes this many MiB")
	duration := c.Duration("duration", d.Duration, fmt.Sprintf("the attack's bound per variant (at most %v)", load.MaxDuration))
	protocol := c.String("protocol", d.Protocol, "none (no Mcp-Protocol-Version header) or 2026-07-28")
	validClients := c.Int("valid-clients", d.ValidClients, "small valid callers during the attack")
	trickles := c.Int("trickles", d.Trickles, "slow-trickle clients")
	trickleEvery := c.Duration("trickle-every", d.TrickleEvery, "a trickle client sends one byte per this")
	trickleFor := c.Duration("trickle-for", d.TrickleFor, "a trickle client gives up after this")
	out := c.String("out", "", "also save the run as JSON to `PATH` (the pinned one: "+loaddata.Runs()[0].File+")")
	asJSON := c.Bool("json", false, "print the run and the targets' verdicts as JSON")
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	var run *load.Run
	switch {
	case c.NArg() > 1:
		return c.usageError(stderr, "want at most one FILE, got %d arguments", c.NArg())
	case c.NArg() == 1:
		data, err := readInput(c.Arg(0), stdin)
		if err == nil {
			run, err = load.ParseRun(data)
		}
		if err != nil {
			return c.fail(stderr, err)
		}
	default:
		cfg := d
		cfg.Bin, cfg.Concurrency, cfg.Requests, cfg.BodyBytes = *bin, *conc, *requests, *bodyBytes
		cfg.Duration, cfg.Protocol, cfg.ValidClients = *duration, *protocol, *validClients
		cfg.Trickles, cfg.TrickleEvery, cfg.TrickleFor = *trickles, *trickleEvery, *trickleFor
		if err := loadConfig(&cfg, *variants, *shapes, *concMW, *guardMiB); err != nil {
			return c.usageError(stderr, "%v", err)
		}
		var err error
		if run, err = executeLoad(cfg, args, *out, stderr); err != nil {
			return c.fail(stderr, err)
		}
	}
	verdicts := run.Targets()
	var unmeasured [][2]string
	for _, v := range run.Variants {
		unmeasured = append(unmeasured, [2]string{v.Variant.Name, v.Error})
	}
	return c.verdicts(stdout, stderr, *asJSON, loadJSON{run, verdicts},
		func(w io.Writer) error { return load.WriteTable(w, run, verdicts) }, unmeasured, verdicts)
}

// verdicts ends a load verb: the run as doc (--json) or as its table, a line
// on stderr for each variant not measured (name, error; "" when measured),
// and exit 1 when a target is missed.
func (c *command) verdicts(stdout, stderr io.Writer, asJSON bool, doc any, table func(io.Writer) error, variants [][2]string, verdicts []load.Verdict) int {
	if asJSON {
		if err := writeJSON(stdout, doc); err != nil {
			return c.fail(stderr, err)
		}
	} else if err := table(stdout); err != nil {
		return c.fail(stderr, err)
	}
	for _, v := range variants {
		if v[1] != "" {
			fmt.Fprintf(stderr, "boundlab load: %s was not measured: %s\n", v[0], v[1])
		}
	}
	if !load.Met(verdicts) {
		return exitNo
	}
	return exitOK
}

func shapeList() string {
	var b strings.Builder
	for i, s := range load.Shapes() {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "  %-14s %s", s.Name, s.What)
	}
	return b.String()
}

// loadConfig applies the flags that need parsing and checks the whole config
// (with a stand-in binary name when the binary is still to be built).
func loadConfig(cfg *load.Config, variants, shapes string, concMW int, guardMiB int64) error {
	if guardMiB < 0 || guardMiB > 1<<30 {
		return fmt.Errorf("--guard-mib %d: out of range", guardMiB)
	}
	cfg.GuardBytes = guardMiB << 20
	if shapes != "" {
		cfg.Shapes = strings.Split(shapes, ",")
	}
	known := map[string]load.Variant{}
	for _, v := range load.Variants() {
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
	if concMW != 0 {
		cfg.VariantConcurrency = map[string]int{load.MiddlewareOnly: concMW}
	}
	chk := *cfg
	if chk.Bin == "" {
		chk.Bin = "boundlab"
	}
	return chk.Check()
}

// executeLoad builds the binary unless --bin named one, runs the lab and
// saves the run when --out asks.
func executeLoad(cfg load.Config, args []string, out string, stderr io.Writer) (*load.Run, error) {
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
	r, err := load.Execute(cfg, func(s string) { fmt.Fprintln(stderr, "boundlab load:", s) })
	if err != nil {
		return nil, err
	}
	r.Lab.Command = strings.TrimSpace("boundlab load " + strings.Join(args, " "))
	if commit != "" {
		r.Lab.Commit = commit // the child's build: this checkout
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
