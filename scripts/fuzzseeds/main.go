// Command fuzzseeds finds every native Go fuzz target in the module (each
// `func FuzzX(f *testing.F)` in a _test.go file) and writes its seed corpus —
// the F.Add seeds its own code computes and its testdata/fuzz/<Target>/ files
// — as OUT/<Target>_seed_corpus.zip, in the input encoding of the libFuzzer
// binaries OSS-Fuzz and ClusterFuzzLite build with go-118-fuzz-build (see
// package internal/fuzzseed).
//
//	go run ./scripts/fuzzseeds -out DIR [-dirs] [TARGET...]
//	go run ./scripts/fuzzseeds -list
//
// For each target it compiles the target's file as go-118-fuzz-build does —
// as package code beside the package's non-test files alone, its "testing"
// import pointed at a stand-in with the same API — through a go build
// overlay, so no file in the tree changes, and runs the target's setup in its
// package directory (as go test does). A target that does not compile that
// way fails the export, naming the target: the same targets fail OSS-Fuzz's
// build. -list prints each target as "DIR TARGET IMPORTPATH", the list
// .clusterfuzzlite/build.sh builds.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// shim is the stand-in package the rewritten file imports as "testing".
const shim = "github.com/theurian/boundlab/internal/fuzzseed"

// target is one fuzz target: its package directory (relative to the module
// root, slash-separated), its file and its function.
type target struct {
	Dir, File, Name, ImportPath, Package string
}

func main() {
	out := flag.String("out", "", "directory for <Target>_seed_corpus.zip")
	list := flag.Bool("list", false, "print the targets (DIR TARGET IMPORTPATH) and exit")
	dirs := flag.Bool("dirs", false, "also write each corpus's inputs as files in OUT/<Target>_seed_corpus/ (libFuzzer reads directories, not zips)")
	flag.Parse()
	root, module, err := moduleRoot()
	if err != nil {
		fail(err)
	}
	targets, err := findTargets(root, module)
	if err != nil {
		fail(err)
	}
	if *list {
		for _, t := range targets {
			fmt.Println(t.Dir, t.Name, t.ImportPath)
		}
		return
	}
	if *out == "" {
		fail(fmt.Errorf("-out is required"))
	}
	if *out, err = filepath.Abs(*out); err != nil {
		fail(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	want := map[string]bool{}
	for _, a := range flag.Args() {
		want[a] = true
	}
	failed, some := 0, len(want) > 0 // want empties as targets are found: some keeps the filter
	for _, t := range targets {
		if some && !want[t.Name] {
			continue
		}
		delete(want, t.Name)
		if err := export(root, t, *out, *dirs); err != nil {
			fmt.Fprintf(os.Stderr, "fuzzseeds: %s (%s): %v\n", t.Name, t.Dir, err)
			failed++
		}
	}
	for name := range want {
		fmt.Fprintf(os.Stderr, "fuzzseeds: no target %s\n", name)
		failed++
	}
	if failed > 0 {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fuzzseeds:", err)
	os.Exit(2)
}

// moduleRoot is the main module's directory and path; in workspace mode
// (go.work: the lab and the product's modules nested in it) the outermost
// one, whose directory holds the others.
func moduleRoot() (dir, path string, err error) {
	raw, err := exec.Command("go", "list", "-m", "-json").Output()
	if err != nil {
		return "", "", fmt.Errorf("go list -m: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		var m struct{ Path, Dir string }
		if err := dec.Decode(&m); err != nil {
			if err == io.EOF && dir != "" {
				return dir, path, nil
			}
			return "", "", fmt.Errorf("go list -m: %v", err)
		}
		if dir == "" || len(m.Dir) < len(dir) {
			dir, path = m.Dir, m.Path
		}
	}
}

// findTargets walks the module (skipping testdata, hidden and underscore
// directories, and nested modules) for fuzz targets. Two targets of one name
// are an error: OSS-Fuzz names a binary, its seed zip and its dictionary by
// the target.
func findTargets(root, module string) ([]target, error) {
	var targets []target
	seen := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path != root {
				// A nested module is walked when it lies at its own path
				// under the module's (the product's modules in the lab's
				// tree: a package's import path is then module/rel either
				// way), skipped otherwise.
				if data, err := os.ReadFile(filepath.Join(path, "go.mod")); err == nil {
					rel, _ := filepath.Rel(root, path)
					if modulePath(data) != module+"/"+filepath.ToSlash(rel) {
						return filepath.SkipDir
					}
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !isFuzzName(fn.Name.Name) || !takesF(fn) {
				continue
			}
			t := target{Dir: rel, File: filepath.Base(path), Name: fn.Name.Name, ImportPath: module + "/" + rel, Package: f.Name.Name}
			if rel == "." {
				t.ImportPath = module
			}
			if other, ok := seen[t.Name]; ok {
				return fmt.Errorf("%s is a fuzz target in %s and in %s: OSS-Fuzz names a binary by its target", t.Name, other, rel)
			}
			seen[t.Name] = rel
			targets = append(targets, t)
		}
		return nil
	})
	sort.Slice(targets, func(i, j int) bool {
		if targets[i].Dir != targets[j].Dir {
			return targets[i].Dir < targets[j].Dir
		}
		return targets[i].Name < targets[j].Name
	})
	return targets, err
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

// isFuzzName is go test's rule: Fuzz, or Fuzz and a word not starting in
// lower case.
func isFuzzName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Fuzz")
	if !ok || rest == "" {
		return ok
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}

// takesF reports a signature of one parameter of type *testing.F.
func takesF(fn *ast.FuncDecl) bool {
	ps := fn.Type.Params.List
	if len(ps) != 1 || len(ps[0].Names) > 1 || fn.Type.Results != nil {
		return false
	}
	star, ok := ps[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "F" {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "testing"
}

// export builds and runs one target's exporter through an overlay: the
// target's file rewritten onto the stand-in as package code, and a main
// beside it.
func export(root string, t target, out string, dirs bool) error {
	if strings.HasSuffix(t.Package, "_test") {
		return fmt.Errorf("%s is in the external test package %s: once its file is package code it clashes with the package (move the target into the package, or into its own directory)", t.File, t.Package)
	}
	dir := filepath.Join(root, filepath.FromSlash(t.Dir))
	tmp, err := os.MkdirTemp("", "fuzzseeds-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	src, err := rewrite(filepath.Join(dir, t.File))
	if err != nil {
		return err
	}
	rewritten := filepath.Join(tmp, "target.go")
	if err := os.WriteFile(rewritten, src, 0o644); err != nil {
		return err
	}
	main := fmt.Sprintf(`//go:build ignore

package main

import (
	fuzzseed %q
	target %q
)

func main() { fuzzseed.Main(%q, target.%s, %q, %q, %v) }
`, shim, t.ImportPath, t.Name, t.Name, dir, out, dirs)
	mainFile := filepath.Join(tmp, "main.go")
	if err := os.WriteFile(mainFile, []byte(main), 0o644); err != nil {
		return err
	}
	// Names no file in the tree has: the target's file as package code, and
	// the main (excluded from the package by its build constraint).
	asCode := filepath.Join(dir, strings.TrimSuffix(t.File, "_test.go")+"_fuzzseed.go")
	asMain := filepath.Join(dir, "fuzzseed_main_"+t.Name+".go")
	overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {asCode: rewritten, asMain: mainFile}})
	ov := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		return err
	}
	cmd := exec.Command("go", "run", "-overlay", ov, asMain)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// rewrite is path's source with its "testing" import pointed at the
// stand-in (under the name testing), as go-118-fuzz-build points it at its
// own.
func rewrite(path string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	found := false
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "testing" {
			if imp.Name != nil && imp.Name.Name != "testing" {
				return nil, fmt.Errorf("%s imports testing as %s", path, imp.Name.Name)
			}
			imp.Name = ast.NewIdent("testing")
			imp.Path.Value = strconv.Quote(shim)
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("%s does not import testing", path)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "//line %s:1\n", path) // errors name the target's own file and lines
	if err := printer.Fprint(&b, fset, f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
