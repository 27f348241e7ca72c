package mcpvalidate

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A body of unknown length is weighed at the cap but not buffered at it: a
// short chunked body gets a small buffer that grows as it arrives; a
// declared length is allocated once, exactly.
func TestReadBuffersUnknownLengthsSmall(t *testing.T) {
	v := mustNew(t, embedded)
	fg, err := v.FrontGate(http.NotFoundHandler(), nil)
	if err != nil {
		t.Fatal(err)
	}
	limit := v.MaxRequestBodyBytes()
	for _, c := range []struct {
		name     string
		body     string
		declared int64 // the request's ContentLength
		maxCap   int
	}{
		{"short, unknown length", "{}", -1, unknownLengthStart},
		{"long, unknown length", strings.Repeat(" ", 3*unknownLengthStart), -1, 8 * unknownLengthStart},
		{"declared", strings.Repeat(" ", 1000), 1000, 1001},
	} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(c.body))
		req.ContentLength = c.declared
		weighed := c.declared
		if weighed < 0 {
			weighed = limit
		}
		bp, status := fg.read(httptest.NewRecorder(), req, weighed, limit)
		if bp == nil || status != 0 || string(bp.buf) != c.body {
			t.Fatalf("%s: status %d", c.name, status)
		}
		if cap(bp.buf) > c.maxCap {
			t.Errorf("%s: a %d-byte body buffered in %d bytes (at most %d)", c.name, len(c.body), cap(bp.buf), c.maxCap)
		}
	}
}
