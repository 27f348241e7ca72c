package mcpvalidate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioFuzzSearch is the one tool the targets call, its schema inline: a
// libFuzzer binary runs from no particular directory and this file is
// compiled alone with the package, so neither schema files nor embedded
// test data reach it.
const stdioFuzzSearch = `{"type":"object","properties":{"projectId":{"type":"string","pattern":"^[a-z][a-z0-9-]{0,63}$"},"query":{"type":"string","minLength":1,"maxLength":4096}},"required":["projectId","query"],"additionalProperties":false}`

// Everything FuzzStdioGateAgreesWithSDK uses is in this file, named apart
// from the HTTP differential's helpers: OSS-Fuzz's builder
// (go-118-fuzz-build) compiles the file holding a target alone with the
// package's non-test files, and its stand-in for package testing has no TB.

var (
	stdioFuzzOnce      sync.Once
	stdioFuzzValidator *Validator
)

// stdioFuzzV is the validator the target gates with, built once per process
// (OSS-Fuzz's builder calls the target once per input).
func stdioFuzzV(t interface{ Fatal(args ...any) }) *Validator {
	stdioFuzzOnce.Do(func() {
		v, err := New(Tools(&mcp.Tool{Name: "knowledge.search", InputSchema: json.RawMessage(stdioFuzzSearch)}), nil)
		if err != nil {
			t.Fatal(err)
		}
		stdioFuzzValidator = v
	})
	if stdioFuzzValidator == nil {
		t.Fatal("no validator")
	}
	return stdioFuzzValidator
}

// stdioEchoRun is the longest run of a refused line's bytes its answer may
// hold besides the id: a tool name cut at toolCut with its cut mark, between
// the longest templates around it (member names, cut at charge.KeyCut, and
// keyword fragments, at fragmentCut, are shorter).
var stdioEchoRun = len(tplTool) + max(toolCut, fragmentCut) + len(cutMark) +
	max(len(tplInternal), len(tplUnknown), len(tplSchema), len(tplType), len(tplDecode), len(tplFront))

// FuzzStdioGateAgreesWithSDK: a line the stdio gate admits reaches the SDK
// byte for byte, and the go-sdk's own stdio reader (mcp.IOTransport) reads
// from it the method, id and params bytes the gate's envelope read. A line
// the gate refuses is answered with valid JSON of at most MaxRefusalBytes,
// the front gate's answer to the same bytes, holding no run of the line
// longer than the cut pieces a refusal carries, besides a checked id.
func FuzzStdioGateAgreesWithSDK(f *testing.F) {
	deep := strings.Repeat(`[`, 10_000) + strings.Repeat(`]`, 10_000)
	for _, seed := range []string{
		// The lines that end a bare go-sdk stdio server.
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"a` + "\x01" + `b"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}x`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"query":` + deep + `}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search","arguments":{"query":"` + "\xff\xfe" + `"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search","arguments":{"query":"q","` + strings.Repeat("k", 4<<10) + `":1}}}`,
		// What it admits.
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"knowledge.search","arguments":{"projectId":"demo","query":"x"}}}`,
		`{"jsonrpc":"2.0","id":"a\u00e9","method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":8,"result":{}}`,
		` {"jsonrpc" : "2.0" , "id" : 0 , "method" : "ping" , "params" : { } } ` + "\r",
		`{"jsonrpc":"2.0","id":9,"method":"ping","id":10}`,
		"",
	} {
		f.Add([]byte(seed))
	}
	v := stdioFuzzV(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // one line: the gate's framing is tested apart
		}
		var out bytes.Buffer
		r, _, err := v.stdioGate(bytes.NewReader(append(line[:len(line):len(line)], '\n')), &out, 0)
		if err != nil {
			t.Fatal(err)
		}
		passed, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if out.Len() > 0 {
			if len(passed) > 0 {
				t.Fatalf("the line was both answered and passed on: %q", passed)
			}
			stdioCheckRefusal(t, v, line, out.Bytes())
			return
		}
		// The line reaches the SDK whole, less the whitespace between the
		// message and the line's end (which the go-sdk's reader would take
		// for trailing data).
		full := append(line[:len(line):len(line)], '\n')
		msg := bytes.TrimRight(full, "\r\n")
		want := full
		if body := bytes.TrimRight(msg, " \t\r"); len(body) > 0 {
			want = append(body[:len(body):len(body)], full[len(msg):]...)
		}
		if !bytes.Equal(passed, want) {
			t.Fatalf("the SDK is handed %q, not %q", passed, want)
		}
		stdioCheckAdmitted(t, v, msg, passed)
	})
}

// stdioCheckRefusal holds the gate's answer to a refused line.
func stdioCheckRefusal(t *testing.T, v *Validator, line, answer []byte) {
	if answer[len(answer)-1] != '\n' || bytes.Count(answer, []byte("\n")) != 1 {
		t.Fatalf("the answer is not one line: %q", answer)
	}
	answer = answer[:len(answer)-1]
	if len(answer) > MaxRefusalBytes() || !json.Valid(answer) {
		t.Fatalf("answer of %d bytes (ceiling %d), valid JSON %v: %s", len(answer), MaxRefusalBytes(), json.Valid(answer), answer)
	}
	msg := bytes.TrimRight(line, "\r")
	if int64(len(msg)) <= v.MaxBodyBytes() {
		// Over HTTP the front gate reads the same bytes as a body: it
		// refuses them too, with the same answer.
		env, err := v.envelopeGate()
		if err != nil {
			t.Fatal(err)
		}
		e, serr := scanEnvelope(msg, env, v.gate)
		if serr == nil {
			t.Fatalf("the stdio gate refused what the front gate admits: %s", answer)
		}
		if front := frontRefusal(serr, &e).AppendJSON(nil); !bytes.Equal(front, answer) {
			t.Fatalf("stdio answered %s, the front gate %s", answer, front)
		}
	}
	var a struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(answer, &a); err != nil {
		t.Fatal(err)
	}
	rest := answer
	if string(a.ID) != "null" {
		head := []byte(`{"jsonrpc":"2.0","id":`)
		if !bytes.Contains(line, a.ID) || !bytes.HasPrefix(answer, append(head, a.ID...)) {
			t.Fatalf("the answer's id %s is not the line's, or not where the answer writes it", a.ID)
		}
		rest = append(head, answer[len(head)+len(a.ID):]...)
	}
	if run := stdioLongestRun(rest, line); run > stdioEchoRun {
		t.Fatalf("the answer holds a %d-byte run of the line (at most %d allowed): %s", run, stdioEchoRun, answer)
	}
}

// stdioLongestRun is the length of the longest run of a's bytes that is
// also in b (a is at most MaxRefusalBytes, so a doubling search is cheap).
func stdioLongestRun(a, b []byte) int {
	has := func(n int) bool {
		for i := 0; i+n <= len(a); i++ {
			if bytes.Contains(b, a[i:i+n]) {
				return true
			}
		}
		return false
	}
	lo, hi := 0, min(len(a), len(b)) // has(lo) holds; find the largest
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if has(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// stdioCheckAdmitted reads what the gate passed on for the line msg
// through the go-sdk's stdio reader and compares the message with the
// gate's envelope of msg.
func stdioCheckAdmitted(t *testing.T, v *Validator, msg, passed []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr := &mcp.IOTransport{Reader: io.NopCloser(bytes.NewReader(passed)),
		Writer: stdioNopWriter{}, MaxLineLength: int(v.MaxBodyBytes()) + 2}
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	m, err := conn.Read(ctx)
	if len(bytes.Trim(msg, " \t\r")) == 0 {
		if !errors.Is(err, io.EOF) {
			t.Fatalf("a blank line: the SDK read %v, %v", m, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("the gate admitted a line the SDK cannot read: %.200v", err)
	}
	env, err := v.envelopeGate()
	if err != nil {
		t.Fatal(err)
	}
	e, serr := scanEnvelope(msg, env, v.gate)
	if serr != nil {
		t.Fatalf("scanned twice, refused the second time: %v", serr)
	}
	var id jsonrpc.ID
	switch m := m.(type) {
	case *jsonrpc.Request:
		if m.Method != e.Method() {
			t.Fatalf("method: gate %q, SDK %q", e.Method(), m.Method)
		}
		if want := e.body[e.params.at:e.params.end]; !bytes.Equal(m.Params, want) && !(len(want) == 0 && string(m.Params) == "null") {
			t.Fatalf("params: gate %q, SDK %q", want, m.Params)
		}
		id = m.ID
	case *jsonrpc.Response:
		if e.Method() != "" {
			t.Fatalf("the SDK read a response, the gate method %q", e.Method())
		}
		id = m.ID
	default:
		t.Fatalf("the SDK read a %T", m)
	}
	if !id.IsValid() {
		if e.ID() != "" && e.ID() != "null" {
			t.Fatalf("id: gate %s, the SDK none", e.ID())
		}
		return
	}
	raw, err := json.Marshal(id.Raw())
	if err != nil {
		t.Fatal(err)
	}
	if !stdioSameID(e.ID(), raw) {
		t.Fatalf("id: gate %s, SDK %s", e.ID(), raw)
	}
}

// stdioSameID compares two JSON id tokens by value: the SDK holds a number
// id as an integer and a string id decoded.
func stdioSameID(a string, b []byte) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	switch xv := x.(type) {
	case float64:
		yv, ok := y.(float64)
		return ok && strconv.FormatFloat(xv, 'f', -1, 64) == strconv.FormatFloat(yv, 'f', -1, 64)
	case string:
		yv, ok := y.(string)
		return ok && xv == yv
	}
	return false
}

type stdioNopWriter struct{}

func (stdioNopWriter) Write(p []byte) (int, error) { return len(p), nil }
func (stdioNopWriter) Close() error                { return nil }
