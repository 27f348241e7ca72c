package adopters

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/load"
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
// toolchain switch (the workspace needs neither); then the adopter's own.
func (a Adopter) childEnv() []string {
	return append(append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod"), a.Env...)
}

// The transports a server is audited over (the records' TRANSPORT).
const (
	Stdio = "stdio"
	HTTP  = "http"
)

// Transports are those a serves: stdio, and streamable HTTP when it has
// HTTPArgs.
func (a Adopter) Transports() []string {
	if a.HTTPArgs != nil {
		return []string{Stdio, HTTP}
	}
	return []string{Stdio}
}

// underAddressGuard is `sh -c` running bin with args under ulimit -v at
// StdioAddressGuard, after printing banner (unless "") on stdout; exec
// keeps the process id, so a watch on it watches the server.
func underAddressGuard(banner, bin string, args ...string) []string {
	script := `ulimit -v ` + strconv.Itoa(StdioAddressGuard>>10) + ` && exec "$0" "$@"`
	if banner != "" {
		script = `ulimit -v ` + strconv.Itoa(StdioAddressGuard>>10) + ` && echo "` + banner + `" && exec "$0" "$@"`
	}
	return append([]string{"-c", script, bin}, args...)
}

// Target is the binary bin serving MCP over stdio in workspace ws, a
// process per session under ulimit -v at StdioAddressGuard.
func (a Adopter) Target(bin, ws string) *audit.Stdio {
	return &audit.Stdio{Command: "sh", Args: underAddressGuard("", bin, a.Args...), Dir: ws, Env: a.childEnv()}
}

// httpBanner leads the line the HTTP child's shell prints with the URL.
const httpBanner = "adopter: MCP streamable HTTP at "

// startHTTP starts bin serving streamable HTTP on a free loopback port in
// ws, one process for the whole audit, under ulimit -v at
// StdioAddressGuard and RSS-watched (killed past RSSGuard); stop ends it
// and says whether the guard killed it.
func (a Adopter) startHTTP(bin, ws string) (*audit.HTTP, func() error, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	url := "http://" + addr + "/mcp"
	cmd := exec.Command("sh", underAddressGuard(httpBanner+url, bin, a.HTTPArgs(addr)...)...)
	cmd.Dir, cmd.Env = ws, a.childEnv()
	c, err := load.StartChild(cmd, httpBanner, RSSGuard)
	if err != nil {
		return nil, nil, err
	}
	stop := func() error {
		if rss, killed := c.Stop(); killed {
			return fmt.Errorf("killed by the RSS guard (%d bytes; largest sampled %d)", int64(RSSGuard), rss)
		}
		return nil
	}
	return &audit.HTTP{URL: c.URL, Label: a.Key + " (streamable HTTP)"}, stop, nil
}

// Audit audits bin (one of Binaries) over transport (Stdio or HTTP): seed
// Seed, the default limits but a.Timeout, every tool called but those in
// Skip, each from a valid call on the workspace (Examples) where the
// adopter gives one, so that a refusal is the probe's, not a path that
// does not exist.
func (a Adopter) Audit(ctx context.Context, bin, ws, transport string) (*audit.Report, error) {
	cfg := audit.Config{Seed: Seed, AllTools: true, Skip: a.Skip, Limits: audit.DefaultLimits()}
	if a.Timeout > 0 {
		cfg.Limits.Timeout = a.Timeout
	}
	if a.Examples != nil {
		cfg.Examples = map[string]json.RawMessage{}
		for tool, args := range a.Examples(ws) {
			cfg.Examples[tool] = json.RawMessage(args)
		}
	}
	stop := func() error { return nil }
	switch transport {
	case Stdio:
		cfg.Target = a.Target(bin, ws)
	case HTTP:
		t, st, err := a.startHTTP(bin, ws)
		if err != nil {
			return nil, fmt.Errorf("%s: start %s over streamable HTTP: %w", a.Key, filepath.Base(bin), err)
		}
		cfg.Target, stop = t, st
	default:
		return nil, fmt.Errorf("%s: no transport %q", a.Key, transport)
	}
	rep, err := audit.Run(ctx, cfg)
	if serr := stop(); err == nil && serr != nil {
		err = serr
	}
	if err != nil {
		return nil, fmt.Errorf("%s: audit %s over %s: %w", a.Key, filepath.Base(bin), transport, err)
	}
	return rep, nil
}
