// Command adoptcheck builds what an adopter copies — the README's program and
// every module under examples/ — the way an adopter builds it: in a new module
// outside the repository that requires the product's module at v0.0.0
// (github.com/theurian/boundlab/mcpvalidate, or .../mcpvalidate/mark3labs for
// a program on mcp-go) with a replace to this clone of each product module it
// reaches (never of the lab, the root module, which an adopter never needs),
// `go mod tidy` into an empty module cache, then `go build` and `go vet`, and
// (unless -serve=false) runs the binary on 127.0.0.1 and speaks MCP to it. It
// prints, for each adopter, every module zip tidy downloaded (counted, with
// their size) and those beyond what a server on the bare go-sdk downloads,
// which it measures the same way, and the line count of its func main.
//
// It exits 1 when a program does not tidy, build, vet or serve; when tidy
// raises the adopter's go line to a patch release (go.mod's go line is the
// lowest Go the module supports; a patch release there forces it on every
// adopter); when an adopter downloads a lab-only module or has one, or the
// lab's root module, in its build list (`go list -m all`; a mark3labs adopter
// may have mcp-go, nothing else on the list); when a go-sdk adopter downloads
// more than maxBeyond modules beyond the bare go-sdk server; when a program's
// func main is longer than maxMainLines; when the README's program is not
// examples/gosdk/main.go byte for byte; or when an example's committed go.mod
// or go.sum is not what tidy writes for it (-write rewrites them). It exits 2
// when it cannot run.
//
//	go run ./scripts/adoptcheck [-write] [-serve=false] [-timeout 8m]
//
// The empty module cache is filled through a GOPROXY that lists the caller's
// own module cache first (a file:// proxy) and then the caller's GOPROXY, so
// the check is fast and mostly offline while counting exactly what tidy
// fetches; -proxy overrides it.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// rootModule is the module path of this repository: the lab, which an
// adopter never requires.
const rootModule = "github.com/theurian/boundlab"

// The product modules an adopter requires: the validator for the go-sdk, and
// its adapter for mcp-go. Each reaches the other product modules it needs
// (the core, charge) through its go.mod.
const (
	productModule   = rootModule + "/mcpvalidate"
	mark3labsModule = rootModule + "/mcpvalidate/mark3labs"
)

// maxBeyond is the most module zips a go-sdk adopter's tidy may download
// beyond what a server on the bare go-sdk downloads.
const maxBeyond = 3

// maxMainLines is the longest func main an adopter copies, from its "func
// main() {" line to its closing brace.
const maxMainLines = 25

// adopterGo is the go line an adopter's new module starts with: the
// language version, which every go1.26.x toolchain satisfies. Tidy raises it
// to the highest go line among the modules it requires.
const adopterGo = "1.26"

// labModules are the modules only the lab needs: an adopter of mcpvalidate
// must never download one. A module matches an entry when it is the entry or
// lies under it (github.com/cloudwego matches github.com/cloudwego/base64x).
var labModules = []string{
	"github.com/bytedance/sonic",
	"github.com/google/gofuzz",
	"github.com/mark3labs/mcp-go", // but for a mark3labs adopter
	"github.com/minio/simdjson-go",
	"github.com/go-json-experiment/json",
	"gonum.org",
	"golang.org/x/perf",
	"github.com/twitchyliquid64/golang-asm",
	"github.com/cloudwego",
}

// mcpGo is the one lab module a mark3labs adopter needs.
const mcpGo = "github.com/mark3labs/mcp-go"

// Each adopter is one of these kinds.
const (
	kindBaseline  = "bare go-sdk"
	kindGoSDK     = "go-sdk adopter"
	kindMark3labs = "mark3labs adopter"
)

// program is one main package built as an adopter's module.
type program struct {
	name    string // how the report names it
	src     []byte // main.go
	module  string // the new module's path
	kind    string
	require string // what go.mod requires before tidy: "path version"
	example string // for an example: its directory, whose go.mod and go.sum are committed
}

// result is what one program's check found.
type result struct {
	zips     []zip
	goLine   string
	problems []string
	notes    []string
}

func main() {
	write := flag.Bool("write", false, "rewrite each example's go.mod and go.sum with what tidy writes for it")
	serve := flag.Bool("serve", true, "run each built program on 127.0.0.1 and speak MCP to it")
	timeout := flag.Duration("timeout", 8*time.Minute, "the whole check's bound")
	proxy := flag.String("proxy", "", "the GOPROXY tidy fetches through (default: file:// of this user's module cache, then their GOPROXY)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "adoptcheck: no arguments expected; see -h")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	code, err := run(ctx, os.Stdout, options{write: *write, serve: *serve, proxy: *proxy})
	if err != nil {
		fmt.Fprintln(os.Stderr, "adoptcheck:", err)
	}
	os.Exit(code)
}

type options struct {
	write, serve bool
	proxy        string
}

func run(ctx context.Context, out io.Writer, o options) (int, error) {
	root, err := findRoot()
	if err != nil {
		return 2, err
	}
	mods, err := cloneModules(root)
	if err != nil {
		return 2, err
	}
	product := map[string]string{} // the lab's root module left out
	for m, dir := range mods {
		if m != rootModule {
			product[m] = dir
		}
	}
	sums, err := cloneSums(product)
	if err != nil {
		return 2, err
	}
	if _, ok := mods[productModule]; !ok {
		return 2, fmt.Errorf("the clone has no module %s", productModule)
	}
	productMod, err := os.ReadFile(filepath.Join(mods[productModule], "go.mod"))
	if err != nil {
		return 2, err
	}
	sdkVersion := requiredVersion(productMod, "github.com/modelcontextprotocol/go-sdk")
	if sdkVersion == "" {
		return 2, errors.New(productModule + "'s go.mod requires no github.com/modelcontextprotocol/go-sdk: no baseline to measure against")
	}
	if o.proxy == "" {
		o.proxy, err = defaultProxy(ctx)
		if err != nil {
			return 2, err
		}
	}
	progs, problems, err := programs(root)
	if err != nil {
		return 2, err
	}
	baseline := program{name: "baseline: a server on the bare go-sdk", src: []byte(baselineSrc), module: "example.com/baseline",
		kind: kindBaseline, require: "github.com/modelcontextprotocol/go-sdk " + sdkVersion}
	progs = append([]program{baseline}, progs...)

	tmp, err := os.MkdirTemp("", "adoptcheck-")
	if err != nil {
		return 2, err
	}
	defer os.RemoveAll(tmp)
	var base map[string]string // the baseline's module versions
	failed := len(problems) > 0
	for _, p := range problems {
		fmt.Fprintf(out, "FAIL %s\n", p)
	}
	for i, p := range progs {
		dir := filepath.Join(tmp, fmt.Sprint(i))
		r := check(ctx, p, dir, root, product, sums, o)
		if p.kind == kindBaseline {
			base = map[string]string{}
			for _, z := range r.zips {
				base[z.module] = z.version
			}
		}
		if p.kind == kindGoSDK && base != nil {
			if beyond, _ := beyondBase(r.zips, base); len(beyond) > maxBeyond {
				r.problems = append(r.problems, fmt.Sprintf("tidy downloaded %d modules beyond the bare go-sdk server's, more than %d: %s",
					len(beyond), maxBeyond, strings.Join(beyond, ", ")))
			}
		}
		report(out, p, r, base)
		if len(r.problems) > 0 {
			failed = true
		}
		if ctx.Err() != nil {
			fmt.Fprintf(out, "FAIL the check's bound passed before every program was checked\n")
			return 1, nil
		}
	}
	if failed {
		fmt.Fprintln(out, "adoptcheck: FAIL")
		return 1, nil
	}
	fmt.Fprintln(out, "adoptcheck: ok")
	return 0, nil
}

// programs are the README's program (which must be examples/gosdk/main.go)
// and every examples/*/main.go.
func programs(root string) ([]program, []string, error) {
	var problems []string
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return nil, nil, err
	}
	readmeSrc, err := readmeProgram(readme)
	if err != nil {
		return nil, nil, fmt.Errorf("README.md: %w", err)
	}
	mains, err := filepath.Glob(filepath.Join(root, "examples", "*", "main.go"))
	if err != nil {
		return nil, nil, err
	}
	if len(mains) == 0 {
		return nil, nil, errors.New("no examples/*/main.go")
	}
	sort.Strings(mains)
	var progs []program
	sameAsREADME := false
	for _, m := range mains {
		src, err := os.ReadFile(m)
		if err != nil {
			return nil, nil, err
		}
		dir := filepath.Dir(m)
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			return nil, nil, fmt.Errorf("%s has no go.mod: an example is a module of its own, as an adopter's is", rel)
		}
		modPath := modulePath(gomod)
		if modPath == "" {
			return nil, nil, fmt.Errorf("%s/go.mod names no module", rel)
		}
		p := program{name: rel, src: src, module: modPath, kind: kindOf(src), require: requireOf(kindOf(src)), example: dir}
		if rel == "examples/gosdk" {
			sameAsREADME = bytes.Equal(src, readmeSrc)
			if sameAsREADME {
				p.name += " (and README.md's program, the same bytes)"
			}
		}
		progs = append(progs, p)
	}
	if !sameAsREADME {
		problems = append(problems, "README.md's program is not examples/gosdk/main.go byte for byte: copy one onto the other")
		progs = append(progs, program{name: "README.md's program", src: readmeSrc, module: "example.com/adopter",
			kind: kindOf(readmeSrc), require: requireOf(kindOf(readmeSrc))})
	}
	return progs, problems, nil
}

// kindOf says whether a program adopts mcpvalidate under mcp-go or the go-sdk.
func kindOf(src []byte) string {
	if bytes.Contains(src, []byte(`"`+mcpGo+`/`)) {
		return kindMark3labs
	}
	return kindGoSDK
}

// requireOf is the product module a program of kind requires.
func requireOf(kind string) string {
	if kind == kindMark3labs {
		return mark3labsModule + " v0.0.0"
	}
	return productModule + " v0.0.0"
}

// replacesFor are the clone's modules an adopter requiring module reaches:
// module and, through the require lines of each one's go.mod, every other
// module of the clone but the root, the lab (a product module requiring it
// then fails the adopter's tidy, as it would an adopter's).
func replacesFor(module string, mods map[string]string) (map[string]string, error) {
	out := map[string]string{}
	todo := []string{module}
	for len(todo) > 0 {
		m := todo[0]
		todo = todo[1:]
		if _, seen := out[m]; seen {
			continue
		}
		dir, ok := mods[m]
		if !ok {
			return nil, fmt.Errorf("the clone has no module %s", m)
		}
		out[m] = dir
		gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			return nil, err
		}
		for _, other := range sortedKeys(mods) {
			if other != rootModule && requiredVersion(gomod, other) != "" {
				todo = append(todo, other)
			}
		}
	}
	return out, nil
}

// mainLines is the number of lines of src's func main, its "func main() {"
// line and closing brace included; 0 when src has none.
func mainLines(src []byte) int {
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		if l != "func main() {" {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if lines[j] == "}" {
				return j - i + 1
			}
		}
	}
	return 0
}

// lab is the lab-only entry (or the root module itself) module is, or lies
// under, "" when none.
func lab(module string) string {
	if module == rootModule {
		return rootModule
	}
	return labModule(module)
}

// check tidies, builds, vets and serves one program in dir, with a module
// cache of its own under dir.
func check(ctx context.Context, p program, dir, root string, mods map[string]string, sums []byte, o options) (r result) {
	fail := func(format string, a ...any) { r.problems = append(r.problems, fmt.Sprintf(format, a...)) }
	modcache := filepath.Join(dir, "modcache")
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		fail("%v", err)
		return r
	}
	if p.kind != kindBaseline {
		var err error
		if mods, err = replacesFor(strings.Fields(p.require)[0], mods); err != nil {
			fail("%v", err)
			return r
		}
		if n := mainLines(p.src); n == 0 || n > maxMainLines {
			fail("func main is %d lines, more than %d (or none): an adopter copies it", n, maxMainLines)
		} else {
			r.notes = append(r.notes, fmt.Sprintf("func main: %d lines (at most %d)", n, maxMainLines))
		}
	}
	gomod := adopterGoMod(p, mods)
	files := map[string][]byte{"main.go": p.src, "go.mod": gomod, "go.sum": sums}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
			fail("%v", err)
			return r
		}
	}
	env := append(os.Environ(), "GOMODCACHE="+modcache, "GOPROXY="+o.proxy, "GOWORK=off",
		"GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -modcacherw"))
	start := time.Now()
	defer func() { r.notes = append(r.notes, fmt.Sprintf("took %.1f s", time.Since(start).Seconds())) }()
	if msg, err := goCmd(ctx, src, env, 4*time.Minute, "mod", "tidy"); err != nil {
		fail("go mod tidy: %v\n%s", err, indent(msg))
		return r
	}
	var err error
	if r.zips, err = moduleZips(modcache); err != nil {
		fail("listing the module cache: %v", err)
	}
	tidied, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		fail("%v", err)
		return r
	}
	r.goLine = goLine(tidied)
	if isPatchRelease(r.goLine) {
		fail("tidy raised the go line from %s to %s, a patch release: some module it requires says go %s, which every earlier %s.x refuses (go.mod's go line must be the lowest Go supported, not a patch release)",
			adopterGo, r.goLine, r.goLine, adopterGo)
	}
	if p.kind != kindBaseline {
		for _, z := range r.zips {
			if l := lab(z.module); l != "" && !(p.kind == kindMark3labs && l == mcpGo) {
				fail("tidy downloaded %s@%s, a lab module (%s), for a %s", z.module, z.version, l, p.kind)
			}
		}
		all, err := goCmd(ctx, src, env, 2*time.Minute, "list", "-m", "all")
		if err != nil {
			fail("go list -m all: %v\n%s", err, indent(all))
			return r
		}
		for _, m := range labInBuildList(all, p.kind) {
			fail("the adopter's build list (go list -m all) holds %s, a lab module, for a %s", m, p.kind)
		}
	}
	bin := filepath.Join(dir, "adopter")
	if msg, err := goCmd(ctx, src, env, 4*time.Minute, "build", "-trimpath", "-o", bin, "."); err != nil {
		fail("go build: %v\n%s", err, indent(msg))
		return r
	}
	if msg, err := goCmd(ctx, src, env, 2*time.Minute, "vet", "-trimpath", "."); err != nil {
		fail("go vet: %v\n%s", err, indent(msg))
	}
	if p.example != "" {
		r.notes = append(r.notes, committedFiles(p, src, root, mods, o.write, fail)...)
	}
	if o.serve && p.kind != kindBaseline {
		notes, err := smoke(ctx, bin)
		r.notes = append(r.notes, notes...)
		if err != nil {
			fail("serve: %v", err)
		}
	}
	return r
}

// labInBuildList is every module of a `go list -m all` listing that is the
// lab's or lies under a lab-only entry (mcp-go allowed for a mark3labs
// adopter).
func labInBuildList(list []byte, kind string) []string {
	var found []string
	for _, l := range strings.Split(string(list), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if m := lab(f[0]); m != "" && !(kind == kindMark3labs && m == mcpGo) {
			found = append(found, strings.Join(f, " "))
		}
	}
	return found
}

// committedFiles compares (or with write, rewrites) an example's go.mod and
// go.sum with what tidy wrote for it, the replace paths made relative.
func committedFiles(p program, src, root string, mods map[string]string, write bool, fail func(string, ...any)) []string {
	var notes []string
	for _, name := range []string{"go.mod", "go.sum"} {
		got, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			fail("%v", err)
			continue
		}
		if name == "go.mod" {
			got = relativeReplaces(got, p.example, mods)
		}
		path := filepath.Join(p.example, name)
		have, _ := os.ReadFile(path)
		if bytes.Equal(have, got) {
			continue
		}
		rel, _ := filepath.Rel(root, path)
		if write {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				fail("%v", err)
				continue
			}
			notes = append(notes, "rewrote "+filepath.ToSlash(rel))
			continue
		}
		fail("%s is not what go mod tidy writes for it: run go run ./scripts/adoptcheck -write", filepath.ToSlash(rel))
	}
	return notes
}

// adopterGoMod is the go.mod an adopter writes: the module, the go line of a
// new module, the one requirement and a replace of each module in mods (the
// product modules it reaches) to its directory in the clone.
func adopterGoMod(p program, mods map[string]string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "module %s\n\ngo %s\n\nrequire %s\n", p.module, adopterGo, p.require)
	if p.kind == kindBaseline {
		return b.Bytes()
	}
	b.WriteString("\n")
	for _, m := range sortedKeys(mods) {
		fmt.Fprintf(&b, "replace %s => %s\n", m, mods[m])
	}
	return b.Bytes()
}

// relativeReplaces rewrites every replace target that is a directory of the
// clone to its path relative to the example's directory.
func relativeReplaces(gomod []byte, exampleDir string, mods map[string]string) []byte {
	lines := strings.Split(string(gomod), "\n")
	for i, l := range lines {
		for _, m := range sortedKeys(mods) {
			abs := mods[m]
			if strings.HasSuffix(l, " => "+abs) {
				rel, err := filepath.Rel(exampleDir, abs)
				if err == nil {
					lines[i] = strings.TrimSuffix(l, abs) + filepath.ToSlash(rel)
				}
			}
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// goCmd runs the go command in dir, bounded by limit, and returns its
// combined output.
func goCmd(ctx context.Context, dir string, env []string, limit time.Duration, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return out, fmt.Errorf("still running after %v: %w", limit, ctx.Err())
	}
	return out, err
}

// defaultProxy lists the caller's module cache as a file:// proxy ahead of
// their GOPROXY: what is cached is read from disk, the rest fetched.
func defaultProxy(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMODCACHE", "GOPROXY").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(f) != 2 {
		return "", fmt.Errorf("go env printed %d lines, want 2", len(f))
	}
	cache := filepath.Join(strings.TrimSpace(f[0]), "cache", "download")
	proxy := strings.TrimSpace(f[1])
	if _, err := os.Stat(cache); err != nil || proxy == "off" {
		return proxy, nil
	}
	return "file://" + filepath.ToSlash(cache) + "," + proxy, nil
}

// findRoot is the directory of this repository's go.mod, at or above the
// working directory.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && modulePath(data) == rootModule {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod of %s at or above the working directory", rootModule)
		}
		dir = up
	}
}

// cloneModules maps every module of the clone under rootModule (the root and
// any nested one) to its absolute directory. examples/ holds adopters, not
// modules of the clone; testdata and dot or underscore directories are not
// the go command's either.
func cloneModules(root string) (map[string]string, error) {
	mods := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "examples" && filepath.Dir(path) == root ||
				strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "go.mod" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if m := modulePath(data); m == rootModule || strings.HasPrefix(m, rootModule+"/") {
			mods[m] = filepath.Dir(path)
		}
		return nil
	})
	if _, ok := mods[rootModule]; !ok && err == nil {
		err = errors.New("the clone has no root module")
	}
	return mods, err
}

// cloneSums is every go.sum line of the clone's modules: an adopter's tidy
// checks the modules it shares with the clone against them instead of asking
// the checksum database (it keeps only the lines it needs).
func cloneSums(mods map[string]string) ([]byte, error) {
	seen := map[string]bool{}
	var lines []string
	for _, m := range sortedKeys(mods) {
		data, err := os.ReadFile(filepath.Join(mods[m], "go.sum"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(data), "\n") {
			if l != "" && !seen[l] {
				seen[l] = true
				lines = append(lines, l)
			}
		}
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return nil, nil
	}
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

// modulePath is go.mod's module path, "" when it names none.
func modulePath(gomod []byte) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// goLine is go.mod's go version, "" when it has no go line.
func goLine(gomod []byte) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && f[0] == "go" {
			return f[1]
		}
	}
	return ""
}

// requiredVersion is the version go.mod requires of module, "" when none.
func requiredVersion(gomod []byte, module string) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "require "))
		if len(f) >= 2 && f[0] == module {
			return f[1]
		}
	}
	return ""
}

// isPatchRelease says whether a go line names a patch release past a
// minor's first (1.26.8), which every toolchain of that minor before it
// refuses; 1.26, 1.26.0 and 1.27rc1 are not.
func isPatchRelease(v string) bool {
	parts := strings.Split(v, ".")
	return len(parts) >= 3 && strings.TrimLeft(parts[2], "0") != ""
}

// labModule is the labModules entry module falls under, "" when none.
func labModule(module string) string {
	for _, l := range labModules {
		if module == l || strings.HasPrefix(module, l+"/") {
			return l
		}
	}
	return ""
}

// readmeProgram is the README's first ```go block that starts with
// "package main".
func readmeProgram(readme []byte) ([]byte, error) {
	lines := strings.SplitAfter(string(readme), "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\r\n") != "```go" {
			continue
		}
		var b strings.Builder
		j := i + 1
		for ; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			b.WriteString(lines[j])
		}
		if j == len(lines) {
			return nil, errors.New("a ```go block is not closed")
		}
		if strings.HasPrefix(b.String(), "package main\n") {
			return []byte(b.String()), nil
		}
		i = j
	}
	return nil, errors.New("no ```go block starts with package main")
}

// zip is one module zip in a module cache.
type zip struct {
	module, version string
	bytes           int64
}

// moduleZips lists the module zips under modcache/cache/download, sorted.
func moduleZips(modcache string) ([]zip, error) {
	dl := filepath.Join(modcache, "cache", "download")
	var zips []zip
	err := filepath.WalkDir(dl, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".zip") {
			return nil
		}
		rel, err := filepath.Rel(dl, path)
		if err != nil {
			return err
		}
		mod, file, ok := strings.Cut(filepath.ToSlash(rel), "/@v/")
		if !ok {
			return nil // not a module zip (the checksum database's cache has none)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		zips = append(zips, zip{module: unescape(mod), version: unescape(strings.TrimSuffix(file, ".zip")), bytes: info.Size()})
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		err = nil // tidy downloaded nothing
	}
	sort.Slice(zips, func(i, j int) bool {
		if zips[i].module != zips[j].module {
			return zips[i].module < zips[j].module
		}
		return zips[i].version < zips[j].version
	})
	return zips, err
}

// unescape undoes the module cache's case escaping: "!x" is "X".
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '!' && i+1 < len(s) && 'a' <= s[i+1] && s[i+1] <= 'z' {
			b.WriteByte(s[i+1] - 'a' + 'A')
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// report prints one program's check: the go line, the zips, those beyond the
// bare go-sdk's, the notes and the problems.
func report(w io.Writer, p program, r result, base map[string]string) {
	fmt.Fprintf(w, "\n== %s (%s)\n", p.name, p.kind)
	var total int64
	for _, z := range r.zips {
		total += z.bytes
	}
	if r.goLine != "" {
		fmt.Fprintf(w, "  go line after tidy: %s\n", r.goLine)
	}
	fmt.Fprintf(w, "  tidy downloaded %d module zips, %.1f MB:\n", len(r.zips), float64(total)/1e6)
	for _, z := range r.zips {
		mark := " "
		if lab(z.module) != "" {
			mark = "!"
		}
		fmt.Fprintf(w, "   %s %s@%s\n", mark, z.module, z.version)
	}
	if p.kind != kindBaseline && base != nil {
		beyond, moved := beyondBase(r.zips, base)
		fmt.Fprintf(w, "  beyond the bare go-sdk's: %d: %s\n", len(beyond), strings.Join(beyond, ", "))
		if len(moved) > 0 {
			fmt.Fprintf(w, "  at another version than the bare go-sdk's (the product's requirements win): %s\n", strings.Join(moved, ", "))
		}
	}
	for _, n := range r.notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	for _, pr := range r.problems {
		fmt.Fprintf(w, "  FAIL %s\n", pr)
	}
	if len(r.problems) == 0 {
		fmt.Fprintln(w, "  ok")
	}
}

// beyondBase are the zips' modules the baseline did not download, and those
// it downloaded at another version ("module v1 -> v2").
func beyondBase(zips []zip, base map[string]string) (beyond, moved []string) {
	for _, z := range zips {
		if v, ok := base[z.module]; !ok {
			beyond = append(beyond, z.module)
		} else if v != z.version {
			moved = append(moved, z.module+" "+v+" -> "+z.version)
		}
	}
	return beyond, moved
}

func indent(b []byte) string {
	const most = 4 << 10 // a failing build's log, bounded
	s := strings.TrimRight(string(b), "\n")
	if len(s) > most {
		s = s[:most] + "\n[... cut]"
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// baselineSrc is a server on the bare go-sdk: a typed tool, the streamable
// HTTP handler. What its tidy downloads is what any go-sdk server downloads.
const baselineSrc = `package main

import (
	"context"
	"log"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type In struct {
	Query string ` + "`json:\"query\"`" + `
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "baseline", Version: "v0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "search"}, func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", h))
}
`
