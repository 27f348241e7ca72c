package mcpvalidate

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
// own error. Every other method passes through untouched.
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
			return next(ctx, method, req)
		}
	}
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
