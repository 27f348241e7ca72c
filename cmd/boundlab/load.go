package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/theurian/boundlab/load"
)

func init() {
	register(verb{
		name:    "load",
		summary: "drive `serve` as a child process over loopback; measure its peak RSS, answers, latency",
		run:     runLoad,
	})
}

const loadUsage = `usage: boundlab load [flags]

Starts boundlab serve --stateless as a child process on 127.0.0.1 once per
variant, sends hostile at-cap tools/call requests mixed over the shapes with
small valid calls beside them, and measures from outside: peak RSS (VmHWM),
answer sizes and echoes of caller bytes, statuses, resets, p50/p99 latency,
the valid calls served, and a valid call afterwards. The child is killed if
its RSS passes the guard. Exit 1 when the guarded server misses a target of
issue 9, 2 on a usage error.

flags:
  --bin PATH          the boundlab binary to run (default: go build this
                      module's ./cmd/boundlab into a temporary directory)
  --variants LIST     guarded,middleware-only (serve's default; and
                      serve --front-gate=false)
  --shapes LIST       shapes to send (default: all); see below
  --concurrency N     hostile requests in flight (default 64, max 256)
  --concurrency-mw N  in flight for middleware-only (default: --concurrency)
  --requests N        requests per hostile shape (default 16)
  --body-bytes N      hostile body size (default 0: the printed cap - 1)
  --guard-mib N       kill the child when its VmRSS passes N MiB (4096)
  --duration D        the attack's bound per variant (default 60s, max 5m)
  --protocol P        none (no version header) or 2026-07-28
  --valid-clients N   small valid callers during the attack (default 2)
  --trickles N        slow-trickle clients (default 4)
  --trickle-every D   one byte per D (default 1s)
  --trickle-for D     a trickle client gives up after D (default 15s)
  --json              print the run and the targets' verdicts as JSON
  --out FILE          also save the run as JSON (results/load/run.json is
                      the pinned one)
  --from FILE         report a saved run instead of running

shapes:
`

type loadFlags struct {
	bin, variants, shapes, protocol, out, from string
	conc, concMW, requests, bodyBytes          int
	guardMiB                                   int64
	validClients, trickles                     int
	duration, trickleEvery, trickleFor         time.Duration
	asJSON                                     bool
}

func newLoadFlags() (*flag.FlagSet, *loadFlags) {
	d := load.DefaultConfig()
	f := &loadFlags{}
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.StringVar(&f.bin, "bin", "", "")
	fs.StringVar(&f.variants, "variants", load.Guarded+","+load.MiddlewareOnly, "")
	fs.StringVar(&f.shapes, "shapes", "", "")
	fs.IntVar(&f.conc, "concurrency", d.Concurrency, "")
	fs.IntVar(&f.concMW, "concurrency-mw", 0, "")
	fs.IntVar(&f.requests, "requests", d.Requests, "")
	fs.IntVar(&f.bodyBytes, "body-bytes", 0, "")
	fs.Int64Var(&f.guardMiB, "guard-mib", d.GuardBytes>>20, "")
	fs.DurationVar(&f.duration, "duration", d.Duration, "")
	fs.StringVar(&f.protocol, "protocol", d.Protocol, "")
	fs.IntVar(&f.validClients, "valid-clients", d.ValidClients, "")
	fs.IntVar(&f.trickles, "trickles", d.Trickles, "")
	fs.DurationVar(&f.trickleEvery, "trickle-every", d.TrickleEvery, "")
	fs.DurationVar(&f.trickleFor, "trickle-for", d.TrickleFor, "")
	fs.BoolVar(&f.asJSON, "json", false, "")
	fs.StringVar(&f.out, "out", "", "")
	fs.StringVar(&f.from, "from", "", "")
	return fs, f
}

func writeLoadUsage(w io.Writer) {
	fmt.Fprint(w, loadUsage)
	for _, s := range load.Shapes() {
		fmt.Fprintf(w, "  %-14s %s\n", s.Name, s.What)
	}
}

func runLoad(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs, f := newLoadFlags()
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeLoadUsage(stdout)
			return 0
		}
		fmt.Fprintln(stderr, "run `boundlab load -h` for the flags")
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "boundlab load: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	var run *load.Run
	if f.from != "" {
		data, err := os.ReadFile(f.from)
		if err == nil {
			run, err = load.ParseRun(data)
		}
		if err != nil {
			fmt.Fprintf(stderr, "boundlab load: %s: %v\n", f.from, err)
			return 1
		}
	} else {
		cfg, err := f.config()
		if err == nil {
			chk := cfg
			if chk.Bin == "" {
				chk.Bin = "boundlab" // built below, once the flags are known good
			}
			err = chk.Check()
		}
		if err != nil {
			fmt.Fprintf(stderr, "boundlab load: %v\n", err)
			return 2
		}
		if code := executeLoad(cfg, f, args, &run, stderr); code != 0 {
			return code
		}
	}
	return reportLoad(run, f, stdout, stderr)
}

func (f *loadFlags) config() (load.Config, error) {
	c := load.DefaultConfig()
	c.Bin, c.Concurrency, c.Requests, c.BodyBytes = f.bin, f.conc, f.requests, f.bodyBytes
	c.GuardBytes, c.Duration, c.Protocol = f.guardMiB<<20, f.duration, f.protocol
	c.ValidClients, c.Trickles, c.TrickleEvery, c.TrickleFor = f.validClients, f.trickles, f.trickleEvery, f.trickleFor
	if f.guardMiB < 0 || f.guardMiB > 1<<30 {
		return c, fmt.Errorf("--guard-mib %d: out of range", f.guardMiB)
	}
	if f.shapes != "" {
		c.Shapes = strings.Split(f.shapes, ",")
	}
	known := map[string]load.Variant{}
	for _, v := range load.Variants() {
		known[v.Name] = v
	}
	c.Variants = nil
	for _, n := range strings.Split(f.variants, ",") {
		v, ok := known[n]
		if !ok {
			return c, fmt.Errorf("unknown variant %q: want %s or %s", n, load.Guarded, load.MiddlewareOnly)
		}
		c.Variants = append(c.Variants, v)
	}
	if f.concMW != 0 {
		c.VariantConcurrency = map[string]int{load.MiddlewareOnly: f.concMW}
	}
	return c, nil
}

// executeLoad builds the binary unless --bin named one, runs the lab and
// saves the run when --out asks.
func executeLoad(cfg load.Config, f *loadFlags, args []string, run **load.Run, stderr io.Writer) int {
	if f.bin == "" {
		root, err := moduleRoot()
		if err != nil {
			fmt.Fprintf(stderr, "boundlab load: %v (or name a binary with --bin)\n", err)
			return 1
		}
		dir, err := os.MkdirTemp("", "boundlab-load-")
		if err != nil {
			fmt.Fprintf(stderr, "boundlab load: %v\n", err)
			return 1
		}
		defer os.RemoveAll(dir)
		fmt.Fprintln(stderr, "boundlab load: building ./cmd/boundlab")
		if cfg.Bin, err = load.Build(context.Background(), root, dir); err != nil {
			fmt.Fprintf(stderr, "boundlab load: %v\n", err)
			return 1
		}
	}
	r, err := load.Execute(cfg, func(s string) { fmt.Fprintln(stderr, "boundlab load:", s) })
	if err != nil {
		fmt.Fprintf(stderr, "boundlab load: %v\n", err)
		return 1
	}
	r.Lab.Command = "boundlab load " + strings.Join(args, " ")
	if f.out != "" {
		data, err := json.MarshalIndent(r, "", "  ")
		if err == nil {
			err = os.WriteFile(f.out, append(data, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "boundlab load: --out: %v\n", err)
			return 1
		}
	}
	*run = r
	return 0
}

func reportLoad(run *load.Run, f *loadFlags, stdout, stderr io.Writer) int {
	verdicts := run.Targets()
	if f.asJSON {
		out := struct {
			*load.Run
			Targets []load.Verdict `json:"targets"`
		}{run, verdicts}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "boundlab load: %v\n", err)
			return 1
		}
	} else if err := load.WriteTable(stdout, run, verdicts); err != nil {
		fmt.Fprintf(stderr, "boundlab load: %v\n", err)
		return 1
	}
	for _, v := range run.Variants {
		if v.Error != "" {
			fmt.Fprintf(stderr, "boundlab load: %s was not measured: %s\n", v.Variant.Name, v.Error)
		}
	}
	if !load.Met(verdicts) {
		return 1
	}
	return 0
}
