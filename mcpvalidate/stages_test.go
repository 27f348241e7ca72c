package mcpvalidate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/charge"
)

// bigSet publishes one tool whose number field has a maximum. jsonschema/v6
// turns the instance into a big.Rat for it; past big.Rat's exponent range
// (1e1000001) SetString fails and the comparison panics on the nil result.
// The default MaxNumberExponent (999) keeps such a number out; a server that
// raises it reaches the validator's recover.
var bigSet = mapFS(map[string]string{"big.schema.json": `{"$schema":"https://json-schema.org/draft/2020-12/schema",
 "$id":"https://x.test/big.schema.json","x-mcp-tool":"big","type":"object",
 "properties":{"n":{"type":"number","maximum":100}},"unevaluatedProperties":false}`})

const panicArgs = `{"n":1e1000001}`

func bigValidator(t testing.TB) *Validator {
	t.Helper()
	l := charge.DefaultLimits()
	l.MaxNumberExponent = 10_000_000
	return mustNew(t, SchemaFiles(bigSet, "s"), &Options{Limits: &l})
}

// answers is how one call fared on each path a caller can reach.
type answers struct {
	check      error
	middleware *mcp.CallToolResult
	served     []byte // the HTTP answer through the middleware alone
	gated      []byte // the HTTP answer through the front gate and the middleware
	ran        int64  // how many times the tool's handler ran
}

// callEveryPath makes the same call through Check, the middleware in process
// (go-sdk in-memory transport) and over streamable HTTP with and without the
// front gate, on a server publishing v's tools with v's middleware outermost.
func callEveryPath(t *testing.T, v *Validator, tool, args string) answers {
	t.Helper()
	var a answers
	a.check = v.Check(context.Background(), tool, []byte(args))
	srv := mcp.NewServer(&mcp.Implementation{Name: "stages", Version: "v0"}, nil)
	for _, name := range v.names {
		schema, _ := v.InputSchema(name)
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			atomic.AddInt64(&a.ran, 1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
	}
	srv.AddReceivingMiddleware(v.Middleware())

	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	a.middleware, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("in process: %v", err)
	}

	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	fg, err := v.frontGate(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":` + string(must(json.Marshal(tool))) + `,"arguments":` + args + `}}`)
	a.served = postTo(t, h, body)
	a.gated = postTo(t, fg, body)
	return a
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func postTo(t *testing.T, h http.Handler, body []byte) []byte {
	t.Helper()
	hs := httptest.NewServer(h)
	defer hs.Close()
	req, _ := http.NewRequest(http.MethodPost, hs.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %d: %.300s", resp.StatusCode, out)
	}
	return out
}

// refusedEverywhere holds a call to be refused at stage on every path, with
// the same text, never reaching the handler and never quoting callerValue.
func refusedEverywhere(t *testing.T, a answers, stage Stage, callerValue string) {
	t.Helper()
	var r *callRefusal
	if !errorsAs(a.check, &r) || r.Stage != stage {
		t.Fatalf("Check: %v, want a %s refusal", a.check, stage)
	}
	want := r.Error()
	if mr := a.middleware; !mr.IsError || len(mr.Content) != 1 || mr.Content[0].(*mcp.TextContent).Text != want {
		t.Errorf("middleware: isError %v, content %v; want %q", mr.IsError, mr.Content, want)
	}
	for name, body := range map[string][]byte{"served": a.served, "front gate": a.gated} {
		var m struct {
			Result struct {
				Content []struct{ Text string } `json:"content"`
				IsError bool                    `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &m); err != nil || !m.Result.IsError || len(m.Result.Content) != 1 || m.Result.Content[0].Text != want {
			t.Errorf("%s over HTTP: %.400s; want isError with %q", name, body, want)
		}
		if strings.Contains(string(body), callerValue) {
			t.Errorf("%s over HTTP echoes the caller's value: %.400s", name, body)
		}
	}
	if a.ran != 0 {
		t.Errorf("the handler ran %d times", a.ran)
	}
}

// A schema validator that panics refuses the call (StageInternal) on every
// path: Check, the middleware, a served call and the front gate.
func TestValidatorPanicRefusesOnEveryPath(t *testing.T) {
	v := bigValidator(t)
	refusedEverywhere(t, callEveryPath(t, v, "big", panicArgs), StageInternal, "1e1000001")
	// The control: the same tool and field at the edge of big.Rat's range is
	// answered by the schema, and a valid call runs the handler on every path.
	a := callEveryPath(t, v, "big", `{"n":1e999999}`)
	var r *callRefusal
	if !errorsAs(a.check, &r) || r.Stage != StageSchema {
		t.Fatalf("1e999999: %v, want the schema's maximum", a.check)
	}
	if a = callEveryPath(t, v, "big", `{"n":5}`); a.check != nil || a.middleware.IsError || a.ran != 3 {
		t.Fatalf("a valid call: Check %v, middleware isError %v, handler ran %d times (want 3)", a.check, a.middleware.IsError, a.ran)
	}
}

// failingDecoder fails every decode: no input the gate admits makes the
// decoder fail, so the decode stage is driven by swapping it.
func failingDecoder([]byte, int) (any, error) { return nil, errors.New("decoder failed") }

// A decoder failure refuses the call (stageDecode) on every path.
func TestDecodeFailureRefusesOnEveryPath(t *testing.T) {
	v := mustNew(t, SchemaFiles(openSet, "s"), nil)
	v.decode = failingDecoder
	refusedEverywhere(t, callEveryPath(t, v, "open", `{"data":"s3cr3t"}`), stageDecode, "s3cr3t")
}

// The middleware fails closed on a tools/call it cannot read (a request of
// another type, or no parameters): a JSON-RPC error, the next handler never
// called. Other methods pass through.
func TestMiddlewareFailsClosedOnAnUnreadableCall(t *testing.T) {
	v := mustNew(t, SchemaFiles(openSet, "s"), nil)
	var called int
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		called++
		return &mcp.CallToolResult{}, nil
	}
	h := v.Middleware()(next)
	for _, req := range []mcp.Request{&mcp.CallToolRequest{}, &mcp.ListToolsRequest{}, nil} {
		res, err := h(context.Background(), "tools/call", req)
		var je *jsonrpc.Error
		if res != nil || !errorsAs(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%T: result %v, error %v; want an invalid-params error", req, res, err)
		}
	}
	if called != 0 {
		t.Fatalf("next ran %d times for unreadable calls", called)
	}
	if _, err := h(context.Background(), "tools/list", &mcp.ListToolsRequest{}); err != nil || called != 1 {
		t.Fatalf("tools/list: %v, next ran %d times", err, called)
	}
	ok := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "open", Arguments: json.RawMessage(`{"n":1}`)}}
	if _, err := h(context.Background(), "tools/call", ok); err != nil || called != 2 {
		t.Fatalf("a valid call: %v, next ran %d times", err, called)
	}
	bad := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "open", Arguments: json.RawMessage(`{"n":101}`)}}
	if res, err := h(context.Background(), "tools/call", bad); err != nil || called != 2 || !res.(*mcp.CallToolResult).IsError {
		t.Fatalf("a refused call: %v %v, next ran %d times", res, err, called)
	}
}

// Leaves are ordered by pointer, then keyword, then the schema-side limit,
// and a refusal hook counts every failing leaf, the elided ones included.
func TestLeafOrderAndHookCount(t *testing.T) {
	set := mapFS(map[string]string{"o.schema.json": `{"$schema":"https://json-schema.org/draft/2020-12/schema",
 "$id":"https://x.test/o.schema.json","x-mcp-tool":"o","type":"object",
 "properties":{"s":{"type":"string","maxLength":1,"pattern":"0"},"n":{"anyOf":[{"type":"string"},{"type":"boolean"}]},
 "a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}},"unevaluatedProperties":false}`})
	var seen *Refusal
	v := mustNew(t, SchemaFiles(set, "s"), &Options{OnRefusal: func(_ context.Context, ev *Refusal) { seen = ev }})
	r := refusalOf(t, v, "o", []byte(`{"s":"ab","n":1}`))
	got := r.Error()
	for _, order := range [][2]string{{`"/n": type boolean`, `"/n": type string`}, {`"/s": maxLength 1`, `"/s": pattern 0`}, {`"/n"`, `"/s"`}} {
		if i, j := strings.Index(got, order[0]), strings.Index(got, order[1]); i < 0 || j < 0 || i > j {
			t.Errorf("want %s before %s: %s", order[0], order[1], got)
		}
	}
	r = refusalOf(t, v, "o", []byte(`{"s":"ab","n":1,"a":"x","b":"x","c":"x"}`))
	if r.Elided == 0 || len(r.Leaves)+r.Elided != 7 {
		t.Errorf("refusal names %d leaves and elides %d (want 7 in all)", len(r.Leaves), r.Elided)
	}
	if seen == nil || seen.Bound != r.Leaves[0].Keyword || seen.Where != r.Leaves[0].Pointer || seen.Error() != r.Error() {
		t.Errorf("hook saw %+v; want the first leaf %+v and the same text", seen, r.Leaves[0])
	}
}
