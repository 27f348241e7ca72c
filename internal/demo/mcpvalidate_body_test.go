package demo_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/schemas"
)

// published is the demo's schema files, the source these tests validate
// against.
var published = mcpvalidate.SchemaFiles(schemas.FS, schemas.Dir)

// bodyLimits are the limits the body-cap tests run at: charge.DefaultLimits
// (an 8 MiB landed file, a 26,214,400-byte cap) when BOUNDLAB_FULL=1, else the
// same limits with the file cap, envelope and charge budget scaled down 64x so
// the suite stays fast. The derivation and every assertion are the same at both scales.
func bodyLimits(t testing.TB) charge.Limits {
	l := charge.DefaultLimits()
	if os.Getenv("BOUNDLAB_FULL") == "1" {
		return l
	}
	t.Log("scaled limits (set BOUNDLAB_FULL=1 for the 8 MiB / 26,214,400-byte run)")
	l.MaxSourceFileBytes /= 64
	l.EnvelopeAllowance /= 64
	l.MaxParamsRenderedChars /= 64 // so the budget still sits below the cap, as at full scale
	return l
}

// padded is a tools/call for knowledge.search of exactly n bytes: a query one
// past its maxLength, then JSON whitespace inside arguments (whitespace costs
// the gate nothing, so the schema answers whatever n is).
func padded(r *raw, n int) []byte {
	head := r.callBody("knowledge.search", []byte(`{"projectId":"demo","query":"`+strings.Repeat("q", 2001)+`"`))
	// callBody closed arguments and params: reopen before the closing braces.
	head = head[:len(head)-2]
	tail := []byte("}}}")
	pad := n - len(head) - len(tail)
	if pad < 0 {
		panic("n too small")
	}
	out := make([]byte, 0, n)
	out = append(out, head...)
	out = append(out, bytes.Repeat([]byte(" "), pad)...)
	return append(out, tail...)
}

func TestBodyAtCapAnsweredByItsSchemaOneOverIs413(t *testing.T) {
	l := bodyLimits(t)
	s := serve(t, demo.Options{}, &mcpvalidate.Options{Limits: &l})
	r := s.raw(t)
	limit := int(s.v.MaxBodyBytes())
	status, body, _ := r.post(padded(r, limit))
	if status != http.StatusOK {
		t.Fatalf("at the cap (%d bytes): HTTP %d %.200q", limit, status, body)
	}
	if m := message(t, body); !strings.Contains(string(m["result"]), "maxLength 2000") {
		t.Fatalf("at the cap: want the schema's maxLength refusal, got %.300s", body)
	}
	status, body, _ = r.post(padded(r, limit+1))
	if status != http.StatusRequestEntityTooLarge {
		t.Fatalf("one over the cap: HTTP %d %.200q", status, body)
	}
	t.Logf("413 body: %d bytes: %q", len(body), body)
	if tr, _ := r.call("project.list", []byte(`{}`)); tr.IsError {
		t.Fatal("server no longer answers")
	}
}

// ensureASCII is Python's json.dumps default for a string's content.
func ensureASCII(s string) []byte {
	var b bytes.Buffer
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteRune(c)
		case c < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			c -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(c>>10), 0xdc00+(c&0x3ff))
		}
	}
	return b.Bytes()
}

// TestLandedFileAtCapAnsweredByItsSchema: a file landing at exactly
// MaxSourceFileBytes in ASCII, 2-byte, 3-byte and astral text, sent
// ensure_ascii-escaped (3x, 2x, 3x on the wire), arrives and is answered by its
// schema rather than by a 413.
func TestLandedFileAtCapAnsweredByItsSchema(t *testing.T) {
	l := bodyLimits(t)
	s := serve(t, demo.Options{}, &mcpvalidate.Options{Limits: &l})
	r := s.raw(t)
	for _, c := range []rune{'a', 'é', '中', '😀'} {
		t.Run(fmt.Sprintf("U%04X", c), func(t *testing.T) {
			r := r.on(t)
			n := int(l.MaxSourceFileBytes)
			text := strings.Repeat(string(c), n/utf8.RuneLen(c)) + strings.Repeat("a", n%utf8.RuneLen(c))
			if len(text) != n {
				t.Fatalf("fixture: %d bytes landed", len(text))
			}
			wire := ensureASCII(text)
			args := append(append([]byte(`{"projectId":"demo","query":"`), wire...), `"}`...)
			body := r.callBody("knowledge.search", args)
			status, resp, _ := r.post(body)
			if status != http.StatusOK {
				t.Fatalf("%U: %d wire bytes: HTTP %d %.100q", c, len(body), status, resp)
			}
			if m := message(t, resp); !strings.Contains(string(m["result"]), "maxLength 2000") {
				t.Fatalf("%U: want the schema's maxLength refusal, got %.300s", c, resp)
			}
			t.Logf("%U: landed %d bytes, body %d bytes (cap %d): answered by maxLength", c, n, len(body), s.v.MaxBodyBytes())
		})
	}
}

// TestBodyBetweenBudgetAndCapRefusedByTheCharge: a body under the cap whose
// one string is wider than the charge budget (the budget, 12 MiB at full
// scale, sits below the 26,214,400-byte cap) passes the transport and is
// refused by the gate's charge, through the middleware and through the front
// gate, naming the bound and never echoing the value.
func TestBodyBetweenBudgetAndCapRefusedByTheCharge(t *testing.T) {
	l := bodyLimits(t)
	v, err := mcpvalidate.New(published, &mcpvalidate.Options{Limits: &l})
	if err != nil {
		t.Fatal(err)
	}
	limit := v.MaxBodyBytes()
	if l.MaxParamsRenderedChars >= limit {
		t.Fatalf("fixture: budget %d not below the cap %d", l.MaxParamsRenderedChars, limit)
	}
	query := secret + strings.Repeat("q", int(l.MaxParamsRenderedChars+(limit-l.MaxParamsRenderedChars)/2))
	args := []byte(`{"projectId":"demo","query":"` + query + `"}`)
	want := fmt.Sprintf("renders wider than %d bytes (bound charge)", l.MaxParamsRenderedChars)

	s := serve(t, demo.Options{}, &mcpvalidate.Options{Limits: &l})
	r := s.raw(t)
	body := r.callBody("knowledge.search", args)
	if int64(len(body)) >= limit {
		t.Fatalf("fixture: %d-byte body not under the cap %d", len(body), limit)
	}
	tr, _ := r.call("knowledge.search", args)
	if !tr.IsError || !strings.Contains(tr.text(), want) || strings.Contains(tr.text(), secret) {
		t.Fatalf("middleware: %d-byte body: isError %v, %.300q; want %q", len(body), tr.IsError, tr.text(), want)
	}

	srv, err := demo.NewServer(v, demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := demo.Guarded(v, srv, nil, demo.Stateless())
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	status, _, answer := post(t, hs.URL, body)
	if status != http.StatusOK || !bytes.Contains(answer, []byte(`"isError":true`)) || !bytes.Contains(answer, []byte(want)) || bytes.Contains(answer, []byte(secret)) {
		t.Fatalf("front gate: HTTP %d %.300s; want isError with %q", status, answer, want)
	}
	t.Logf("%d-byte body (budget %d, cap %d): refused by the charge on both paths", len(body), l.MaxParamsRenderedChars, limit)
}
