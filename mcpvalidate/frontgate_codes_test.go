package mcpvalidate

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// JSON-RPC 2.0's error codes (section 5.1), written from the specification:
// the front gate answers a body that is not a JSON-RPC message's JSON with a
// parse error, a well-formed one it will not take with an invalid request,
// bad tools/call arguments under a sound frame with invalid params, and no
// budget in time with a server error (-32000..-32099).
const (
	specParseError     = -32700
	specInvalidRequest = -32600
	specInvalidParams  = -32602
	specServerErrorMin = -32099
	specServerErrorMax = -32000
)

func TestFrontRefusalCodes(t *testing.T) {
	fg := envGate(t)
	for _, c := range []struct {
		name string
		body string
		code int64
	}{
		{"not JSON", `{"jsonrpc":`, specParseError},
		{"trailing bytes", `{"jsonrpc":"2.0","method":"ping"} x`, specParseError},
		{"a duplicate member", `{"jsonrpc":"2.0","jsonrpc":"2.0","method":"ping"}`, specParseError},
		{"a batch", `[{"jsonrpc":"2.0","method":"ping"}]`, specInvalidRequest},
		{"an id past the safe integers", toolCall("9007199254740992", `"t"`, `{}`), specInvalidRequest},
		{"a method past its bound", `{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("m", maxMethodBytes+1) + `"}`, specInvalidRequest},
		{"params not an object", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}`, specInvalidRequest},
		{"arguments the gate refuses, the id unread", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t","arguments":{"a":1,"a":2}},"id":1}`, specInvalidParams},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			_, err := fg.check([]byte(c.body))
			var f *requestRefusal
			if !errorsAs(err, &f) || f.Tool != nil || f.Code != c.code {
				t.Errorf("%s: %v (code %+v), want code %d", c.name, err, f, c.code)
			}
		})
	}

	// Over HTTP: a declared length past the cap is an invalid request; no
	// budget in time is a server error.
	gate, b, limit := edgeGate(t, 10*time.Millisecond)
	code := func(body []byte) int64 {
		var m struct{ Error struct{ Code int64 } }
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		return m.Error.Code
	}
	if got := code(serveOne(gate, "{}", limit+1).Body.Bytes()); got != specInvalidRequest {
		t.Errorf("a body past the cap: code %d, want %d", got, specInvalidRequest)
	}
	g1, _ := b.tryAcquire(b.General())
	g2, _ := b.tryAcquire(b.SmallWeight())
	msg := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	got := code(serveOne(gate, msg, int64(len(msg))).Body.Bytes())
	g1.Release()
	g2.Release()
	if got < specServerErrorMin || got > specServerErrorMax {
		t.Errorf("no budget in time: code %d, want a server error (%d..%d)", got, specServerErrorMin, specServerErrorMax)
	}
}
