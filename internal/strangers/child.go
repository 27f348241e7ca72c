package strangers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// RSSGuard is the resident set a child may reach before it is killed: the
// audit's largest body is 64 MiB, which a server may hold a few times over
// while it parses; past 1 GiB it is hurting the machine, not answering.
const RSSGuard = 1 << 30

// bannerPrefix starts the first line every stranger prints on stdout.
const bannerPrefix = "stranger: MCP streamable HTTP at "

// startTimeout bounds a child's start: node and Python load their SDKs.
const startTimeout = 60 * time.Second

// Child is a stranger's HTTP server running on 127.0.0.1, its RSS sampled
// every 50 ms and the process killed the first time it passes the guard.
type Child struct {
	URL string

	cmd    *exec.Cmd
	exited chan struct{}
	stderr *head
	cancel context.CancelFunc

	mu     sync.Mutex
	maxRSS int64
	killed int64
}

// Start runs cmd, reads its banner (the first stdout line that starts with
// banner, the URL after it, which must be on 127.0.0.1), waits until the
// port accepts a connection, and watches its RSS.
func Start(cmd *exec.Cmd, banner string, guard int64) (*Child, error) {
	c := &Child{cmd: cmd, exited: make(chan struct{}), stderr: &head{max: 4 << 10}}
	cmd.Stderr = c.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { cmd.Wait(); close(c.exited) }()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if s, ok := strings.CutPrefix(sc.Text(), banner); ok {
				found <- s
				break
			}
		}
		io.Copy(io.Discard, out) // keep draining: a full pipe would block the child
	}()
	fail := func(err error) (*Child, error) {
		c.kill()
		return nil, err
	}
	select {
	case c.URL = <-found:
	case <-c.exited:
		return fail(fmt.Errorf("%s exited before printing its URL: %s", cmd.Path, firstLine(c.stderr.String())))
	case <-time.After(startTimeout):
		return fail(fmt.Errorf("%s printed no URL within %v", cmd.Path, startTimeout))
	}
	u, err := url.Parse(c.URL)
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" {
		return fail(errors.New("the child printed a URL that is not http://127.0.0.1: the lab drives loopback only"))
	}
	// Python prints its URL before uvicorn listens: wait for the port.
	deadline := time.Now().Add(startTimeout)
	for {
		conn, err := net.DialTimeout("tcp", u.Host, time.Second)
		if err == nil {
			conn.Close()
			break
		}
		select {
		case <-c.exited:
			return fail(fmt.Errorf("%s exited before listening: %s", cmd.Path, firstLine(c.stderr.String())))
		default:
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("%s does not listen on %s within %v", cmd.Path, u.Host, startTimeout))
		}
		time.Sleep(50 * time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go c.watch(ctx, guard)
	return c, nil
}

func (c *Child) watch(ctx context.Context, guard int64) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	path := "/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/status"
	for {
		if rss, ok := readRSS(path); ok {
			c.mu.Lock()
			c.maxRSS = max(c.maxRSS, rss)
			over := rss > guard && c.killed == 0
			if over {
				c.killed = rss
			}
			c.mu.Unlock()
			if over {
				_ = c.cmd.Process.Kill()
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-c.exited:
			return
		case <-t.C:
		}
	}
}

// Stop ends the child (SIGTERM, SIGKILL after 5 s) and reports its largest
// sampled RSS and whether the guard killed it (then at that RSS).
func (c *Child) Stop() (maxRSS, killedAt int64) {
	if c.cancel != nil {
		c.cancel()
	}
	select {
	case <-c.exited:
	default:
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.exited:
		case <-time.After(5 * time.Second):
			c.kill()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxRSS, c.killed
}

func (c *Child) kill() {
	_ = c.cmd.Process.Kill()
	<-c.exited
}

// readRSS reads VmRSS, in bytes, from a /proc status file.
func readRSS(path string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) != 2 || f[1] != "kB" {
				return 0, false
			}
			n, err := strconv.ParseInt(f[0], 10, 64)
			return n << 10, err == nil
		}
	}
	return 0, false
}

// head keeps the first max bytes written to it: a child's first error
// lines, which explain an early exit.
type head struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (h *head) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *head) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.b)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
