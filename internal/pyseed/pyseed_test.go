package pyseed

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/theurian/boundlab/results"
)

// Every shape's body is valid JSON, at most the size asked, within one
// value of it, and holds the values Body counts.
func TestSmallShapeBodies(t *testing.T) {
	const wire = 64 << 10
	for _, s := range SmallShapes() {
		t.Run(s.Name, func(t *testing.T) {
			body, n := s.Body(wire)
			if int64(len(body)) > wire || int64(len(body)) < wire-int64(len(s.Value(0)))-8 {
				t.Errorf("%d bytes for %d asked", len(body), wire)
			}
			var v struct {
				Params struct {
					Arguments struct {
						Query []json.RawMessage `json:"query"`
					} `json:"arguments"`
				} `json:"params"`
			}
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatal(err)
			}
			if int64(len(v.Params.Arguments.Query)) != n || n == 0 {
				t.Errorf("Body counts %d values, the body holds %d", n, len(v.Params.Arguments.Query))
			}
		})
	}
}

// Without an interpreter the producer is unavailable, saying what to
// provide, so verify keeps its pinned records.
func TestNoPythonIsUnavailable(t *testing.T) {
	t.Setenv(PythonEnv, "/nonexistent/python3")
	_, err := Records(context.Background())
	why, ok := results.IsUnavailable(err)
	if !ok || !strings.Contains(why, "PYTHONPATH") {
		t.Fatalf("%v", err)
	}
}

// The facts question, when a CPython with the SDK is at hand: the answers
// the records judge must be present and well-formed.
func TestFactsInCPython(t *testing.T) {
	py, err := Python(context.Background())
	if why, ok := results.IsUnavailable(err); ok {
		t.Skip("no CPython with pydantic_core, jsonschema and the Python MCP SDK: " + why)
	}
	if err != nil {
		t.Fatal(err)
	}
	var f Facts
	if err := run(context.Background(), py, nil, &f, "facts"); err != nil {
		t.Fatal(err)
	}
	if len(f.CompositionCells) != 6 || f.ReprKindStrings == 0 || f.Tools == 0 || f.Bare413Status != 413 || f.SDKDefaultBody == 0 {
		t.Errorf("%+v", f)
	}
}
