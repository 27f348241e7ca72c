package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	childproc "github.com/theurian/boundlab/internal/child"
	"github.com/theurian/boundlab/internal/labmodule"
	"github.com/theurian/boundlab/results"
)

// StdioProducer is the name the stdio run's records are pinned under.
const StdioProducer = "load-stdio"

func init() {
	results.Register(results.Producer{Name: StdioProducer, Records: stdioRecords,
		Remeasures: "builds `boundlab serve`, runs it over stdio as a child and streams some 400 MiB of lines through it"})
}

// StdioResult is what a stdio stream measured of the child.
type StdioResult struct {
	// FrameCap and Ceiling are what the child announced: its frame cap and
	// the memory it states (bounds.Stdio plus bounds.Baseline).
	FrameCap, Ceiling int64
	// Idle is the child's peak RSS (VmHWM) after initialize and one valid
	// call; OneFrame what one ping padded to the frame cap, alone, added to
	// it; Peak its VmHWM after the whole stream.
	Idle, OneFrame, Peak int64
	// Lines is how many lines were sent and answered, Shapes what each
	// hostile shape was answered with (cut).
	Lines  int
	Shapes []StdioShape
	// Pipelined is how many lines at the cap were sent back to back without
	// waiting for answers; Busy how many of them the in-flight budget
	// answered -32000 instead of admitting.
	Pipelined, Busy int
}

// StdioShape is one hostile line of the stream and what answered it.
type StdioShape struct {
	Name, Answer string
	HWM          int64 // the child's VmHWM after it
}

// stdioAnnounce is the announcement `boundlab serve --stdio` logs on stderr
// (slog's text form).
var stdioAnnounce = regexp.MustCompile(`frame_cap_bytes=(\d+) .*memory_ceiling_bytes=(\d+)`)

// StdioStream starts cmd (a `boundlab serve --stdio`; its stdin, stdout and
// stderr are taken over), reads the frame cap and ceiling it announces, and
// streams hostile lines through it, one in flight at a time (each answered
// before the next is sent), each followed by a valid tools/call that must
// be served. Its RSS is watched every 20 ms and it is killed the first time
// VmRSS passes guard; the run is bounded by ctx. Start cmd under an
// address-space limit (ulimit -v) too: a child past guard between samples
// takes from the machine.
func StdioStream(ctx context.Context, cmd *exec.Cmd, guard int64) (*StdioResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr := &head{max: 8 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() { _ = cmd.Process.Kill(); <-exited }()
	killed := make(chan int64, 1)
	go watchStdio(ctx, cmd.Process.Pid, guard, killed)

	r := &StdioResult{}
	for deadline := time.Now().Add(startTimeout); ; time.Sleep(20 * time.Millisecond) {
		if m := stdioAnnounce.FindStringSubmatch(stderr.String()); m != nil {
			r.FrameCap, _ = strconv.ParseInt(m[1], 10, 64)
			r.Ceiling, _ = strconv.ParseInt(m[2], 10, 64)
			break
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("%s exited before announcing: %s", filepath.Base(cmd.Path), childproc.FirstLine(stderr.String()))
		default:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s announced no frame cap and ceiling within %v", filepath.Base(cmd.Path), startTimeout)
		}
	}
	answers := make(chan string)
	go func() {
		out := bufio.NewReaderSize(outPipe, 64<<10)
		for {
			l, err := out.ReadString('\n')
			if err != nil {
				close(answers)
				return
			}
			select {
			case answers <- l:
			case <-ctx.Done():
				return
			}
		}
	}()
	s := &stdioSession{ctx: ctx, in: in, answers: answers, killed: killed, pid: cmd.Process.Pid, r: r}
	if err := s.run(); err != nil {
		return nil, err
	}
	return r, nil
}

type stdioSession struct {
	ctx     context.Context
	in      io.Writer
	answers chan string
	killed  chan int64
	pid     int
	r       *StdioResult
	id      int
}

// send writes one line from src (nothing of it held here) and returns the
// answer.
func (s *stdioSession) send(what string, src io.Reader) (string, error) {
	if _, err := io.Copy(s.in, io.MultiReader(src, strings.NewReader("\n"))); err != nil {
		return "", s.ended(what, err)
	}
	select {
	case a, ok := <-s.answers:
		if !ok {
			return "", s.ended(what, errors.New("its stdout closed"))
		}
		s.r.Lines++
		return a, nil
	case <-s.ctx.Done():
		return "", fmt.Errorf("%s: no answer: %w", what, s.ctx.Err())
	}
}

func (s *stdioSession) ended(what string, err error) error {
	select {
	case rss := <-s.killed:
		return fmt.Errorf("%s: killed by the RSS guard at %d bytes", what, rss)
	default:
		return fmt.Errorf("%s: the server ended: %v", what, err)
	}
}

// valid sends a valid call and checks it is served.
func (s *stdioSession) valid(after string) error {
	s.id++
	a, err := s.send("a valid call after "+after, strings.NewReader(fmt.Sprintf(
		`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"project.list","arguments":{}}}`, s.id)))
	if err == nil && (!strings.Contains(a, fmt.Sprintf(`"id":%d`, s.id)) || !strings.Contains(a, `"result"`) || strings.Contains(a, `"isError":true`)) {
		err = fmt.Errorf("a valid call after %s was answered %.200s", after, a)
	}
	return err
}

func (s *stdioSession) run() error {
	r := s.r
	if a, err := s.send("initialize", strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"load","version":"0"}}}`)); err != nil {
		return err
	} else if !strings.Contains(a, `"result"`) {
		return fmt.Errorf("initialize answered %.200s", a)
	}
	if _, err := io.WriteString(s.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		return err
	}
	if err := s.valid("initialize"); err != nil {
		return err
	}
	var err error
	if r.Idle, err = VmHWM(s.pid); err != nil {
		return err
	}
	// fill is a line of the frame cap's length plus extra: head, filler,
	// tail.
	fill := func(head string, b byte, tail string, extra int64) io.Reader {
		n := r.FrameCap + extra - int64(len(head)+len(tail))
		return io.MultiReader(strings.NewReader(head), io.LimitReader(repeatByte(b), n), strings.NewReader(tail))
	}
	// One frame alone: a ping padded to the cap, which the gate admits and
	// the SDK reads whole.
	a, err := s.send("a ping at the cap", fill(`{"jsonrpc":"2.0","id":"p","method":"ping"`, ' ', `}`, 0))
	if err != nil {
		return err
	}
	if !strings.Contains(a, `"result"`) {
		return fmt.Errorf("a ping at the cap was answered %.200s", a)
	}
	hwm, err := VmHWM(s.pid)
	if err != nil {
		return err
	}
	r.OneFrame = hwm - r.Idle
	for round := 0; round < 2; round++ {
		for _, sh := range stdioShapes(r.FrameCap) {
			a, err := s.send(sh.name, sh.line(fill))
			if err != nil {
				return err
			}
			if !strings.Contains(a, sh.want) {
				return fmt.Errorf("%s: want %q in the answer: %.300s", sh.name, sh.want, a)
			}
			if err := s.valid(sh.name); err != nil {
				return err
			}
			if round == 0 {
				hwm, err := VmHWM(s.pid)
				if err != nil {
					return err
				}
				r.Shapes = append(r.Shapes, StdioShape{Name: sh.name, Answer: cut(strings.TrimSpace(a), 200), HWM: hwm})
			}
		}
	}
	// A client that does not wait: calls at the cap sent back to back, each
	// admitted when the one before it has been answered (or answered busy).
	r.Pipelined = 8
	got, err := s.pipelined(r.Pipelined, func() io.Reader { return stdioShapes(r.FrameCap)[1].line(fill) })
	if err != nil {
		return err
	}
	for _, a := range got {
		switch {
		case strings.Contains(a, `"in-flight-budget"`):
			r.Busy++
		case !strings.Contains(a, "maxLength"):
			return fmt.Errorf("a call at the cap sent without waiting was answered %.300s", a)
		}
	}
	if err := s.valid("calls sent without waiting"); err != nil {
		return err
	}
	if hwm, err := VmHWM(s.pid); err == nil {
		r.Shapes = append(r.Shapes, StdioShape{Name: fmt.Sprintf("%d calls at the cap sent without waiting", r.Pipelined), Answer: cut(strings.TrimSpace(got[len(got)-1]), 200), HWM: hwm})
	}
	r.Peak, err = VmHWM(s.pid)
	return err
}

// pipelined writes n lines back to back, not waiting for answers, while it
// reads their n answers.
func (s *stdioSession) pipelined(n int, line func() io.Reader) ([]string, error) {
	errc := make(chan error, 1)
	go func() {
		for range n {
			if _, err := io.Copy(s.in, io.MultiReader(line(), strings.NewReader("\n"))); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	var got []string
	for len(got) < n {
		select {
		case a, ok := <-s.answers:
			if !ok {
				return nil, s.ended("calls sent without waiting", errors.New("its stdout closed"))
			}
			s.r.Lines++
			got = append(got, a)
		case <-s.ctx.Done():
			return nil, fmt.Errorf("calls sent without waiting: %d of %d answered: %w", len(got), n, s.ctx.Err())
		}
	}
	if err := <-errc; err != nil {
		return nil, s.ended("calls sent without waiting", err)
	}
	return got, nil
}

type stdioLine struct {
	name string
	line func(fill func(head string, b byte, tail string, extra int64) io.Reader) io.Reader
	want string // in the answer
}

// stdioShapes are the hostile lines: at the frame cap, past it, deep and
// malformed.
func stdioShapes(frameCap int64) []stdioLine {
	search := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"knowledge.search","arguments":{"projectId":"demo","query":`
	type F = func(string, byte, string, int64) io.Reader
	return []stdioLine{
		{"a query filling the cap", func(fill F) io.Reader { return fill(search+`"`, 'q', `"}}}`, 0) }, `"id":7`},
		// The gate's charge refuses a query that wide; one of two fifths of
		// the cap, padded with whitespace to it, passes the gate and is
		// decoded by the SDK and the middleware before the schema refuses it.
		{"a query of two fifths of the cap, padded to it", func(fill F) io.Reader {
			return fill(search+`"`+strings.Repeat("q", int(frameCap*2/5))+`"`, ' ', `}}}`, 0)
		}, "maxLength"},
		{"64 MiB", func(fill F) io.Reader { return fill(search+`"`, 'q', `"}}}`, 64<<20-frameCap) }, "body-bytes"},
		{"one byte past the cap", func(fill F) io.Reader { return fill(search+`"`, 'q', `"}}}`, 1) }, "body-bytes"},
		{"nesting filling the cap", func(fill F) io.Reader { return fill(search, '[', `}}}`, 0) }, "nesting"},
		{"invalid UTF-8 filling the cap", func(fill F) io.Reader { return fill(search+`"`, 0xFF, `"}}}`, 0) }, "utf8"},
		{"bytes after a message, filling the cap", func(fill F) io.Reader { return fill(`{"jsonrpc":"2.0","id":7,"method":"ping"}`, 'x', ``, 0) }, "trailing"},
		{"not JSON", func(F) io.Reader { return strings.NewReader(`{"jsonrpc":`) }, "-32700"},
	}
}

type repeatByte byte

func (b repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// VmHWM is process pid's peak resident set in bytes, from /proc/PID/status.
func VmHWM(pid int) (int64, error) { return procStatusBytes(pid, "VmHWM:") }

func procStatusBytes(pid int, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, field); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kib << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// watchStdio kills pid the first time its VmRSS passes guard, and says so
// on killed.
func watchStdio(ctx context.Context, pid int, guard int64, killed chan<- int64) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		rss, err := procStatusBytes(pid, "VmRSS:")
		if err != nil {
			return // exited
		}
		if rss > guard {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
			killed <- rss
			return
		}
	}
}

// StdioAddressGuard and StdioRSSGuard bound the stdio child: its address
// space (ulimit -v; loose, since the Go runtime reserves space it never
// touches) and the resident set past which the watch kills it — far above
// the ceiling under test, so a breach is measured rather than cut short,
// and far below the machine.
const (
	StdioAddressGuard = 4 << 30
	StdioRSSGuard     = 2 << 30
)

// UnderAddressGuard runs bin with args under ulimit -v StdioAddressGuard.
func UnderAddressGuard(ctx context.Context, bin string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "sh", append([]string{"-c", `ulimit -v ` + strconv.Itoa(StdioAddressGuard>>10) + ` && exec "$0" "$@"`, bin}, args...)...)
}

// stdioRecords builds `boundlab serve` from the module in the working
// directory, streams through it over stdio and records the frame cap, the
// ceiling it states, one frame's cost and the peak; it fails when the peak
// passes the ceiling.
func stdioRecords() ([]results.Record, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root, err := labmodule.Root(ctx, "`boundlab serve` is built from its source")
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "boundlab-load-stdio-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	bin, err := Build(ctx, root, work)
	if err != nil {
		return nil, err
	}
	r, err := StdioStream(ctx, UnderAddressGuard(ctx, bin, "serve", "--stdio"), StdioRSSGuard)
	if err != nil {
		return nil, err
	}
	if r.Peak > r.Ceiling {
		return nil, fmt.Errorf("serve --stdio peaked at %d bytes, past the %d it states", r.Peak, r.Ceiling)
	}
	return StdioRecords(r, results.CurrentBuild("github.com/modelcontextprotocol/go-sdk")), nil
}

// StdioRecords are a stdio run's figures as records (load.stdio.*). The
// peaks are held within a quarter of the ceiling (the idle one within 64
// MiB); the frame cap and the ceiling are the child's own announcement,
// exact.
func StdioRecords(r *StdioResult, build results.Build) []results.Record {
	var shapes []string
	for _, s := range r.Shapes {
		shapes = append(shapes, s.Name)
	}
	inst := fmt.Sprintf("`boundlab serve --stdio` (default limits) as a child under ulimit -v: a ping padded to the %d-byte frame cap, then twice over %s, each followed by a valid project.list call, then %d calls at the cap sent without waiting (%d lines answered)",
		r.FrameCap, strings.Join(shapes[:min(len(shapes), len(stdioShapes(0)))], ", "), r.Pipelined, r.Lines)
	src := "load.StdioStream: VmHWM from /proc/PID/status"
	// The tolerances are fixed by what the child announced, not by the
	// value measured, so that a re-run compares against the same reach.
	idle, rss := float64(64<<20), float64(r.Ceiling/4)
	rec := func(id, title string, v int64, tol float64) results.Record {
		return results.Record{ID: "load.stdio." + id, Title: title, Value: float64(v), Unit: "bytes", Instance: inst,
			Method: results.Measured, Source: src, Tolerance: tol, Build: build, DependsOn: []string{results.DepGo}}
	}
	return []results.Record{
		rec("frame-cap", "the frame cap `boundlab serve --stdio` announces (its body cap)", r.FrameCap, 0),
		rec("ceiling", "the memory `boundlab serve --stdio` states: bounds.Stdio at the frame cap (its in-flight budget, the line the gate holds, the SDK's line buffer) plus bounds.Baseline", r.Ceiling, 0),
		rec("idle-rss", "its peak RSS after initialize and one valid call", r.Idle, idle),
		rec("one-frame-rss", "what one ping padded to the frame cap, alone, adds to its peak RSS", r.OneFrame, rss),
		rec("peak-rss", "its peak RSS (VmHWM) after the whole stream of hostile and valid lines", r.Peak, rss),
		{ID: "load.stdio.peak-over-ceiling", Title: "its peak RSS over the ceiling it announced: at most 1 is the target",
			Value: math.Round(1000*float64(r.Peak)/float64(r.Ceiling)) / 1000, Unit: "ratio", Instance: inst,
			Method: results.Measured, Source: src, Tolerance: 0.25, Build: build, DependsOn: []string{results.DepGo}},
	}
}
