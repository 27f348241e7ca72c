package mcpvalidate

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/mcpvalidate/internal/quotes"
)

// multiRoundTripVersion is the first protocol version on which the go-sdk
// stamps resultType "complete" on a tool result (mcp/mrtr.go,
// clientSupportsMultiRoundTrip). A refusal answered here stamps it the same
// way, so a caller cannot tell from the shape which tier refused.
const multiRoundTripVersion = "2026-07-28"

// Middleware returns the receiving middleware that validates every tools/call
// before anything past it (the SDK's tool lookup, its typed-tool validation,
// the handler) runs. Wire it with the LAST Server.AddReceivingMiddleware call
// (or first in the list of that call): the go-sdk wraps the current handler on
// every call, so the most recently added middleware runs first, and only the
// outermost sees every call before any other middleware does.
//
//	server.AddReceivingMiddleware(logging, metrics) // run inside, see admitted calls only
//	server.AddReceivingMiddleware(v.Middleware())   // outermost
//
// A refused call is answered as a tool result with isError true and the
// refusal's text as its one text content: the shape the SDK gives a handler's
// own error. An admitted call's error, a result with isError or an error
// returned, reaches the caller with every run of more than 255 bytes of one
// of its string arguments replaced by a mark that counts them, so a handler
// that quotes what it was given cannot hand a long value back. Every other
// method passes through untouched.
func (v *Validator) Middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			call, ok := req.(*mcp.CallToolRequest)
			if !ok || call.Params == nil {
				// Fail closed on a shape this SDK version never produces.
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tools/call refused: no parameters the validator can read"}
			}
			if r := v.refusal(ctx, call.Params.Name, call.Params.Arguments); r != nil {
				return refusalResult(call.Session, r), nil
			}
			res, err := next(ctx, method, req)
			return withoutQuotes(res, err, call.Params.Arguments)
		}
	}
}

// withoutQuotes is a tool's answer with the long quotes of its arguments
// taken out of its error: the text contents of a result with isError, or
// the error's message (and its data, dropped when it quotes them).
func withoutQuotes(res mcp.Result, err error, args json.RawMessage) (mcp.Result, error) {
	if err != nil {
		if w, ok := err.(*jsonrpc.Error); ok {
			a := quotes.Of(args)
			msg, changed := a.Strip(w.Message)
			_, inData := a.Strip(string(w.Data))
			if !changed && !inData {
				return res, err
			}
			c := *w
			c.Message = msg
			if inData {
				c.Data = nil
			}
			return res, &c
		}
		return res, quotes.Of(args).Error(err)
	}
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r == nil || !r.IsError {
		return res, nil
	}
	a := quotes.Of(args)
	var content []mcp.Content
	for i, c := range r.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		text, changed := a.Strip(t.Text)
		if !changed {
			continue
		}
		if content == nil {
			// The handler's result may be shared: answer a copy.
			content = append([]mcp.Content(nil), r.Content...)
		}
		tc := *t
		tc.Text = text
		content[i] = &tc
	}
	if content == nil {
		return res, nil
	}
	c := *r
	c.Content = content
	return &c, nil
}

// refusalResult builds the tool result a refusal reaches the caller as.
func refusalResult(ss *mcp.ServerSession, r *callRefusal) *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	if stampsComplete(ss) {
		// resultType is unexported; its JSON form is the one way to set it.
		tmpl, _ := json.Marshal(struct {
			Content    []*mcp.TextContent `json:"content"`
			IsError    bool               `json:"isError"`
			ResultType string             `json:"resultType"`
		}{[]*mcp.TextContent{{Text: r.Error()}}, true, "complete"})
		if err := json.Unmarshal(tmpl, res); err != nil {
			res = &mcp.CallToolResult{}
		}
	}
	res.SetError(r) // keeps Content if set; records r for sending middleware
	return res
}

// stampsComplete mirrors the SDK's rule: the negotiated version, or the
// latest when the session has none.
func stampsComplete(ss *mcp.ServerSession) bool {
	if ss == nil {
		return true
	}
	if p := ss.InitializeParams(); p != nil {
		return p.ProtocolVersion >= multiRoundTripVersion
	}
	return true
}
