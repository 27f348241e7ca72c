package mcpvalidate_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/schemas"
)

// allowedDirect are the only non-standard packages the production package
// imports directly: the core, the SDK (and its JSON decoder) and the schema
// validator. (sonic decoded the arguments until decode.go; only the tests
// use it now, as the reference the decoder is held to.)
var allowedDirect = []string{
	"github.com/theurian/boundlab/charge",
	"github.com/modelcontextprotocol/go-sdk/",
	"github.com/santhosh-tekuri/jsonschema/v6",
	// The go-sdk's own JSON decoder (its internal/json wraps it): the front
	// gate decodes params with it, as the SDK will, to refuse what the SDK
	// would echo. A module the go-sdk already brings, not one of ours.
	"github.com/segmentio/encoding/json",
}

// TestImportsOnlyTheCore holds the production arrow: mcpvalidate imports the
// core, the go-sdk and jsonschema/v6 (and the standard library), and
// nothing of boundlab but charge, directly or indirectly.
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
		if strings.HasPrefix(d, "github.com/theurian/boundlab/") && d != "github.com/theurian/boundlab/mcpvalidate" && !strings.HasPrefix(d, "github.com/theurian/boundlab/charge") {
			t.Errorf("mcpvalidate depends on the lab package %s", d)
		}
	}
}

// The demo's schema files name their tools with the key the registry reads.
func TestSchemasUseTheToolKey(t *testing.T) {
	if schemas.ToolKey != mcpvalidate.ToolKey {
		t.Fatalf("schemas.ToolKey %q, mcpvalidate.ToolKey %q", schemas.ToolKey, mcpvalidate.ToolKey)
	}
}
