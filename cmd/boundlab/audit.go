package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/theurian/boundlab/audit"
)

func init() {
	register(verb{
		name:    "audit",
		summary: "probe any MCP server's input boundary and audit its schemas",
		run:     runAudit,
	})
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func runAudit(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("audit", []string{
		"audit --url URL [--header K:V]... [flags]",
		"audit [flags] --stdio CMD [ARGS...]",
		"audit --schemas DIR|FILE [flags]",
	}, "Measures an MCP server's input boundary from outside: the body cap and the deepest nesting "+
		"(by bisection), the echo of over-long values (answer bytes per request byte, per filler class), "+
		"unknown members, type mismatches, duplicate names, invalid UTF-8, lone surrogates, raw controls, "+
		"trailing bytes, 5.0 for an integer, a call before notifications/initialized and the refusal's "+
		"shape; and audits each tool's input schema statically (closure, unbounded places, the keywords "+
		"that render the instance into error text, the worst render at the cap). --schemas runs only the "+
		"static audit: on a DIR of *.schema.json files, read exactly as validate --schemas reads it (mcpvalidate's "+
		"schema-file contract; each tool's schema bundled with the fragments it references; any problem refuses "+
		"the directory), or on a FILE holding a saved tools/list answer (the JSON-RPC response, its result, or an "+
		"array of tools), each schema audited as listed."+
		"\n\nProbes call tools with arguments their schema should refuse. Only tools annotated "+
		"readOnlyHint: true and tools named with --tool are called; --all-tools calls every tool. "+
		"The report lists what was skipped and why. Every probe value carries a canary (from --seed) "+
		"so an echo is found byte for byte."+
		"\n\nExit status: 0 no finding of at least the --fail-on severity (notes alone pass by default: they are "+
		"reported, not failed), 1 a warning or an error (with --fail-on note: any finding; with --fail-on error: "+
		"an error), 2 a usage or target error. --format sarif is for CI (GitHub code scanning: a finding stands at "+
		"the server's artifact, or with --schemas at its schema file; the driver's version is the build's). Every "+
		"flag, field and rule, and the reports of real servers: docs/audit.md.")
	url := c.String("url", "", "the server's streamable HTTP endpoint")
	targets := c.String("targets", "", "audit each server a census list `FILE` names (a JSON array of {name, url | stdio, env...}; docs/census.md) into one table")
	sarifDir := c.String("sarif-dir", "", "with --targets: write each server's SARIF into `DIR` as NAME.sarif")
	var headers, tools, skip, callArgs listFlag
	c.Var(&headers, "header", "an HTTP header `K:V` to send with every request (repeatable)")
	stdio := c.Bool("stdio", false, "spawn CMD ARGS... and speak newline-delimited JSON-RPC on its stdin/stdout")
	schemas := c.String("schemas", "", "audit the schemas in `PATH` statically: a DIR of *.schema.json files or a saved tools/list answer")
	c.Var(&tools, "tool", "also call the tool `NAME` (repeatable)")
	c.Var(&skip, "skip", "never call the tool `NAME` (repeatable)")
	c.Var(&callArgs, "call", "a valid call `TOOL=JSON` (the tool's arguments, a JSON object): the tool's baseline instead of one built from its schema, and the tool is called (repeatable)")
	callsFile := c.String("calls", "", "a `FILE` of valid calls: a JSON array of tools/call params, {\"name\": TOOL, \"arguments\": {...}} each; as --call")
	sessions := c.Int("sessions", 0, "with --url: open at most `N` sessions at once to find a session cap, closing each with DELETE (0: not probed)")
	allTools := c.Bool("all-tools", false, "call every tool, whatever its annotations")
	memory := c.Bool("memory", false, "with --stdio or --targets: read each stdio server's peak resident set (VmHWM) before and after one message at the body cap, on a fresh process (boundary.memory, BLA022)")
	format := c.String("format", "text", "output: text, json, sarif (SARIF 2.1.0) or ndjson (one finding a line)")
	asJSON := c.Bool("json", false, "the same as --format json")
	staticCap := c.Int64("cap", 0, "with --schemas: the body cap the figures are taken at (0: the 25 MiB mcpvalidate derives)")
	seed := c.Uint64("seed", 1, "the seed of the canary and the probe ids")
	l := audit.DefaultLimits()
	bodyCeiling := c.Int64("body-ceiling", l.BodyCeiling, "the largest body the cap bisection sends, in bytes")
	depthCeiling := c.Int("depth-ceiling", l.DepthCeiling, "the deepest nesting the depth bisection sends")
	echoBytes := c.Int("echo-bytes", l.EchoBytes, "filler bytes in one over-long value")
	timeout := c.Duration("timeout", l.Timeout, "the time one request may take")
	maxRequests := c.Int("max-requests", l.MaxRequests, "the most requests one run sends")
	failOn := c.String("fail-on", audit.DefaultFailOn, "the least severity that makes the exit status 1: note (any finding), warning (the default: notes pass) or error")
	verbose := c.Bool("verbose", false, "name each probe on stderr as it starts (a tool by its name, quoted)")
	quiet := c.Bool("quiet", false, "no progress on stderr (by default a run still going after "+progressAfter.String()+" says its phase and tool there)")
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	if *asJSON {
		*format = "json"
	}
	write, ok := map[string]func(io.Writer, *audit.Report) error{
		"text": audit.WriteText, "json": audit.WriteJSON, "sarif": audit.SARIFWriter(*schemas), "ndjson": audit.WriteNDJSON}[*format]
	if !ok {
		return c.usageError(stderr, "--format is text, json, sarif or ndjson")
	}
	if !slices.Contains([]string{audit.SeverityError, audit.SeverityWarning, audit.SeverityNote}, *failOn) {
		return c.usageError(stderr, "--fail-on is error, warning or note")
	}
	l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout, l.MaxRequests = *bodyCeiling, *depthCeiling, *echoBytes, *timeout, *maxRequests
	if l.BodyCeiling < 2<<10 || l.DepthCeiling < 3 || l.EchoBytes < 1 || l.Timeout <= 0 || l.MaxRequests < 1 {
		return c.usageError(stderr, "a ceiling, size, timeout or count is too small")
	}
	cfg := audit.Config{Call: tools, Skip: skip, AllTools: *allTools, Seed: *seed, Limits: l, Cap: *staticCap, Sessions: *sessions, Memory: *memory}
	examples, err := auditExamples(*callsFile, callArgs)
	if err != nil {
		return c.usageError(stderr, "%v", err)
	}
	cfg.Examples = examples
	if *sessions < 0 || *sessions > audit.MaxSessions || (*sessions > 0 && *url == "") {
		return c.usageError(stderr, "--sessions takes 0 to %d, with --url", audit.MaxSessions)
	}
	if *memory && !*stdio && *targets == "" {
		return c.usageError(stderr, "--memory reads a stdio server's process: it takes --stdio or --targets")
	}
	if *targets != "" || *sarifDir != "" {
		if *targets == "" || *url != "" || *stdio || *schemas != "" || c.NArg() > 0 || *sessions > 0 || len(tools)+len(skip)+len(callArgs) > 0 || *callsFile != "" || *allTools {
			return c.usageError(stderr, "--targets takes the servers and their tools from its list: no --url, --stdio, --schemas, --sessions, --tool, --skip, --call, --calls or --all-tools beside it; --sarif-dir needs --targets")
		}
		if *verbose && *quiet {
			return c.usageError(stderr, "--verbose and --quiet contradict each other")
		}
		if *format == "sarif" {
			return c.usageError(stderr, "--targets writes a SARIF log per server with --sarif-dir DIR, not one on stdout")
		}
		return runCensus(c, cfg, *targets, *sarifDir, *format, *failOn, *verbose, *quiet, stdout, stderr)
	}
	target, err := auditTarget(*url, headers, *stdio, *schemas, c.Args())
	if err != nil {
		return c.usageError(stderr, "%v", err)
	}
	cfg.Target = target
	switch {
	case *verbose && *quiet:
		return c.usageError(stderr, "--verbose and --quiet contradict each other")
	case *verbose:
		cfg.Progress = func(p audit.Progress) { fmt.Fprintf(stderr, "boundlab audit: %s\n", quoteStep(p.Step)) }
	case !*quiet && target != nil:
		cfg.Progress = newProgressLines(stderr, time.Now).tell
	}
	if *schemas != "" {
		if cfg.Tools, err = audit.LoadSchemas(*schemas); err != nil {
			return c.fail(stderr, err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := audit.Run(ctx, cfg)
	if err != nil {
		return c.fail(stderr, err)
	}
	if err := write(stdout, rep); err != nil {
		return c.fail(stderr, err)
	}
	if audit.Fails(rep.Findings, *failOn) {
		return exitNo
	}
	return exitOK
}

// auditExamples reads --calls FILE, then each --call TOOL=JSON over it.
func auditExamples(file string, calls []string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	if file != "" {
		var err error
		if out, err = audit.ReadCalls(file); err != nil {
			return nil, err
		}
	}
	for _, c := range calls {
		name, args, err := audit.ParseCall(c)
		if err != nil {
			return nil, err
		}
		out[name] = args
	}
	if len(out) > audit.MaxExamples {
		return nil, fmt.Errorf("%d example calls, past the %d one run takes", len(out), audit.MaxExamples)
	}
	return out, nil
}

// auditTarget builds the one target the flags name.
func auditTarget(url string, headers []string, stdio bool, schemas string, rest []string) (audit.Target, error) {
	n := 0
	for _, set := range []bool{url != "", stdio, schemas != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, errors.New("name exactly one of --url, --stdio and --schemas")
	}
	switch {
	case stdio:
		if len(rest) == 0 {
			return nil, errors.New("--stdio needs a command")
		}
		return &audit.Stdio{Command: rest[0], Args: rest[1:]}, nil
	case len(rest) > 0:
		return nil, fmt.Errorf("unexpected argument %q", rest[0])
	case schemas != "":
		return nil, nil
	}
	h := http.Header{}
	for _, kv := range headers {
		k, v, ok := strings.Cut(kv, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, errors.New("--header takes K:V")
		}
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return &audit.HTTP{URL: url, Header: h}, nil
}

// progressAfter is how long a run goes before it says where it is: a short
// audit (a static one, a server of a few tools) prints nothing but its
// report.
const progressAfter = 3 * time.Second

// progressLines writes one line on stderr each time a run that has gone
// on past progressAfter enters a phase or, in the per-tool phases, a tool:
// at most the phases plus twice the tools called, never a byte the server
// sent (a tool is its place in the list).
type progressLines struct {
	w     io.Writer
	now   func() time.Time
	start time.Time
	last  audit.Progress // the phase and tool of the last line, or of the last step before the first
}

func newProgressLines(w io.Writer, now func() time.Time) *progressLines {
	return &progressLines{w: w, now: now, start: now()}
}

func (p *progressLines) tell(pr audit.Progress) {
	same := pr.Phase == p.last.Phase && pr.Tool == p.last.Tool
	p.last = pr
	took := p.now().Sub(p.start)
	if same || took < progressAfter {
		return
	}
	where := pr.Phase
	if pr.Tool > 0 {
		where += fmt.Sprintf(", tool %d of %d", pr.Tool, pr.Tools)
	}
	fmt.Fprintf(p.w, "boundlab audit: %.0f s, %d requests: %s\n", took.Seconds(), pr.Requests, where)
}

// quoteStep is a probe's name for --verbose: quoted in ASCII and cut, so a
// tool name the server chose cannot write to the terminal.
func quoteStep(step string) string {
	const most = 200
	if len(step) > most {
		cut := most
		for cut > 0 && !utf8.RuneStart(step[cut]) {
			cut--
		}
		step = step[:cut] + "..."
	}
	return strconv.QuoteToASCII(step)
}

// runCensus audits each server of a census list in turn and writes the
// table (or the census as JSON, or every finding as NDJSON), and each
// server's SARIF into sarifDir. Exit status: 2 when a server could not be
// audited, else 1 when one has a finding of at least failOn.
func runCensus(c *command, cfg audit.Config, list, sarifDir, format, failOn string, verbose, quiet bool, stdout, stderr io.Writer) int {
	targets, err := audit.ReadCensus(list)
	if err != nil {
		return c.usageError(stderr, "--targets: %v", err)
	}
	if sarifDir != "" {
		if err := os.MkdirAll(sarifDir, 0o755); err != nil {
			return c.fail(stderr, err)
		}
	}
	var lines *progressLines
	started := func(i int, name string) {
		if !quiet {
			// the name is the list's, not the server's
			fmt.Fprintf(stderr, "boundlab audit: server %d of %d: %s\n", i+1, len(targets), name)
		}
		if !quiet && !verbose {
			lines = newProgressLines(stderr, time.Now)
		}
	}
	switch {
	case verbose:
		cfg.Progress = func(p audit.Progress) { fmt.Fprintf(stderr, "boundlab audit: %s\n", quoteStep(p.Step)) }
	case !quiet:
		cfg.Progress = func(p audit.Progress) { lines.tell(p) }
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	census := audit.RunCensus(ctx, targets, cfg, started)
	code := exitOK
	for _, s := range census.Servers {
		if s.Report == nil {
			fmt.Fprintf(stderr, "boundlab audit: %s: %s\n", s.Name, s.Error)
			code = exitUsage
			continue
		}
		if sarifDir != "" {
			if err := writeWhole(filepath.Join(sarifDir, s.Name+".sarif"), func(w io.Writer) error { return audit.WriteSARIF(w, s.Report) }); err != nil {
				return c.fail(stderr, err)
			}
		}
		if code == exitOK && audit.Fails(s.Report.Findings, failOn) {
			code = exitNo
		}
	}
	switch format {
	case "json":
		err = audit.WriteCensusJSON(stdout, census)
	case "ndjson":
		for _, s := range census.Servers {
			if s.Report != nil && err == nil {
				err = audit.WriteNDJSON(stdout, s.Report)
			}
		}
	default:
		err = audit.WriteCensusText(stdout, census)
	}
	if err != nil {
		return c.fail(stderr, err)
	}
	return code
}

// writeWhole writes path through write, whole or not at all.
func writeWhole(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
