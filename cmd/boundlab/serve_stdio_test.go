package main

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/charge"
)

// serve --stdio answers the lines its front gate refuses and serves the
// next; without the gate, the SDK ends the session on the same line.
func TestServeStdio(t *testing.T) {
	for _, gated := range []bool{true, false} {
		name := "front-gate"
		if !gated {
			name = "sdk-alone"
		}
		t.Run(name, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- serveStdio(ctx, inR, outW, io.Discard, serveOptions{frontGate: gated, limits: charge.DefaultLimits()})
				outW.Close()
			}()
			defer func() { cancel(); inW.Close(); outR.Close() }()
			out := bufio.NewReader(outR)
			answer := func(line string) string {
				go func() { _, _ = io.WriteString(inW, line+"\n") }()
				got := make(chan string, 1)
				go func() { l, _ := out.ReadString('\n'); got <- l }()
				select {
				case l := <-got:
					return l
				case <-time.After(10 * time.Second):
					t.Fatal("no answer in 10 s")
				}
				return ""
			}
			if a := answer(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`); !strings.Contains(a, `"result"`) {
				t.Fatalf("initialize: %.200s", a)
			}
			go func() { _, _ = io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n") }()
			a := answer(`{"jsonrpc":"2.0","id":1,"method":"ping"}x`)
			if gated != strings.Contains(a, "trailing-bytes") {
				t.Fatalf("trailing bytes answered %.200q", a)
			}
			if !gated {
				return // the SDK ended the session: nothing more is answered
			}
			if a := answer(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"project.list","arguments":{}}}`); !strings.Contains(a, `"id":2`) || !strings.Contains(a, "demo") {
				t.Fatalf("the next call: %.200s", a)
			}
		})
	}
}
