package mark3labs

import (
	m3 "github.com/mark3labs/mcp-go/mcp"
	"github.com/theurian/boundlab/mcpvalidate/internal/quotes"
)

// withoutQuotes is a tool's answer with the long quotes of its arguments
// taken out of its error: the text contents of a result with isError, or
// the error's message (mark3labs answers a returned error as a JSON-RPC
// error carrying err.Error()).
func withoutQuotes(res *m3.CallToolResult, err error, args []byte) (*m3.CallToolResult, error) {
	if err != nil {
		return res, quotes.Of(args).Error(err)
	}
	if res == nil || !res.IsError {
		return res, nil
	}
	a := quotes.Of(args)
	var content []m3.Content
	set := func(i int, c m3.Content) {
		if content == nil {
			// The handler's result may be shared: answer a copy.
			content = append([]m3.Content(nil), res.Content...)
		}
		content[i] = c
	}
	for i, c := range res.Content {
		switch t := c.(type) {
		case m3.TextContent:
			if text, changed := a.Strip(t.Text); changed {
				t.Text = text
				set(i, t)
			}
		case *m3.TextContent:
			if t == nil {
				continue
			}
			if text, changed := a.Strip(t.Text); changed {
				tc := *t
				tc.Text = text
				set(i, &tc)
			}
		}
	}
	if content == nil {
		return res, nil
	}
	c := *res
	c.Content = content
	return &c, nil
}
