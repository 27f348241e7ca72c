package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/theurian/boundlab/mcpvalidate"
)

// maxSchemaFileBytes bounds one file LoadSchemas reads.
const maxSchemaFileBytes = 16 << 20

// LoadSchemas reads the tools of a static audit from path: a saved
// tools/list answer, or a schema file, or a directory of *.json files of
// either kind. A schema file names its tool with "x-mcp-tool", else by its
// file name (mcpvalidate.ToolKey, as mcpvalidate's schema files); a schema file with no tool name and an "$id" is a fragment, and
// is embedded under each tool schema's $defs so the tools' $refs to it
// resolve.
func LoadSchemas(path string) ([]Tool, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files := []string{path}
	if st.IsDir() {
		if files, err = filepath.Glob(filepath.Join(path, "*.json")); err != nil {
			return nil, err
		}
		sort.Strings(files)
	}
	var tools []Tool
	fragments := map[string]json.RawMessage{}
	for _, f := range files {
		data, err := readBounded(f)
		if err != nil {
			return nil, err
		}
		if ts, err := ParseToolsList(data); err == nil && !isSchema(data) {
			tools = append(tools, ts...)
			continue
		}
		var head map[string]any
		if json.Unmarshal(data, &head) != nil {
			return nil, fmt.Errorf("%s: neither a schema nor a tools/list answer", filepath.Base(f))
		}
		tool, _ := head[mcpvalidate.ToolKey].(string)
		id, _ := head["$id"].(string)
		switch {
		case tool != "":
			tools = append(tools, Tool{Name: tool, InputSchema: data})
		case id != "" && st.IsDir():
			fragments[id] = data
		default:
			name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".json"), ".schema")
			tools = append(tools, Tool{Name: name, InputSchema: data})
		}
	}
	if len(tools) == 0 {
		return nil, fmt.Errorf("%s holds no tool schema", path)
	}
	for i := range tools {
		tools[i].InputSchema = embed(tools[i].InputSchema, fragments)
	}
	return tools, nil
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if n, err := b.ReadFrom(io.LimitReader(f, maxSchemaFileBytes+1)); err != nil {
		return nil, err
	} else if n > maxSchemaFileBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", filepath.Base(path), maxSchemaFileBytes)
	}
	return b.Bytes(), nil
}

// isSchema: a document with "$schema", "type" or "properties" at its root is
// a schema even if it happens to have a "tools" member.
func isSchema(data []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	_, s := m["$schema"]
	_, t := m["type"]
	_, p := m["properties"]
	return s || t || p
}

// embed adds the fragments under the schema's $defs (as "fragment:N"), each
// keeping its $id, so a $ref by $id resolves inside one document.
func embed(schema json.RawMessage, fragments map[string]json.RawMessage) json.RawMessage {
	if len(fragments) == 0 {
		return schema
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(schema, &m) != nil {
		return schema
	}
	defs := map[string]json.RawMessage{}
	if raw, ok := m["$defs"]; ok && json.Unmarshal(raw, &defs) != nil {
		return schema
	}
	ids := make([]string, 0, len(fragments))
	for id := range fragments {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for i, id := range ids {
		defs[fmt.Sprintf("fragment:%d", i)] = fragments[id]
	}
	raw, err := json.Marshal(defs)
	if err != nil {
		return schema
	}
	m["$defs"] = raw
	out, err := json.Marshal(m)
	if err != nil {
		return schema
	}
	return out
}
