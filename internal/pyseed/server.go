package pyseed

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// ServerScript is the seed's server shape as a Python program: an MCPServer
// behind its own streamable HTTP app under uvicorn, on loopback.
//
//go:embed pyserver.py
var ServerScript string

// RSSLimit is the resident size past which the driver kills the server: the
// worst body the lab sends peaks near a GiB and a half by the model; past four
// the server is doing something the model does not know of, and the machine
// it shares is worth more than the reading.
const RSSLimit = 4 << 30

// Server is one running child: the seed's server shape on 127.0.0.1.
type Server struct {
	limit  int64 // the resident size the watchdog kills it past
	cmd    *exec.Cmd
	url    string
	killed atomic.Bool // the watchdog killed it past RSSLimit
	peak   atomic.Int64
	done   chan struct{}
	stderr bytes.Buffer
}

// ServerMode is how the server is built: with the seed's middleware seat
// filled (the gate) or the SDK alone.
type ServerMode string

const (
	// ModeGate fills the seat with the seed's checks: the node bound, the
	// rendered-character charge, then jsonschema.
	ModeGate ServerMode = "gate"
	// ModePlain is the SDK alone, the seat empty.
	ModePlain ServerMode = "plain"
)

// ServerOptions say how the child is built and watched.
type ServerOptions struct {
	Mode     ServerMode
	Accept   bool  // lift the published schema's maxLength
	Cap      int64 // the transport cap, max_request_body_size
	RSSLimit int64 // kill the child past this resident size; 0 is RSSLimit
}

// StartServer starts the server as a child of this process and waits until
// it answers a tools/call.
func StartServer(ctx context.Context, py string, o ServerOptions) (*Server, error) {
	schema := "refuse"
	if o.Accept {
		schema = "accept"
	}
	s := &Server{done: make(chan struct{}), limit: o.RSSLimit}
	if s.limit == 0 {
		s.limit = RSSLimit
	}
	s.cmd = exec.Command(py, "-c", ServerScript, string(o.Mode), schema, strconv.FormatInt(o.Cap, 10))
	s.cmd.Stderr = &s.stderr
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go s.watch()
	port := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		port <- strings.TrimSpace(line)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case p := <-port:
		if _, err := strconv.Atoi(p); err != nil {
			s.Stop()
			return nil, fmt.Errorf("pyserver: no port from the server (%q): %s", p, s.lastStderr())
		}
		s.url = "http://127.0.0.1:" + p + "/mcp"
	case <-time.After(2 * time.Minute):
		s.Stop()
		return nil, fmt.Errorf("pyserver: the server printed no port in two minutes: %s", s.lastStderr())
	}
	// The port is bound before uvicorn's lifespan has started the SDK's
	// session manager: retry the first call until it is served.
	deadline := time.Now().Add(time.Minute)
	for {
		_, body, err := s.Post(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"echo","arguments":{"query":"warm-up"}}}`))
		if err == nil && bytes.Contains(body, []byte(`"isError":false`)) {
			return s, nil
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("pyserver: the warm-up call was not served in a minute (%v, %.200q): %s", err, body, s.lastStderr())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (s *Server) lastStderr() string {
	msg := strings.TrimSpace(s.stderr.String())
	if len(msg) > 400 {
		msg = msg[len(msg)-400:]
	}
	return msg
}

// watch samples the child's resident size every 10 ms and kills it past its
// limit; it ends when the child does.
func (s *Server) watch() {
	defer close(s.done)
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for range t.C {
		st, err := procStatus(s.cmd.Process.Pid)
		if err != nil {
			return // the child is gone
		}
		if st.RSS > s.limit {
			s.killed.Store(true)
			_ = s.cmd.Process.Kill()
			return
		}
	}
}

// Post sends one JSON-RPC body and returns the status and the answer's
// first 64 KiB.
func (s *Server) Post(ctx context.Context, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if s.killed.Load() {
			return 0, nil, fmt.Errorf("pyserver: killed past %d bytes resident", s.limit)
		}
		return 0, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, answer, err
}

// Status reads the child's resident and high-water sizes.
func (s *Server) Status() (ProcStatus, error) { return procStatus(s.cmd.Process.Pid) }

// Stop ends the child and waits for it.
func (s *Server) Stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-exited
	}
	<-s.done
}

// ProcStatus is what /proc/PID/status says of a process's memory, in bytes.
type ProcStatus struct {
	RSS, HWM int64 // VmRSS and VmHWM
}

func procStatus(pid int) (ProcStatus, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ProcStatus{}, err
	}
	var st ProcStatus
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return ProcStatus{}, fmt.Errorf("/proc/%d/status: %s: %w", pid, line, err)
		}
		if name == "VmRSS" {
			st.RSS = kib << 10
		} else {
			st.HWM = kib << 10
		}
	}
	if st.HWM == 0 {
		return ProcStatus{}, errors.New("no VmHWM in /proc/" + strconv.Itoa(pid) + "/status (a zombie, or not Linux)")
	}
	return st, nil
}

// ServerReading is one body through a fresh server: its resident size before
// the body (after one served warm-up call) and its high-water mark after it.
type ServerReading struct {
	Wire   int64
	Before ProcStatus
	After  ProcStatus
	Status int
	Answer string // the answer's start
}

// Growth is the high-water mark above the resident size the body met.
func (r ServerReading) Growth() int64 { return r.After.HWM - r.Before.RSS }

// MeasureServer sends one body to a fresh server and reads its high-water
// mark; the server is stopped before it returns.
func MeasureServer(ctx context.Context, py string, o ServerOptions, body []byte) (ServerReading, error) {
	s, err := StartServer(ctx, py, o)
	if err != nil {
		return ServerReading{}, err
	}
	defer s.Stop()
	r := ServerReading{Wire: int64(len(body))}
	if r.Before, err = s.Status(); err != nil {
		return r, err
	}
	status, answer, err := s.Post(ctx, body)
	if err != nil {
		return r, err
	}
	r.Status, r.Answer = status, string(answer[:min(len(answer), 300)])
	if r.After, err = s.Status(); err != nil {
		return r, err
	}
	return r, nil
}
