package pyseed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/memmodel"
	"github.com/theurian/boundlab/results"
)

// ServerProducer is the name the server's records are pinned under.
const ServerProducer = "pyserver"

func init() {
	results.Register(results.Producer{Name: ServerProducer,
		Remeasures: "runs the Python MCP SDK's streamable HTTP server as a child on loopback, one at-cap body per fresh process",
		Records: func() ([]results.Record, error) {
			return ServerRecords(context.Background())
		}})
}

// ServerTolerance is how far a re-measured high-water mark may move, as a
// fraction of the model's prediction for the body: a resident size moves
// with the allocator's arenas and the pages the interpreter touched before,
// not only with the request.
const ServerTolerance = 0.10

// serverBody is one at-cap body the server receives, with the model's
// prediction for it.
type serverBody struct {
	label, what string
	body        []byte
	accept      bool  // the schema admits it (family iii)
	predicted   int64 // the model's peak, tracemalloc-visible heap
	predictedBy string
}

// serverBodies are the worst body at the cap of every family the model
// prices, under pydantic_core (the SDK's parser): families (i), (ii) and
// (iii) by absolute peak (memmodel.SearchWorst) and the small-values
// family's worst (memmodel.WorstSmall).
func serverBodies() ([]serverBody, error) {
	sc := memmodel.FullScale()
	var out []serverBody
	for _, w := range memmodel.SearchWorst(sc, memmodel.PydanticCore) {
		if w.By != "absolute" {
			continue
		}
		out = append(out, serverBody{
			label: "family-" + w.Family.String(), what: fmt.Sprintf("family %s's worst absolute body at the cap, %s (%s)", w.Family.Describe(), w.Shape.Name, w.Shape.Describe()),
			body: w.Shape.Body(), accept: w.Shape.Verdict == memmodel.Accepts, predicted: w.Peak,
			predictedBy: fmt.Sprintf("memmodel.Predict(%s, PydanticCore), record memmodel.python.pydantic_core.%s.predicted-peak", w.Shape.Name, w.Shape.Name),
		})
	}
	costs, interp, err := memmodel.PinnedSmallCosts(memmodel.PydanticCore)
	if err != nil {
		return nil, err
	}
	worst, err := memmodel.WorstSmall(memmodel.PydanticCore, costs)
	if err != nil {
		return nil, err
	}
	pr, err := memmodel.PredictSmall(worst, sc.Cap, memmodel.PydanticCore, costs)
	if err != nil {
		return nil, err
	}
	body, _ := worst.Body(sc.Cap)
	out = append(out, serverBody{
		label: "small-values", what: fmt.Sprintf("the small-values family's worst body at the cap, %s (%s, %s values)", worst.Name, worst.What, results.Thousands(pr.Values)),
		body: body, predicted: pr.Parse,
		predictedBy: fmt.Sprintf("memmodel.PredictSmall(%s, cap, PydanticCore, costs calibrated on %s), record memmodel.python.small.pydantic_core@%s.%s.at-cap.predicted-peak", worst.Name, interp, interp, worst.Name),
	})
	return out, nil
}

// serverPython is Python with the server's imports besides the facts'.
func serverPython(ctx context.Context) (string, error) {
	py, err := Python(ctx)
	if err != nil {
		return "", err
	}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(cctx, py, "-c", "import uvicorn, starlette").CombinedOutput(); err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return "", &results.Unavailable{Reason: fmt.Sprintf("%s cannot import uvicorn and starlette, which serve the SDK's streamable HTTP app: %s", py, lines[len(lines)-1])}
	}
	return py, nil
}

// ServerRecords runs the seed's server shape once per at-cap body, each in a
// fresh child, then the SDK alone once for its behaviours over the wire.
func ServerRecords(ctx context.Context) ([]results.Record, error) {
	py, err := serverPython(ctx)
	if err != nil {
		return nil, err
	}
	bodies, err := serverBodies()
	if err != nil {
		return nil, err
	}
	var f struct {
		Python   string            `json:"python"`
		Versions map[string]string `json:"versions"`
	}
	if err := run(ctx, py, nil, &f, "versions"); err != nil {
		return nil, err
	}
	b := build(map[string]string{"cpython": f.Python, "mcp (python)": f.Versions["mcp"], "pydantic_core": f.Versions["pydantic_core"],
		"uvicorn": f.Versions["uvicorn"], "starlette": f.Versions["starlette"], "jsonschema (python)": f.Versions["jsonschema"]})
	cap := charge.BodyCap(charge.DefaultLimits(), charge.EnsureASCII, charge.Raw).Cap
	var out []results.Record
	src := "internal/pyseed/pyserver.py (MCPServer, streamable_http_app(stateless_http=True, json_response=True, max_request_body_size=the cap) under uvicorn on 127.0.0.1, the seed's checks in its ServerMiddleware seat); one fresh child per body, /proc/PID/status"
	for _, sb := range bodies {
		r, err := MeasureServer(ctx, py, ServerOptions{Mode: ModeGate, Accept: sb.accept, Cap: cap}, sb.body)
		if err != nil {
			return nil, fmt.Errorf("pyserver: %s: %w", sb.label, err)
		}
		inst := fmt.Sprintf("%s; %s wire bytes; answered HTTP %d: %s", sb.what, results.Thousands(r.Wire), r.Status, answerGist(r.Answer))
		growth := r.Growth()
		id := "pyserver." + sb.label
		// The tolerances are fractions of the model's prediction, which a
		// re-measurement does not move, so verify compares like with like.
		tol := float64(sb.predicted) * ServerTolerance
		out = append(out,
			results.Record{ID: id + ".hwm", Title: "the seed's server shape: the process's peak resident size (VmHWM) after one at-cap body",
				Value: float64(r.After.HWM), Unit: "bytes (VmHWM)", Instance: inst, Method: results.Measured, Tolerance: tol, Source: src, Build: b},
			results.Record{ID: id + ".growth", Title: "the same: the peak resident size above the resident size the body met (after one served warm-up call); hwm less growth is that size",
				Value: float64(growth), Unit: "bytes (VmHWM - VmRSS before)", Instance: inst,
				Method: results.Measured, Tolerance: tol, Source: src, Build: b},
			results.Record{ID: id + ".growth-over-model", Title: "the server's peak resident growth over the model's tracemalloc-visible peak for the same body",
				Value: float64(growth) / float64(sb.predicted), Unit: "x the model's peak", Instance: inst + fmt.Sprintf("; the model predicts %s bytes (%s)", results.Thousands(sb.predicted), sb.predictedBy),
				Method: results.Measured, Tolerance: ServerTolerance, Source: src + "; the prediction from the live model", Build: b},
		)
	}
	sdk, err := sdkOverHTTP(ctx, py, cap, b)
	if err != nil {
		return nil, err
	}
	return append(out, sdk...), nil
}

// answerGist is an answer's status in a few words: the JSON-RPC error's
// message, or whether the result is an error.
func answerGist(answer string) string {
	var a struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(answer), &a); err != nil {
		return fmt.Sprintf("%.80q", answer)
	}
	switch {
	case a.Error != nil:
		return fmt.Sprintf("JSON-RPC error %.120q", a.Error.Message)
	case a.Result != nil && a.Result.IsError:
		return "a tool result with isError true"
	case a.Result != nil:
		return "served (isError false)"
	}
	return fmt.Sprintf("%.80q", answer)
}

// sdkOverHTTP asks the SDK alone, over the wire, what the seed says it does
// with an unknown argument key and with its derived schemas.
func sdkOverHTTP(ctx context.Context, py string, cap int64, b results.Build) ([]results.Record, error) {
	s, err := StartServer(ctx, py, ServerOptions{Mode: ModePlain, Cap: cap})
	if err != nil {
		return nil, err
	}
	defer s.Stop()
	call := func(args string) (int, []byte, error) {
		return s.Post(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":`+args+`}}`))
	}
	st1, plain, err := call(`{"query":"q"}`)
	if err != nil {
		return nil, err
	}
	st2, withKey, err := call(`{"query":"q","unknown_key":1}`)
	if err != nil {
		return nil, err
	}
	if st1 != 200 || !bytes.Contains(plain, []byte(`"isError":false`)) {
		return nil, fmt.Errorf("pyserver: the plain call was not served: HTTP %d %.200q", st1, plain)
	}
	refused := 0
	if st2 != 200 || !bytes.Contains(withKey, []byte(`"isError":false`)) {
		refused = 1
	}
	differs := 0
	if !bytes.Equal(plain, withKey) {
		differs = 1
	}
	_, list, err := s.Post(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	if err != nil {
		return nil, err
	}
	var tl struct {
		Result struct {
			Tools []struct {
				Name        string         `json:"name"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(list, &tl); err != nil || len(tl.Result.Tools) == 0 {
		return nil, fmt.Errorf("pyserver: tools/list: %v: %.200q", err, list)
	}
	closed := 0
	for _, t := range tl.Result.Tools {
		if _, ok := t.InputSchema["additionalProperties"]; ok {
			closed++
		}
	}
	src := "internal/pyseed/pyserver.py plain (the SDK alone: MCPServer, streamable HTTP under uvicorn on 127.0.0.1), driven over HTTP"
	inst := `tool echo(query: str, limit: int = 10), which answers its parameters; tools/call with {"query": "q"} and with {"query": "q", "unknown_key": 1}`
	return []results.Record{
		{ID: "pyserver.sdk.unknown-key-refused", Title: "the SDK alone refuses a tools/call carrying an unknown argument key (1) or serves it (0), over HTTP",
			Value: float64(refused), Unit: "boolean", Instance: inst + fmt.Sprintf("; HTTP %d", st2), Method: results.Measured, Source: src, SeedValue: "0", SeedFigure: 63, Build: b},
		{ID: "pyserver.sdk.unknown-key-answer-differs", Title: "the answer to the call with the unknown key differs from the answer without it (1) or is byte-identical (0): the key is dropped before the handler",
			Value: float64(differs), Unit: "boolean", Instance: inst, Method: results.Measured, Source: src, SeedValue: "0", SeedFigure: 63, Build: b},
		{ID: "pyserver.sdk.tools-with-additional-properties", Title: "tools whose input schema, as tools/list publishes it over HTTP, carries additionalProperties",
			Value: float64(closed), Unit: "tools", Instance: fmt.Sprintf("the running server's %d tools (knowledge.search(query, projectId), echo(query, limit)), tools/list over HTTP", len(tl.Result.Tools)),
			Method: results.Measured, Source: src, SeedValue: "0", SeedFigure: 64, Build: b},
	}, nil
}
