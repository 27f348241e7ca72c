package mcpvalidate

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

func envGate(t testing.TB) *frontGate {
	t.Helper()
	v, err := New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	fg, err := v.frontGate(http.NotFoundHandler(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return fg
}

const canary = "CANARY-c4n4ry"

// call builds a tools/call body around arguments.
func toolCall(id, name, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":` + name + `,"arguments":` + args + `}}`
}

func TestFrontGateEnvelope(t *testing.T) {
	fg := envGate(t)
	okArgs := `{"projectId":"demo","query":"` + canary + `"}`
	for _, c := range []struct {
		name, body string
		status     int    // 0: admitted
		bound      string // the refusal's bound
		id         string // the id echoed, "" for none
	}{
		{"a call", toolCall("7", `"knowledge.search"`, okArgs), 0, "", ""},
		{"escaped keys and method", `{"jsonrpc":"2.0","id":"a","\u006dethod":"tools\/call","params":{"n\u0061me":"t","arguments":{}}}`, 0, "", ""},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, "", ""},
		{"a response", `{"jsonrpc":"2.0","id":3,"result":{"x":[1,2]}}`, 0, "", ""},
		{"an error response", `{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"m","data":[1]}}`, 0, "", ""},
		{"tools/call with every params member the SDK reads", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":1,"n":1e300},"name":"t","arguments":{},"requestState":"s","inputResponses":{},"unknown":[1]}}`, 0, "", ""},
		{"a member in another case is another member (the SDK matches case)", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"Cursor":1}}`, 0, "", ""},
		{"initialize", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, 0, "", ""},
		{"arguments absent", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`, 0, "", ""},
		{"a member JSON-RPC does not define", `{"jsonrpc":"2.0","id":1,"method":"ping","x-` + canary + `":1}`, 0, "", ""},
		{"id at the largest safe integer", toolCall("9007199254740991", `"t"`, `{}`), 0, "", ""},
		{"id at the longest string", toolCall(`"`+strings.Repeat("i", maxIDBytes-2)+`"`, `"t"`, `{}`), 0, "", ""},
		{"tool name at its bound", toolCall("1", `"`+strings.Repeat("n", maxToolNameBytes)+`"`, `{}`), 0, "", ""},

		{"batch", `[` + toolCall("1", `"t"`, `{}`) + `]`, 400, "batch", ""},
		{"not an object", `"` + canary + `"`, 400, "message-object", ""},
		{"trailing bytes", toolCall("1", `"t"`, `{}`) + ` {"` + canary + `":1}`, 400, "trailing-bytes", "1"},
		{"duplicate in the envelope", `{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"ping","params":{"name":"t"}}`, 400, "duplicate-name", "1"},
		{"duplicate through an escape", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","n\u0061me":"u"}}`, 400, "duplicate-name", "1"},
		{"duplicate in the arguments", toolCall("1", `"knowledge.search"`, `{"query":"a","query":"`+canary+`"}`), 200, "duplicate-name", "1"},
		{"invalid UTF-8 in the envelope", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\xff\"}}", 400, "utf8", "1"},
		{"invalid UTF-8 in the arguments", toolCall("1", `"knowledge.search"`, "{\"query\":\"\xff"+canary+"\"}"), 200, "utf8", "1"},
		{"lone surrogate", toolCall("1", `"t"`, `{"q":"\ud800"}`), 200, "surrogate", "1"},
		{"raw control character", toolCall("1", `"t"`, "{\"q\":\"\x01\"}"), 200, "control-character", "1"},
		{"nesting past the arguments' bound", toolCall("1", `"t"`, strings.Repeat(`{"a":`, 65)+`1`+strings.Repeat(`}`, 65)), 200, "nesting", "1"},
		{"tool name a number (the SDK echoes params)", toolCall("1", `5`, `{"q":"`+canary+`"}`), 400, "tool-name", "1"},
		{"tool name past its bound", toolCall("1", `"`+strings.Repeat("n", maxToolNameBytes+1)+`"`, `{}`), 400, "tool-name", "1"},
		{"arguments a string", toolCall("1", `"t"`, `"`+canary+`"`), 400, "arguments-object", "1"},
		{"arguments null", toolCall("1", `"t"`, `null`), 400, "arguments-object", "1"},
		{"params an array", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["` + canary + `"]}`, 400, "params-object", "1"},
		{"_meta a string", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":"` + canary + `"}}`, 400, "params-type", "1"},
		{"inputResponses not InputResponses (the SDK echoed params)", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"q":"` + canary + `"},"inputResponses":{"k":1}}}`, 400, "params-type", "1"},
		{"_meta holding a number no float64 holds", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"q":"` + canary + `"},"_meta":{"n":1e400}}}`, 400, "params-type", "1"},
		{"tools/list cursor a number", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":1,"x":"` + canary + `"}}`, 400, "params-type", "1"},
		{"initialize capabilities.roots an array", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"x","capabilities":{"roots":[]},"clientInfo":{"name":"` + canary + `","version":"1"}}}`, 400, "params-type", "1"},
		{"a response whose error is not an error object", `{"jsonrpc":"2.0","id":1,"error":{"code":"` + canary + `"}}`, 400, "error-object", "1"},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, 400, "jsonrpc-version", "1"},
		{"no version", `{"id":1,"method":"ping"}`, 400, "jsonrpc-version", "1"},
		{"id a float", toolCall("1.5", `"t"`, `{}`), 400, "id", ""},
		{"id past the safe integers", toolCall("9007199254740992", `"t"`, `{}`), 400, "id", ""},
		{"id null", toolCall("null", `"t"`, `{}`), 400, "id", ""},
		{"id past the longest string", toolCall(`"`+strings.Repeat("i", maxIDBytes-1)+`"`, `"t"`, `{}`), 400, "id", ""},
		{"tools/call without id", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"}}`, 400, "id", ""},
		{"method a number", `{"jsonrpc":"2.0","id":1,"method":5}`, 400, "method", "1"},
		{"other params past their bound", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":{"a":"` + strings.Repeat("x", maxOtherParamsBytes) + `"}}}`, 400, "params-bytes", "1"},
		{"neither request nor response", `{"jsonrpc":"2.0","id":1}`, 400, "request-or-response", "1"},
		{"too many envelope members", `{"jsonrpc":"2.0","id":1,"method":"ping"` + strings.Repeat(`,"x`+canary+`":1`, 0) + manyMembers(maxEnvelopeMembers) + `}`, 400, "envelope-members", "1"},
		{"an envelope name past its bound", `{"jsonrpc":"2.0","id":1,"method":"ping","` + strings.Repeat("k", maxEnvelopeNameBytes+1) + `":1}`, 400, "envelope-name-bytes", "1"},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			e, err := fg.check([]byte(c.body))
			if c.status == 0 {
				if err != nil {
					t.Errorf("%s: refused: %v", c.name, err)
				}
				return
			}
			var f *requestRefusal
			if !errorsAs(err, &f) {
				t.Errorf("%s: want a refusal, got %v (envelope %q)", c.name, err, e.Method())
				return
			}
			got := f.Bound
			if f.Tool != nil {
				got = f.Tool.Gate.Bound.String()
			}
			if f.Status != c.status || got != c.bound || f.ID() != c.id {
				t.Errorf("%s: status %d bound %s id %q; want %d %s %q (%v)", c.name, f.Status, got, f.ID(), c.status, c.bound, c.id, f)
			}
			body := string(f.AppendJSON(nil))
			if strings.Contains(body, canary) || strings.Contains(body, "CANARY") {
				t.Errorf("%s: the answer echoes a caller value: %s", c.name, body)
			}
			if len(body) > MaxRefusalBytes() {
				t.Errorf("%s: answer of %d bytes past MaxRefusalBytes %d", c.name, len(body), MaxRefusalBytes())
			}
		})
	}
}

func manyMembers(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(`,"m`)
		b.WriteString(strings.Repeat("x", i+1))
		b.WriteString(`":1`)
	}
	return b.String()
}

// The envelope exposes what the SDK will decode.
func TestFrontGateReadsTheCall(t *testing.T) {
	fg := envGate(t)
	args := `{"projectId":"demo","query":"q\u00e9"}`
	e, err := fg.check([]byte(` {"params":{"arguments": ` + args + ` ,"name":"knowledge.s\u0065arch"},"method":"tools/call","id":-12,"jsonrpc":"2.0"} `))
	if err != nil {
		t.Fatal(err)
	}
	if !e.IsToolCall() || e.Method() != "tools/call" || e.ID() != "-12" || e.Tool() != "knowledge.search" || string(e.Arguments()) != args {
		t.Fatalf("method %q id %q tool %q arguments %q", e.Method(), e.ID(), e.Tool(), e.Arguments())
	}
}

// Arguments that fail the gate under a sound envelope get the middleware's
// answer, byte for byte the refusal text Check gives.
func TestFrontGateArgumentsRefusalIsTheMiddlewares(t *testing.T) {
	l := charge.DefaultLimits()
	fg := envGate(t)
	args := `{"projectId":"demo","query":"a","query":"b"}`
	_, err := fg.check([]byte(toolCall("4", `"knowledge.search"`, args)))
	var f *requestRefusal
	if !errorsAs(err, &f) || f.Tool == nil || f.Status != http.StatusOK {
		t.Fatalf("want the middleware's shape, got %v", err)
	}
	v, _ := New(published, &Options{Limits: &l})
	want := v.Check(t.Context(), "knowledge.search", []byte(args))
	if want == nil || f.Error() != want.Error() {
		t.Fatalf("front gate %q, middleware %v", f.Error(), want)
	}
	body := string(f.AppendJSON(nil))
	if !strings.HasPrefix(body, `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"tool \"knowledge.search\": arguments refused`) || !strings.HasSuffix(body, `"}],"isError":true}}`) {
		t.Fatalf("answer %s", body)
	}
	// When the tool name follows the arguments, the frame was not read whole:
	// a JSON-RPC error instead.
	_, err = fg.check([]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":` + args + `,"name":"knowledge.search"}}`))
	if !errorsAs(err, &f) || f.Tool != nil || f.Status != http.StatusBadRequest || f.Code != -32602 || f.Where != `/params/arguments/query` {
		t.Fatalf("arguments before the name: %v", err)
	}
}

// Each envelope bound at its limit and one past it (the method and the
// other methods' params: TestMethodBytesAtAndPast, TestOtherParamsBytesAtAndPast).
func TestFrontGateEnvelopeBoundsAtAndPast(t *testing.T) {
	fg := envGate(t)
	// members: the message has jsonrpc, id, method (3) + n-3 more.
	members := func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"ping"` + manyMembers(n-3) + `}`
	}
	name := func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"ping","` + strings.Repeat("k", n) + `":1}`
	}
	// nodes: the message object 1, its names 4, their scalar values 3, the
	// params object 1, the name _meta 1, its object 1, the name a 1, its
	// array 1: 13, plus the elements.
	nodes := func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"a":[` + strings.TrimSuffix(strings.Repeat("0,", n-13), ",") + `]}}}`
	}

	for _, c := range []struct {
		name     string
		at, past string
		bound    string
	}{
		{"members", members(maxEnvelopeMembers), members(maxEnvelopeMembers + 1), "envelope-members"},
		{"name bytes", name(maxEnvelopeNameBytes), name(maxEnvelopeNameBytes + 1), "envelope-name-bytes"},
		{"nodes", nodes(maxEnvelopeNodes), nodes(maxEnvelopeNodes + 1), "envelope-nodes"},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			if _, err := fg.check([]byte(c.at)); err != nil {
				t.Errorf("%s at the bound: %v", c.name, err)
			}
			_, err := fg.check([]byte(c.past))
			var f *requestRefusal
			if !errorsAs(err, &f) || f.Bound != c.bound {
				t.Errorf("%s one past: want %q, got %v", c.name, c.bound, err)
			}
		})
	}
}

// TestEmptyAndBlankBodies: a body with no message at all is refused as not a
// message object, whatever whitespace it holds.
func TestEmptyAndBlankBodies(t *testing.T) {
	fg := envGate(t)
	for i, b := range []string{"", " ", "\t\r\n ", "[", " ["} {
		t.Run(docName(i, b), func(t *testing.T) {
			_, err := fg.check([]byte(b))
			var f *requestRefusal
			want := "message-object"
			if strings.HasSuffix(b, "[") {
				want = "batch"
			}
			if !errorsAs(err, &f) || f.Bound != want {
				t.Errorf("%q: %v, want %s", b, err, want)
			}
		})
	}
}

// TestEnvelopeNamesDecodedExactly: the envelope compares member names as
// decoded, every escape included (the short ones, \u, a surrogate pair, a
// name written wholly in escapes), so a duplicate cannot hide behind an
// escape and a distinct name is not taken for a duplicate; a name's raw bytes
// are bounded at maxEnvelopeNameBytes; a body cut anywhere in a member is
// refused, not read past its end.
func TestEnvelopeNamesDecodedExactly(t *testing.T) {
	fg := envGate(t)
	ping := func(params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + params + `}}`
	}
	for i, c := range []struct {
		params string
		dup    bool
	}{
		{`"\ud83d\ude00":1,"😀":2`, true},
		{`"a\ud83d\ude00":1,"a😀":2`, true},
		{`"\ud83d\ude00b":1,"😀b":2`, true},
		{`"\ud83d\ude00":1,"\ud83d\ude01":2`, false},
		{`"\ud83d\ude00":1,"😀x":2`, false},
		{`"\b":1,"\u0008":2`, true}, {`"\f":1,"\u000c":2`, true}, {`"\n":1,"\u000a":2`, true},
		{`"\r":1,"\u000d":2`, true}, {`"\t":1,"\u0009":2`, true}, {`"\"":1,"\u0022":2`, true},
		{`"\\":1,"\u005c":2`, true}, {`"\/":1,"/":2`, true}, {`"\u00e9":1,"é":2`, true},
		{`"\b":1,"\f":2`, false}, {`"\n":1,"\r":2`, false}, {`"\t":1,"\n":2`, false},
		{`"/":1,"\/":2`, true}, {`"a":1,"\u0061":2`, true},
		{`"ab":1,"a":2`, false}, {`"a":1,"ab":2`, false}, {`"\u0061b":1,"a":2`, false},
	} {
		t.Run(docName(i, c.params), func(t *testing.T) {
			_, err := fg.check([]byte(ping(c.params)))
			var f *requestRefusal
			if got := errorsAs(err, &f) && f.Bound == "duplicate-name"; got != c.dup || (!c.dup && err != nil) {
				t.Errorf("%s: %v, want duplicate %v", c.params, err, c.dup)
			}
		})
	}
	e, err := fg.check([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"\u006e\u0061\u006d\u0065":"t","arguments":{}}}`))
	if err != nil || !e.IsToolCall() || e.Tool() != "t" {
		t.Errorf("a name written wholly in escapes: %v, tool %q", err, e.Tool())
	}
	at := strings.Repeat("k", maxEnvelopeNameBytes)
	if _, err := fg.check([]byte(ping(`"` + at + `":1`))); err != nil {
		t.Errorf("a name at maxEnvelopeNameBytes: %v", err)
	}
	_, err = fg.check([]byte(ping(`"` + at + `k":1`)))
	var f *requestRefusal
	if !errorsAs(err, &f) || f.Bound != "envelope-name-bytes" {
		t.Errorf("a name one byte past maxEnvelopeNameBytes: %v", err)
	}
	full := ping(`"a":1`)
	for n := 1; n < len(full); n++ {
		if _, err := fg.check([]byte(full[:n])); err == nil {
			t.Errorf("the body cut at byte %d admitted: %q", n, full[:n])
		}
	}
}

// Reading the frame allocates nothing, escaped names included: the scan of an
// admitted body costs no garbage on the request path.
func TestFrontGateScanAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("SKIPPED: the race detector allocates on its own; run without -race")
	}
	fg := envGate(t)
	body := []byte(`{"jsonrpc":"2.0","id":"a","\u006dethod":"tools\/call","params":{"n\u0061me":"knowledge.search","arguments":{"projectId":"demo","query":"x"}}}`)
	if _, err := fg.check(body); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { fg.check(body) }); n != 0 {
		t.Fatalf("%v allocations per scan", n)
	}
}

// TestMethodBytesAtAndPast: a method name of exactly maxMethodBytes is read;
// one byte more is refused.
func TestMethodBytesAtAndPast(t *testing.T) {
	fg := envGate(t)
	m := strings.Repeat("m", maxMethodBytes)
	if e, err := fg.check([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + m + `"}`)); err != nil || e.Method() != m {
		t.Fatalf("a method of maxMethodBytes: %v", err)
	}
	_, err := fg.check([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + m + `m"}`))
	var f *requestRefusal
	if !errorsAs(err, &f) || f.Bound != "method" || f.Limit != maxMethodBytes {
		t.Fatalf("one byte past maxMethodBytes: %v", err)
	}
}

// TestOtherParamsBytesAtAndPast: the params of a method other than
// tools/call are bounded at maxOtherParamsBytes, exactly.
func TestOtherParamsBytesAtAndPast(t *testing.T) {
	fg := envGate(t)
	params := func(n int) string { // {"x":"aaa…"} of n bytes
		return `{"x":"` + strings.Repeat("a", n-len(`{"x":""}`)) + `"}`
	}
	body := func(n int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":` + params(n) + `}`)
	}
	if _, err := fg.check(body(maxOtherParamsBytes)); err != nil {
		t.Fatalf("params of maxOtherParamsBytes: %v", err)
	}
	_, err := fg.check(body(maxOtherParamsBytes + 1))
	var f *requestRefusal
	if !errorsAs(err, &f) || f.Bound != "params-bytes" || f.Limit != maxOtherParamsBytes {
		t.Fatalf("params one byte past maxOtherParamsBytes: %v", err)
	}
}

// TestToolNameDecoded: the tool name the envelope hands on is the decoded
// string, a surrogate pair at its end included.
func TestToolNameDecoded(t *testing.T) {
	fg := envGate(t)
	for raw, want := range map[string]string{
		`t\ud83d\ude00`: "t😀", `\ud83d\ude00t`: "😀t", `\u0074\/\"\\\b\f\n\r\t`: "t/\"\\\b\f\n\r\t", `\u00e9`: "é",
	} {
		t.Run(caseName(raw), func(t *testing.T) {
			e, err := fg.check([]byte(toolCall("1", `"`+raw+`"`, `{}`)))
			if err != nil || e.Tool() != want {
				t.Errorf("%s: %v, tool %q, want %q", raw, err, e.Tool(), want)
			}
		})
	}
}

// TestToolCallRestOfParamsAtAndPast: a tools/call's params other than the
// arguments, rebuilt as the one object the go-sdk decodes (the members as
// sent, a comma between each two, the braces), are bounded at
// maxOtherParamsBytes exactly, however many members carry them.
func TestToolCallRestOfParamsAtAndPast(t *testing.T) {
	fg := envGate(t)
	for _, members := range [][]string{{`"name":"t"`, `"_meta":{"x":"%s"}`}, {`"_meta":{"x":"%s"}`, `"name":"t"`, `"requestState":"s"`}} {
		t.Run(fmt.Sprintf("%d_members", len(members)), func(t *testing.T) {
			rest := func(n int) []byte { // a body whose rebuilt rest of params is n bytes
				fixed := "{" + strings.Replace(strings.Join(members, ","), "%s", "", 1) + "}"
				filled := strings.Replace(strings.Join(members, ","), "%s", strings.Repeat("a", n-len(fixed)), 1)
				obj := "{" + filled + "}"
				if len(obj) != n {
					t.Fatalf("fixture: %d bytes, want %d", len(obj), n)
				}
				return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{},` + filled + `}}`)
			}
			at := rest(maxOtherParamsBytes)
			if _, err := fg.check(at); err != nil {
				t.Fatalf("%d members, the rest of params of maxOtherParamsBytes: %v", len(members), err)
			}
			past := rest(maxOtherParamsBytes + 1)
			_, err := fg.check(past)
			var f *requestRefusal
			if !errorsAs(err, &f) || f.Bound != "params-bytes" || f.Limit != maxOtherParamsBytes {
				t.Fatalf("%d members, the rest of params one byte past maxOtherParamsBytes: %v", len(members), err)
			}
		})
	}
}

// shortPlain reads a string only when the envelope gate would read it the
// same: admitted, ending at the same byte, one node. It takes every string
// of printable ASCII without a quote or backslash up to shortPlainBytes
// (and not one byte past), and every other byte in any place of one sends
// it to the gate.
func TestShortPlainIsTheGates(t *testing.T) {
	v, err := New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	env, err := v.envelopeGate()
	if err != nil {
		t.Fatal(err)
	}
	check := func(doc []byte, at int) (end int, ok bool) {
		t.Helper()
		end, ok = shortPlain(doc, at)
		if !ok {
			return end, ok
		}
		gEnd, rep, gErr := env.CheckValue(doc, at)
		if gErr != nil || gEnd != end || rep.Nodes != 1 {
			t.Fatalf("%q at %d: shortPlain ends at %d; the gate at %d, %d nodes, %v", doc, at, end, gEnd, rep.Nodes, gErr)
		}
		return end, ok
	}
	for n := 0; n <= shortPlainBytes+1; n++ {
		content := []byte(strings.Repeat("a", n))
		doc := append(append([]byte(`{"k":"`), content...), `"}`...)
		end, ok := check(doc, 5)
		if want := n <= shortPlainBytes; ok != want || ok && end != len(doc)-1 {
			t.Errorf("%d plain bytes: taken %v, end %d; want taken %v", n, ok, end, want)
		}
		for _, k := range []int{0, n / 2, n - 1} {
			if k < 0 || k >= n {
				continue
			}
			for b := range 256 {
				d := append([]byte(nil), doc...)
				d[6+k] = byte(b)
				_, ok := check(d, 5)
				plain := b >= 0x20 && b <= 0x7e && b != '\\' && b != '"'
				if plain && n <= shortPlainBytes && !ok {
					t.Errorf("%d bytes with %#x at %d: not taken", n, b, k)
				}
				if !plain && b != '"' && ok {
					t.Errorf("%d bytes with %#x at %d: taken", n, b, k)
				}
			}
		}
		for cut := 5; cut < len(doc)-1; cut++ {
			check(doc[:cut], 5)
		}
	}
	for _, doc := range []string{`1`, `{}`, `[]`, `true`, `null`, ` "a"`} {
		if _, ok := shortPlain([]byte(doc), 0); ok {
			t.Errorf("%q: taken as a string", doc)
		}
	}
}

// knownKey names each key the frame reads, spelled plainly or with
// escapes, and nothing else.
func TestKnownKeySpellsEveryKey(t *testing.T) {
	for _, k := range knownKeys {
		escaped := fmt.Sprintf(`\u%04x`, k[0]) + k[1:]
		for _, name := range []string{k, escaped} {
			if got := knownKey([]byte(name)); got != k {
				t.Errorf("knownKey(%q) = %q, want %q", name, got, k)
			}
		}
		for _, name := range []string{k + "x", k[:len(k)-1], strings.ToUpper(k), `\u0078` + k} {
			if got := knownKey([]byte(name)); got != "" {
				t.Errorf("knownKey(%q) = %q, want none", name, got)
			}
		}
	}
}
