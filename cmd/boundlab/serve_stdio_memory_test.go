package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

// stdioChildEnv makes this test binary `boundlab serve --stdio` and nothing
// else: TestServeStdioMemory's child, so the process measured runs the
// verb's own code.
const stdioChildEnv = "BOUNDLAB_SERVE_STDIO_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(stdioChildEnv) != "" {
		os.Exit(runServe([]string{"--stdio"}, os.Stdin, os.Stdout, io.Discard))
	}
	os.Exit(m.Run())
}

// The child's bounds: its address space (ulimit -v; loose, since the Go
// runtime reserves space it never touches) and the resident set past which
// the watch kills it, far above the ceiling under test, so a breach is
// measured rather than cut short, and far below the machine.
const (
	stdioAddressGuard = 4 << 30
	stdioGuard        = 2 << 30
)

// stdioCeiling is what `boundlab serve --stdio` states for one frame in
// flight: the front gate's weight of a request at the frame cap under the
// default limits, plus the baseline a process serving MCP holds.
func stdioCeiling(t *testing.T) (frameCap, ceiling int64) {
	l := charge.DefaultLimits()
	v, err := demo.NewValidator(&mcpvalidate.Options{Limits: &l})
	if err != nil {
		t.Fatal(err)
	}
	return v.MaxBodyBytes(), bounds.Request(v.MaxBodyBytes(), l) + bounds.Baseline
}

// TestServeStdioMemory streams lines at the frame cap (a call whose query
// fills it, nesting, invalid UTF-8, bytes after a message), past it (64
// MiB) and malformed ones, each followed by a valid call, through a child
// `boundlab serve --stdio`, one line in flight at a time (each answered
// before the next is sent), and holds its peak RSS (VmHWM) under the
// ceiling it states for one frame in flight: bounds.Request at the frame
// cap plus bounds.Baseline. Every line is answered and every valid call
// served.
func TestServeStdioMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams some 400 MiB through a child process")
	}
	frameCap, ceiling := stdioCeiling(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", `ulimit -v `+strconv.Itoa(stdioAddressGuard>>10)+` && exec "$0"`, exe)
	cmd.Env = append(os.Environ(), stdioChildEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	go watchRSS(ctx, pid, cmd)
	out := bufio.NewReaderSize(outPipe, 64<<10)
	answers := make(chan string)
	go func() {
		for {
			l, err := out.ReadString('\n')
			if err != nil {
				close(answers)
				return
			}
			answers <- l
		}
	}()
	// send writes a line (from r: nothing of it is held here) and returns
	// the answer.
	send := func(what string, r io.Reader) string {
		t.Helper()
		if _, err := io.Copy(in, io.MultiReader(r, strings.NewReader("\n"))); err != nil {
			t.Fatalf("%s: writing: %v", what, err)
		}
		select {
		case a, ok := <-answers:
			if !ok {
				t.Fatalf("%s: the server ended", what)
			}
			return a
		case <-ctx.Done():
			t.Fatalf("%s: no answer", what)
		}
		return ""
	}
	line := func(s string) io.Reader { return strings.NewReader(s) }
	if a := send("initialize", line(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)); !strings.Contains(a, `"result"`) {
		t.Fatalf("initialize: %.200s", a)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	id := 0
	valid := func(after string) {
		t.Helper()
		id++
		a := send("a valid call after "+after, line(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"project.list","arguments":{}}}`, id)))
		if !strings.Contains(a, fmt.Sprintf(`"id":%d`, id)) || !strings.Contains(a, "demo") {
			t.Fatalf("a valid call after %s: %.200s", after, a)
		}
	}
	valid("initialize")
	idle := vmHWM(t, pid)
	// fill is a line of exactly frameCap bytes (plus extra): head, filler
	// bytes, tail.
	fill := func(head string, b byte, tail string, extra int64) io.Reader {
		n := frameCap + extra - int64(len(head)+len(tail))
		return io.MultiReader(strings.NewReader(head), io.LimitReader(byteRepeater(b), n), strings.NewReader(tail))
	}
	// One frame in flight alone: a ping padded to the cap, which the gate
	// admits and the SDK reads whole.
	if a := send("a ping at the cap", fill(`{"jsonrpc":"2.0","id":8,"method":"ping"`, ' ', `}`, 0)); !strings.Contains(a, `"result"`) {
		t.Fatalf("a ping at the cap: %.200s", a)
	}
	one := vmHWM(t, pid) - idle
	search := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"knowledge.search","arguments":{"projectId":"demo","query":`
	shapes := []struct {
		name string
		line func() io.Reader
		want string // in the answer
	}{
		{"a query at the cap", func() io.Reader { return fill(search+`"`, 'q', `"}}}`, 0) }, `"id":7`},
		// The gate's charge refuses a query that wide; one of 2/5 the cap,
		// padded with whitespace to it, passes the gate and is decoded by
		// the SDK and the middleware before the schema refuses it.
		{"two fifths of the cap of query, padded to it", func() io.Reader {
			return fill(search+`"`+strings.Repeat("q", int(frameCap*2/5))+`"`, ' ', `}}}`, 0)
		}, "maxLength"},
		{"64 MiB", func() io.Reader { return fill(search+`"`, 'q', `"}}}`, 64<<20-frameCap) }, "body-bytes"},
		{"one past the cap", func() io.Reader { return fill(search+`"`, 'q', `"}}}`, 1) }, "body-bytes"},
		{"nesting at the cap", func() io.Reader { return fill(search, '[', `}}}`, 0) }, "nesting"},
		{"invalid UTF-8 at the cap", func() io.Reader { return fill(search+`"`, 0xFF, `"}}}`, 0) }, "utf8"},
		{"bytes after a message, at the cap", func() io.Reader { return fill(`{"jsonrpc":"2.0","id":7,"method":"ping"}`, 'x', ``, 0) }, "trailing"},
		{"not JSON", func() io.Reader { return line(`{"jsonrpc":`) }, "-32700"},
	}
	for round := 0; round < 2; round++ {
		for _, s := range shapes {
			a := send(s.name, s.line())
			if !strings.Contains(a, s.want) || len(a) > mcpvalidate.MaxRefusalBytes()+1 {
				t.Fatalf("%s: want %q in an answer of at most %d bytes: %.300s", s.name, s.want, mcpvalidate.MaxRefusalBytes(), a)
			}
			if round == 0 {
				t.Logf("%s: VmHWM %d bytes; answered %.160s", s.name, vmHWM(t, pid), a)
			}
			valid(s.name)
		}
	}
	peak := vmHWM(t, pid)
	in.Close()
	t.Logf("frame cap %d bytes; VmHWM %d bytes idle; one ping at the cap %d bytes above it (%.2fx the cap); %d after the stream (%.2fx the cap above idle); stated ceiling %d bytes (bounds.Request(cap) %d + bounds.Baseline %d)",
		frameCap, idle, one, float64(one)/float64(frameCap), peak, float64(peak-idle)/float64(frameCap), ceiling, ceiling-bounds.Baseline, int64(bounds.Baseline))
	if peak > ceiling {
		t.Errorf("peak RSS %d bytes, past the stated ceiling %d", peak, ceiling)
	}
}

type byteRepeater byte

func (b byteRepeater) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// vmHWM is the process's peak resident set, from /proc/PID/status.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	kib, err := procStatus(pid, "VmHWM:")
	if err != nil {
		t.Fatal(err)
	}
	return kib << 10
}

func procStatus(pid int, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, field); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// watchRSS kills the child the first time its resident set passes
// stdioGuard (ulimit -v bounds its address space too; this bounds what it
// takes from the machine).
func watchRSS(ctx context.Context, pid int, cmd *exec.Cmd) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		kib, err := procStatus(pid, "VmRSS:")
		if err != nil {
			return // exited
		}
		if kib<<10 > stdioGuard {
			_ = cmd.Process.Kill()
			return
		}
	}
}
