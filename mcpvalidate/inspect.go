package mcpvalidate

import (
	"io"

	"github.com/theurian/boundlab/mcpvalidate/internal/inspect"
)

// mcpvalidatetest and the adapters reach the validator, the typed registry
// and the stdio gate through internal/inspect; nothing there is reachable
// from outside the product.
func init() {
	inspect.SchemaSource = func(v any, tool string) (string, bool) { return v.(*Validator).schemaSource(tool) }
	inspect.TypeDomain = domainOf
	inspect.ListTools = listTools
	inspect.StdioGate = func(v any, in io.Reader, out io.Writer) (io.ReadCloser, io.WriteCloser, error) {
		return v.(*Validator).stdioGate(in, out, 0)
	}
}
