package strangers

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Echo is one direct echo measurement: the worst answer bytes per request
// byte over the fillers sent, and which.
type Echo struct {
	Ratio    float64
	Instance string
}

// directFillers are the units an echo is measured with: ASCII, the three
// bytes Go's JSON encoder writes as six (<), a byte of invalid UTF-8 that
// decoders replace with the three-byte U+FFFD, DEL (four bytes in Go's %q).
var directFillers = []struct{ name, unit string }{
	{"a", "a"}, {"<", "<"}, {"0xFF", "\xff"}, {"DEL U+007F", "\x7f"},
}

// DirectEchoBytes is the filler of one direct echo probe, as the auditor's
// default --echo-bytes.
const DirectEchoBytes = 64 << 10

// Session is an MCP streamable HTTP session opened by hand, independent of
// package audit: an instrument to hold the auditor's figures against.
type Session struct {
	URL, ID string
	client  *http.Client
}

// OpenSession sends initialize and notifications/initialized.
func OpenSession(url string) *Session {
	s := &Session{URL: url, client: &http.Client{Timeout: 30 * time.Second}}
	s.Post([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"direct","version":"0"}}}`))
	s.Post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return s
}

// Post sends body and returns the status and at most 16 MiB of the answer
// (status 0: the transport failed).
func (s *Session) Post(body []byte) (int, []byte) {
	req, err := http.NewRequest(http.MethodPost, s.URL, bytes.NewReader(body))
	if err != nil {
		return 0, nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.ID != "" {
		req.Header.Set("Mcp-Session-Id", s.ID)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && s.ID == "" {
		s.ID = id
	}
	return resp.StatusCode, raw
}

// worst sends body(unit) for each filler and keeps the largest answer per
// request byte.
func (s *Session) worst(what string, body func(unit string, n int) []byte) (Echo, error) {
	var e Echo
	for _, f := range directFillers {
		b := body(f.unit, DirectEchoBytes/len(f.unit))
		status, raw := s.Post(b)
		if status == 0 {
			return e, fmt.Errorf("direct %s probe (%s): no answer", what, f.name)
		}
		if r := float64(len(raw)) / float64(len(b)); r > e.Ratio {
			// The instance names what was sent, not what came back: the
			// answer's bytes are the measurement (a refusal's text moves
			// with the toolchain's error messages), and which filler is
			// worst is noise where nothing is echoed.
			e = Echo{r, fmt.Sprintf("%s: the worst of %d-byte values of each filler (%s)", what, DirectEchoBytes, fillerNames())}
		}
	}
	return e, nil
}

func fillerNames() string {
	var names []string
	for _, f := range directFillers {
		names = append(names, f.name)
	}
	return strings.Join(names, ", ")
}

// UnknownToolEcho measures the answer to a tools/call whose tool name is
// 64 KiB of each filler (no server has such a tool): an echo the auditor
// before issue 25 did not probe.
func UnknownToolEcho(url string) (Echo, error) {
	return OpenSession(url).worst("tools/call of an unknown tool name", func(unit string, n int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"` + strings.Repeat(unit, n) + `","arguments":{}}}`)
	})
}

// ParamsEcho measures the answer to params {"name":1,"x":FILLER}: the
// auditor's envelope probe, sent by hand.
func ParamsEcho(url string) (Echo, error) {
	return OpenSession(url).worst(`tools/call params {"name":1,"x":...}`, func(unit string, n int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":1,"x":"` + strings.Repeat(unit, n) + `"}}`)
	})
}
