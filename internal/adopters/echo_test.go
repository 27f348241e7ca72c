package adopters

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
)

// pathMax is a bound a server could publish for a file path: Linux's
// PATH_MAX.
const pathMax = 4096

// The echo left after gopls's patch (docs/adopters.md, "What does not")
// is its handler quoting a valid argument, and what would end it is a
// maxLength gopls publishes, which the validator then holds: this pins
// both halves of that claim on a tool shaped like gopls's go_file_context
// (one string, "file", inferred from a Go string: no maxLength).
func TestEchoIsTheHandlers(t *testing.T) {
	ctx := context.Background()
	validator := func(schema string) *mcpvalidate.Validator {
		t.Helper()
		v, err := mcpvalidate.New(mcpvalidate.Tools(&mcp.Tool{Name: "go_file_context", InputSchema: json.RawMessage(schema)}), nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// the fillers below need no escaping: sent as they are, as the audit
	// sends them
	args := func(file string) json.RawMessage { return json.RawMessage(`{"file":"` + file + `"}`) }

	// As published: the audit's 64 KiB string is admitted, so the
	// handler's quote of it is the handler's; Go's JSON encoder writes
	// each '&' it quotes as \u0026, six bytes for one.
	unbounded := validator(`{"type":"object","properties":{"file":{"type":"string"}},"required":["file"],"additionalProperties":false}`)
	filler := strings.Repeat("&", 64<<10)
	if err := unbounded.Check(ctx, "go_file_context", args(filler)); err != nil {
		t.Fatalf("a valid call refused: %v", err)
	}
	request := len(args(filler))
	answer, _ := json.Marshal(fmt.Sprintf("no such file %s", filler))
	if ratio := float64(len(answer)) / float64(request); ratio < 5.9 || ratio > 6 {
		t.Errorf("the handler's quote is %.3fx the request, want JSON's six bytes a '&'", ratio)
	}

	// With a maxLength published, the validator holds it: at the bound
	// admitted, one past refused, the refusal naming the bound and not
	// the value.
	bounded := validator(fmt.Sprintf(`{"type":"object","properties":{"file":{"type":"string","maxLength":%d}},"required":["file"],"additionalProperties":false}`, pathMax))
	at := strings.Repeat("&", pathMax)
	if err := bounded.Check(ctx, "go_file_context", args(at)); err != nil {
		t.Errorf("a path of maxLength characters refused: %v", err)
	}
	err := bounded.Check(ctx, "go_file_context", args(at+"&"))
	if err == nil {
		t.Fatal("a path one past maxLength admitted")
	}
	if msg := err.Error(); !strings.Contains(msg, "maxLength") || strings.Contains(msg, "&&") {
		t.Errorf("the refusal does not name the bound, or quotes the value: %.200s", msg)
	}
}
