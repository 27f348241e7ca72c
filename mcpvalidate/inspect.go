package mcpvalidate

import "github.com/theurian/boundlab/mcpvalidate/internal/inspect"

// mcpvalidatetest reads the validator and the typed registry through
// internal/inspect; nothing there is reachable from outside this module.
func init() {
	inspect.SchemaSource = func(v any, tool string) (string, bool) { return v.(*Validator).schemaSource(tool) }
	inspect.TypeDomain = domainOf
	inspect.ListTools = listTools
}
