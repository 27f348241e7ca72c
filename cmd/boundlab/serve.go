package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/bounds"

	// The go-sdk residual records (producer mcpvalidate-residuals), for
	// derive/verify.
	_ "github.com/theurian/boundlab/internal/residuals"
)

func init() {
	register(verb{
		name:    "serve",
		summary: "run the demo MCP server behind the mcpvalidate middleware",
		run:     runServe,
	})
}

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("serve", []string{"serve [--addr HOST:PORT] [--go-clients] [--stateless] [--json]\n" +
		"                [--front-gate=false | --in-flight-budget SIZE\n" +
		"                 --session-bytes SIZE --conn-bytes SIZE] [LIMITS]",
		"serve --stdio [--go-clients] [--front-gate=false] [LIMITS]"},
		"Serves the seven demo tools over MCP streamable HTTP at http://ADDR/mcp; every tools/call is validated "+
			"against its published schema first. Logs go to stderr and never carry a caller value. Stop with Ctrl-C.\n\n"+
			"The tools: "+strings.Join(demo.ToolNames(), ", ")+", over a small in-memory store with a project demo. "+
			"docs/mcpvalidate.md has a curl session and, for protocol 2026-07-28 (--stateless), a tested one with the "+
			"headers and params._meta that revision requires. --json announces the server as "+jsonFields(serveAnnouncement{})+".\n\n"+
			"--stdio serves the same tools over stdin and stdout instead (newline-delimited JSON-RPC, as an MCP client "+
			"starts a server): each line is bounded by the frame cap (the body cap) and scanned by the front gate before the "+
			"SDK reads it, and a line it refuses is answered on stdout while the session goes on. The announcement goes to "+
			"stderr.\n\n"+
			"With LIMITS the validator and the front gate enforce them, and the body cap is derived from them. --budget is "+
			"the render budget here as in every verb; the front gate's memory budget is --in-flight-budget.\n\n"+
			"With the front gate, what requests leave behind is bounded too: sessions and their GET streams by --session-bytes "+
			"(idle sessions closed least recently used first to admit new ones), open connections by --conn-bytes (idle "+
			"keep-alive connections closed first). The memory ceiling printed is the sum of the three and a baseline.\n\n"+limitsAbout)
	addr := c.String("addr", "127.0.0.1:8080", "address to listen on")
	goClients := c.Bool("go-clients", false, "size the body cap for Go encoding/json clients too (multiplier 6, not 3)")
	stdio := c.Bool("stdio", false, "serve over stdin and stdout instead of HTTP")
	stateless := c.Bool("stateless", false, "serve statelessly (no sessions), which protocol 2026-07-28 needs over HTTP")
	asJSON := c.Bool("json", false, "announce the server as one JSON object and log JSON lines")
	frontGate := c.Bool("front-gate", true, "bound the whole request before the SDK reads it (false: middleware only)")
	inflight := &sizeFlag{}
	c.Var(inflight, "in-flight-budget", "the front gate's in-flight memory budget, a `SIZE` (default: one request at the body cap + 32 MiB)")
	sessions := &sizeFlag{}
	c.Var(sessions, "session-bytes", "the memory sessions and their GET streams may hold, a `SIZE` (default "+formatSize(bounds.DefaultSessionBytes)+"; stateful only)")
	conns := &sizeFlag{}
	c.Var(conns, "conn-bytes", "the memory open connections may hold, a `SIZE` (default "+formatSize(bounds.DefaultConnBytes)+")")
	lf := addLimitFlags(c)
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	l, err := lf.resolve()
	if err != nil {
		return c.limitsError(stderr, err)
	}
	if inflight.err != nil {
		return c.limitsError(stderr, fmt.Errorf("--in-flight-budget: %w", inflight.err))
	}
	if sessions.err != nil {
		return c.limitsError(stderr, fmt.Errorf("--session-bytes: %w", sessions.err))
	}
	if conns.err != nil {
		return c.limitsError(stderr, fmt.Errorf("--conn-bytes: %w", conns.err))
	}
	if c.NArg() != 0 {
		return c.usageError(stderr, "unexpected argument %q", c.Arg(0))
	}
	if *stdio {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := serveStdio(ctx, stdin, stdout, stderr, serveOptions{goClients: *goClients, frontGate: *frontGate, json: *asJSON, limits: l}); err != nil {
			return c.fail(stderr, err)
		}
		return exitOK
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return c.fail(stderr, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serveOn(ctx, ln, serveOptions{goClients: *goClients, stateless: *stateless, json: *asJSON,
		frontGate: *frontGate, budget: inflight.v, sessionBytes: sessions.v, connBytes: conns.v, limits: l}, stdout, stderr); err != nil {
		return c.fail(stderr, err)
	}
	return exitOK
}

type serveOptions struct {
	goClients bool  // body cap for Go encoding/json clients too
	stateless bool  // no sessions; protocol 2026-07-28 needs it over HTTP
	json      bool  // announce as JSON, log JSON lines
	frontGate bool  // the front gate in front of the SDK
	budget    int64 // its in-flight budget, bytes
	// What requests leave behind, bytes (0: the defaults): sessions and their
	// streams, open connections.
	sessionBytes int64
	connBytes    int64
	limits       charge.Limits
}

// serveAnnouncement is what `boundlab serve --json` prints on stdout.
type serveAnnouncement struct {
	URL                 string   `json:"url"`
	Tools               []string `json:"tools"`
	MaxRequestBodyBytes int64    `json:"max_request_body_bytes"`
	FrontGate           bool     `json:"front_gate"`
	BudgetBytes         int64    `json:"budget_bytes,omitempty"`  // in flight
	SessionBytes        int64    `json:"session_bytes,omitempty"` // sessions and their streams (stateful)
	ConnBytes           int64    `json:"conn_bytes,omitempty"`    // open connections
	BaselineBytes       int64    `json:"baseline_bytes,omitempty"`
	CeilingBytes        int64    `json:"ceiling_bytes,omitempty"` // the sum
}

// serveOn serves the demo on ln until ctx ends. Logs go to stderr and never
// carry a caller value: a tool name only once it resolved to a published
// schema, otherwise lengths, stages, bounds and counts.
func serveOn(ctx context.Context, ln net.Listener, so serveOptions, stdout, stderr io.Writer) error {
	var handler slog.Handler = slog.NewTextHandler(stderr, nil)
	if so.json {
		handler = slog.NewJSONHandler(stderr, nil)
	}
	log := slog.New(handler)
	opts := &mcpvalidate.Options{Limits: &so.limits, GoClients: so.goClients, OnRefusal: func(_ context.Context, r *mcpvalidate.Refusal) {
		if r.Stage == mcpvalidate.StageRequest {
			log.Info("request refused at the front gate", "status", r.Status, "bound", r.Bound, "where_bytes", len(r.Where))
			return
		}
		log.Info("tools/call refused", "tool_bytes", len(r.Tool), "stage", r.Stage.String(), "bound", r.Bound, "status", r.Status)
	}}
	v, err := demo.NewValidator(opts)
	if err != nil {
		return err
	}
	// Inside the validator: only admitted calls reach it, so the tool name
	// is a published one.
	served := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if call, ok := req.(*mcp.CallToolRequest); ok {
				isErr := false
				if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
					isErr = r.IsError
				}
				log.Info("tools/call served", "tool", call.Params.Name, "args_bytes", len(call.Params.Arguments), "is_error", isErr, "protocol_error", err != nil)
			}
			return res, err
		}
	}
	srv, err := demo.NewServer(v, demo.Options{Inner: []mcp.Middleware{served}})
	if err != nil {
		return err
	}
	ann := serveAnnouncement{URL: "http://" + ln.Addr().String() + demo.Path, Tools: v.ToolNames(),
		MaxRequestBodyBytes: v.MaxBodyBytes(), FrontGate: so.frontGate}
	hs := &http.Server{}
	if so.frontGate {
		// Exactly what an adopter runs: v.Handler (demo.Guarded mounts it at
		// demo.Path), then Harden.
		var h *mcpvalidate.Handler
		hs.Handler, h, err = demo.Guarded(v, srv, &mcpvalidate.HTTPOptions{Stateless: so.stateless,
			InFlightBytes: so.budget, SessionBytes: so.sessionBytes, ConnBytes: so.connBytes}, nil)
		if err != nil {
			return err
		}
		if ln, err = h.Harden(hs, ln); err != nil {
			return err
		}
		o := h.Options()
		ann.BudgetBytes, ann.SessionBytes, ann.BaselineBytes = o.InFlightBytes, o.SessionBytes, bounds.Baseline
		ann.ConnBytes = o.ConnBytes / bounds.ConnCost * bounds.ConnCost
		ann.CeilingBytes = h.Ceiling()
	} else {
		var hopts *mcp.StreamableHTTPOptions
		if so.stateless {
			hopts = demo.Stateless()
		}
		hs.Handler = demo.Handler(v, srv, hopts)
		hs.MaxHeaderBytes, hs.ReadHeaderTimeout, hs.IdleTimeout = bounds.MaxHeaderBytes, bounds.ReadHeaderTimeout, bounds.ConnIdleTimeout
	}
	url := ann.URL
	if so.json {
		writeJSON(stdout, ann)
	} else {
		bc := charge.BodyCap(so.limits, serveEncoders(so.goClients)...)
		fmt.Fprintf(stdout, "boundlab serve: MCP streamable HTTP at %s\n", url)
		fmt.Fprintf(stdout, "  tools: %v\n", v.ToolNames())
		fmt.Fprintf(stdout, "  body cap: %d bytes (multiplier %s over %v)\n", v.MaxBodyBytes(), bc.Multiplier.RatString(), bc.Encoders)
		if so.frontGate {
			fmt.Fprintf(stdout, "  front gate: in-flight budget %d bytes (a request weighs %d + %dx its body + %d per node it can hold)\n",
				ann.BudgetBytes, bounds.FixedCost, bounds.PeakFactor, bounds.NodeCost)
			if ann.SessionBytes > 0 {
				fmt.Fprintf(stdout, "  sessions: %d bytes (%d sessions with a stream each at %d + %d; idle ones closed least recently used first, after %v idle at the latest)\n",
					ann.SessionBytes, ann.SessionBytes/(bounds.SessionCost+bounds.StreamCost), bounds.SessionCost, bounds.StreamCost, bounds.DefaultSessionIdle)
			}
			fmt.Fprintf(stdout, "  connections: %d bytes (%d at %d each; idle ones closed first)\n", ann.ConnBytes, ann.ConnBytes/bounds.ConnCost, bounds.ConnCost)
			fmt.Fprintf(stdout, "  memory ceiling: %d bytes (in-flight + sessions + connections + %d baseline); Go runtime memory limit set to it less the executable's size\n", ann.CeilingBytes, int64(bounds.Baseline))
		} else {
			fmt.Fprintln(stdout, "  front gate: off (the SDK reads every body; no in-flight bound)")
		}
	}
	log.Info("serving", "url", url, "tools", len(v.ToolNames()), "max_request_body_bytes", v.MaxBodyBytes())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = hs.Shutdown(shut)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close() // streams left open by clients
	}
	log.Info("stopped")
	return err
}

// serveEncoders are the client encoder families serve's body cap admits.
func serveEncoders(goClients bool) []charge.Encoder {
	if goClients {
		return []charge.Encoder{charge.EnsureASCII, charge.Raw, charge.GoJSON}
	}
	return []charge.Encoder{charge.EnsureASCII, charge.Raw}
}

// serveStdio serves the demo over in and out until in ends or ctx does:
// through the gated stdio transport with the front gate, the SDK's own
// (with the frame cap raised to the body cap) without it. The announcement
// and the logs go to stderr; out carries the protocol alone.
func serveStdio(ctx context.Context, in io.Reader, out, stderr io.Writer, so serveOptions) error {
	var handler slog.Handler = slog.NewTextHandler(stderr, nil)
	if so.json {
		handler = slog.NewJSONHandler(stderr, nil)
	}
	log := slog.New(handler)
	v, err := demo.NewValidator(&mcpvalidate.Options{Limits: &so.limits, GoClients: so.goClients,
		OnRefusal: func(_ context.Context, r *mcpvalidate.Refusal) {
			log.Info("refused", "stage", r.Stage.String(), "bound", r.Bound, "tool_bytes", len(r.Tool))
		}})
	if err != nil {
		return err
	}
	srv, err := demo.NewServer(v, demo.Options{})
	if err != nil {
		return err
	}
	var t mcp.Transport = v.StdioTransport(in, out)
	if !so.frontGate {
		t = &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}, MaxLineLength: int(v.MaxBodyBytes()) + 2}
	}
	// The memory stated is the connection's (its in-flight budget, the line
	// the gate holds, the SDK's line buffer) and what the process holds
	// besides; the gated transport sets the runtime's soft limit to it.
	ceiling := bounds.Stdio(v.MaxBodyBytes(), so.limits) + bounds.Baseline
	log.Info("serving over stdio", "tools", len(v.ToolNames()), "frame_cap_bytes", v.MaxBodyBytes(),
		"memory_ceiling_bytes", ceiling, "front_gate", so.frontGate)
	err = srv.Run(ctx, t)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		err = nil
	}
	log.Info("stopped")
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
