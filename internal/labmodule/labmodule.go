// Package labmodule finds the boundlab module's source from the working
// directory, for the instruments that build from it (the Go strangers, the
// adopters' patched servers). Run elsewhere, they cannot build: that is
// results.Unavailable, in the caller's words.
package labmodule

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/theurian/boundlab/results"
)

// Path is the lab's module path.
const Path = "github.com/theurian/boundlab"

// Root is the directory of the module the working directory is in (go env
// GOMOD) when that module is the lab's. why says what is built from it, for
// the reason when it is not ("the Go strangers are built from its source").
func Root(ctx context.Context, why string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", &results.Unavailable{Reason: "not run inside the boundlab module: " + why}
	}
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() || strings.TrimSpace(strings.TrimPrefix(sc.Text(), "module")) != Path {
		return "", &results.Unavailable{Reason: "the working directory's module is not " + Path + ": " + why}
	}
	return filepath.Dir(gomod), nil
}
