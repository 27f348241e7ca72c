package mcpvalidate

import (
	"encoding/json"
	"errors"
	"reflect"

	sdkjson "github.com/segmentio/encoding/json"
)

// What a typed go-sdk tool (v1.8.0, mcp/server.go toolForErr and mcp/tool.go
// applySchema) does with a call's arguments before its handler runs, step by
// step, so the validator can ask the SDK's own question without the SDK's
// answer (which quotes caller bytes and Go type names):
//
//  1. internal/json.Unmarshal the arguments into a map[string]any: every
//     number becomes a float64 (no UseNumber), so a number past the float64
//     range fails here, wherever it sits;
//  2. apply the schema's defaults and validate the map with
//     google/jsonschema-go (float64 comparisons);
//  3. encoding/json.Marshal the map again (always: applySchema re-marshals
//     whenever the value is a map, which arguments always are): numbers are
//     re-rendered from their float64, shortest form ('f' below 1e21), keys
//     sorted;
//  4. internal/json.Unmarshal those bytes into a new In.
//
// internal/json is github.com/segmentio/encoding/json behind a Decoder with
// DontMatchCaseInsensitiveStructFields set (and a nesting pre-scan of 1000,
// which the gate's nesting limit keeps out of reach). It is internal to the
// SDK, so sdkUnmarshal sets the same flag on the same decoder;
// TestSDKDecodeMatchesTheSDK holds the copy to the real SDK through an
// in-memory client.

// sdkUnmarshal decodes as go-sdk's internal/json.Unmarshal does: a
// segmentio Decoder with DontMatchCaseInsensitiveStructFields, whose Decode
// reads one value into a 32 KiB buffer and then calls Parse with its flags.
// For one complete value (all this package hands it: the gate's strict
// arguments, or encoding/json's output) that is Parse with the same flag,
// without the buffer. Where the decoder panics (a map key type with
// MarshalText and no UnmarshalText: typedomain.go mapSchema), the SDK's
// process goes down; here the panic is an error, so the value is refused.
func sdkUnmarshal(data []byte, v any) (err error) {
	defer func() {
		if recover() != nil {
			err = errDecoderPanicked
		}
	}()
	_, err = sdkjson.Parse(data, v, sdkjson.DontMatchCaseInsensitiveStructFields)
	return err
}

var errDecoderPanicked = errors.New("the decoder panicked")

// sdkRoundTrip is steps 1 and 3 over one JSON value: decoded as the SDK
// decodes arguments before validating them (numbers as float64) and rendered
// again as it re-marshals them. ok is false when step 1 refuses the value.
func sdkRoundTrip(value []byte) (out []byte, ok bool) {
	var v any
	if sdkUnmarshal(value, &v) != nil {
		return nil, false
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	return out, true
}

// sdkDecodesInto reports whether a value of the arguments tree (as the
// validator decoded it: json.Number, string, bool, nil, []any,
// map[string]any) survives steps 1, 3 and 4 into a new value of typ.
func sdkDecodesInto(node any, typ reflect.Type) bool {
	raw, err := json.Marshal(node)
	if err != nil {
		return false
	}
	out, ok := sdkRoundTrip(raw)
	if !ok {
		return false
	}
	return sdkUnmarshal(out, reflect.New(typ).Interface()) == nil
}
