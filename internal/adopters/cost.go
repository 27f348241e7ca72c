package adopters

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/theurian/boundlab/internal/child"
)

// RSSGuard is the resident set a child (the cost's, the HTTP audit's) may
// reach before it is killed: a language server holding a one-package
// workspace needs a few tens of MiB, a server parsing the audit's 64 MiB
// body a few times that; past 1 GiB it is hurting the machine, not
// answering.
const RSSGuard = 1 << 30

// client speaks newline-delimited JSON-RPC to one server process it
// started, watching its RSS.
type client struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	next   int
	killed atomic.Int64 // the RSS the guard killed it at; 0: not killed
	exited chan struct{}
}

// dial starts bin in ws and opens an MCP session on it. The process ends
// when ctx does.
func (a Adopter) dial(ctx context.Context, bin, ws string) (*client, error) {
	cmd := exec.CommandContext(ctx, bin, a.Args...)
	cmd.Dir, cmd.Env = ws, a.childEnv()
	in, out, err := child.Start(cmd)
	if err != nil {
		return nil, err
	}
	c := &client{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10), exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.exited) }()
	go c.watch()
	if _, err := c.call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"boundlab-adopters","version":"v0"}}`); err != nil {
		c.close()
		return nil, err
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// watch samples the process's RSS every 50 ms and kills it past RSSGuard.
func (c *client) watch() {
	path := fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid)
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		if data, err := os.ReadFile(path); err == nil {
			if rss := vmRSS(data); rss > RSSGuard {
				c.killed.Store(rss)
				_ = c.cmd.Process.Kill()
				return
			}
		}
		select {
		case <-c.exited:
			return
		case <-t.C:
		}
	}
}

func vmRSS(status []byte) int64 {
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return 0
}

// call sends one request and returns its answer, skipping the server's
// notifications and requests on the way.
func (c *client) call(method, params string) ([]byte, error) {
	c.next++
	id := strconv.Itoa(c.next)
	msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + "}\n"
	if _, err := io.WriteString(c.in, msg); err != nil {
		return nil, c.ended(err)
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, c.ended(err)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method == "" && string(m.ID) == id {
			return line, nil
		}
	}
}

// cpu is the CPU time the process's threads have run, in nanoseconds: the
// sum over /proc/PID/task/*/schedstat of its first field, the scheduler's
// own count of each thread's time on a CPU. The clock-tick counts of
// /proc/PID/stat sample the same time in 10 ms steps, too coarse for a
// round of a few hundred milliseconds. A Go process keeps its threads, so a
// thread's count does not vanish between two readings.
func (c *client) cpu() (int64, error) {
	dir := fmt.Sprintf("/proc/%d/task", c.cmd.Process.Pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, t := range tasks {
		data, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			continue // the thread ended between the listing and the read
		}
		f := strings.Fields(string(data))
		if len(f) < 1 {
			return 0, errors.New("unreadable /proc schedstat line")
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, errors.New("unreadable /proc schedstat time")
		}
		sum += ns
	}
	if sum == 0 {
		return 0, errors.New("no thread's schedstat could be read")
	}
	return sum, nil
}

func (c *client) ended(err error) error {
	if rss := c.killed.Load(); rss > 0 {
		return fmt.Errorf("killed by the RSS guard at %d bytes (guard %d)", rss, int64(RSSGuard))
	}
	return fmt.Errorf("the server's process ended: %w", err)
}

func (c *client) close() {
	_ = c.in.Close()
	select {
	case <-c.exited:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// Cost is the throughput of one real tool call, unpatched and patched,
// side by side in one run.
type Cost struct {
	Tool      string
	Arguments string
	// Calls is how many calls each variant answered in each round.
	Calls, Rounds int
	// Before and After are calls per second of wall time over all rounds.
	Before, After float64
	// Ratio is the throughput the server's own CPU allows, patched over
	// unpatched: the unpatched server's CPU time for all the timed calls
	// over the patched one's (the threads' time on a CPU, from /proc;
	// BeforeCPU and AfterCPU, in nanoseconds). It is the figure, since the
	// wall time of a round moves with whatever else the machine runs. The
	// whole run's time, not a median of the rounds': one round's ratio
	// moves by several hundredths. CPURatios are the rounds' ratios, in
	// round order.
	Ratio               float64
	CPURatios           []float64
	BeforeCPU, AfterCPU int64
	// WallRatios are the rounds' after/before wall-time throughput ratios,
	// in round order, and WallRatio their median.
	WallRatio  float64
	WallRatios []float64
	// Answer is the answer's length in bytes, the same for both.
	Answer int
}

// MeasureCost starts both binaries over stdio in ws and, in each of
// a.Cost.Rounds rounds, times a.Cost.Calls calls of a.Cost.Tool on each (the
// order alternating round to round, so the machine's drift falls on both),
// after a warm-up that lets the server load what it serves from. The rounds
// run in two halves, each on a fresh pair of processes started in the other
// order: of two processes of one binary side by side, the one started first
// read dearer in each of four runs of the unpatched server against itself,
// and the halves cancel that. Both variants must
// answer the call with the same bytes, and not as a tool error.
func (a Adopter) MeasureCost(ctx context.Context, before, after, ws string) (Cost, error) {
	cost := Cost{Tool: a.Cost.Tool, Arguments: a.Cost.Arguments, Calls: a.Cost.Calls, Rounds: a.Cost.Rounds}
	var t tally
	for half, n := range []int{a.Cost.Rounds / 2, a.Cost.Rounds - a.Cost.Rounds/2} {
		if n == 0 {
			continue
		}
		if err := a.measureHalf(ctx, before, after, ws, n, half == 1, &t); err != nil {
			return cost, err
		}
	}
	if len(t.cpuRatios) < cost.Rounds/2+1 {
		return cost, fmt.Errorf("CPU time counted in only %d of %d rounds: too few calls a round", len(t.cpuRatios), cost.Rounds)
	}
	cost.Answer = t.answer
	cost.BeforeCPU, cost.AfterCPU = t.cpu[0], t.cpu[1]
	cost.Ratio = float64(t.cpu[0]) / float64(t.cpu[1])
	cost.CPURatios = t.cpuRatios
	cost.WallRatios = slices.Clone(t.wallRatios)
	slices.Sort(t.wallRatios)
	cost.WallRatio = t.wallRatios[len(t.wallRatios)/2]
	n := float64(cost.Rounds * cost.Calls)
	cost.Before, cost.After = n/t.took[0].Seconds(), n/t.took[1].Seconds()
	return cost, nil
}

// tally is what the rounds of both halves add up, unpatched first: wall and
// CPU time, the rounds' ratios in round order, the answer's length.
type tally struct {
	took                  [2]time.Duration
	cpu                   [2]int64
	wallRatios, cpuRatios []float64
	answer                int
}

// measureHalf runs rounds rounds on a fresh pair of processes, the patched
// one started first when afterFirst, adding them to t.
func (a Adopter) measureHalf(ctx context.Context, before, after, ws string, rounds int, afterFirst bool, t *tally) error {
	params := `{"name":"` + a.Cost.Tool + `","arguments":` + a.Cost.Arguments + `}`
	var cs [2]*client
	var answers [2][]byte
	bins := []string{before, after}
	order := []int{0, 1}
	if afterFirst {
		order = []int{1, 0}
	}
	for _, i := range order {
		c, err := a.dial(ctx, bins[i], ws)
		if err != nil {
			return fmt.Errorf("%s: %w", bins[i], err)
		}
		defer c.close()
		cs[i] = c
		for range 20 { // the first calls load the workspace
			if answers[i], err = c.call("tools/call", params); err != nil {
				return err
			}
		}
	}
	for i, ans := range answers {
		var r struct {
			Result *struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(ans, &r); err != nil || r.Result == nil || r.Result.IsError {
			return fmt.Errorf("variant %d did not answer %s with a result: %s", i, a.Cost.Tool, child.FirstLine(string(ans)))
		}
	}
	if !bytes.Equal(answers[0], answers[1]) {
		return errors.New("the patched server answered the call differently: " + child.FirstLine(string(answers[1])))
	}
	t.answer = len(answers[0])
	for r := range rounds {
		var took [2]time.Duration
		var spent [2]int64
		for k := range 2 {
			i := (k + r) % 2
			c0, err := cs[i].cpu()
			if err != nil {
				return err
			}
			start := time.Now()
			for range a.Cost.Calls {
				if _, err := cs[i].call("tools/call", params); err != nil {
					return err
				}
			}
			took[i] = time.Since(start)
			c1, err := cs[i].cpu()
			if err != nil {
				return err
			}
			spent[i] = c1 - c0
			t.took[i] += took[i]
			t.cpu[i] += spent[i]
		}
		t.wallRatios = append(t.wallRatios, took[0].Seconds()/took[1].Seconds())
		if spent[0] > 0 && spent[1] > 0 {
			t.cpuRatios = append(t.cpuRatios, float64(spent[0])/float64(spent[1]))
		}
	}
	return nil
}
