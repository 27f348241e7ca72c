package npminstall

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/results"
)

// fakeTools puts a node and an npm on PATH (alone): npm runs script with
// its arguments (with the system's PATH), and logs each run to the returned
// file.
func fakeTools(t *testing.T, script string) (log string) {
	t.Helper()
	bin := t.TempDir()
	log = filepath.Join(bin, "npm.log")
	for name, body := range map[string]string{
		"node": "#!/bin/sh\nexit 0\n",
		"npm":  "#!/bin/sh\nPATH=/usr/bin:/bin\necho \"$@\" >>" + log + "\n" + script,
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	return log
}

// fakeInstall is an npm that writes each name@version's package.json
// under --prefix, as npm install does.
const fakeInstall = `prefix=
while [ $# -gt 0 ]; do
	case $1 in
	--prefix) prefix=$2; shift ;;
	--*) ;;
	*) name=${1%@*} version=${1##*@}
	   mkdir -p "$prefix/node_modules/$name"
	   printf '{\n  "name": "%s",\n  "version": "%s"\n}\n' "$name" "$version" >"$prefix/node_modules/$name/package.json" ;;
	esac
	shift
done
`

func runs(t *testing.T, log string) int {
	data, err := os.ReadFile(log)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

func install(dir string) Install {
	return Install{Dir: dir, Packages: []string{"@scope/one@1.2.3", "plain@4.5.6"},
		What: "the test's packages", Without: "the test's servers are not run", Timeout: time.Minute}
}

func TestInstallsOnceAndRenamesIntoPlace(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("SKIPPED: no /bin/sh for the fake npm")
	}
	log := fakeTools(t, fakeInstall)
	dir := filepath.Join(t.TempDir(), "cache", "pkgs-1")
	in := install(dir)
	if err := in.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !in.installed(dir) || runs(t, log) != 1 {
		t.Fatalf("after the install: installed %v, npm ran %d times", in.installed(dir), runs(t, log))
	}
	if left, _ := filepath.Glob(dir + ".install-*"); len(left) != 0 {
		t.Fatalf("the install directory was left behind: %v", left)
	}
	if err := in.Run(context.Background()); err != nil || runs(t, log) != 1 {
		t.Fatalf("a second run: %v, npm ran %d times (want once in all)", err, runs(t, log))
	}
	// Another version of one package: installed anew, the stale files gone.
	os.WriteFile(filepath.Join(dir, "stale"), nil, 0o644)
	in.Packages[1] = "plain@4.5.7"
	if err := in.Run(context.Background()); err != nil || runs(t, log) != 2 || !in.installed(dir) {
		t.Fatalf("another version: %v, npm ran %d times, installed %v", err, runs(t, log), in.installed(dir))
	}
	if _, err := os.Stat(filepath.Join(dir, "stale")); err == nil {
		t.Fatal("the stale install's files are still there")
	}
}

func TestInstalledWantsEveryPackageAtItsVersion(t *testing.T) {
	dir := t.TempDir()
	in := install(dir)
	write := func(name, version string) {
		p := filepath.Join(dir, "node_modules", name)
		os.MkdirAll(p, 0o755)
		os.WriteFile(filepath.Join(p, "package.json"), []byte(`{"name": "`+name+`", "version": "`+version+`"}`), 0o644)
	}
	write("@scope/one", "1.2.3")
	if in.installed(dir) {
		t.Fatal("installed with plain missing")
	}
	write("plain", "4.5.5")
	if in.installed(dir) {
		t.Fatal("installed with plain at another version")
	}
	write("plain", "4.5.6")
	if !in.installed(dir) {
		t.Fatal("not installed with both at their versions")
	}
	if (Install{Packages: []string{"@scope/one"}}).installed(dir) {
		t.Fatal("a package without a version counted as installed")
	}
}

func TestWithoutNodeOrNpmIsUnavailable(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := install(t.TempDir()).Run(context.Background())
	var u *results.Unavailable
	if !errors.As(err, &u) || u.Reason != "node is not on PATH: the test's servers are not run" {
		t.Fatalf("without node: %v", err)
	}
}

func TestFailedInstallIsUnavailableAndLeavesNothing(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("SKIPPED: no /bin/sh for the fake npm")
	}
	fakeTools(t, "echo 'npm error code E404' >&2\necho 'npm error 404 Not Found' >&2\nexit 1\n")
	parent := t.TempDir()
	dir := filepath.Join(parent, "pkgs")
	err := install(dir).Run(context.Background())
	var u *results.Unavailable
	if !errors.As(err, &u) || !strings.HasPrefix(u.Reason, "npm could not install the test's packages (the registry unreachable?): exit status 1: npm error code E404") ||
		strings.Contains(u.Reason, "Not Found") {
		t.Fatalf("a failed install: %v", err)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Fatalf("a failed install left %v", left)
	}
}
