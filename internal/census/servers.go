package census

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/internal/adopters"
	"github.com/theurian/boundlab/internal/cachedir"
	"github.com/theurian/boundlab/internal/npminstall"
	"github.com/theurian/boundlab/internal/strangers"
)

// Seed is the seed of every census audit (the strangers' and adopters'
// too).
const Seed = 7

// ReferenceVersion is the version of the four npm reference servers, and
// References their packages.
const ReferenceVersion = "2026.8.31"

var References = []string{
	"@modelcontextprotocol/server-everything",
	"@modelcontextprotocol/server-memory",
	"@modelcontextprotocol/server-filesystem",
	"@modelcontextprotocol/server-sequential-thinking",
}

// Server is one server of the census.
type Server struct {
	// Key is its row and its record-id key (census.KEY.*).
	Key string
	// Name says what runs: package or SDK, version, wiring, transport.
	Name string
	// Cheap servers need only the Go toolchain and are audited in seconds
	// on an idle machine: the package's tests audit them and hold them to
	// the direct measurements.
	Cheap bool
	// Tools names tools to call beyond the read-only ones; Skip tools
	// never called.
	Tools, Skip []string
	// AllTools calls every tool but Skip, whatever its annotations.
	AllTools bool
	// Module is what the records hold for beside the lab's own build: a
	// module path, or "npm:PKG", "pypi:mcp".
	Module, Version string
	start           func(ctx context.Context, work string) (audit.Target, func() error, error)
}

// Start prepares and starts the server in the directory work (installing,
// building, spawning) and returns its target and what stops it. A runtime
// absent here is a results.Unavailable.
func (s Server) Start(ctx context.Context, work string) (audit.Target, func() error, error) {
	return s.start(ctx, work)
}

// Servers are the census, in its table's order.
func Servers() []Server {
	out := []Server{
		reference("everything", "server-everything", "its own stdio mode (`dist/index.js stdio`); trigger-long-running-operation (annotated read-only, sleeps 10 s a call) skipped",
			func(string) ([]string, map[string]string) { return []string{"stdio"}, nil }, "trigger-long-running-operation"),
		reference("memory", "server-memory", "its knowledge graph in a file of the run's own (MEMORY_FILE_PATH)",
			func(work string) ([]string, map[string]string) {
				return nil, map[string]string{"MEMORY_FILE_PATH": filepath.Join(work, "memory.jsonl")}
			}),
		reference("filesystem", "server-filesystem", "one allowed directory of the run's own, empty",
			func(work string) ([]string, map[string]string) {
				root := filepath.Join(work, "fsroot")
				_ = os.MkdirAll(root, 0o755)
				return []string{root}, nil
			}),
		reference("sequential-thinking", "server-sequential-thinking", "its defaults",
			func(string) ([]string, map[string]string) { return nil, nil }),
	}
	for _, k := range []struct {
		key   string
		cheap bool
	}{{"go-sdk", true}, {"go-sdk-stdio", true}, {"mcp-go", false}, {"mcp-go-stdio", false}, {"typescript", false},
		{"python-http", false}, {"python-stdio", false}, {"boundlab-serve", false}} {
		st, ok := strangers.Lookup(k.key)
		if !ok {
			panic("census: no stranger " + k.key)
		}
		out = append(out, Server{Key: k.key, Name: st.Name, Cheap: k.cheap, Tools: st.Call, start: st.Start})
	}
	g := adopters.Gopls()
	out = append(out, Server{Key: "gopls", Name: fmt.Sprintf("%s@%s as published (GOTOOLCHAIN=%s), `gopls mcp` over stdio in a one-package workspace, every tool called (it annotates none) but %s (it reaches vuln.go.dev)",
		g.Module, g.Version, g.Toolchain, strings.Join(g.Skip, ", ")), Skip: g.Skip, AllTools: true, Module: g.Module, Version: g.Version,
		start: adopter(g, true, nil)})
	// The adopters' own settings: GRAFANA_URL and the docs index on a closed
	// loopback port, no usage report, and the tools that fetch from
	// grafana.com itself skipped — the census sends nothing past loopback.
	gr := adopters.Grafana()
	env := map[string]string{}
	for _, kv := range gr.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	out = append(out, Server{Key: "mcp-grafana", Name: fmt.Sprintf("%s@%s as published, `mcp-grafana %s` with GRAFANA_URL pointing at a closed port on 127.0.0.1 (no Grafana): its read-only tools called but %s (they fetch from grafana.com)",
		gr.Module, gr.Version, strings.Join(gr.Args, " "), strings.Join(gr.Skip, ", ")), Skip: gr.Skip, Module: gr.Module, Version: gr.Version,
		start: adopter(gr, false, env)})
	return out
}

// addressGuard is each stdio process's address-space bound: the strangers'.
const addressGuard = strangers.StdioAddressGuard

// stdio is the census target that runs argv under the address guard, with
// env added to the census's own environment, in dir.
func stdio(key string, argv []string, env map[string]string, dir string) audit.Target {
	return audit.CensusTarget{Name: key, Stdio: argv, Env: env, Dir: dir, AddressSpace: addressGuard}.Target()
}

// reference is an npm reference server over stdio under node, started with
// the arguments and environment args gives for the run's directory.
func reference(key, pkg, how string, args func(work string) ([]string, map[string]string), skip ...string) Server {
	return Server{Key: key, Skip: skip, Module: "npm:@modelcontextprotocol/" + pkg, Version: ReferenceVersion,
		Name: fmt.Sprintf("@modelcontextprotocol/%s %s (node) over stdio, %s, a process per session under ulimit -v", pkg, ReferenceVersion, how),
		start: func(ctx context.Context, work string) (audit.Target, func() error, error) {
			dir, err := InstallReferences(ctx)
			if err != nil {
				return nil, nil, err
			}
			a, env := args(work)
			script := filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
			return stdio(key, append([]string{"node", script}, a...), env, work), func() error { return nil }, nil
		}}
}

// adopter is an adopter's published build over stdio: in a one-package
// workspace when ws, with env added.
func adopter(a adopters.Adopter, ws bool, env map[string]string) func(context.Context, string) (audit.Target, func() error, error) {
	return func(ctx context.Context, work string) (audit.Target, func() error, error) {
		bin, err := a.Published(ctx)
		if err != nil {
			return nil, nil, err
		}
		dir := work
		if ws {
			if dir, err = adopters.Workspace(work); err != nil {
				return nil, nil, err
			}
		}
		// no module downloads and no toolchain switch from the server
		all := map[string]string{"GOPROXY": "off", "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"}
		for k, v := range env {
			all[k] = v
		}
		return stdio(a.Key, append([]string{bin}, a.Args...), all, dir), func() error { return nil }, nil
	}
}

// ReferenceDir is where the reference servers are installed: a cache
// directory outside the repository, one per version, kept across runs.
func ReferenceDir() string {
	return cachedir.Path("census", "npm-reference-"+ReferenceVersion)
}

// InstallReferences installs the four reference servers at
// ReferenceVersion into ReferenceDir with npm (unless they are there) and
// returns the directory. node or npm absent, or the registry unreachable,
// is Unavailable.
func InstallReferences(ctx context.Context) (string, error) {
	refs := npminstall.Install{Dir: ReferenceDir(), What: "the reference servers at " + ReferenceVersion,
		Without: "the npm reference servers are not audited", Timeout: 5 * time.Minute}
	for _, p := range References {
		refs.Packages = append(refs.Packages, p+"@"+ReferenceVersion)
	}
	if err := refs.Run(ctx); err != nil {
		return "", err
	}
	return refs.Dir, nil
}

// pythonVersions names the Python SDK and interpreter py runs, as modules.
func pythonVersions(ctx context.Context, py string) (map[string]string, error) {
	out, err := exec.CommandContext(ctx, py, "-c", "import importlib.metadata as m, platform; print(m.version('mcp'), platform.python_version())").Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", py, err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return nil, fmt.Errorf("the Python named by %s printed %q for its versions", strangers.PythonEnv, out)
	}
	return map[string]string{"pypi:mcp": f[0], "python": f[1]}, nil
}
