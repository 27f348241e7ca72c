package mcpvalidate

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

type holdIn struct {
	Pad string `json:"pad"`
}

// heldServer is a go-sdk server over the gated stdio transport whose one
// tool answers only when the test lets it, so requests stay in flight.
type heldServer struct {
	v       *Validator
	in      *io.PipeWriter
	answers chan string
	release chan struct{}
	entered atomic.Int32 // handlers started
	wg      sync.WaitGroup
}

func startHeld(t *testing.T, wait time.Duration, protocol string) *heldServer {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "held", Version: "v0"}, nil)
	h := &heldServer{answers: make(chan string, 4096), release: make(chan struct{}, 4096)}
	AddTool(srv, &mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest, in holdIn) (*mcp.CallToolResult, any, error) {
		h.entered.Add(1)
		select {
		case <-h.release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("held %d", len(in.Pad))}}}, nil, nil
	})
	v, err := Install(srv, &Options{MaxFileBytes: 64 << 10, Limits: &charge.Limits{EnvelopeAllowance: 4 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	h.v = v
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = srv.Run(ctx, &stdioTransport{v: v, in: inR, out: outW, wait: wait}); outW.Close() }()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		rd := bufio.NewReaderSize(outR, 1<<20)
		for {
			l, err := rd.ReadString('\n')
			if err != nil {
				close(h.answers)
				return
			}
			h.answers <- l
		}
	}()
	t.Cleanup(func() { close(h.release); cancel(); inW.Close(); outR.Close(); h.wg.Wait() })
	h.in = inW
	h.write(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+protocol+`","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if a := h.next(t); !strings.Contains(a, `"id":0`) || !strings.Contains(a, `"result"`) {
		t.Fatalf("initialize: %.300s", a)
	}
	h.write(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return h
}

func (h *heldServer) write(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (h *heldServer) next(t *testing.T) string {
	t.Helper()
	select {
	case a, ok := <-h.answers:
		if !ok {
			t.Fatal("the server ended")
		}
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("no answer in 10 s")
	}
	return ""
}

func holdCall(id int, pad int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hold","arguments":{"pad":"%s"}}}`, id, strings.Repeat("p", pad))
}

// A client that sends without waiting for answers: requests are admitted
// while the connection's in-flight budget has room, the next one waits and
// is then answered -32000 with its id, and an answer written gives its
// request's room back, so the connection goes on serving.
func TestStdioInFlightBudget(t *testing.T) {
	h := startHeld(t, 20*time.Millisecond, "2025-11-25")
	const pad = 60 << 10
	line := len(holdCall(1, pad))
	weight := requestWeight(int64(line), h.v.cfg.limits)
	total := h.v.defaultInFlightBytes()
	sent := int(total/weight) + 4 // more than the budget can hold
	go func() {
		for id := 1; id <= sent; id++ {
			if _, err := io.WriteString(h.in, holdCall(id, pad)+"\n"); err != nil {
				return
			}
		}
	}()
	// Every call is either held by its handler or answered busy.
	refused := 0
	deadline := time.After(20 * time.Second)
	for int(h.entered.Load())+refused < sent {
		select {
		case a := <-h.answers:
			if !strings.Contains(a, `"bound":"in-flight-budget"`) || !strings.Contains(a, `"code":-32000`) || !strings.Contains(a, `"id":`) || strings.Contains(a, `"id":null`) {
				t.Fatalf("a call answered while its handler holds: %.300s", a)
			}
			refused++
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatalf("of %d calls, %d held and %d refused", sent, h.entered.Load(), refused)
		}
	}
	admitted := int(h.entered.Load())
	if refused == 0 || admitted == 0 || int64(admitted)*weight > total {
		t.Fatalf("%d calls of weight %d into a %d-byte budget: %d admitted, %d refused", sent, weight, total, admitted, refused)
	}
	// One answer written gives its room back: the next call is admitted.
	h.release <- struct{}{}
	if a := h.next(t); !strings.Contains(a, "held ") {
		t.Fatalf("the released call: %.300s", a)
	}
	h.write(t, holdCall(sent+1, pad))
	for h.entered.Load() == int32(admitted) {
		select {
		case a := <-h.answers:
			t.Fatalf("with room given back, a call was answered while held: %.300s", a)
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatal("with room given back, the next call was not admitted")
		}
	}
	for range admitted {
		h.release <- struct{}{}
	}
	for range admitted {
		if a := h.next(t); !strings.Contains(a, "held ") {
			t.Fatalf("a held call's answer: %.300s", a)
		}
	}
}

// The answer's id is matched whatever its spelling: the SDK writes the id
// back as it decoded it.
func TestIDKey(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{`7`, `7`}, {`-0`, `0`}, {`"a"`, `"\u0061"`}, {`"x/y"`, `"x\/y"`},
	} {
		if idKey([]byte(c.a)) != idKey([]byte(c.b)) {
			t.Errorf("%s and %s: different keys", c.a, c.b)
		}
	}
	if idKey([]byte(`1`)) == idKey([]byte(`"1"`)) {
		t.Error("the number 1 and the string \"1\" share a key")
	}
}

func TestResponseID(t *testing.T) {
	for _, c := range []struct {
		msg, id string
		ok      bool
	}{
		{`{"jsonrpc":"2.0","id":3,"result":{"x":[1,2]}}`, `3`, true},
		{`{"jsonrpc":"2.0","id":"q","error":{"code":1,"message":"m"}}`, `"q"`, true},
		{`{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{}}`, ``, false},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, ``, false},
		{`{"jsonrpc":"2.0","method":"x","id":9,"result":{}}`, ``, false},
		{`{"jsonrpc":"2.0","result":{}}`, ``, false},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, ``, false},
		{`{"id":5,"jsonrpc":"2.0","result":{}}`, `5`, true},
		{`{ "jsonrpc": "2.0", "id": "s", "result": {} }`, `"s"`, true},
		{`{"jsonrpc":"2.0","id":"a\"b","result":{}}`, `"a\"b"`, true},
		{`{"jsonrpc":"2.0","id":-12,"error":{"code":1,"message":"m"}}`, `-12`, true},
		{`{"jsonrpc":"2.0","id":7,"method":"ping"}`, ``, false},
	} {
		id, result, ok := decodedResponseID([]byte(c.msg))
		if ok != c.ok || string(id) != c.id {
			t.Errorf("%s: id %s %v, want %s %v", c.msg, id, ok, c.id, c.ok)
		}
		if ok && result != strings.Contains(c.msg, `"result"`) {
			t.Errorf("%s: result %v", c.msg, result)
		}
		// The fast path for the SDKs' own spelling agrees with the decoder
		// wherever it answers.
		if fid, fresult, fok := sdkResponseID([]byte(c.msg)); fok && (string(fid) != string(id) || fresult != result || !ok) {
			t.Errorf("%s: fast path %s %v, decoder %s %v", c.msg, fid, fresult, id, result)
		}
	}
}

// A tool refusal the gate answers carries resultType "complete" when the
// session negotiated a version that has it, as the middleware's does.
func TestStdioRefusalStampsTheNegotiatedVersion(t *testing.T) {
	deep := strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200)
	for _, c := range []struct {
		protocol string
		stamped  bool
	}{
		{multiRoundTripVersion, true},
		{"2025-11-25", false},
	} {
		t.Run(c.protocol, func(t *testing.T) {
			h := startHeld(t, 0, c.protocol)
			h.write(t, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"hold","arguments":{"pad":`+deep+`}}}`)
			a := h.next(t)
			if !strings.Contains(a, `"isError":true`) || !strings.Contains(a, `"id":9`) {
				t.Fatalf("want the gate's tool refusal: %.300s", a)
			}
			if got := strings.Contains(a, `"resultType":"complete"`); got != c.stamped {
				t.Errorf("resultType stamped %v, want %v: %.300s", got, c.stamped, a)
			}
		})
	}
}

// The stated ceiling is the connection's budget, the line the gate holds,
// the decoder's buffer, and the baseline, from the live weights.
func TestStdioCeiling(t *testing.T) {
	v, err := New(Tools(&mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object", "additionalProperties": false}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	line := v.MaxBodyBytes() + 2
	want := v.defaultInFlightBytes() + 3*line + 512 + bounds.Baseline
	if got := v.stdioCeiling(); got != want {
		t.Errorf("stdio ceiling %d, want %d", got, want)
	}
	// The transport sets the runtime's soft limit to it, less the
	// executable's size, and leaves a limit already set.
	prev := debug.SetMemoryLimit(maxMemoryLimit)
	defer debug.SetMemoryLimit(prev)
	if _, _, err := v.stdioGate(strings.NewReader(""), io.Discard, 0); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	st, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != want-st.Size() {
		t.Errorf("soft memory limit %d, want %d less the executable's %d bytes", got, want, st.Size())
	}
	debug.SetMemoryLimit(1 << 40)
	if _, _, err := v.stdioGate(strings.NewReader(""), io.Discard, 0); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("a limit already set was replaced: %d", got)
	}
}
