package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/theurian/boundlab/mcpvalidate"
)

// The whole path an adopter pays for (issue 27): a go-sdk server with one
// typed tool, served over loopback HTTP by the SDK's streamable handler
// (stateful: a session per client), three ways:
//
//   - bare: the go-sdk alone (its own typed-tool validation);
//   - middleware: mcpvalidate.Install, no front gate;
//   - guarded: mcpvalidate.Install and v.FrontGate in front of the handler,
//     as the README wires it.
//
// Each op is one request of a kind — a typical tools/call (a 1 KB query), a
// tools/list, an initialize (a new session, then its DELETE) — made by
// httpClients clients at once, each with its own session. ns/op is the
// wall time per request over all clients (its inverse the throughput);
// p50-µs and p99-µs are each request's own latency; cpu-µs/op is the
// process's CPU time (user and system, server and clients together) per
// request: what bounds the throughput on a machine with no idle core, and
// far less moved than wall time by other work sharing the machine.

// httpClients is how many clients call at once.
const httpClients = 4

// httpIn is the typed tool's input, the shape the adoption issues use.
type httpIn struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

// httpImpls are the three wirings, in the order a run interleaves them.
var httpImpls = []string{"bare", "middleware", "guarded"}

// httpQuery is the typical call's query: 1 KB of prose.
var httpQuery = strings.Repeat("where is the body cap derived? ", 34)[:1024]

// httpServer serves the typed tool wired as impl on 127.0.0.1 and returns
// its URL.
func httpServer(tb testing.TB, impl string) string {
	tb.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench-http", Version: "0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "search", Description: "search the notes"},
		func(_ context.Context, _ *mcp.CallToolRequest, in httpIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	opts := &mcp.StreamableHTTPOptions{}
	var h http.Handler
	switch impl {
	case "bare":
		h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)
	case "middleware", "guarded":
		v, err := mcpvalidate.Install(srv, nil)
		if err != nil {
			tb.Fatal(err)
		}
		opts.MaxRequestBodyBytes = v.MaxBodyBytes()
		h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)
		if impl == "guarded" {
			if h, err = v.Protect(h, nil); err != nil {
				tb.Fatal(err)
			}
		}
	default:
		tb.Fatalf("unknown impl %q", impl)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	hs.Start()
	tb.Cleanup(hs.Close)
	return hs.URL
}

// httpConnect opens a session on url: initialize, then
// notifications/initialized.
func httpConnect(ctx context.Context, url string, hc *http.Client) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-http-client", Version: "0"}, nil)
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
}

// mustConnect is httpConnect on the test's goroutine.
func mustConnect(tb testing.TB, url string, hc *http.Client) *mcp.ClientSession {
	tb.Helper()
	cs, err := httpConnect(context.Background(), url, hc)
	if err != nil {
		tb.Fatal(err)
	}
	return cs
}

// httpOps are the request kinds: each makes one request on its client's
// session (initialize makes its own) and reports whether it was answered as
// expected.
var httpOps = []struct {
	name string
	do   func(ctx context.Context, url string, hc *http.Client, cs *mcp.ClientSession) error
}{
	{"call-1KB", func(ctx context.Context, _ string, _ *http.Client, cs *mcp.ClientSession) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: json.RawMessage(`{"query":"` + httpQuery + `","limit":5}`)})
		if err == nil && res.IsError {
			return errRefused
		}
		return err
	}},
	{"tools-list", func(ctx context.Context, _ string, _ *http.Client, cs *mcp.ClientSession) error {
		_, err := cs.ListTools(ctx, nil)
		return err
	}},
	{"initialize", func(ctx context.Context, url string, hc *http.Client, _ *mcp.ClientSession) error {
		cs, err := httpConnect(ctx, url, hc)
		if err != nil {
			return err
		}
		return cs.Close() // DELETE: the session does not outlive the op
	}},
}

// The benchmark's op kinds are the ones its headlines name.
func TestHTTPOpsAreTheHeadlines(t *testing.T) {
	var got []string
	for _, op := range httpOps {
		got = append(got, op.name)
	}
	if !slices.Equal(got, HTTPOps) {
		t.Fatalf("BenchmarkHTTP runs %v, the headlines name %v", got, HTTPOps)
	}
}

type refusedError struct{}

func (refusedError) Error() string { return "the typical call was refused" }

var errRefused = refusedError{}

// The three wirings answer every op kind: a typical call is served, not
// refused, whichever way the server is wired.
func TestHTTPWiringsServeEveryOp(t *testing.T) {
	for _, impl := range httpImpls {
		t.Run(impl, func(t *testing.T) {
			url := httpServer(t, impl)
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: httpClients}}
			cs := mustConnect(t, url, hc)
			defer cs.Close()
			for _, op := range httpOps {
				t.Run(op.name, func(t *testing.T) {
					if err := op.do(context.Background(), url, hc, cs); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}

// BenchmarkHTTP: the whole path over loopback, the three wirings side by
// side for each op (the harness's rounds interleave them further).
func BenchmarkHTTP(b *testing.B) {
	for _, op := range httpOps {
		for _, impl := range httpImpls {
			b.Run("op="+op.name+"/impl="+impl, func(b *testing.B) {
				url := httpServer(b, impl)
				hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: httpClients}}
				sessions := make([]*mcp.ClientSession, httpClients)
				for i := range sessions {
					sessions[i] = mustConnect(b, url, hc)
				}
				defer func() {
					for _, cs := range sessions {
						cs.Close()
					}
				}()
				ctx := context.Background()
				var (
					mu    sync.Mutex
					lat   []time.Duration
					next  = make(chan struct{})
					wg    sync.WaitGroup
					first error
				)
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime(b)
				for _, cs := range sessions {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var mine []time.Duration
						for range next {
							t0 := time.Now()
							err := op.do(ctx, url, hc, cs)
							mine = append(mine, time.Since(t0))
							if err != nil {
								mu.Lock()
								first = cmpOr(first, err)
								mu.Unlock()
							}
						}
						mu.Lock()
						lat = append(lat, mine...)
						mu.Unlock()
					}()
				}
				for b.Loop() {
					next <- struct{}{}
				}
				close(next)
				wg.Wait()
				cpu := cpuTime(b) - cpu0
				b.StopTimer()
				if first != nil {
					b.Fatal(first)
				}
				b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
				slices.Sort(lat)
				if len(lat) > 0 {
					b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
					b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
				}
			})
		}
	}
}

// cmpOr is the first non-nil error.
func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// stdioServer serves the same typed tool as httpServer over OS pipes
// (newline-delimited JSON-RPC), wired as impl: bare, the go-sdk's
// IOTransport alone; middleware, mcpvalidate.Install on the same transport;
// guarded, Install and v.StdioTransport, as the README wires stdio. It
// returns the client's ends, the session initialized.
func stdioServer(tb testing.TB, impl string) (*os.File, *bufio.Reader) {
	tb.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench-stdio", Version: "0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "search", Description: "search the notes"},
		func(_ context.Context, _ *mcp.CallToolRequest, in httpIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	inR, inW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	var t mcp.Transport = &mcp.IOTransport{Reader: inR, Writer: outW}
	switch impl {
	case "bare":
	case "middleware", "guarded":
		v, err := mcpvalidate.Install(srv, nil)
		if err != nil {
			tb.Fatal(err)
		}
		t = &mcp.IOTransport{Reader: inR, Writer: outW, MaxLineLength: int(v.MaxBodyBytes()) + 2}
		if impl == "guarded" {
			t = v.StdioTransport(inR, outW)
		}
	default:
		tb.Fatalf("unknown impl %q", impl)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Run(ctx, t); close(done) }()
	tb.Cleanup(func() {
		cancel()
		inW.Close()
		<-done
		inR.Close()
		outW.Close()
		outR.Close()
	})
	out := bufio.NewReaderSize(outR, 64<<10)
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"0"}}}`
	if a := stdioRoundTrip(tb, inW, out, init+"\n"); !strings.Contains(a, `"result"`) {
		tb.Fatalf("initialize: %.200s", a)
	}
	if _, err := inW.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"); err != nil {
		tb.Fatal(err)
	}
	return inW, out
}

// stdioRoundTrip writes one line and reads the answer's line.
func stdioRoundTrip(tb testing.TB, in *os.File, out *bufio.Reader, line string) string {
	if _, err := in.WriteString(line); err != nil {
		tb.Fatal(err)
	}
	a, err := out.ReadString('\n')
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// stdioCall is BenchmarkStdio's call: the typical 1 KB tools/call.
var stdioCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"` + httpQuery + `","limit":5}}}` + "\n"

// The three stdio wirings serve the typical call.
func TestStdioWiringsServeTheCall(t *testing.T) {
	for _, impl := range httpImpls {
		t.Run(impl, func(t *testing.T) {
			in, out := stdioServer(t, impl)
			if a := stdioRoundTrip(t, in, out, stdioCall); !strings.Contains(a, `"id":1`) || !strings.Contains(a, `"text":"ok"`) || strings.Contains(a, `"isError":true`) {
				t.Fatalf("the call: %.300s", a)
			}
		})
	}
}

// BenchmarkStdio: the typical 1 KB tools/call's round trip over OS pipes,
// one in flight, the three wirings side by side: ns/op is a call's time
// (its inverse the throughput), p50-µs the median round trip, cpu-µs/op
// the process's CPU time per call.
func BenchmarkStdio(b *testing.B) {
	for _, impl := range httpImpls {
		b.Run("op=call-1KB/impl="+impl, func(b *testing.B) {
			in, out := stdioServer(b, impl)
			lat := make([]time.Duration, 0, 1<<16)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime(b)
			for b.Loop() {
				t0 := time.Now()
				stdioRoundTrip(b, in, out, stdioCall)
				lat = append(lat, time.Since(t0))
			}
			cpu := cpuTime(b) - cpu0
			b.StopTimer()
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		})
	}
}
