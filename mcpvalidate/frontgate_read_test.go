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
	v := mustNew(t, embedded, nil)
	fg, err := v.frontGate(http.NotFoundHandler(), nil)
	if err != nil {
		t.Fatal(err)
	}
	limit := v.MaxBodyBytes()
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
		t.Run(caseName(c.name), func(t *testing.T) {
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
		})
	}
}

// A pooled buffer is reused when it holds the body: a body of the same
// declared length as the last one (the buffer exactly the size wanted, the
// length and one byte to see the end) or shorter reads into the same
// buffer; only a longer one gets a new buffer. The buffer comes from the
// pool's New, so the test does not rest on what sync.Pool keeps.
func TestReadReusesAPooledBufferThatFits(t *testing.T) {
	v := mustNew(t, embedded, nil)
	limit := v.MaxBodyBytes()
	const size = 1000
	for _, c := range []struct {
		name   string
		cap    int
		reused bool
	}{
		{"exactly the length and one", size + 1, true},
		{"larger", 2 * size, true},
		{"one byte short", size, false},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			fg, err := v.frontGate(http.NotFoundHandler(), nil)
			if err != nil {
				t.Fatal(err)
			}
			pooled := make([]byte, 0, c.cap)
			fg.bufs.New = func() any { return &pooledBody{buf: pooled} }
			body := strings.Repeat(" ", size)
			req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
			req.ContentLength = size
			bp, status := fg.read(httptest.NewRecorder(), req, size, limit)
			if bp == nil || status != 0 || string(bp.buf) != body {
				t.Fatalf("%s: status %d", c.name, status)
			}
			if reused := &bp.buf[:1][0] == &pooled[:1][0]; reused != c.reused {
				t.Errorf("%s: a %d-byte body in a pooled buffer of %d bytes: reused %v, want %v", c.name, size, c.cap, reused, c.reused)
			}
		})
	}
}
