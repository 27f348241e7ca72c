package labmodule

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/theurian/boundlab/results"
)

func goOnPath(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("SKIPPED: no go on PATH to ask for GOMOD")
	}
}

func TestRootIsTheLabsModule(t *testing.T) {
	goOnPath(t)
	root, err := Root(context.Background(), "the test builds from it")
	if err != nil {
		t.Fatal(err)
	}
	// this package's directory is internal/labmodule in the module
	wd, _ := os.Getwd()
	if want := filepath.Dir(filepath.Dir(wd)); root != want {
		t.Fatalf("Root %s, want %s", root, want)
	}
}

func TestRootElsewhereIsUnavailable(t *testing.T) {
	goOnPath(t)
	for _, c := range []struct{ name, gomod, reason string }{
		{"no module", "", "not run inside the boundlab module: the test builds from it"},
		{"another module", "module example.com/other\n\ngo 1.25\n", "the working directory's module is not " + Path + ": the test builds from it"},
		{"a module that names the lab second", "// module " + Path + "\nmodule example.com/other\n", "the working directory's module is not " + Path + ": the test builds from it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.gomod != "" {
				if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(c.gomod), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			t.Setenv("GOWORK", "off")
			t.Setenv("GOFLAGS", "")
			_, err := Root(context.Background(), "the test builds from it")
			var u *results.Unavailable
			if !errors.As(err, &u) || u.Reason != c.reason {
				t.Fatalf("Root: %v, want Unavailable %q", err, c.reason)
			}
		})
	}
}
