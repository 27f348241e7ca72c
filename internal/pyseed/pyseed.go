// Package pyseed measures, in CPython, what the seed (ADR-0031) says about
// CPython itself, pydantic_core, jsonschema and the Python MCP SDK: the
// SDK's default body cap and bare 413, its argument model's treatment of
// unknown keys and its derived schemas, validate_python's cost, which
// jsonschema keywords name the instance, Decision 1's composition table,
// the repr-kind rule, the chunked transient, and what a body of many small
// values costs the parse (through memmodel's instrument, over memmodel's
// shapes). Its records are the producer "pyseed"; the seed's server shape,
// run for real behind streamable HTTP, is the producer "pyserver".
//
// Where it ends: it needs a CPython with pydantic_core, jsonschema,
// referencing and the Python MCP SDK (2.x) importable; without one the
// producer is results.Unavailable and verify keeps the pinned records.
// "pyserver" also needs uvicorn and starlette, and Linux's /proc for the
// child's resident sizes.
package pyseed

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"

	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/theurian/boundlab/results"
)

// Script is the Python program each question runs in a fresh interpreter.
//
//go:embed pyseed.py
var Script string

// PythonEnv names the interpreter; python3 on PATH otherwise.
const PythonEnv = "BOUNDLAB_PYTHON"

// Python finds the interpreter and checks it imports what the questions
// need; a missing one is results.Unavailable.
func Python(ctx context.Context) (string, error) {
	py := os.Getenv(PythonEnv)
	if py == "" {
		p, err := exec.LookPath("python3")
		if err != nil {
			return "", &results.Unavailable{Reason: "no CPython: set " + PythonEnv + " or put python3 on PATH, with pydantic_core, jsonschema, referencing and the Python MCP SDK (2.x) importable"}
		}
		py = p
	}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, err := exec.CommandContext(cctx, py, "-c", "import pydantic_core, jsonschema, referencing, mcp.server.mcpserver").CombinedOutput()
	if err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return "", &results.Unavailable{Reason: fmt.Sprintf("%s cannot import pydantic_core, jsonschema, referencing and the Python MCP SDK (put its site on PYTHONPATH): %s", py, lines[len(lines)-1])}
	}
	return py, nil
}

// run asks one question in a fresh interpreter, stdin the body if any.
func run(ctx context.Context, py string, stdin []byte, into any, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, append([]string{"-c", Script}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := stderr.String()
		if len(msg) > 400 {
			msg = msg[len(msg)-400:]
		}
		return fmt.Errorf("pyseed %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(msg))
	}
	if err := json.Unmarshal(stdout.Bytes(), into); err != nil {
		return fmt.Errorf("pyseed %s: unreadable output: %w", strings.Join(args, " "), err)
	}
	return nil
}

// Facts are the answers of the "facts" question.
type Facts struct {
	Python                 string            `json:"python"`
	Jsonschema             string            `json:"jsonschema"`
	Referencing            string            `json:"referencing"`
	NamesInstance          map[string]int    `json:"names_instance"`
	CompositionCells       map[string]int    `json:"composition_cells"`
	ReprKindStrings        int               `json:"repr_kind_strings"`
	ReprKindExceptions     int               `json:"repr_kind_exceptions"`
	SDKDefaultBody         int64             `json:"sdk_default_body"`
	Bare413Status          int               `json:"bare_413_status"`
	Bare413Bytes           int64             `json:"bare_413_bytes"`
	ExtraForbid            int               `json:"mcp_types_extra_forbid"`
	Tools                  int               `json:"tools"`
	ToolsWithAdditional    int               `json:"tools_with_additional_properties"`
	UnknownKeyKept         int               `json:"unknown_key_kept"`
	ValidatePythonPeak     int64             `json:"validate_python_peak"`
	ValidatePythonSameLeaf int               `json:"validate_python_same_leaf"`
	Versions               map[string]string `json:"-"`
}

// Chunk is the chunked transient's readings.
type Chunk struct {
	Python          string  `json:"python"`
	ChunkCodePoints int     `json:"chunk_code_points"`
	Readings        []int64 `json:"readings"`
}
