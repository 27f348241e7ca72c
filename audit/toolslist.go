package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/theurian/boundlab/charge"
)

// MaxToolsListBytes bounds one tools/list answer: a saved one ParseToolsList
// reads, and each page a probed server answers.
const MaxToolsListBytes = 16 << 20

// toolsListLimits are the gate's bounds for a tools/list answer: the
// nesting of toolsListNesting, the default number bounds (the validator's own for a listed
// schema), and a node count and budget that cannot bind before
// MaxToolsListBytes does (every node takes at least one byte).
func toolsListLimits() charge.Limits {
	l := charge.DefaultLimits()
	l.MaxParamsNesting = toolsListNesting()
	l.MaxParamsNodes = MaxToolsListBytes
	l.MaxParamsRenderedChars = math.MaxInt64
	return l
}

// toolsListNesting is four containers (the response, its result, the tools
// array, the tool) above the deepest schema mcpvalidate admits in a listed
// tool (charge.DefaultLimits' MaxParamsNesting): every schema the validator
// can compile fits in every accepted shape.
func toolsListNesting() int { return 4 + charge.DefaultLimits().MaxParamsNesting }

// ErrToolsListError is wrapped by the error for a tools/list answer that is a
// JSON-RPC error response.
var ErrToolsListError = errors.New("the answer is a JSON-RPC error, not a tools list")

// ParseToolsList reads a saved tools/list answer. It takes three shapes:
//
//   - the JSON-RPC response, {"jsonrpc": "2.0", "id": 1, "result": {"tools": [...]}};
//   - its result, {"tools": [...]};
//   - a bare array of tools, [...]: what jq '.result.tools' saves, and how the
//     pages of a paginated list are saved as one.
//
// It refuses a JSON-RPC error response (wrapping ErrToolsListError, with the
// error's code when it is an integer); a result holding a nextCursor, one page
// of several (save the pages' tools as one array; an empty or null one is the
// last page's); a result without a "tools"
// array; any other JSON; a tool that is not an object, has no non-empty string
// "name", shares its name with an earlier tool, or has an annotations member
// that is not an object with a boolean readOnlyHint. A tool without an
// inputSchema (or with null) is kept with none: mcpvalidate refuses every
// call to it, and the audit reports it. The answer is held to the gate's
// strictness (RFC 8259, UTF-8, no repeated member name, nothing after the
// value) within MaxToolsListBytes and 68 levels of nesting (four containers
// above the 64 charge.DefaultLimits allows a listed schema). Errors name
// the shape and the tool's index, never a value from data beyond a strictness
// refusal's pointer (member names cut at charge.KeyCut bytes).
func ParseToolsList(data []byte) ([]Tool, error) {
	tools, next, err := parseTools(data, true)
	if err != nil {
		return nil, err
	}
	if cursor, err := cursorOf(next); err != nil {
		return nil, err
	} else if cursor != "" {
		return nil, errors.New("not a whole tools/list: the result has a nextCursor, so it is one page of several (save every page's tools as one array)")
	}
	return tools, nil
}

// toolsPage is one page of a tools/list a probed server answers: a JSON-RPC
// response only, its nextCursor returned.
func toolsPage(data []byte) (tools []Tool, nextCursor string, err error) {
	tools, next, err := parseTools(data, false)
	if err != nil {
		return nil, "", err
	}
	if nextCursor, err = cursorOf(next); err != nil {
		return nil, "", err
	}
	return tools, nextCursor, nil
}

// cursorOf is a result's nextCursor: "" when absent, null or empty (the last
// page).
func cursorOf(next json.RawMessage) (string, error) {
	var cursor string
	if next != nil && string(next) != "null" && json.Unmarshal(next, &cursor) != nil {
		return "", errors.New("not a tools/list answer: nextCursor is not a string")
	}
	return cursor, nil
}

// parseTools is the one reading of a tools/list answer: saved admits the
// result and bare-array shapes beside the JSON-RPC response. next is the
// result's nextCursor member, nil when it has none.
func parseTools(data []byte, saved bool) (tools []Tool, next json.RawMessage, err error) {
	if len(data) > MaxToolsListBytes {
		return nil, nil, fmt.Errorf("not a tools/list answer: %d bytes, over the %d one may hold", len(data), MaxToolsListBytes)
	}
	g, err := charge.NewGate(charge.Go, toolsListLimits())
	if err != nil {
		return nil, nil, err
	}
	if _, err := g.Check(data); err != nil {
		var r *charge.Refusal
		if !errors.As(err, &r) {
			return nil, nil, err
		}
		at := "the root"
		if r.Pointer != "" {
			at = fmt.Sprintf("%q", r.Pointer)
		}
		if r.Bound.Limited() {
			return nil, nil, fmt.Errorf("not a tools/list answer: past the %s bound %d %s at %s, byte %d", r.Bound, r.Limit, r.Unit, at, r.Offset)
		}
		return nil, nil, fmt.Errorf("not a tools/list answer: not strict JSON (bound %s) at %s, byte %d", r.Bound, at, r.Offset)
	}
	const want = `want a JSON-RPC response whose result has "tools", its result, or an array of tools`
	var arr []json.RawMessage
	switch bytes.TrimSpace(data)[0] {
	case '[':
		if !saved {
			return nil, nil, errors.New("not a tools/list answer: an array, not a JSON-RPC response")
		}
		if err := json.Unmarshal(data, &arr); err != nil {
			return nil, nil, err // unreachable: the gate admitted it
		}
		tools, err := toolsOf(arr)
		return tools, nil, err
	case '{':
	default:
		return nil, nil, errors.New("not a tools/list answer: " + want)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, err // unreachable: the gate admitted an object
	}
	res, isResponse := top["result"]
	e, isError := top["error"]
	switch {
	case isResponse && isError:
		return nil, nil, errors.New("not a tools/list answer: a response with both result and error")
	case isError:
		var eo struct {
			Code json.RawMessage `json:"code"`
		}
		if json.Unmarshal(e, &eo) == nil {
			var code int64
			if json.Unmarshal(eo.Code, &code) == nil {
				return nil, nil, fmt.Errorf("%w (code %d)", ErrToolsListError, code)
			}
		}
		return nil, nil, ErrToolsListError
	case !isResponse && !saved:
		return nil, nil, errors.New(`not a tools/list answer: a JSON-RPC response has a "result" or an "error"`)
	case !isResponse:
		res = data // the result itself
	}
	var result map[string]json.RawMessage
	if bytes.TrimSpace(res)[0] != '{' || json.Unmarshal(res, &result) != nil {
		return nil, nil, errors.New("not a tools/list answer: the result is not an object")
	}
	raw, ok := result["tools"]
	if !ok {
		return nil, nil, errors.New(`not a tools/list answer: no "tools" member; ` + want)
	}
	if bytes.TrimSpace(raw)[0] != '[' || json.Unmarshal(raw, &arr) != nil {
		return nil, nil, errors.New(`not a tools/list answer: "tools" is not an array`)
	}
	next = result["nextCursor"]
	tools, err = toolsOf(arr)
	return tools, next, err
}

// toolsOf reads each listed tool, refusing one with no name or a name an
// earlier tool has.
func toolsOf(arr []json.RawMessage) ([]Tool, error) {
	tools := make([]Tool, 0, len(arr))
	seen := make(map[string]int, len(arr))
	for i, raw := range arr {
		var t struct {
			Name        json.RawMessage `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Annotations json.RawMessage `json:"annotations"`
		}
		if raw[0] != '{' || json.Unmarshal(raw, &t) != nil {
			return nil, fmt.Errorf("not a tools/list answer: tools[%d] is not an object", i)
		}
		var tool Tool
		if t.Name == nil || json.Unmarshal(t.Name, &tool.Name) != nil || tool.Name == "" {
			return nil, fmt.Errorf("not a tools/list answer: tools[%d] has no name (a non-empty string)", i)
		}
		if j, dup := seen[tool.Name]; dup {
			return nil, fmt.Errorf("not a tools/list answer: tools[%d] has the name of tools[%d]", i, j)
		}
		seen[tool.Name] = i
		if t.InputSchema != nil && string(t.InputSchema) != "null" {
			tool.InputSchema = t.InputSchema
		}
		if t.Annotations != nil && string(t.Annotations) != "null" {
			if t.Annotations[0] != '{' || json.Unmarshal(t.Annotations, &tool.Annotations) != nil {
				return nil, fmt.Errorf("not a tools/list answer: tools[%d].annotations is not an object with a boolean readOnlyHint", i)
			}
		}
		tools = append(tools, tool)
	}
	return tools, nil
}
