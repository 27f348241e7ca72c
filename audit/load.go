package audit

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate"
)

// SchemasAt is what a --schemas PATH names, read once under one set of rules
// for every verb that takes it (audit, validate):
//
//   - A directory is mcpvalidate's schema-file contract, read by mcpvalidate
//     itself (mcpvalidate.SchemaFiles(os.DirFS(path), ".")): every
//     *.schema.json in it, a file naming its tool with "x-mcp-tool" and
//     closed with "unevaluatedProperties": false, a file without one a
//     fragment; each tool's schema is bundled with the fragments it
//     references (Validator.InputSchema). Any problem refuses the whole
//     directory, with mcpvalidate's reason: a duplicate $id or tool, a $ref
//     to nothing published, a tool schema whose own $defs bundling would
//     overwrite.
//   - A file is a saved tools/list answer (ParseToolsList, at most
//     MaxToolsListBytes): each listed tool's inputSchema is its contract
//     (mcpvalidate.Tools). listed is every tool the answer lists, with a
//     schema or not; it is nil for a directory.
//
// src is the validator's source; New compiles it.
func SchemasAt(path string) (src mcpvalidate.Source, listed []Tool, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if st.IsDir() {
		return mcpvalidate.SchemaFiles(os.DirFS(path), "."), nil, nil
	}
	data, err := readBounded(path, MaxToolsListBytes)
	if err != nil {
		return nil, nil, err
	}
	if listed, err = ParseToolsList(data); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if len(listed) == 0 {
		return nil, nil, fmt.Errorf("%s: the answer lists no tool", filepath.Base(path))
	}
	tools := make([]*mcp.Tool, 0, len(listed))
	for _, t := range listed {
		mt := &mcp.Tool{Name: t.Name}
		if t.InputSchema != nil {
			mt.InputSchema = t.InputSchema
		}
		tools = append(tools, mt)
	}
	return mcpvalidate.Tools(tools...), listed, nil
}

// LoadSchemas reads the tools of a static audit from path, as SchemasAt
// names them. A directory's tools are the ones mcpvalidate publishes from it,
// sorted, each with the bundled schema the validator holds calls to
// (Validator.InputSchema): what validate --schemas checks is what is
// audited. A saved tools/list answer's tools are audited as listed, in order,
// each schema as published, so one the validator cannot compile is reported
// on rather than refusing the rest (validate refuses the whole answer).
func LoadSchemas(path string) ([]Tool, error) {
	src, listed, err := SchemasAt(path)
	if err != nil || listed != nil {
		return listed, err
	}
	v, err := mcpvalidate.New(src, nil)
	if err != nil {
		return nil, err
	}
	var tools []Tool
	for _, name := range v.ToolNames() {
		schema, _ := v.InputSchema(name)
		tools = append(tools, Tool{Name: name, InputSchema: schema})
	}
	return tools, nil
}

// readBounded reads at most limit bytes of path, refusing a longer file.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", filepath.Base(path), limit)
	}
	return data, nil
}
