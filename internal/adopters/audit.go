package adopters

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/theurian/boundlab/audit"
)

// Seed is the seed of every adopter's audit (the strangers' too).
const Seed = 7

// StdioAddressGuard is the address space (ulimit -v) each server process
// the auditor spawns may take: the auditor starts them itself, one per
// session, so no RSS watch sees them; address space, not resident memory,
// since Go reserves heap arenas it never touches, and still a bound on
// resident memory below it.
const StdioAddressGuard = 4 << 30

// workspaceFiles are the one-package module the server is started in: a
// language server needs a workspace to answer its tools, and this one needs
// nothing from the network.
var workspaceFiles = map[string]string{
	"go.mod": "module example.com/ws\n\ngo 1.25\n",
	"ws.go": `// Package ws is the workspace the adopters' audits start a language server in.
package ws

// Greeting is what Greet says.
const Greeting = "hello"

// Point is a point.
type Point struct{ X, Y int }

// Greet says hello to name.
func Greet(name string) string { return Greeting + ", " + name }

// Add adds two points.
func Add(p, q Point) Point { return Point{p.X + q.X, p.Y + q.Y} }
`,
}

// Workspace writes the workspace module into dir and returns its path.
func Workspace(dir string) (string, error) {
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return "", err
	}
	for name, body := range workspaceFiles {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	return ws, nil
}

// childEnv keeps the server off the network: no module downloads, no
// toolchain switch (the workspace needs neither).
func childEnv() []string {
	return append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
}

// Target is the binary bin serving MCP over stdio in workspace ws, a
// process per session under ulimit -v at StdioAddressGuard.
func (a Adopter) Target(bin, ws string) *audit.Stdio {
	kib := strconv.Itoa(StdioAddressGuard >> 10)
	args := append([]string{"-c", `ulimit -v ` + kib + ` && exec "$0" "$@"`, bin}, a.Args...)
	return &audit.Stdio{Command: "sh", Args: args, Dir: ws, Env: childEnv()}
}

// Audit audits bin (one of Binaries) over stdio: seed Seed, the default
// limits, every tool called but those in Skip, each from a valid call on
// the workspace (Examples) so that a refusal is the probe's, not a path
// that does not exist.
func (a Adopter) Audit(ctx context.Context, bin, ws string) (*audit.Report, error) {
	cfg := audit.Config{Target: a.Target(bin, ws), Seed: Seed, AllTools: true, Skip: a.Skip, Examples: map[string]json.RawMessage{}}
	if a.Examples != nil {
		for tool, args := range a.Examples(ws) {
			cfg.Examples[tool] = json.RawMessage(args)
		}
	}
	rep, err := audit.Run(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: audit %s: %w", a.Key, filepath.Base(bin), err)
	}
	return rep, nil
}
