package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Over a saved tools/list where tools other than the one checked publish
// open schemas (testdata/tools-open.json: echo closed, five open, one named
// with a terminal escape), validate --tool checks the call against its tool
// and warns on stderr, bounded, about the others; the tool checked is still
// held closed, and when its own schema is open validate refuses, naming
// --open-tools.
func TestValidateWarnsAboutOtherOpenTools(t *testing.T) {
	list := filepath.Join("testdata", "tools-open.json")
	warnEcho := `warning: 5 other tools in tools-open.json publish open input schemas`
	shown := `"\u001b[31mred", "add", "getTinyImage" and 2 more`
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		want  int
		// every string in stderr, and none of the absent ones
		stderr, absent []string
	}{
		{"closed-tool-admits", []string{"--tool", "echo"}, `{"message":"hi"}`, exitOK, []string{warnEcho, shown, "against echo's schema alone"}, nil},
		{"closed-tool-still-closed", []string{"--tool", "echo"}, `{"message":"hi","x":1}`, exitNo, []string{warnEcho}, nil},
		{"closed-tool-still-typed", []string{"--tool", "echo"}, `{"message":1}`, exitNo, []string{warnEcho}, nil},
		{"open-tool-refused", []string{"--tool", "add"}, `{"a":1,"b":2}`, exitUsage,
			[]string{`"add" at #`, "--tool add: its own input schema is open", "--open-tools add validates against it"}, []string{"warning"}},
		{"open-tool-named", []string{"--tool", "add", "--open-tools", "add"}, `{"a":1,"b":2,"zzz":3}`, exitOK,
			[]string{"warning: 4 other tools", `"\u001b[31mred", "getTinyImage", "longRunningOperation" and 1 more`}, nil},
		{"others-named-no-warning", []string{"--tool", "echo", "--open-tools", "add,getTinyImage,longRunningOperation,printEnv,\x1b[31mred"},
			`{"message":"hi"}`, exitOK, nil, []string{"warning"}},
		{"one-other-named", []string{"--tool", "echo", "--open-tools", "add"}, `{"message":"hi"}`, exitOK,
			[]string{"warning: 4 other tools", `"\u001b[31mred", "getTinyImage", "longRunningOperation" and 1 more`}, nil},
		{"list", []string{"--list"}, "", exitOK, []string{"warning: 5 tools in tools-open.json", shown}, nil},
		{"request", []string{"--request"}, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
			exitOK, []string{warnEcho}, nil},
		{"request-open-tool", []string{"--request"}, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`,
			exitUsage, []string{"--tool add: its own input schema is open"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"validate", "--schemas", list}, c.args...)
			if c.args[0] != "--list" {
				args = append(args, "-")
			}
			code, out, errOut := runVerb(t, c.stdin, args...)
			if code != c.want {
				t.Errorf("exit %d, want %d\n%s%s", code, c.want, out, errOut)
			}
			for _, want := range c.stderr {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
			for _, no := range append(c.absent, "\x1b") {
				if strings.Contains(errOut, no) {
					t.Errorf("stderr holds %q:\n%s", no, errOut)
				}
			}
			for _, l := range strings.Split(errOut, "\n") {
				if strings.Contains(errOut, "warning") && len(l) > summaryMaxColumns {
					t.Errorf("a warning line of %d bytes: %q", len(l), l)
				}
			}
		})
	}
}

// A directory of schema files is the contract the middleware itself loads:
// an open schema there refuses it whole, as mcpvalidate.New does, whatever
// tool is checked.
func TestValidateDirectoryStaysStrict(t *testing.T) {
	dir := t.TempDir()
	const draft = `"$schema":"https://json-schema.org/draft/2020-12/schema",`
	os.WriteFile(filepath.Join(dir, "echo.schema.json"), []byte(`{`+draft+`"$id":"https://example.com/echo.schema.json","x-mcp-tool":"echo","type":"object","properties":{"message":{"type":"string"}},"unevaluatedProperties":false}`), 0o644)
	os.WriteFile(filepath.Join(dir, "loose.schema.json"), []byte(`{`+draft+`"$id":"https://example.com/loose.schema.json","x-mcp-tool":"loose","type":"object","properties":{"meta":{"type":"object"}},"unevaluatedProperties":false}`), 0o644)
	code, out, errOut := runVerb(t, `{"message":"hi"}`, "validate", "--schemas", dir, "--tool", "echo", "-")
	if code != exitUsage || !strings.Contains(errOut, `"loose"`) {
		t.Errorf("exit %d, want %d naming loose:\n%s%s", code, exitUsage, out, errOut)
	}
}
