package pyseed

import (
	"context"
	"strings"
	"testing"

	"github.com/theurian/boundlab/results"
)

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
