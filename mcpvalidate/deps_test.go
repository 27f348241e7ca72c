package mcpvalidate

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// allowedDirect are the only non-standard packages the production package
// imports directly: the core, the SDK (and its JSON decoder) and the schema
// validator. (sonic decoded the arguments until decode.go; only the tests
// use it now, as the reference the decoder is held to.)
var allowedDirect = []string{
	"github.com/theurian/boundlab/charge",
	"github.com/theurian/boundlab/mcpvalidate/bounds",
	"github.com/theurian/boundlab/mcpvalidate/internal/inspect",
	"github.com/theurian/boundlab/mcpvalidate/internal/quotes",
	"github.com/modelcontextprotocol/go-sdk/",
	"github.com/santhosh-tekuri/jsonschema/v6",
	// The go-sdk's own JSON decoder (its internal/json wraps it): the front
	// gate decodes params with it, as the SDK will, to refuse what the SDK
	// would echo. A module the go-sdk already brings, not one of ours.
	"github.com/segmentio/encoding/json",
	// The go-sdk's own schema inference (google/jsonschema-go): AddTool
	// infers a typed tool's schema exactly as mcp.AddTool does before
	// tightening it. Another module the go-sdk already brings.
	"github.com/google/jsonschema-go/jsonschema",
}

// TestImportsOnlyTheCore holds the production arrow: mcpvalidate imports the
// core, the go-sdk and jsonschema/v6 (and the standard library), and
// nothing of boundlab but charge and its own figures, directly or
// indirectly.
func TestImportsOnlyTheCore(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("SKIPPED: no go command on PATH to list the imports")
	}
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "github.com/theurian/boundlab/mcpvalidate").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
			continue // standard library
		}
		ok := false
		for _, a := range allowedDirect {
			ok = ok || imp == a || strings.HasPrefix(imp, a+"/") || (strings.HasSuffix(a, "/") && strings.HasPrefix(imp, a))
		}
		if !ok {
			t.Errorf("mcpvalidate imports %s", imp)
		}
	}
	deps, err := exec.Command("go", "list", "-deps", "github.com/theurian/boundlab/mcpvalidate").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range strings.Fields(string(deps)) {
		if strings.HasPrefix(d, "github.com/theurian/boundlab/") && !productionPackage(d) {
			t.Errorf("mcpvalidate depends on the lab package %s", d)
		}
	}
}

// productionPackage reports whether a boundlab package is part of what an
// adopter builds: charge, mcpvalidate and their subpackages (the modules
// github.com/theurian/boundlab/charge and .../mcpvalidate).
func productionPackage(path string) bool {
	rel, ok := strings.CutPrefix(path, "github.com/theurian/boundlab/")
	if !ok {
		return false
	}
	for _, p := range []string{"charge", "mcpvalidate"} {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// adopterModules are the only modules a go-sdk adopter's `go mod tidy`
// may need for mcpvalidate: the go-sdk and what it brings, the schema
// validator, and the go-sdk's own JSON decoder. tidy loads the tests of
// every package it builds, so the production packages' tests are held to
// the same list: a lab module here (sonic, gofuzz, mcp-go...) would be
// downloaded by every adopter.
var adopterModules = map[string]bool{
	"github.com/theurian/boundlab/charge":      true,
	"github.com/theurian/boundlab/mcpvalidate": true,
	"github.com/dlclark/regexp2":               true, // jsonschema/v6's
	"github.com/modelcontextprotocol/go-sdk":   true,
	"github.com/google/jsonschema-go":          true, // the go-sdk's validator
	"github.com/yosida95/uritemplate/v3":       true, // the go-sdk's
	"github.com/santhosh-tekuri/jsonschema/v6": true,
	"github.com/segmentio/encoding":            true, // the go-sdk's JSON decoder
	"github.com/segmentio/asm":                 true, // segmentio/encoding's
	"golang.org/x/oauth2":                      true, // the go-sdk's
	"golang.org/x/sync":                        true,
	"golang.org/x/sys":                         true,
	"golang.org/x/text":                        true, // jsonschema/v6's messages; charge/reference's tables
	"golang.org/x/time":                        true,
}

// TestAdopterDownloadsNoLabModule holds the product boundary (issue 22):
// what `go mod tidy` builds for a server importing mcpvalidate — the
// production packages and their tests — reaches only adopterModules and no
// lab package of boundlab. The mark3labs adapter's own tests may add
// mcp-go (its adopters have it) and nothing else.
func TestAdopterDownloadsNoLabModule(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("SKIPPED: no go command on PATH to list the imports")
	}
	const root = "github.com/theurian/boundlab/"
	for _, c := range []struct {
		pkg   string
		extra []string
	}{
		{root + "charge", nil},
		{root + "charge/reference", nil},
		{root + "mcpvalidate", nil},
		{root + "mcpvalidate/mcpvalidatetest", nil},
		{root + "mcpvalidate/mark3labs", []string{root + "mcpvalidate/mark3labs", "github.com/mark3labs/mcp-go", "github.com/google/uuid", "github.com/spf13/cast"}},
	} {
		t.Run(caseName(strings.TrimPrefix(c.pkg, root)), func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-test", "-f", `{{.ImportPath}} {{if .Module}}{{.Module.Path}}{{end}}`, c.pkg).Output()
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				f := strings.Fields(line)
				if len(f) < 2 {
					continue // the standard library
				}
				pkg, mod := strings.Fields(strings.TrimSuffix(f[0], ".test"))[0], f[len(f)-1]
				if !adopterModules[mod] && !slices.Contains(c.extra, mod) {
					t.Errorf("%s (with its tests) needs module %s (via %s)", c.pkg, mod, pkg)
				}
				if strings.HasPrefix(pkg, root) && !productionPackage(strings.TrimSuffix(pkg, "_test")) {
					t.Errorf("%s (with its tests) imports the lab package %s", c.pkg, pkg)
				}
			}
		})
	}
}
