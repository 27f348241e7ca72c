package mcpvalidate

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioBench is a go-sdk server with one typed tool and the middleware
// installed, served over OS pipes, gated or on the SDK's bare IOTransport,
// and the client's ends of the pipes.
type stdioBench struct {
	in  *os.File
	out *bufio.Reader
}

func newStdioBench(b *testing.B, gated bool) *stdioBench {
	srv := mcp.NewServer(&mcp.Implementation{Name: "stdio-bench", Version: "v0"}, nil)
	AddTool(srv, &mcp.Tool{Name: "search"}, func(_ context.Context, _ *mcp.CallToolRequest, in stdioSearchIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d bytes", len(in.Query))}}}, nil, nil
	})
	v, err := Install(srv, nil)
	if err != nil {
		b.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	var t mcp.Transport = v.StdioTransport(inR, outW)
	if !gated {
		t = &mcp.IOTransport{Reader: inR, Writer: outW, MaxLineLength: int(v.MaxBodyBytes()) + 2}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Run(ctx, t); close(done) }()
	b.Cleanup(func() {
		cancel()
		inW.Close()
		<-done
		inR.Close()
		outW.Close()
		outR.Close()
	})
	s := &stdioBench{in: inW, out: bufio.NewReaderSize(outR, 64<<10)}
	if a := s.roundTrip(b, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"0"}}}`+"\n"); !strings.Contains(a, `"result"`) {
		b.Fatalf("initialize: %.200s", a)
	}
	if _, err := inW.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"); err != nil {
		b.Fatal(err)
	}
	return s
}

// roundTrip writes one line and reads the answer line.
func (s *stdioBench) roundTrip(b *testing.B, line string) string {
	if _, err := s.in.WriteString(line); err != nil {
		b.Fatal(err)
	}
	a, err := s.out.ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return a
}

// BenchmarkStdio: a valid tools/call of about 1 KB, its round trip over OS
// pipes through the gated stdio transport (impl=gated) and the go-sdk's
// bare IOTransport (impl=bare, the baseline), the middleware behind both:
// what the gate costs a stdio server per call.
func BenchmarkStdio(b *testing.B) {
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"` +
		strings.Repeat("the quick brown fox ", 45) + `"}}}` + "\n"
	for _, impl := range []string{"bare", "gated"} {
		b.Run("call=valid-1kb/impl="+impl, func(b *testing.B) {
			s := newStdioBench(b, impl == "gated")
			if a := s.roundTrip(b, call); !strings.Contains(a, `"id":1`) || !strings.Contains(a, "900 bytes") {
				b.Fatalf("the call: %.200s", a)
			}
			b.SetBytes(int64(len(call)))
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				s.roundTrip(b, call)
			}
			reportCPU(b, cpu)
		})
	}
}

// lineLoop yields line over and over, without end.
type lineLoop struct {
	line []byte
	at   int
}

func (l *lineLoop) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], l.line[l.at:])
		n += c
		l.at = (l.at + c) % len(l.line)
	}
	return n, nil
}

// BenchmarkStdioRead: the same call read off the line by the go-sdk's
// stdio connection, through the gate (impl=gated) or straight
// (impl=bare), and its answer written back, with no pipes, goroutine
// hand-offs or server behind it: what the gate adds to reading a message
// and to writing its answer (which gives the call's in-flight room back),
// apart from the scheduling noise of a round trip.
func BenchmarkStdioRead(b *testing.B) {
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"` +
		strings.Repeat("the quick brown fox ", 45) + `"}}}` + "\n")
	v, err := New(published, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, impl := range []string{"bare", "gated"} {
		b.Run("call=valid-1kb/impl="+impl, func(b *testing.B) {
			var r io.ReadCloser = io.NopCloser(&lineLoop{line: call})
			var w io.WriteCloser = stdioNopWriter{}
			if impl == "gated" {
				if r, w, err = v.stdioGate(&lineLoop{line: call}, io.Discard, 0); err != nil {
					b.Fatal(err)
				}
			}
			ctx := context.Background()
			conn, err := (&mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: int(v.MaxBodyBytes()) + 2}).Connect(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			answer := &jsonrpc.Response{ID: mustID(b, 1), Result: json.RawMessage(`{"content":[{"type":"text","text":"900 bytes"}]}`)}
			b.SetBytes(int64(len(call)))
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				if _, err := conn.Read(ctx); err != nil {
					b.Fatal(err)
				}
				if err := conn.Write(ctx, answer); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

func mustID(b *testing.B, n int64) jsonrpc.ID {
	id, err := jsonrpc.MakeID(float64(n))
	if err != nil {
		b.Fatal(err)
	}
	return id
}

// processCPU is the CPU time the process has used, user and system, from
// getrusage: a machine busy with other work stretches wall time per call
// far more than the CPU time this process spends on it.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start (both ends of
// the pipes, the server and its client, are this process) as cpu-ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}
