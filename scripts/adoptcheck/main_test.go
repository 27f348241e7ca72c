package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestREADMEProgram(t *testing.T) {
	for _, c := range []struct {
		name, readme, want, err string
	}{
		{"the first block that is a program", "# x\n\n```go\nv, err := f()\n```\n\n```go\npackage main\n\nfunc main() {}\n```\n\n```go\npackage main\n// later\n```\n",
			"package main\n\nfunc main() {}\n", ""},
		{"a comment before the package clause is not a program", "```go\n// Command x.\npackage main\n```\n", "", "no ```go block"},
		{"a block of another language is not read", "```sh\npackage main\n```\n", "", "no ```go block"},
		{"an unclosed block", "```go\npackage main\n", "", "not closed"},
		{"none", "# nothing here\n", "", "no ```go block"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readmeProgram([]byte(c.readme))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil || string(got) != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// pathName is a module path as a subtest name: its slashes as '_', since -run
// splits a pattern at '/' and a path's elements would be levels of subtests
// (github.com/bytedance/sonic/loader one level below .../sonic).
func pathName(p string) string { return strings.ReplaceAll(p, "/", "_") }

func TestLabModule(t *testing.T) {
	for _, c := range []struct{ module, want string }{
		{"github.com/bytedance/sonic", "github.com/bytedance/sonic"},
		{"github.com/bytedance/sonic/loader", "github.com/bytedance/sonic"},
		{"github.com/bytedance/sonicx", ""}, // a prefix of the name is not the module
		{"github.com/cloudwego/base64x", "github.com/cloudwego"},
		{"gonum.org/v1/plot", "gonum.org"},
		{"golang.org/x/perf", "golang.org/x/perf"},
		{"golang.org/x/text", ""},
		{"github.com/mark3labs/mcp-go", "github.com/mark3labs/mcp-go"},
		{"github.com/santhosh-tekuri/jsonschema/v6", ""},
		{"github.com/segmentio/encoding", ""},
	} {
		t.Run(pathName(c.module), func(t *testing.T) {
			if got := labModule(c.module); got != c.want {
				t.Errorf("labModule(%q) = %q, want %q", c.module, got, c.want)
			}
		})
	}
}

func TestIsPatchRelease(t *testing.T) {
	for _, c := range []struct {
		v    string
		want bool
	}{{"1.26", false}, {"1.26.0", false}, {"1.25.0", false}, {"1.27rc1", false}, {"", false},
		{"1.26.8", true}, {"1.26.10", true}, {"1.25.1", true}} {
		name := c.v
		if name == "" {
			name = "empty"
		}
		t.Run(name, func(t *testing.T) {
			if got := isPatchRelease(c.v); got != c.want {
				t.Errorf("isPatchRelease(%q) = %v", c.v, got)
			}
		})
	}
}

func TestGoModFields(t *testing.T) {
	mod := []byte("module example.com/x\n\ngo 1.26.8\n\ntoolchain go1.27.3\n\nrequire (\n\tgithub.com/a/b v1.2.3\n\tgithub.com/modelcontextprotocol/go-sdk v1.8.0 // indirect\n)\n\nrequire github.com/c/d v0.1.0\n")
	for _, c := range []struct{ name, got, want string }{
		{"module", modulePath(mod), "example.com/x"},
		{"go line", goLine(mod), "1.26.8"},
		{"a require in a block", requiredVersion(mod, "github.com/modelcontextprotocol/go-sdk"), "v1.8.0"},
		{"a require on its own line", requiredVersion(mod, "github.com/c/d"), "v0.1.0"},
		{"a module not required", requiredVersion(mod, "github.com/a"), ""},
		{"no module line", modulePath([]byte("go 1.26\n")), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %q, want %q", c.got, c.want)
			}
		})
	}
}

func TestUnescape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"github.com/!burnt!sushi/toml", "github.com/BurntSushi/toml"},
		{"golang.org/x/text", "golang.org/x/text"},
		{"v0.0.0-20210112150236-f10218a38794", "v0.0.0-20210112150236-f10218a38794"},
		{"a!", "a!"},
	} {
		t.Run(pathName(c.in), func(t *testing.T) {
			if got := unescape(c.in); got != c.want {
				t.Errorf("unescape(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A module cache's zips are listed as module@version, case unescaped, and
// nothing else it holds (.mod and .info files, the checksum database's
// tiles) is counted.
func TestModuleZips(t *testing.T) {
	mc := t.TempDir()
	writeFiles(t, mc, map[string]string{
		"cache/download/github.com/!burnt!sushi/toml/@v/v1.3.2.zip": "12345",
		"cache/download/github.com/!burnt!sushi/toml/@v/v1.3.2.mod": "module x",
		"cache/download/golang.org/x/text/@v/v0.42.0.zip":           "1",
		"cache/download/golang.org/x/text/@v/v0.42.0.info":          "{}",
		"cache/download/golang.org/x/text/@v/list":                  "v0.42.0",
		"cache/download/sumdb/sum.golang.org/tile/8/0/x123.zip":     "not a module",
	})
	got, err := moduleZips(mc)
	if err != nil {
		t.Fatal(err)
	}
	want := []zip{{"github.com/BurntSushi/toml", "v1.3.2", 5}, {"golang.org/x/text", "v0.42.0", 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got, err := moduleZips(t.TempDir()); err != nil || len(got) != 0 {
		t.Errorf("an empty cache: %v, %v", got, err)
	}
}

// The clone's modules are the root and the nested ones under its path;
// examples/, testdata and dot directories are skipped, and so is a module
// of another path.
func TestCloneModules(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":                         "module github.com/theurian/boundlab\n",
		"mcpvalidate/mark3labs/go.mod":   "module github.com/theurian/boundlab/mcpvalidate/mark3labs\n",
		"examples/gosdk/go.mod":          "module example.com/gosdk\n",
		"examples/nested/inner/go.mod":   "module github.com/theurian/boundlab/examples/nested/inner\n",
		"charge/testdata/m/go.mod":       "module github.com/theurian/boundlab/charge/testdata/m\n",
		".git/x/go.mod":                  "module github.com/theurian/boundlab/x\n",
		"tools/go.mod":                   "module example.com/tools\n",
		"internal/examples/thing/go.mod": "module github.com/theurian/boundlab/internal/examples/thing\n",
	})
	got, err := cloneModules(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"github.com/theurian/boundlab":                         root,
		"github.com/theurian/boundlab/mcpvalidate/mark3labs":   filepath.Join(root, "mcpvalidate", "mark3labs"),
		"github.com/theurian/boundlab/internal/examples/thing": filepath.Join(root, "internal", "examples", "thing"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := cloneModules(t.TempDir()); err == nil {
		t.Error("a tree without the root module: no error")
	}
}

// An adopter's go.mod requires the product and replaces the product modules
// it reaches; the committed copy holds the replaces relative to the example.
func TestAdopterGoModAndRelativeReplaces(t *testing.T) {
	root := filepath.FromSlash("/clone")
	mods := map[string]string{
		productModule:          filepath.Join(root, "mcpvalidate"),
		rootModule + "/charge": filepath.Join(root, "charge"),
	}
	p := program{module: "example.com/gosdk", kind: kindGoSDK, require: requireOf(kindGoSDK)}
	got := string(adopterGoMod(p, mods))
	want := "module example.com/gosdk\n\ngo " + adopterGo + "\n\nrequire github.com/theurian/boundlab/mcpvalidate v0.0.0\n\n" +
		"replace github.com/theurian/boundlab/charge => " + filepath.Join(root, "charge") + "\n" +
		"replace github.com/theurian/boundlab/mcpvalidate => " + filepath.Join(root, "mcpvalidate") + "\n"
	if got != want {
		t.Errorf("adopterGoMod:\n%s\nwant:\n%s", got, want)
	}
	rel := string(relativeReplaces([]byte(got), filepath.Join(root, "examples", "gosdk"), mods))
	for _, line := range []string{"replace github.com/theurian/boundlab/charge => ../../charge\n", "replace github.com/theurian/boundlab/mcpvalidate => ../../mcpvalidate\n"} {
		if !strings.Contains(rel, line) {
			t.Errorf("relativeReplaces lacks %q:\n%s", line, rel)
		}
	}
	base := string(adopterGoMod(program{module: "example.com/baseline", kind: kindBaseline, require: "github.com/modelcontextprotocol/go-sdk v1.8.0"}, mods))
	if strings.Contains(base, "replace") || !strings.Contains(base, "require github.com/modelcontextprotocol/go-sdk v1.8.0\n") {
		t.Errorf("the baseline's go.mod:\n%s", base)
	}
	if got := requireOf(kindMark3labs); got != "github.com/theurian/boundlab/mcpvalidate/mark3labs v0.0.0" {
		t.Errorf("a mark3labs adopter requires %q", got)
	}
}

// An adopter replaces the product modules its requirement reaches through
// their go.mod files, never the lab's root module, even when a product
// module requires it.
func TestReplacesFor(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":                       "module github.com/theurian/boundlab\n\nrequire github.com/theurian/boundlab/mcpvalidate v0.0.0\n",
		"charge/go.mod":                "module github.com/theurian/boundlab/charge\n\nrequire golang.org/x/text v0.37.0\n",
		"mcpvalidate/go.mod":           "module github.com/theurian/boundlab/mcpvalidate\n\nrequire (\n\tgithub.com/theurian/boundlab/charge v0.0.0\n)\n",
		"mcpvalidate/mark3labs/go.mod": "module github.com/theurian/boundlab/mcpvalidate/mark3labs\n\nrequire github.com/theurian/boundlab/mcpvalidate v0.0.0\n",
		"stray/go.mod":                 "module github.com/theurian/boundlab/stray\n\nrequire github.com/theurian/boundlab v0.0.0\n",
	})
	mods, err := cloneModules(root)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]string) []string { return sortedKeys(m) }
	for _, c := range []struct {
		module string
		want   []string
	}{
		{productModule, []string{rootModule + "/charge", productModule}},
		{mark3labsModule, []string{rootModule + "/charge", productModule, mark3labsModule}},
		{rootModule + "/stray", []string{rootModule + "/stray"}},
	} {
		got, err := replacesFor(c.module, mods)
		if err != nil || !reflect.DeepEqual(keys(got), c.want) {
			t.Errorf("replacesFor(%s) = %v, %v; want %v", c.module, keys(got), err, c.want)
		}
	}
	if _, err := replacesFor(rootModule+"/absent", mods); err == nil {
		t.Error("a module the clone does not hold: no error")
	}
}

func TestMainLines(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      int
	}{
		{"brace lines counted", "package main\n\nfunc main() {\n\tx()\n\ty()\n}\n", 4},
		{"a closure's brace is not main's", "package main\n\nfunc main() {\n\tf := func() {\n\t}\n\tf()\n}\n\nfunc g() {\n}\n", 5},
		{"no main", "package main\n\nfunc g() {\n}\n", 0},
		{"not closed", "package main\n\nfunc main() {\n\tx()\n", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := mainLines([]byte(c.src)); got != c.want {
				t.Errorf("got %d, want %d", got, c.want)
			}
		})
	}
}

// The build list holds the lab's root module or a lab-only one: each is
// named; the product's modules, under the root's path, are not the lab's.
func TestLabInBuildList(t *testing.T) {
	list := []byte("example.com/gosdk\n" +
		"github.com/theurian/boundlab v0.0.0 => ../..\n" +
		"github.com/theurian/boundlab/charge v0.0.0 => ../../charge\n" +
		"github.com/theurian/boundlab/mcpvalidate v0.0.0 => ../../mcpvalidate\n" +
		"github.com/bytedance/sonic/loader v0.2.0\n" +
		"github.com/mark3labs/mcp-go v1.2.1\n" +
		"golang.org/x/text v0.37.0\n")
	got := labInBuildList(list, kindGoSDK)
	want := []string{"github.com/theurian/boundlab v0.0.0 => ../..", "github.com/bytedance/sonic/loader v0.2.0", "github.com/mark3labs/mcp-go v1.2.1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a go-sdk adopter: %q, want %q", got, want)
	}
	if got := labInBuildList(list, kindMark3labs); len(got) != 2 {
		t.Errorf("a mark3labs adopter (mcp-go allowed): %q", got)
	}
	if got := labInBuildList([]byte("example.com/x\ngithub.com/theurian/boundlab/mcpvalidate v0.0.0\n"), kindGoSDK); len(got) != 0 {
		t.Errorf("the product alone: %q", got)
	}
}

func TestBeyondBase(t *testing.T) {
	base := map[string]string{"github.com/modelcontextprotocol/go-sdk": "v1.8.0", "golang.org/x/text": "v0.30.0"}
	beyond, moved := beyondBase([]zip{{"github.com/modelcontextprotocol/go-sdk", "v1.8.0", 1},
		{"golang.org/x/text", "v0.37.0", 1}, {"github.com/santhosh-tekuri/jsonschema/v6", "v6.0.3", 1}}, base)
	if !reflect.DeepEqual(beyond, []string{"github.com/santhosh-tekuri/jsonschema/v6"}) ||
		!reflect.DeepEqual(moved, []string{"golang.org/x/text v0.30.0 -> v0.37.0"}) {
		t.Errorf("beyond %q, moved %q", beyond, moved)
	}
}

func TestKindOf(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"go-sdk", `import "github.com/modelcontextprotocol/go-sdk/mcp"`, kindGoSDK},
		{"mark3labs", "import (\n\t\"github.com/mark3labs/mcp-go/server\"\n)", kindMark3labs},
		{"a mention in a comment is not an import path", "// like github.com/mark3labs/mcp-go does", kindGoSDK},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := kindOf([]byte(c.src)); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestAdmitted(t *testing.T) {
	for _, c := range []struct {
		name, schema, want string
		ok                 bool
	}{
		{"each required member a value of its type",
			`{"type":"object","required":["query","n","tags"],"properties":{"query":{"type":"string"},"n":{"type":"integer"},"tags":{"type":"array"},"x":{"type":"string"}}}`,
			`{"query":"x","n":1,"tags":[]}`, true},
		{"a name that needs escaping", `{"required":["a\"b"],"properties":{"a\"b":{"type":"boolean"}}}`, `{"a\"b":false}`, true},
		{"nothing required", `{"type":"object","properties":{"q":{"type":"string"}}}`, "", false},
		{"a required member with no property", `{"required":["q"],"properties":{}}`, "", false},
		{"a required member of several types", `{"required":["q"],"properties":{"q":{"type":["string","null"]}}}`, "", false},
		{"not a schema", `[]`, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := admitted([]byte(c.schema))
			if got != c.want || ok != c.ok {
				t.Errorf("got %q, %v; want %q, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

// The README's program and the go-sdk example are one program, and each
// example is a module of its own: what the check reads holds in this tree.
func TestTheRepositoryHoldsWhatTheCheckReads(t *testing.T) {
	root, err := findRoot()
	if err != nil {
		t.Fatal(err)
	}
	progs, problems, err := programs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	kinds := map[string]string{}
	for _, p := range progs {
		kinds[p.name] = p.kind
		if n := mainLines(p.src); n == 0 || n > maxMainLines {
			t.Errorf("%s: func main is %d lines, want 1 to %d", p.name, n, maxMainLines)
		}
	}
	if kinds["examples/gosdk (and README.md's program, the same bytes)"] != kindGoSDK || kinds["examples/mark3labs"] != kindMark3labs {
		t.Errorf("programs: %v; want examples/gosdk (the README's) a go-sdk adopter, examples/mark3labs a mark3labs one", kinds)
	}
}

// A failing command's log is kept whole up to its bound and cut past it.
func TestIndentBound(t *testing.T) {
	const most = 4 << 10
	for _, c := range []struct {
		name string
		n    int
		cut  bool
	}{{"at the bound", most, false}, {"one past it", most + 1, true}} {
		t.Run(c.name, func(t *testing.T) {
			got := indent([]byte(strings.Repeat("x", c.n)))
			if strings.HasSuffix(got, "[... cut]") != c.cut || strings.Count(got, "x") != min(c.n, most) {
				t.Errorf("%d bytes: cut %v, %d kept", c.n, strings.HasSuffix(got, "[... cut]"), strings.Count(got, "x"))
			}
		})
	}
}
