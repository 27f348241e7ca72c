package adopters

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/theurian/boundlab/internal/cachedir"
	"github.com/theurian/boundlab/internal/child"
	"github.com/theurian/boundlab/internal/labmodule"
	"github.com/theurian/boundlab/results"
)

// Adopter is one real server at a pinned version, and the patch that
// protects it.
type Adopter struct {
	// Key is its record-id key (adopters.KEY.*).
	Key string
	// Module and Version are what the module proxy serves; Pkg is the main
	// package within it ("." for the module root).
	Module, Version, Pkg string
	// Toolchain is the GOTOOLCHAIN it is built with ("" for the local go).
	Toolchain string
	// Patch is the unified diff against the module root, a path within the
	// boundlab module.
	Patch string
	// Args start its MCP server over stdio.
	Args []string
	// HTTPArgs, when set, start its MCP server over streamable HTTP on
	// addr (host:port), at path /mcp.
	HTTPArgs func(addr string) []string
	// Env is added to the server's environment.
	Env []string
	// Skip names tools the audit never calls: those that reach outside
	// the machine.
	Skip []string
	// Examples are valid calls, by tool, in the workspace ws (Workspace);
	// nil: the audit builds each tool's from its schema.
	Examples func(ws string) map[string]string
	// Timeout bounds one audit request (0: the audit's default): a server
	// with no body cap parses the audit's largest body whole.
	Timeout time.Duration
	// Cost is the real call whose cost is measured, and Setting says what
	// the server answers it from.
	Cost    CostCall
	Setting string
	// Tests, when set, are the `go test` runs (each its arguments) made in
	// the unpatched and the patched module: the server's own tests, with
	// TestEnv added to the environment.
	Tests   [][]string
	TestEnv []string
}

// CostCall is a tool call the server answers by itself, with nothing from
// outside, and how often it is timed: Calls calls in each of Rounds rounds.
type CostCall struct {
	Tool, Arguments string
	Rounds, Calls   int
}

// Adopters are the servers measured, each by its own producer.
func Adopters() []Adopter { return []Adopter{Gopls(), Grafana()} }

// Gopls is golang.org/x/tools/gopls, whose `gopls mcp` serves twelve tools
// (eight by default) with the go-sdk over stdio.
func Gopls() Adopter {
	return Adopter{
		Key: "gopls", Module: "golang.org/x/tools/gopls", Version: "v0.24.0", Pkg: ".",
		// its go.mod says go 1.27.0
		Toolchain: "go1.27.3",
		Patch:     "adopters/gopls-v0.24.0.patch",
		Args:      []string{"mcp"},
		// go_vulncheck fetches the vulnerability database from vuln.go.dev
		Skip:     []string{"go_vulncheck"},
		Examples: goplsExamples,
		// gopls's package summary of the workspace's one package, answered
		// from its own cache in about 0.2 ms of server CPU
		Setting: "in a one-package workspace",
		Cost:    CostCall{Tool: "go_package_api", Arguments: `{"packagePaths":["example.com/ws"]}`, Rounds: 15, Calls: 2000},
		// its MCP tests: the server's, the marker tests that drive each
		// MCP tool (over SSE), and `gopls mcp`'s command tests
		Tests: [][]string{
			{"./internal/mcp/"},
			{"-run", "Test/mcptools/", "./internal/test/marker/"},
			{"-run", "MCP", "./internal/cmd/"},
		},
		// the marker test of go.work support needs the go command to look
		// for one (the builds set GOWORK=off)
		TestEnv: []string{"GOWORK="},
	}
}

// goplsExamples are a valid call of each default tool on the workspace's
// one file.
func goplsExamples(ws string) map[string]string {
	file, _ := json.Marshal(filepath.Join(ws, "ws.go"))
	f := string(file)
	return map[string]string{
		"go_workspace":         `{}`,
		"go_package_api":       `{"packagePaths":["example.com/ws"]}`,
		"go_diagnostics":       `{"files":[` + f + `]}`,
		"go_rename_symbol":     `{"file":` + f + `,"symbol":"Greet","new_name":"Hello"}`,
		"go_symbol_references": `{"file":` + f + `,"symbol":"Greet"}`,
		"go_search":            `{"query":"Greet"}`,
		"go_file_context":      `{"file":` + f + `}`,
	}
}

// grafanaURL is where mcp-grafana is told its Grafana is: a loopback port
// nothing listens on (the discard port), so every call that would reach
// Grafana fails at once, on this machine.
const grafanaURL = "http://127.0.0.1:9"

// Grafana is github.com/grafana/mcp-grafana, which serves some eighty tools
// with mark3labs/mcp-go over stdio and stateless streamable HTTP, and starts
// without a Grafana.
func Grafana() Adopter {
	// no anonymous usage report: the server would send it to grafana.com
	quiet := []string{"--usage-stats=disabled", "--log-level=error"}
	return Adopter{
		Key: "mcp-grafana", Module: "github.com/grafana/mcp-grafana", Version: "v1.6.3", Pkg: "./cmd/mcp-grafana",
		Patch: "adopters/mcp-grafana-v1.6.3.patch",
		Args:  append([]string{"-t", "stdio"}, quiet...),
		HTTPArgs: func(addr string) []string {
			return append([]string{"-t", "streamable-http", "--address", addr}, quiet...)
		},
		// the docs index on loopback too, though the tools that read it are
		// skipped
		Env: []string{"GRAFANA_URL=" + grafanaURL, "DOCS_INDEX_URL=" + grafanaURL + "/docs", "DO_NOT_TRACK=1"},
		// these fetch from grafana.com itself: the plugin catalog
		// (install_plugin without a version, search_plugin_information) and
		// the documentation (search_docs, get_doc)
		Skip: []string{"get_doc", "install_plugin", "search_docs", "search_plugin_information"},
		// the unpatched server parses the 64 MiB body whole, slowly
		Timeout: 3 * time.Minute,
		// a dashboard's link, built from the configured URL alone; a few
		// tens of microseconds of handler, so more calls a round than gopls
		Cost:    CostCall{Tool: "generate_deeplink", Arguments: `{"resourceType":"dashboard","dashboardUid":"boundlab"}`, Rounds: 15, Calls: 5000},
		Setting: "with no Grafana (GRAFANA_URL a closed loopback port)",
		Tests:   [][]string{{"-tags", "unit", "./..."}},
		// the binaries its tests start send no usage report, and could send
		// one only to loopback
		TestEnv: []string{"DO_NOT_TRACK=1", "GRAFANA_USAGE_STATS_ENDPOINT=" + grafanaURL + "/usage"},
	}
}

// goEnv is the environment every go command of the harness runs in: the
// adopter's toolchain, no workspace file from above (the source is copied
// outside any), the module's own go.sum held as it is.
func (a Adopter) goEnv() []string {
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if a.Toolchain != "" {
		env = append(env, "GOTOOLCHAIN="+a.Toolchain)
	}
	return env
}

// Source is the module's directory in the module cache, downloaded from
// the proxy unless it is there. No toolchain, or the proxy unreachable, is
// results.Unavailable.
func (a Adopter) Source(ctx context.Context) (string, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return "", &results.Unavailable{Reason: "the Go toolchain is not on PATH: " + a.Module + " is built from its source"}
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(dctx, "go", "mod", "download", "-json", a.Module+"@"+a.Version)
	cmd.Env = a.goEnv()
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); err != nil || jerr != nil || info.Dir == "" {
		why := info.Error
		if why == "" && err != nil {
			why = err.Error()
			if ee, ok := err.(*exec.ExitError); ok {
				why += ": " + child.FirstLine(string(ee.Stderr))
			}
		}
		return "", &results.Unavailable{Reason: fmt.Sprintf("%s@%s could not be downloaded with GOTOOLCHAIN=%s (the module proxy or the toolchain unreachable?): %s",
			a.Module, a.Version, a.Toolchain, why)}
	}
	return info.Dir, nil
}

// ModuleRoot finds the boundlab module from the working directory: the
// patches are read from it and the patched build's replace directives
// point at it.
func ModuleRoot(ctx context.Context) (string, error) {
	return labmodule.Root(ctx, "the patched servers build against its product modules")
}

// CacheDir is where the built binaries are kept across runs: the user's
// cache directory (else the temp dir).
func CacheDir() string { return cachedir.Path("adopters") }

// Binaries builds the server unpatched and patched (each unless the cache
// holds it) and returns both paths. The patched binary's name carries a
// hash of the patch and of the product modules' source, so a change to
// either builds it anew.
func (a Adopter) Binaries(ctx context.Context) (before, after string, err error) {
	if _, err := exec.LookPath("patch"); err != nil {
		return "", "", &results.Unavailable{Reason: "patch(1) is not on PATH: the adopters' patches are applied with patch -p1"}
	}
	root, err := ModuleRoot(ctx)
	if err != nil {
		return "", "", err
	}
	src, err := a.Source(ctx)
	if err != nil {
		return "", "", err
	}
	sum, err := productHash(root, a.Patch)
	if err != nil {
		return "", "", err
	}
	name := a.Key + "-" + a.Version
	before = filepath.Join(CacheDir(), name+"-before")
	after = filepath.Join(CacheDir(), name+"-after-"+sum)
	if err := a.build(ctx, src, root, "", before); err != nil {
		return "", "", fmt.Errorf("%s unpatched: %w", a.Key, err)
	}
	if err := a.build(ctx, src, root, filepath.Join(root, a.Patch), after); err != nil {
		return "", "", fmt.Errorf("%s patched: %w", a.Key, err)
	}
	return before, after, nil
}

// Published builds the server as published, unpatched (unless the cache
// holds it), and returns its path: what a census audits.
func (a Adopter) Published(ctx context.Context) (string, error) {
	root, err := ModuleRoot(ctx)
	if err != nil {
		return "", err
	}
	src, err := a.Source(ctx)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(CacheDir(), a.Key+"-"+a.Version+"-before")
	if err := a.build(ctx, src, root, "", bin); err != nil {
		return "", fmt.Errorf("%s unpatched: %w", a.Key, err)
	}
	return bin, nil
}

// build builds the main package, in the module's source with patch
// applied (unless ""), to bin (unless it is there).
func (a Adopter) build(ctx context.Context, src, root, patch, bin string) error {
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return nil
	}
	dir, cleanup, err := a.tree(ctx, src, root, patch)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return err
	}
	// gopls takes minutes on a loaded two-core machine
	bctx, cancel := context.WithTimeout(ctx, 20*time.Minute)
	defer cancel()
	tmp := fmt.Sprintf("%s.%d", bin, os.Getpid())
	cmd := exec.CommandContext(bctx, "go", "build", "-trimpath", "-o", tmp, a.Pkg)
	cmd.Dir, cmd.Env = dir, a.goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("go build: %v: %s", err, child.FirstLine(string(out)))
	}
	return os.Rename(tmp, bin)
}

// tree copies the module's source to a work directory and applies patch
// (unless ""); cleanup removes it. The copy sits at work/KEY beside
// work/boundlab, a link to the checkout, so the patch's
// `replace ... => ../boundlab/...` finds the product.
func (a Adopter) tree(ctx context.Context, src, root, patch string) (dir string, cleanup func(), err error) {
	work, err := os.MkdirTemp("", "boundlab-adopter-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(work) }
	dir = filepath.Join(work, a.Key)
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		cleanup()
		return "", nil, err
	}
	if err := os.Symlink(root, filepath.Join(work, "boundlab")); err != nil {
		cleanup()
		return "", nil, err
	}
	if patch != "" {
		cmd := exec.CommandContext(ctx, "patch", "-p1", "-s", "--no-backup-if-mismatch", "-i", patch)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			cleanup()
			return "", nil, fmt.Errorf("patch -p1 < %s: %v: %s", filepath.Base(patch), err, child.FirstLine(string(out)))
		}
	}
	return dir, cleanup, nil
}

// productHash is a short hash of the patch and of every non-test file of
// the product modules (charge, mcpvalidate) the patched build compiles in.
func productHash(root, patch string) (string, error) {
	h := sha256.New()
	p, err := os.ReadFile(filepath.Join(root, patch))
	if err != nil {
		return "", err
	}
	h.Write(p)
	for _, mod := range []string{"charge", "mcpvalidate"} {
		err := filepath.WalkDir(filepath.Join(root, mod), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			n := d.Name()
			if strings.HasSuffix(n, "_test.go") || !(strings.HasSuffix(n, ".go") || n == "go.mod" || n == "go.sum") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			fmt.Fprintf(h, "%s %d\n", rel, len(b))
			h.Write(b)
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// PatchLines counts a unified diff's changed lines (added and removed),
// by file: what a reviewer reads.
func PatchLines(diff []byte) map[string]int {
	out := map[string]int{}
	file := ""
	for _, l := range bytes.Split(diff, []byte("\n")) {
		switch {
		case bytes.HasPrefix(l, []byte("+++ ")):
			f := strings.TrimSpace(string(l[4:]))
			f, _, _ = strings.Cut(f, "\t")
			file = strings.TrimPrefix(f, "b/")
		case bytes.HasPrefix(l, []byte("--- ")):
		case file != "" && len(l) > 0 && (l[0] == '+' || l[0] == '-'):
			out[file]++
		}
	}
	return out
}
