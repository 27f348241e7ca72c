package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	childproc "github.com/theurian/boundlab/internal/child"
)

// Variant is one server under test: `boundlab serve --addr 127.0.0.1:0
// --stateless` plus Flags; without --stateless when Stateful (serve's
// default: sessions, what the floods pile up).
type Variant struct {
	Name     string   `json:"name"`
	Flags    []string `json:"flags"`
	Stateful bool     `json:"stateful,omitempty"`
}

// args are serve's arguments after --addr.
func (v Variant) args() []string {
	if v.Stateful {
		return v.Flags
	}
	return append([]string{"--stateless"}, v.Flags...)
}

// Variant names.
const (
	Guarded        = "guarded"
	MiddlewareOnly = "middleware-only"
)

// Variants are the two servers the lab sets side by side: serve's default
// (the front gate in front of the SDK) and the SDK with only the mcpvalidate
// middleware.
func Variants() []Variant {
	return []Variant{
		{Name: Guarded},
		{Name: MiddlewareOnly, Flags: []string{"--front-gate=false"}},
	}
}

// ErrFlagUnknown is returned when the serve under test does not know a
// variant's flag (a build before that flag landed).
var ErrFlagUnknown = errors.New("the serve under test does not know this variant's flag")

// child is a running server under test.
type child struct {
	cmd    *exec.Cmd
	URL    string
	Cap    int64 // the body cap serve printed
	exited chan struct{}
	stdout *head
	stderr *head

	mu       sync.Mutex
	maxRSS   int64 // bytes, the largest VmRSS sampled
	hwm      int64 // bytes, the last VmHWM read
	killedAt int64 // VmRSS that passed the guard, 0 if never
	samples  int
}

const (
	urlPrefix = "boundlab serve: MCP streamable HTTP at "
	capPrefix = "body cap: "
	// startTimeout bounds how long serve may take to print its banner.
	startTimeout = 30 * time.Second
)

// startChild runs bin as the variant and waits for its banner: the URL, which
// must be on 127.0.0.1, and the body cap.
func startChild(bin string, v Variant) (*child, error) {
	args := append([]string{"serve", "--addr", "127.0.0.1:0"}, v.args()...)
	cmd := exec.Command(bin, args...)
	c := &child{cmd: cmd, exited: make(chan struct{}), stdout: &head{max: 64 << 10}, stderr: &head{max: 8 << 10}}
	cmd.Stdout, cmd.Stderr = c.stdout, c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { _ = cmd.Wait(); close(c.exited) }()
	if err := c.readBanner(v); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// readBanner polls serve's stdout until it holds the URL and body cap lines.
func (c *child) readBanner(v Variant) error {
	deadline := time.After(startTimeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		exited := !c.alive()
		c.URL, c.Cap = "", 0
		for _, l := range c.lines() {
			if u, ok := strings.CutPrefix(l, urlPrefix); ok {
				if err := loopbackOnly(u); err != nil {
					return err
				}
				c.URL = u
			}
			if rest, ok := strings.CutPrefix(strings.TrimSpace(l), capPrefix); ok {
				f := strings.Fields(rest)
				n, err := strconv.ParseInt(f[0], 10, 64)
				if err != nil || n <= 0 {
					return fmt.Errorf("serve printed a body cap line that does not parse")
				}
				c.Cap = n
			}
		}
		if c.URL != "" && c.Cap > 0 {
			return nil
		}
		if exited {
			return c.exitError(v)
		}
		select {
		case <-deadline:
			return fmt.Errorf("serve printed no URL and body cap within %v", startTimeout)
		case <-tick.C:
		case <-c.exited:
		}
	}
}

// lines are serve's complete stdout lines so far (at most 64).
func (c *child) lines() []string {
	ls := strings.Split(c.stdout.String(), "\n")
	ls = ls[:len(ls)-1] // the last is incomplete
	return ls[:min(len(ls), 64)]
}

// exitError explains a serve that exited before its banner.
func (c *child) exitError(v Variant) error {
	msg := c.stderr.String()
	if strings.Contains(msg, "flag provided but not defined") {
		return fmt.Errorf("serve %s: %w (a build from before the flag?); it exited with: %s",
			strings.Join(v.Flags, " "), ErrFlagUnknown, childproc.FirstLine(msg))
	}
	return fmt.Errorf("serve exited before printing its URL (%v): %s", c.cmd.ProcessState, childproc.FirstLine(msg))
}

// loopbackOnly refuses any URL whose host is not 127.0.0.1: the lab never
// drives anything but the child it started on loopback.
func loopbackOnly(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" {
		return fmt.Errorf("the child printed a URL that is not http://127.0.0.1: the lab drives loopback only")
	}
	return nil
}

// watch samples the child's VmRSS every interval until it exits or ctx ends,
// and kills it the first time VmRSS passes guard.
func (c *child) watch(ctx context.Context, interval time.Duration, guard int64) {
	t := time.NewTicker(interval)
	defer t.Stop()
	path := fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid)
	for {
		if rss, hwm, ok := readStatus(path); ok {
			c.mu.Lock()
			c.maxRSS, c.hwm = max(c.maxRSS, rss), max(c.hwm, hwm)
			c.samples++
			over := rss > guard && c.killedAt == 0
			if over {
				c.killedAt = rss
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

// readStatus reads VmRSS and VmHWM, in bytes, from a /proc status file.
func readStatus(path string) (rss, hwm int64, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	rss, ok1 := statusKB(data, "VmRSS:")
	hwm, ok2 := statusKB(data, "VmHWM:")
	return rss, hwm, ok1 && ok2
}

func statusKB(data []byte, key string) (int64, bool) {
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
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

// alive reports whether the child is still running.
func (c *child) alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// stop ends the child: SIGTERM, then SIGKILL after 5 s.
func (c *child) stop() {
	if !c.alive() {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// head keeps the first max bytes written to it: serve's banner, and its first
// error line, which explains an early exit; later log lines are dropped.
type head struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *head) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := t.max - len(t.b); room > 0 {
		t.b = append(t.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (t *head) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// Build compiles ./cmd/boundlab of the module at moduleDir into dir and
// returns the binary's path.
func Build(ctx context.Context, moduleDir, dir string) (string, error) {
	bin := filepath.Join(dir, "boundlab")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/boundlab")
	cmd.Dir = moduleDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/boundlab: %v: %s", err, childproc.FirstLine(string(out)))
	}
	return bin, nil
}

// Commit names the module's checkout at moduleDir: the short HEAD, with
// "+dirty" when tracked files differ from it ("" without git).
func Commit(ctx context.Context, moduleDir string) string {
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = moduleDir
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	rev, err := git("rev-parse", "--short=12", "HEAD")
	if err != nil {
		return ""
	}
	if st, err := git("status", "--porcelain", "--untracked-files=no"); err == nil && st != "" {
		rev += "+dirty"
	}
	return rev
}

// ServeChild is a `boundlab serve` child on 127.0.0.1 for another lab to drive
// (the auditor's tests): started, its RSS watched, stopped.
type ServeChild struct {
	c      *child
	cancel context.CancelFunc
	// URL is the MCP endpoint serve printed (always http://127.0.0.1:PORT/mcp)
	// and Cap the body cap it announced.
	URL string
	Cap int64
}

// Serve starts bin as the variant and watches its RSS every 50 ms, killing
// it the first time VmRSS passes guard bytes.
func Serve(bin string, v Variant, guard int64) (*ServeChild, error) {
	c, err := startChild(bin, v)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	go c.watch(ctx, 50*time.Millisecond, guard)
	return &ServeChild{c: c, cancel: cancel, URL: c.URL, Cap: c.Cap}, nil
}

// Stop ends the child and reports its largest sampled VmRSS and whether the
// guard killed it.
func (s *ServeChild) Stop() (maxRSS int64, killed bool) {
	s.cancel()
	s.c.stop()
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	return max(s.c.maxRSS, s.c.hwm), s.c.killedAt != 0
}

// Child is a server under test other than serve, for another lab to drive
// (internal/strangers: other SDKs' servers): started from any command, its
// RSS watched, stopped.
type Child struct {
	c      *child
	cancel context.CancelFunc
	// URL is the endpoint the child printed, always on 127.0.0.1.
	URL string
}

// StartChild starts cmd (its stdout and stderr are taken over), waits for a
// stdout line that starts with urlLead, whose rest is the URL (refused
// unless on http://127.0.0.1), then until the URL's port accepts a
// connection (a child may print before it listens), and watches its RSS
// every 50 ms, killing it the first time VmRSS passes guard bytes. A child
// that exits first is an error quoting its stderr's first line.
func StartChild(cmd *exec.Cmd, urlLead string, guard int64) (*Child, error) {
	c := &child{cmd: cmd, exited: make(chan struct{}), stdout: &head{max: 64 << 10}, stderr: &head{max: 8 << 10}}
	cmd.Stdout, cmd.Stderr = c.stdout, c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	go func() { _ = cmd.Wait(); close(c.exited) }()
	if err := c.awaitURL(urlLead); err != nil {
		c.stop()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	go c.watch(ctx, 50*time.Millisecond, guard)
	return &Child{c: c, cancel: cancel, URL: c.URL}, nil
}

// awaitURL polls stdout for the URL line, then dials its port.
func (c *child) awaitURL(lead string) error {
	deadline := time.Now().Add(2 * startTimeout) // node and Python load their SDKs first
	for c.URL == "" {
		exited := !c.alive()
		for _, l := range c.lines() {
			if u, ok := strings.CutPrefix(l, lead); ok {
				if err := loopbackOnly(u); err != nil {
					return err
				}
				c.URL = u
			}
		}
		switch {
		case c.URL != "":
		case exited:
			return fmt.Errorf("%s exited before printing its URL (%v): %s", filepath.Base(c.cmd.Path), c.cmd.ProcessState, childproc.FirstLine(c.stderr.String()))
		case time.Now().After(deadline):
			return fmt.Errorf("%s printed no URL within %v", filepath.Base(c.cmd.Path), 2*startTimeout)
		default:
			time.Sleep(20 * time.Millisecond)
		}
	}
	u, _ := url.Parse(c.URL)
	for {
		conn, err := net.DialTimeout("tcp", u.Host, time.Second)
		if err == nil {
			return conn.Close()
		}
		if !c.alive() {
			return fmt.Errorf("%s exited before listening: %s", filepath.Base(c.cmd.Path), childproc.FirstLine(c.stderr.String()))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not listen on %s within %v", filepath.Base(c.cmd.Path), u.Host, 2*startTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop ends the child (SIGTERM, SIGKILL after 5 s) and reports its largest
// sampled VmRSS and whether the guard killed it.
func (s *Child) Stop() (maxRSS int64, killed bool) {
	s.cancel()
	s.c.stop()
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	return max(s.c.maxRSS, s.c.hwm), s.c.killedAt != 0
}
