package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Shape is how a server answered, without its content: what a refusal looks
// like, and what two answers are compared by.
type Shape struct {
	Status    int    `json:"http_status,omitempty"` // HTTP status; 0 over stdio
	Kind      string `json:"kind"`                  // "result", "tool-error" (isError), "rpc-error", "not-json", "silent", "closed", "hung"
	Code      *int   `json:"jsonrpc_code,omitempty"`
	IDEchoed  bool   `json:"id_echoed"` // the answer's id equals the request's
	Bytes     int    `json:"bytes"`     // the answer's length
	Truncated bool   `json:"truncated,omitempty"`
	// Reached says, for an observing target only (GoSDK), whether the
	// message reached the server's receiving middleware; ReachedAs is the
	// tool name a tools/call reached it with, as the SDK decoded it.
	Reached   *bool  `json:"reached_handler,omitempty"`
	ReachedAs string `json:"reached_as,omitempty"`
}

// requests are the messages of reached that are not notifications.
func requests(reached []Reached) []Reached {
	var out []Reached
	for _, r := range reached {
		if !strings.HasPrefix(r.Method, "notifications/") {
			out = append(out, r)
		}
	}
	return out
}

// Answer kinds.
const (
	KindResult    = "result"
	KindToolError = "tool-error"
	KindRPCError  = "rpc-error"
	KindNotJSON   = "not-json"
	KindSilent    = "silent"
	KindClosed    = "closed" // the transport ended: the process exited, the connection was cut
	KindHung      = "hung"   // no answer, and none to a small message after it: the server (a stdio process, restarted) answers nothing more
)

// ShapeOf classifies a, the answer to a request with the given id (raw JSON,
// nil for none).
func ShapeOf(a Answer, id json.RawMessage) Shape {
	s := Shape{Status: a.Status, Bytes: len(a.Raw), Truncated: a.Truncated}
	if a.Observed {
		got := requests(a.Reached)
		reached := len(got) > 0
		s.Reached = &reached
		for _, r := range got {
			if r.Method == "tools/call" {
				s.ReachedAs = r.Name
			}
		}
	}
	if a.Closed {
		s.Kind = KindClosed
		return s
	}
	if a.Silent {
		s.Kind = KindSilent
		return s
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if a.Message == nil || json.Unmarshal(a.Message, &m) != nil || (m.Result == nil && m.Error == nil) {
		s.Kind = KindNotJSON
		return s
	}
	s.IDEchoed = id != nil && bytes.Equal(bytes.TrimSpace(m.ID), id)
	switch {
	case m.Error != nil:
		s.Kind = KindRPCError
		c := m.Error.Code
		s.Code = &c
	case m.Result.IsError:
		s.Kind = KindToolError
	default:
		s.Kind = KindResult
	}
	return s
}

// Refused reports whether the answer refuses the request in any way: an
// HTTP error, a JSON-RPC error, a tool error, silence or no JSON-RPC answer.
func (s Shape) Refused() bool {
	return s.Kind != KindResult || s.Status >= 400
}

// Same reports whether two answers have the same shape (status, kind and
// code; not the length or the id).
func (s Shape) Same(o Shape) bool {
	if s.Status != o.Status || s.Kind != o.Kind {
		return false
	}
	if s.Code == nil || o.Code == nil {
		return s.Code == nil && o.Code == nil
	}
	return *s.Code == *o.Code
}

// String is the shape in a few words, e.g. "HTTP 400 not-json, 56 bytes".
func (s Shape) String() string {
	out := s.Kind
	if s.Code != nil {
		out += fmt.Sprintf(" %d", *s.Code)
	}
	if s.Status != 0 {
		out = fmt.Sprintf("HTTP %d %s", s.Status, out)
	}
	return fmt.Sprintf("%s, %d bytes", out, s.Bytes)
}

// answers reports whether a stdio line answers the request with id: a
// JSON-RPC response (a result or an error) whose id is id or null, or a line
// that is not JSON at all.
func answers(b []byte, id json.RawMessage) bool {
	var m struct {
		ID     json.RawMessage  `json:"id"`
		Result *json.RawMessage `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &m) != nil {
		return len(b) > 0 && b[0] != '{'
	}
	if m.Result == nil && m.Error == nil {
		return false // a notification or a server request
	}
	got := bytes.TrimSpace(m.ID)
	return len(got) == 0 || bytes.Equal(got, []byte("null")) || bytes.Equal(got, id)
}
