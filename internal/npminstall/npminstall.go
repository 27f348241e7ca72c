// Package npminstall installs pinned npm packages into a directory kept
// across runs, once: a run that finds them there at their versions needs
// neither npm nor the network. An install goes into a new directory beside
// the target and is renamed into place, so two runs at once (a test and
// verify) never see a half-installed one. What cannot be installed here (no
// node or npm, the registry unreachable) is results.Unavailable, in the
// caller's words.
package npminstall

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/theurian/boundlab/internal/child"
	"github.com/theurian/boundlab/results"
)

// Install is one set of packages and where they go.
type Install struct {
	// Dir is npm's --prefix: the packages land in Dir/node_modules.
	Dir string
	// Packages are name@version each (a scoped name keeps its leading @).
	Packages []string
	// What names the packages in an install's failure ("the reference
	// servers at 2026.1.14"), Without what goes undone without node or npm
	// ("the npm reference servers are not audited").
	What, Without string
	// Timeout bounds npm's run.
	Timeout time.Duration
}

// Run installs the packages into Dir unless Dir holds each at its version.
func (in Install) Run(ctx context.Context) error {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return &results.Unavailable{Reason: tool + " is not on PATH: " + in.Without}
		}
	}
	if in.installed(in.Dir) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(in.Dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(in.Dir), filepath.Base(in.Dir)+".install-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ictx, cancel := context.WithTimeout(ctx, in.Timeout)
	defer cancel()
	args := append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--prefix", tmp}, in.Packages...)
	if out, err := exec.CommandContext(ictx, "npm", args...).CombinedOutput(); err != nil {
		return &results.Unavailable{Reason: fmt.Sprintf("npm could not install %s (the registry unreachable?): %v: %s", in.What, err, child.FirstLine(string(out)))}
	}
	if !in.installed(in.Dir) { // another run may have finished first: keep its
		os.RemoveAll(in.Dir) // a stale one (another version's files)
		if err := os.Rename(tmp, in.Dir); err != nil && !in.installed(in.Dir) {
			return err
		}
	}
	return nil
}

// installed reports whether dir holds every package at its version.
func (in Install) installed(dir string) bool {
	for _, p := range in.Packages {
		at := strings.LastIndex(p, "@")
		if at <= 0 {
			return false
		}
		data, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(p[:at]), "package.json"))
		if err != nil || !strings.Contains(string(data), `"version": "`+p[at+1:]+`"`) {
			return false
		}
	}
	return true
}
