package mcpvalidate

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk answers params it cannot decode into a method's params type with
// an error that quotes them whole (`unmarshaling %q into a %T`): up to 5x the
// request, before any middleware. The front gate decodes what the SDK will
// decode, into the SDK's own types, with the SDK's own decoder settings
// (segmentio/encoding, case-sensitive member matching: go-sdk's
// internal/json, as sdkUnmarshal reads it without the Decoder's 32 KiB
// buffer per call), and refuses a body whose params would fail there. For
// tools/call the arguments are left out (the SDK keeps them raw), so the
// check costs only the rest of params, which the gate bounds at
// maxOtherParamsBytes.

// sdkParams is the params type the go-sdk (v1.8.0, mcp/server.go's
// serverMethodInfos) decodes each client method's params into. A method not
// here is refused by the SDK before it decodes params (checkRequest), unless
// a server registers it as a custom method: those params are bounded by
// maxOtherParamsBytes only.
var sdkParams = map[string]func() any{
	"completion/complete":              func() any { return new(mcp.CompleteParams) },
	"server/discover":                  func() any { return new(mcp.DiscoverParams) },
	"initialize":                       func() any { return new(initializeParamsV2) },
	"ping":                             func() any { return new(mcp.PingParams) },
	"prompts/list":                     func() any { return new(mcp.ListPromptsParams) },
	"prompts/get":                      func() any { return new(mcp.GetPromptParams) },
	"tools/list":                       func() any { return new(mcp.ListToolsParams) },
	"tools/call":                       func() any { return new(mcp.CallToolParamsRaw) },
	"resources/list":                   func() any { return new(mcp.ListResourcesParams) },
	"resources/templates/list":         func() any { return new(mcp.ListResourceTemplatesParams) },
	"resources/read":                   func() any { return new(mcp.ReadResourceParams) },
	"logging/setLevel":                 func() any { return new(mcp.SetLoggingLevelParams) },
	"resources/subscribe":              func() any { return new(mcp.SubscribeParams) },
	"subscriptions/listen":             func() any { return new(mcp.SubscriptionsListenParams) },
	"resources/unsubscribe":            func() any { return new(mcp.UnsubscribeParams) },
	"notifications/cancelled":          func() any { return new(mcp.CancelledParams) },
	"notifications/initialized":        func() any { return new(mcp.InitializedParams) },
	"notifications/roots/list_changed": func() any { return new(mcp.RootsListChangedParams) },
	"notifications/progress":           func() any { return new(mcp.ProgressNotificationParams) },
}

// initializeParamsV2 mirrors the go-sdk's unexported type of the same name,
// which its initialize decodes into (capabilities.roots as a pointer, #607).
type initializeParamsV2 struct {
	mcp.InitializeParams
	Capabilities *struct {
		mcp.ClientCapabilities
		Roots *mcp.RootCapabilities `json:"roots,omitempty"`
	} `json:"capabilities"`
}

// sdkDecodes reports whether the go-sdk decodes params (a JSON object) into
// method's params type without error. A method it does not know decodes
// nothing and reports true.
func sdkDecodes(method string, params []byte) bool {
	newParams, ok := sdkParams[method]
	if !ok {
		return true
	}
	p := newParams()
	return sdkUnmarshal(params, &p) == nil
}

// wireError mirrors the go-sdk's jsonrpc2 WireError, which a response's error
// member is decoded into with the rest of the message.
type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// wireErrorDecodes reports whether the SDK decodes a response's error member.
func wireErrorDecodes(raw []byte) bool {
	var e *wireError
	return sdkUnmarshal(raw, &e) == nil
}
