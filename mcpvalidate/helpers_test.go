package mcpvalidate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// published is the schema files the package's tests validate against: the
// demo's, embedded (package schemas holds data only).
var published = SchemaFiles(os.DirFS("testdata/schemas"), "mcp")

// ensureASCII is Python's json.dumps default for a string's content.
func ensureASCII(s string) []byte {
	var b bytes.Buffer
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteRune(c)
		case c < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			c -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(c>>10), 0xdc00+(c&0x3ff))
		}
	}
	return b.Bytes()
}

// text is a tool result's text content, joined.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// errorsAs is errors.As that also looks inside a *Refusal at the stage's
// own refusal (a *callRefusal or *requestRefusal), which the API keeps
// unexported.
func errorsAs(err error, target any) bool {
	if r, ok := err.(*Refusal); ok && r != nil && errors.As(r.err, target) {
		return true
	}
	return errors.As(err, target)
}
