package mark3labs_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	m3 "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"
	"github.com/theurian/boundlab/mcpvalidate/mark3labs"
)

// BenchmarkStdio: one small tools/call's round trip to an mcp-go server
// over OS pipes, bare (its own StdioServer.Listen) and guarded (Install and
// ListenStdio): what the protection costs an mcp-go stdio server per call,
// in wall time and in the process's CPU time (cpu-ns/op).
func BenchmarkStdio(b *testing.B) {
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deeplink","arguments":{"resourceType":"dashboard","dashboardUid":"boundlab"}}}` + "\n"
	schema := `{"type":"object","properties":{"resourceType":{"type":"string","enum":["dashboard","panel","explore"]},"dashboardUid":{"type":"string"}},"required":["resourceType"],"additionalProperties":false}`
	for _, impl := range []string{"bare", "guarded"} {
		b.Run("call=deeplink/impl="+impl, func(b *testing.B) {
			s := m3server.NewMCPServer("bench", "0")
			s.AddTool(m3.NewToolWithRawSchema("deeplink", "", json.RawMessage(schema)), func(_ context.Context, req m3.CallToolRequest) (*m3.CallToolResult, error) {
				return m3.NewToolResultText("http://localhost:3000/d/boundlab"), nil
			})
			inR, inW, _ := os.Pipe()
			outR, outW, _ := os.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			srv := m3server.NewStdioServer(s)
			done := make(chan struct{})
			if impl == "guarded" {
				v, err := mark3labs.Install(s, nil)
				if err != nil {
					b.Fatal(err)
				}
				go func() { _ = mark3labs.ListenStdio(ctx, srv, v, inR, outW); close(done) }()
			} else {
				go func() { _ = srv.Listen(ctx, inR, outW); close(done) }()
			}
			b.Cleanup(func() {
				cancel()
				inW.Close()
				outR.Close()
				<-done
				inR.Close()
				outW.Close()
			})
			out := bufio.NewReaderSize(outR, 64<<10)
			rt := func(line string) string {
				if _, err := inW.WriteString(line); err != nil {
					b.Fatal(err)
				}
				a, err := out.ReadString('\n')
				if err != nil {
					b.Fatal(err)
				}
				return a
			}
			if a := rt(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"0"}}}` + "\n"); !strings.Contains(a, `"result"`) {
				b.Fatalf("initialize: %.200s", a)
			}
			_, _ = inW.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
			if a := rt(call); !strings.Contains(a, "localhost:3000") {
				b.Fatalf("the call: %.300s", a)
			}
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				rt(call)
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
