package strangers

import (
	"context"
	"embed"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/internal/cachedir"
	"github.com/theurian/boundlab/internal/child"
	"github.com/theurian/boundlab/internal/labmodule"
	"github.com/theurian/boundlab/internal/npminstall"
	"github.com/theurian/boundlab/internal/residuals"
	"github.com/theurian/boundlab/load"
	"github.com/theurian/boundlab/results"
)

//go:embed typescript/server.mjs python/server.py
var files embed.FS

// Seed is the seed of every stranger's audit (the in-process records' too).
const Seed = 7

// PythonEnv names the environment variable that names a Python interpreter
// with the official MCP SDK importable (`python -c "import mcp"`): no
// Python package index is reachable from every lab, so the lab never
// installs it.
const PythonEnv = "BOUNDLAB_PYTHON_MCP"

// TypeScriptSDK is the @modelcontextprotocol/sdk version the TypeScript
// stranger is installed at.
const TypeScriptSDK = "1.32.2"

// Runtimes: what a stranger needs, and the producer its records belong to.
const (
	RuntimeGo         = "go"
	RuntimeTypeScript = "typescript"
	RuntimePython     = "python"
)

// Stranger is one server nobody here wrote.
type Stranger struct {
	// Key is its record-id key (audit.stranger.KEY.*).
	Key string
	// Name says what runs: SDK, version, wiring, transport.
	Name    string
	Runtime string
	// Call names tools to call beyond the read-only ones (boundlab serve's
	// demo tools carry no annotations).
	Call []string
	// start prepares and starts it (building, installing, spawning) and
	// returns the target and what ends it; an error that is a
	// results.Unavailable means the runtime is absent here.
	start func(ctx context.Context, work string) (audit.Target, func() error, error)
}

// Strangers are the servers audited, in the order the docs list them: first
// `boundlab serve` itself (the baseline they stand beside, a child built
// from the module and run as a user runs it), then the strangers.
func Strangers() []Stranger {
	return []Stranger{
		{Key: "boundlab-serve", Name: "`boundlab serve` (its defaults: the demo's seven tools behind mcpvalidate and its front gate, stateful), a child on 127.0.0.1",
			Runtime: RuntimeGo, Call: residuals.Calls, start: serveChild},
		{Key: "go-sdk", Name: "github.com/modelcontextprotocol/go-sdk v1.8.0 bare: two read-only typed tools (mcp.AddTool), the default streamable HTTP handler, a child on 127.0.0.1",
			Runtime: RuntimeGo, start: goChild("gosdk")},
		{Key: "go-sdk-stdio", Name: "github.com/modelcontextprotocol/go-sdk v1.8.0 bare over stdio: the same two tools on mcp.StdioTransport, a process per session under ulimit -v",
			Runtime: RuntimeGo, start: goStdio("gosdk")},
		{Key: "go-sdk-stdio-guarded", Name: "the go-sdk v1.8.0 stdio stranger guarded: the same server and tools, mcpvalidate.Install and its StdioTransport in place of mcp.StdioTransport, a process per session under ulimit -v",
			Runtime: RuntimeGo, start: goStdio("gosdk", "-gate")},
		{Key: "boundlab-serve-stdio", Name: "`boundlab serve --stdio` (its defaults: the demo's seven tools behind mcpvalidate, its gated stdio transport in front), a process per session under ulimit -v",
			Runtime: RuntimeGo, Call: residuals.Calls, start: serveStdio("--stdio")},
		{Key: "boundlab-serve-stdio-bare", Name: "`boundlab serve --stdio --front-gate=false` (the demo's tools behind mcpvalidate's middleware, the go-sdk's bare IOTransport), a process per session under ulimit -v",
			Runtime: RuntimeGo, Call: residuals.Calls, start: serveStdio("--stdio", "--front-gate=false")},
		{Key: "mcp-go", Name: "github.com/mark3labs/mcp-go v1.2.1: two read-only tools, its StreamableHTTPServer, no validator, a child on 127.0.0.1",
			Runtime: RuntimeGo, start: goChild("mcpgo")},
		{Key: "mcp-go-stdio", Name: "github.com/mark3labs/mcp-go v1.2.1 over stdio: the same two tools on its StdioServer, no validator, a process per session under ulimit -v",
			Runtime: RuntimeGo, start: goStdio("mcpgo")},
		{Key: "mcp-go-stdio-guarded", Name: "the mcp-go v1.2.1 stdio stranger guarded: mark3labs.Install and mark3labs.ListenStdio in front of its StdioServer, a process per session under ulimit -v",
			Runtime: RuntimeGo, start: goStdio("mcpgo", "-gate")},
		{Key: "typescript", Name: "@modelcontextprotocol/sdk " + TypeScriptSDK + " (node): two read-only zod tools, createMcpExpressApp and a stateful StreamableHTTPServerTransport, a child on 127.0.0.1",
			Runtime: RuntimeTypeScript, start: tsChild},
		{Key: "python-http", Name: "the official Python SDK (`mcp`, the interpreter " + PythonEnv + " names): two read-only tools, streamable HTTP, a child on 127.0.0.1",
			Runtime: RuntimePython, start: pythonHTTP},
		{Key: "python-stdio", Name: "the official Python SDK (`mcp`, the interpreter " + PythonEnv + " names): two read-only tools over stdio, a process per session under ulimit -v",
			Runtime: RuntimePython, start: pythonStdio},
	}
}

// Start prepares and starts s (building, installing, spawning) in the
// directory work and returns its target and what stops it; an error that is
// a results.Unavailable means its runtime is absent here.
func (s Stranger) Start(ctx context.Context, work string) (audit.Target, func() error, error) {
	return s.start(ctx, work)
}

// Lookup is the stranger whose Key is key.
func Lookup(key string) (Stranger, bool) {
	for _, s := range Strangers() {
		if s.Key == key {
			return s, true
		}
	}
	return Stranger{}, false
}

// Result is one stranger's audit and, for an HTTP server, the direct
// measurements taken beside it.
type Result struct {
	Report *audit.Report
	// UnknownTool and Params are the direct echo measurements
	// (UnknownToolEcho, ParamsEcho); nil over stdio.
	UnknownTool, Params *Echo
}

// Audit runs s as a child and audits it (seed Seed, the default limits,
// its read-only tools called), measures its echoes directly when it speaks
// HTTP, then stops it. An Unavailable error (the runtime absent) is
// returned wrapped; a child the RSS guard killed is an error.
func Audit(ctx context.Context, s Stranger) (*Result, error) {
	work, err := os.MkdirTemp("", "boundlab-stranger-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	target, stop, err := s.start(ctx, work)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Key, err)
	}
	res := &Result{}
	res.Report, err = audit.Run(ctx, audit.Config{Target: target, Seed: Seed, Call: s.Call})
	if h, ok := target.(*audit.HTTP); ok && err == nil {
		var u, p Echo
		if u, err = UnknownToolEcho(h.URL); err == nil {
			p, err = ParamsEcho(h.URL)
		}
		res.UnknownTool, res.Params = &u, &p
	}
	if serr := stop(); err == nil && serr != nil {
		err = serr
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Key, err)
	}
	return res, nil
}

// httpChild starts cmd as a Child and makes it a target labelled key (the
// URL's port changes run to run; the label does not).
func httpChild(cmd *exec.Cmd, banner, key string) (audit.Target, func() error, error) {
	c, err := load.StartChild(cmd, banner, RSSGuard)
	if err != nil {
		return nil, nil, err
	}
	stop := func() error {
		if rss, killed := c.Stop(); killed {
			return fmt.Errorf("killed by the RSS guard (%d bytes; largest sampled %d)", int64(RSSGuard), rss)
		}
		return nil
	}
	return &audit.HTTP{URL: c.URL, Label: key}, stop, nil
}

// moduleRoot finds the boundlab module from the working directory: the Go
// strangers are built from its source.
func moduleRoot(ctx context.Context) (string, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return "", &results.Unavailable{Reason: "the Go toolchain is not on PATH: the go-sdk and mcp-go strangers are built from source (run verify with `go run ./cmd/boundlab verify` in the module)"}
	}
	return labmodule.Root(ctx, "the go-sdk and mcp-go strangers are built from its source")
}

// goBuild builds the module's package pkg ("./internal/strangers/gosdk")
// into work.
func goBuild(ctx context.Context, work, pkg string) (string, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(work, filepath.Base(pkg))
	bctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(bctx, "go", "build", "-o", bin, pkg)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v: %s", pkg, err, child.FirstLine(string(out)))
	}
	return bin, nil
}

func goChild(dir string) func(context.Context, string) (audit.Target, func() error, error) {
	return func(ctx context.Context, work string) (audit.Target, func() error, error) {
		bin, err := goBuild(ctx, work, "./internal/strangers/"+dir)
		if err != nil {
			return nil, nil, err
		}
		return httpChild(exec.Command(bin), bannerPrefix, dir)
	}
}

// goStdio builds the Go stranger in dir and makes its -stdio mode (with
// flags after it) the target.
func goStdio(dir string, flags ...string) func(context.Context, string) (audit.Target, func() error, error) {
	return func(ctx context.Context, work string) (audit.Target, func() error, error) {
		bin, err := goBuild(ctx, work, "./internal/strangers/"+dir)
		if err != nil {
			return nil, nil, err
		}
		return underAddressGuard(bin, append([]string{"-stdio"}, flags...)...), func() error { return nil }, nil
	}
}

// underAddressGuard is the stdio target that runs bin with args: the
// auditor spawns a process per session, outside load's RSS watch, so
// ulimit -v bounds each one, at StdioAddressGuard.
func underAddressGuard(bin string, args ...string) *audit.Stdio {
	kib := strconv.Itoa(StdioAddressGuard >> 10)
	return &audit.Stdio{Command: "sh", Args: append([]string{"-c", `ulimit -v ` + kib + ` && exec "$0" "$@"`, bin}, args...)}
}

// serveStdio builds `boundlab serve` and makes `serve ARGS` (--stdio and
// its flags) the target, its logs (stderr) discarded by the auditor.
func serveStdio(args ...string) func(context.Context, string) (audit.Target, func() error, error) {
	return func(ctx context.Context, work string) (audit.Target, func() error, error) {
		bin, err := goBuild(ctx, work, "./cmd/boundlab")
		if err != nil {
			return nil, nil, err
		}
		return underAddressGuard(bin, append([]string{"serve"}, args...)...), func() error { return nil }, nil
	}
}

func serveChild(ctx context.Context, work string) (audit.Target, func() error, error) {
	bin, err := goBuild(ctx, work, "./cmd/boundlab")
	if err != nil {
		return nil, nil, err
	}
	return httpChild(exec.Command(bin, "serve", "--addr", "127.0.0.1:0"), "boundlab serve: MCP streamable HTTP at ", "boundlab serve")
}

// TypeScriptDir is where the TypeScript stranger is installed: a cache
// directory outside the repository (the user's cache dir, else the temp
// dir), one per SDK version, kept across runs so a second run needs no
// network.
func TypeScriptDir() string {
	return cachedir.Path("strangers", "typescript-sdk-"+TypeScriptSDK)
}

// InstallTypeScript installs @modelcontextprotocol/sdk at TypeScriptSDK
// into TypeScriptDir with npm (unless it is there already) and writes the
// vendored server.mjs beside it; it returns the script's path. node or npm
// absent, or an install that fails (the registry unreachable), is
// Unavailable.
func InstallTypeScript(ctx context.Context) (string, error) {
	dir := TypeScriptDir()
	sdk := npminstall.Install{Dir: dir, Packages: []string{"@modelcontextprotocol/sdk@" + TypeScriptSDK},
		What: "@modelcontextprotocol/sdk@" + TypeScriptSDK, Without: "the TypeScript SDK stranger is not audited", Timeout: 3 * time.Minute}
	if err := sdk.Run(ctx); err != nil {
		return "", err
	}
	src, err := files.ReadFile("typescript/server.mjs")
	if err != nil {
		return "", err
	}
	script := filepath.Join(dir, "server.mjs")
	tmp := fmt.Sprintf("%s.%d", script, os.Getpid())
	if err := os.WriteFile(tmp, src, 0o644); err != nil {
		return "", err
	}
	return script, os.Rename(tmp, script)
}

func tsChild(ctx context.Context, _ string) (audit.Target, func() error, error) {
	script, err := InstallTypeScript(ctx)
	if err != nil {
		return nil, nil, err
	}
	return httpChild(exec.Command("node", script, "0"), bannerPrefix, "typescript")
}

// Python is the interpreter PythonEnv names, checked to import mcp.
func Python(ctx context.Context) (string, error) {
	py := os.Getenv(PythonEnv)
	if py == "" {
		return "", &results.Unavailable{Reason: PythonEnv + " is not set: name a Python with the official MCP SDK importable (pip install mcp, or its site on PYTHONPATH) to audit the Python strangers"}
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(cctx, py, "-c", "import mcp").CombinedOutput(); err != nil {
		return "", &results.Unavailable{Reason: fmt.Sprintf("%s=%s cannot import mcp: %v: %s", PythonEnv, filepath.Base(py), err, child.FirstLine(string(out)))}
	}
	return py, nil
}

func pythonScript(work string) (string, error) {
	src, err := files.ReadFile("python/server.py")
	if err != nil {
		return "", err
	}
	p := filepath.Join(work, "server.py")
	return p, os.WriteFile(p, src, 0o644)
}

func pythonHTTP(ctx context.Context, work string) (audit.Target, func() error, error) {
	py, err := Python(ctx)
	if err != nil {
		return nil, nil, err
	}
	script, err := pythonScript(work)
	if err != nil {
		return nil, nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	return httpChild(exec.Command(py, script, "http", strconv.Itoa(port)), bannerPrefix, "python-http")
}

func pythonStdio(ctx context.Context, work string) (audit.Target, func() error, error) {
	py, err := Python(ctx)
	if err != nil {
		return nil, nil, err
	}
	script, err := pythonScript(work)
	if err != nil {
		return nil, nil, err
	}
	return underAddressGuard(py, script, "stdio"), func() error { return nil }, nil
}

// freePort is a port on 127.0.0.1 free a moment ago (Python's server takes
// a port, not a listener).
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
