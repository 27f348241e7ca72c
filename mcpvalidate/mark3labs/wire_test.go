package mark3labs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	m3client "github.com/mark3labs/mcp-go/client"
	m3 "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/mark3labs"
)

// What mark3labs hands tool-handler middleware for a call whose arguments
// repeat a member name: RawArguments holds the wire's bytes verbatim (spacing
// and both members), Arguments encoding/json's decode (the last member wins).
// The validator reads the first, so it refuses the call at the gate.
func TestMiddlewareGetsTheWireBytes(t *testing.T) {
	var got m3.CallToolParams
	record := func(next m3server.ToolHandlerFunc) m3server.ToolHandlerFunc {
		return func(ctx context.Context, req m3.CallToolRequest) (*m3.CallToolResult, error) {
			got = req.Params
			return next(ctx, req)
		}
	}
	var h handled
	s := m3server.NewMCPServer("m3", "0", m3server.WithToolHandlerMiddleware(record))
	s.AddTool(m3.NewToolWithRawSchema("item.put", "", json.RawMessage(itemSchema)), h.m3Handler)
	v, err := mark3labs.Install(s, nil) // runs after record: mark3labs has no way to prepend
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(m3server.NewStreamableHTTPServer(s, m3server.WithStateLess(true)))
	defer ts.Close()

	args := `{ "name" : "a",  "name":"` + canary + `" }`
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"item.put","arguments":` + args + `}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	if string(got.RawArguments) != args {
		t.Fatalf("RawArguments %q, want the wire's %q", got.RawArguments, args)
	}
	if want := map[string]any{"name": canary}; !reflect.DeepEqual(got.Arguments, want) {
		t.Fatalf("Arguments %#v, want the last member only %#v", got.Arguments, want)
	}
	var rpc struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(answer, &rpc); err != nil || len(rpc.Result.Content) != 1 {
		t.Fatalf("answer %q: %v", answer, err)
	}
	want := v.Check(context.Background(), "item.put", json.RawMessage(args))
	var r *mcpvalidate.Refusal
	if !errors.As(want, &r) || r.Stage != mcpvalidate.StageGate {
		t.Fatalf("Check: %v, want a gate refusal", want)
	}
	if !rpc.Result.IsError || rpc.Result.Content[0].Text != want.Error() || h.n.Load() != 0 {
		t.Fatalf("answer %q, want the refusal %q and no handler run", answer, want.Error())
	}
}

// A request built in process without RawArguments is validated as its
// Arguments re-encoded: what encoding/json's decode lost cannot be refused.
func TestDecodedArgumentsFallback(t *testing.T) {
	v, err := mcpvalidate.New(mcpvalidate.Tools(toolsOf(t, m3.NewToolWithRawSchema("item.put", "", json.RawMessage(itemSchema)))...), nil)
	if err != nil {
		t.Fatal(err)
	}
	var h handled
	call := mark3labs.Middleware(v)(h.m3Handler)
	cases := []struct {
		name    string
		args    any
		refused string // the refusal's text, "" when admitted
	}{
		{"decoded admitted", map[string]any{"name": "a"}, ""},
		{"decoded unknown member", map[string]any{"name": "a", "extra": canary}, checkText(t, v, `{"extra":"x","name":"a"}`)},
		{"raw message", json.RawMessage(`{"name":"a",  "name":"b"}`), checkText(t, v, `{"name":"a",  "name":"b"}`)}, // spaced: re-encoding would move the byte offset
		{"absent", nil, checkText(t, v, ``)},
		{"unencodable", map[string]any{"name": make(chan int)}, "tools/call refused: arguments the validator cannot read"},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			before := h.n.Load()
			res, err := call(context.Background(), m3.CallToolRequest{Params: m3.CallToolParams{Name: "item.put", Arguments: c.args}})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			ran := h.n.Load() != before
			if c.refused == "" {
				if res.IsError || !ran {
					t.Fatalf("%s: refused (%v) or the handler did not run", c.name, res.Content)
				}
				return
			}
			if !res.IsError || ran || len(res.Content) != 1 || res.Content[0].(m3.TextContent).Text != c.refused {
				t.Fatalf("%s: %+v (handler ran %v), want %q", c.name, res, ran, c.refused)
			}
			if strings.Contains(c.refused, canary) {
				t.Fatalf("%s: the refusal holds the canary", c.name)
			}
		})
	}
}

func checkText(t *testing.T, v *mcpvalidate.Validator, args string) string {
	t.Helper()
	err := v.Check(context.Background(), "item.put", json.RawMessage(args))
	if err == nil {
		t.Fatalf("Check admitted %q", args)
	}
	return err.Error()
}

func toolsOf(t *testing.T, defs ...m3.Tool) []*gosdk.Tool {
	t.Helper()
	tools, err := mark3labs.Convert(defs...)
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// A name no registered tool has never reaches tool-handler middleware:
// mark3labs answers it with a JSON-RPC error quoting the name (the package
// doc's "Where it ends"). The validator's refusal hook never fires.
func TestUnregisteredNameIsMark3labsOwn(t *testing.T) {
	hooked := 0
	s := m3server.NewMCPServer("m3", "0")
	s.AddTool(m3.NewToolWithRawSchema("item.put", "", json.RawMessage(itemSchema)), (&handled{}).m3Handler)
	if _, err := mark3labs.Install(s, &mcpvalidate.Options{OnRefusal: func(context.Context, *mcpvalidate.Refusal) { hooked++ }}); err != nil {
		t.Fatal(err)
	}
	c, err := m3client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	started(t, c)
	_, err = c.CallTool(context.Background(), m3.CallToolRequest{Params: m3.CallToolParams{Name: "absent-" + canary}})
	if err == nil || !strings.Contains(err.Error(), canary) || hooked != 0 {
		t.Fatalf("err %v, hook fired %d times: mark3labs no longer answers unknown names itself; revise the package doc", err, hooked)
	}
}

// Convert publishes what mark3labs' encoding of each tool publishes; a typed
// tool's schema is open unless the tool closes it.
func TestConvert(t *testing.T) {
	open := m3.NewTool("open", m3.WithString("name", m3.Required(), m3.MaxLength(16)))
	closed := m3.NewTool("closed", m3.WithString("name", m3.Required(), m3.MaxLength(16)), m3.WithSchemaAdditionalProperties(false))
	tools := toolsOf(t, open, closed, m3.Tool{Name: "zero"})
	for i, def := range []m3.Tool{open, closed} {
		t.Run("published_"+def.Name, func(t *testing.T) {
			enc, _ := json.Marshal(def)
			var published struct{ InputSchema json.RawMessage }
			_ = json.Unmarshal(enc, &published)
			got, _ := json.Marshal(tools[i].InputSchema)
			if tools[i].Name != def.Name || !bytes.Equal(got, published.InputSchema) {
				t.Fatalf("%s: converted %s, published %s", def.Name, got, published.InputSchema)
			}
		})
	}
	if tools[2].Name != "zero" || tools[2].InputSchema != nil {
		t.Fatalf("the zero schema converted to %v, want none", tools[2].InputSchema)
	}
	if _, err := mcpvalidate.New(mcpvalidate.Tools(tools...), nil); err == nil || !strings.Contains(err.Error(), `"open" at #`) {
		t.Fatalf("New over an open tool: %v", err)
	}
	v, err := mcpvalidate.New(mcpvalidate.Tools(tools...), &mcpvalidate.Options{OpenTools: []string{"open"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		name, tool, args string
		admit            bool
	}{
		{"open_admitted", "open", `{"name":"a"}`, true},
		{"open_extra_member", "open", `{"name":"a","extra":1}`, true}, // kept open: admitted as published
		{"open_name_past_maxLength", "open", `{"name":"` + canary + canary + `"}`, false},
		{"closed_extra_member", "closed", `{"name":"a","extra":1}`, false},
		{"zero_schema", "zero", `{}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := v.Check(ctx, c.tool, json.RawMessage(c.args)); (err == nil) != c.admit {
				t.Errorf("%s %s: %v, want admitted %v", c.tool, c.args, err, c.admit)
			}
		})
	}
	both := m3.NewTool("both", m3.WithString("name"))
	both.RawInputSchema = json.RawMessage(itemSchema)
	if _, err := mark3labs.Convert(both); err == nil {
		t.Fatal("Convert accepted a tool with both schemas set")
	}
}

// Install fails, and adds no middleware, when the server's tools do not
// convert or a second schema source is given.
func TestInstallFails(t *testing.T) {
	both := m3.NewTool("both", m3.WithString("name"))
	both.RawInputSchema = json.RawMessage(itemSchema)
	s := m3server.NewMCPServer("m3", "0")
	s.AddTool(both, (&handled{}).m3Handler)
	if v, err := mark3labs.Install(s, nil); err == nil || v != nil {
		t.Fatalf("Install: %v, %v", v, err)
	}
}

// The adapter imports mcpvalidate, charge, mark3labs and the go-sdk (and what
// those bring): nothing of the lab.
func TestImportsNoLab(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("SKIPPED: no go command on PATH to list the imports")
	}
	const self = "github.com/theurian/boundlab/mcpvalidate/mark3labs"
	out, err := exec.Command("go", "list", "-deps", self).Output()
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{self: true, "github.com/theurian/boundlab/mcpvalidate": true, "github.com/theurian/boundlab/charge": true,
		"github.com/theurian/boundlab/mcpvalidate/bounds": true, "github.com/theurian/boundlab/mcpvalidate/internal/inspect": true,
		"github.com/theurian/boundlab/mcpvalidate/internal/quotes": true}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, "github.com/theurian/boundlab/") && !allowed[d] {
			t.Errorf("%s depends on the lab package %s", self, d)
		}
	}
}

// Tools lists a server's registered tools sorted by name, each with the
// schema its own encoding publishes.
func TestTools(t *testing.T) {
	s := m3server.NewMCPServer("m3", "0")
	for _, name := range []string{"b", "c", "a"} {
		s.AddTool(m3.NewToolWithRawSchema(name, "", json.RawMessage(itemSchema)), (&handled{}).m3Handler)
	}
	tools, err := mark3labs.Tools(s)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		var got, want any
		raw, _ := json.Marshal(tl.InputSchema)
		_ = json.Unmarshal(raw, &got)
		_ = json.Unmarshal([]byte(itemSchema), &want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: schema %s", tl.Name, raw)
		}
	}
	if strings.Join(names, ",") != "a,b,c" {
		t.Fatalf("Tools listed %v, want a,b,c", names)
	}
}

// Task tools (AddTaskTool) run without tool-handler middleware in mark3labs
// v1.2.1: a call the validator would refuse reaches the task handler. The
// package doc says so ("Where it ends"); this pins it.
func TestTaskToolsBypassMiddleware(t *testing.T) {
	ran := make(chan string, 1)
	s := m3server.NewMCPServer("m3", "0", m3server.WithTaskCapabilities(true, true, true))
	job := m3.NewToolWithRawSchema("job", "", json.RawMessage(itemSchema))
	job.Execution = &m3.ToolExecution{TaskSupport: m3.TaskSupportRequired}
	s.AddTaskTool(job,
		func(_ context.Context, req m3.CallToolRequest) (*m3.CreateTaskResult, error) {
			ran <- string(req.Params.RawArguments)
			return &m3.CreateTaskResult{}, nil
		})
	if tools, _ := mark3labs.Tools(s); len(tools) != 0 {
		t.Fatalf("Tools listed %d tools, want the task tool left out", len(tools))
	}
	v, err := mcpvalidate.New(mcpvalidate.Tools(&gosdk.Tool{Name: "job", InputSchema: json.RawMessage(itemSchema)}), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Use(mark3labs.Middleware(v))
	args := `{"extra":"` + canary + `"}`
	if v.Check(context.Background(), "job", json.RawMessage(args)) == nil {
		t.Fatal("Check admitted the arguments")
	}
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":` + args + `,"task":{}}}`
	resp, _ := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(msg)))
	select {
	case got := <-ran:
		if got != args {
			t.Fatalf("the task handler got %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("the task handler did not run; answer %s", resp)
	}
}

// The front gate is an http.Handler in front of any SDK's: in front of
// mark3labs' streamable HTTP server it caps the body (mark3labs has no cap),
// refuses what mark3labs would read last-wins, and bounds the tool name it
// quotes unbounded in its "not found" answer.
func TestFrontGateBeforeMark3labs(t *testing.T) {
	var h handled
	s := m3server.NewMCPServer("m3", "0")
	s.AddTool(m3.NewToolWithRawSchema("item.put", "", json.RawMessage(itemSchema)), h.m3Handler)
	v, err := mark3labs.Install(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	front, err := v.Protect(m3server.NewStreamableHTTPServer(s, m3server.WithStateLess(true)), &mcpvalidate.HTTPOptions{Stateless: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(front)
	defer ts.Close()
	send := func(body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":` + name + `,"arguments":` + args + `}}`
	}
	if status, out := send(call(`"item.put"`, `{"name":"a"}`)); status != http.StatusOK || strings.Contains(out, `"isError":true`) || h.n.Load() != 1 {
		t.Fatalf("a valid call: HTTP %d %s (handler ran %d)", status, out, h.n.Load())
	}
	for _, c := range []struct{ name, body string }{
		{"duplicate tool name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"item.put","name":"` + canary + `","arguments":{}}}`},
		{"unknown tool name past the bound", call(`"`+strings.Repeat(canary, 40)+`"`, `{}`)},
		{"trailing bytes", call(`"item.put"`, `{"name":"a"}`) + `{"` + canary + `":1}`},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			status, out := send(c.body)
			if status != http.StatusBadRequest || strings.Contains(out, canary) || len(out) > mcpvalidate.MaxRefusalBytes() {
				t.Errorf("%s: HTTP %d %.300s", c.name, status, out)
			}
		})
	}
	if h.n.Load() != 1 {
		t.Fatalf("the handler ran on a refused call (%d)", h.n.Load())
	}
}
