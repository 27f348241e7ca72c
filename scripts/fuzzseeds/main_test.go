package main

import (
	"archive/zip"
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// fuzzLine is how .ci/run's fuzz smokes find targets: a line starting
// `func Fuzz` in a _test.go file.
var fuzzLine = regexp.MustCompile(`^func (Fuzz[A-Za-z0-9_]*)\(`)

// findTargets lists what the line scan finds, no more and no fewer, in the
// repository (outside testdata): build.sh builds what the smokes fuzz.
func TestFindTargetsIsEveryFuzzFunc(t *testing.T) {
	root, module, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	targets, err := findTargets(root, module)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, tg := range targets {
		got = append(got, tg.Dir+" "+tg.Name)
	}
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		s := bufio.NewScanner(f)
		for s.Scan() {
			if m := fuzzLine.FindStringSubmatch(s.Text()); m != nil {
				want = append(want, filepath.ToSlash(rel)+" "+m[1])
			}
		}
		return nil
	})
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) < 10 {
		t.Fatalf("findTargets:\n%s\nthe line scan:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Every target compiles the way go-118-fuzz-build compiles it (its file as
// package code beside the non-test files alone, onto a testing stand-in with
// go-118-fuzz-build's API) and exports a seed corpus holding at least its
// F.Add seeds: the OSS-Fuzz build's constraints checked without clang.
//
// With $BOUNDLAB_SEED_CORPORA naming a directory, the corpora there are
// checked instead of exported again: .ci/run sets it to what its libFuzzer
// build's build.sh exported, with this command, from the same tree.
func TestEveryTargetExports(t *testing.T) {
	exported := os.Getenv(seedCorporaEnv)
	if testing.Short() && exported == "" {
		t.Skip("builds every target's package (about a minute): skipped under -short")
	}
	root, module, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	targets, err := findTargets(root, module)
	if err != nil {
		t.Fatal(err)
	}
	out := exported
	if out == "" {
		out = t.TempDir()
	} else {
		t.Logf("checking the seed corpora in $%s=%s, not exporting them again", seedCorporaEnv, out)
	}
	for _, tg := range targets {
		t.Run(tg.Name, func(t *testing.T) {
			if exported == "" {
				if err := export(root, tg, out, false); err != nil {
					t.Fatal(err)
				}
			}
			z, err := zip.OpenReader(filepath.Join(out, tg.Name+"_seed_corpus.zip"))
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			if len(z.File) == 0 || z.File[0].Name != "seed-0" {
				t.Fatalf("%d entries, first %v: want the F.Add seeds first", len(z.File), z.File)
			}
		})
	}
}

// seedCorporaEnv names a directory of seed corpora this command exported
// for every target, for TestEveryTargetExports to check in place.
const seedCorporaEnv = "BOUNDLAB_SEED_CORPORA"

// OSS-Fuzz's compile_native_go_fuzzer finds a target's file by grepping its
// package directory, subdirectories included, for the name, and its coverage
// build copies what it finds: each target is named in one .go file there
// (.clusterfuzzlite/build.sh checks the same before it builds).
func TestEachTargetIsNamedInOneFile(t *testing.T) {
	root, module, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	targets, err := findTargets(root, module)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		t.Run(tg.Name, func(t *testing.T) {
			var named []string
			filepath.WalkDir(filepath.Join(root, tg.Dir), func(path string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
					return err
				}
				if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), tg.Name) {
					named = append(named, path)
				}
				return nil
			})
			if len(named) != 1 {
				t.Fatalf("%s is named in %d .go files under %s: %v", tg.Name, len(named), tg.Dir, named)
			}
		})
	}
}

func TestExportRefusesAnExternalTestPackage(t *testing.T) {
	err := export(t.TempDir(), target{Dir: "x", File: "x_test.go", Name: "FuzzX", Package: "x_test"}, t.TempDir(), false)
	if err == nil || !strings.Contains(err.Error(), "external test package x_test") {
		t.Fatalf("error %v", err)
	}
}

func TestRewritePointsTestingAtTheStandIn(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, src, want, err string }{
		{"plain", "package p\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc FuzzX(f *testing.F) { fmt.Println() }\n",
			"testing \"" + shim + "\"", ""},
		{"named_testing", "package p\n\nimport testing \"testing\"\n\nfunc FuzzX(f *testing.F) {}\n", "testing \"" + shim + "\"", ""},
		{"aliased", "package p\n\nimport tt \"testing\"\n\nfunc FuzzX(f *tt.F) {}\n", "", "imports testing as tt"},
		{"no_testing", "package p\n", "", "does not import testing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name+"_test.go")
			os.WriteFile(p, []byte(c.src), 0o644)
			out, err := rewrite(p)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || !strings.Contains(string(out), c.want) || strings.Contains(string(out), "\t\"testing\"") ||
				!strings.HasPrefix(string(out), "//line "+p+":1\npackage p") {
				t.Fatalf("%v:\n%s", err, out)
			}
		})
	}
}

// What go test runs as a fuzz target is found, under any parameter name, and
// nothing else; a name in two packages is refused.
func TestFindTargetsInAModule(t *testing.T) {
	dir := t.TempDir()
	// (indented, so that no line of this file starts "func Fuzz")
	src := `package p

import "testing"

 func FuzzA(f *testing.F)             {}
 func FuzzB(ff *testing.F)            {}
 func FuzzC(t *testing.T)             {}
 func FuzzD(f *testing.F, x int)      {}
 func FuzzE(f *testing.F) error       { return nil }
 func (r) FuzzF(f *testing.F)         {}
 func Fuzz(f *testing.F)              {}
 func fuzzG(f *testing.F)             {}
 func Fuzzy(f *testing.F)             {}
`
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/p\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(src), 0o644)
	targets, err := findTargets(dir, "example.com/p")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tg := range targets {
		names = append(names, tg.Name)
		if tg.ImportPath != "example.com/p" || tg.Dir != "." {
			t.Errorf("%s: dir %q, import path %q", tg.Name, tg.Dir, tg.ImportPath)
		}
	}
	if strings.Join(names, " ") != "Fuzz FuzzA FuzzB" {
		t.Fatalf("targets %v, want Fuzz FuzzA FuzzB", names)
	}
	os.MkdirAll(filepath.Join(dir, "q"), 0o755)
	os.WriteFile(filepath.Join(dir, "q", "q_test.go"), []byte("package q\n\nimport \"testing\"\n\n func FuzzA(f *testing.F) {}\n"), 0o644)
	if _, err := findTargets(dir, "example.com/p"); err == nil || !strings.Contains(err.Error(), "FuzzA is a fuzz target in . and in q") {
		t.Fatalf("a name in two packages: error %v", err)
	}
}

// A nested module at its own path under the module's is walked (its import
// paths are module/rel as in the lab's tree); one at another path is not.
func TestFindTargetsInNestedModules(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/p\n",
		"n/go.mod":        "module example.com/p/n\n",
		"n/sub/s_test.go": "package sub\n\nimport \"testing\"\n\nfunc FuzzN(f *testing.F) {}\n",
		"other/go.mod":    "module example.com/other\n",
		"other/o_test.go": "package other\n\nimport \"testing\"\n\nfunc FuzzO(f *testing.F) {}\n",
	}
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	targets, err := findTargets(dir, "example.com/p")
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) != 1 || targets[0].Name != "FuzzN" || targets[0].Dir != "n/sub" || targets[0].ImportPath != "example.com/p/n/sub" {
		t.Errorf("targets %+v, want FuzzN alone, in n/sub, example.com/p/n/sub", targets)
	}
}
