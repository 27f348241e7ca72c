package mcpvalidate

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// maxExported is the most identifiers the product may export across
// mcpvalidate and its adapters: what an adopter has to read.
const maxExported = 60

// apiPackages are the product's adopter-facing packages, by directory.
var apiPackages = []string{".", "mark3labs", "mcpvalidatetest"}

// exported lists the exported identifiers of the package in dir as go doc
// shows them: package-level names, methods and fields of exported types,
// constants of a group one each.
func exported(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pkgs {
		d := doc.New(p, "x", 0)
		pkg := p.Name
		add := func(n string) { names = append(names, pkg+"."+n) }
		values := func(vs []*doc.Value) {
			for _, v := range vs {
				for _, n := range v.Names {
					if ast.IsExported(n) {
						add(n)
					}
				}
			}
		}
		values(d.Consts)
		values(d.Vars)
		for _, f := range d.Funcs {
			add(f.Name)
		}
		for _, ty := range d.Types {
			add(ty.Name)
			values(ty.Consts)
			values(ty.Vars)
			for _, f := range ty.Funcs {
				add(f.Name)
			}
			for _, m := range ty.Methods {
				add(ty.Name + "." + m.Name)
			}
			switch st := ty.Decl.Specs[0].(*ast.TypeSpec).Type.(type) {
			case *ast.StructType:
				for _, f := range st.Fields.List {
					for _, n := range f.Names {
						if n.IsExported() {
							add(ty.Name + "." + n.Name)
						}
					}
				}
			case *ast.InterfaceType:
				for _, f := range st.Methods.List {
					for _, n := range f.Names {
						if n.IsExported() {
							add(ty.Name + "." + n.Name)
						}
					}
				}
			}
		}
	}
	sort.Strings(names)
	return names
}

// TestExportedIdentifiers holds the product's API to maxExported names.
func TestExportedIdentifiers(t *testing.T) {
	var all []string
	for _, dir := range apiPackages {
		all = append(all, exported(t, dir)...)
	}
	if len(all) > maxExported {
		t.Errorf("%d exported identifiers, past %d:\n%s", len(all), maxExported, strings.Join(all, "\n"))
	}
	t.Logf("%d exported identifiers: %s", len(all), strings.Join(all, " "))
}

// The counter counts what it should: a package of known shape.
func TestExportedCountsEveryKind(t *testing.T) {
	dir := t.TempDir()
	src := `package p
const A, b = 1, 2
var V int
func F() {}
type T struct{ X, y int; Z string }
func NewT() T { return T{} }
func (T) M() {}
func (T) m() {}
type I interface{ N(); n() }
type k struct{ K int }
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(exported(t, dir), " ")
	base := "p."
	want := strings.Join([]string{base + "A", base + "F", base + "I", base + "I.N", base + "NewT", base + "T", base + "T.M", base + "T.X", base + "T.Z", base + "V"}, " ")
	if got != want {
		t.Errorf("counted %s\nwant    %s", got, want)
	}
}

// unexportedRef is a doc link to a name an adopter cannot see.
var unexportedRef = regexp.MustCompile(`\[[a-z][A-Za-z0-9]*(\.[A-Za-z0-9]+)?\]`)

// TestDocShowsNoHiddenName: what go doc shows an adopter names no
// unexported identifier and no internal package.
func TestDocShowsNoHiddenName(t *testing.T) {
	for _, dir := range apiPackages {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			d := doc.New(p, "x", 0)
			texts := map[string]string{"package doc": d.Doc}
			for _, f := range d.Funcs {
				texts[f.Name] = f.Doc
			}
			for _, ty := range d.Types {
				texts[ty.Name] = ty.Doc
				for _, f := range append(ty.Funcs, ty.Methods...) {
					texts[ty.Name+"."+f.Name] = f.Doc
				}
			}
			for name, text := range texts {
				if strings.Contains(text, "internal/") {
					t.Errorf("%s: %s names an internal package", dir, name)
				}
				if m := unexportedRef.FindString(text); m != "" && !strings.HasPrefix(m, "[mcp.") && !strings.HasPrefix(m, "[http.") {
					t.Errorf("%s: %s links %s, which an adopter cannot see", dir, name, m)
				}
			}
		}
	}
}
