package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// Memory is what the server's process held for the largest message it
// answers: over stdio the auditor owns the process, so it reads the
// kernel's high-water mark of its resident set (VmHWM) before and after
// one body of the cap's size on a fresh process. Only the growth counts:
// what the runtime held at start is the process's, not the message's.
type Memory struct {
	// RequestBytes is the body sent: the body cap, or the ceiling when
	// the ceiling was answered.
	RequestBytes int64 `json:"request_bytes"`
	// PeakBefore is VmHWM once the process answered a small ping; PeakAfter
	// once it answered the large body. Bytes.
	PeakBefore int64 `json:"peak_before"`
	PeakAfter  int64 `json:"peak_after"`
	// PerByte is (PeakAfter - PeakBefore) / RequestBytes: resident bytes
	// the server's high-water mark rose per request byte.
	PerByte float64 `json:"per_byte"`
	// Answer is the large body's answer.
	Answer Shape `json:"answer"`
}

// MemoryHurtRatio is the resident growth per request byte at which a
// server's memory is a finding (BLA022): a transport that reads a line
// into one buffer and parses it holds about twice the line (the bytes,
// and the parser's view or a decoded copy); one that holds sixteen times
// it turns each message at the cap into sixteen times its size of memory,
// and a few clients at once into the machine's memory.
const MemoryHurtRatio = 16

// MinMemoryBytes is the smallest body the memory probe measures with:
// below a mebibyte the rise is within what a runtime allocates anyway
// (pages, arenas, a collector's slack), and the figure is noise.
const MinMemoryBytes = 1 << 20

// memory measures Memory over stdio (Config.Memory) once the body cap is
// known: a fresh process answers a small ping, then one body of the cap's
// size (the same whitespace-padded ping), and its VmHWM is read after each.
func (a *auditor) memory(ctx context.Context, b *Boundary) error {
	if !a.cfg.Memory {
		return nil
	}
	if _, stdio := a.target.(*Stdio); !stdio {
		return nil // an HTTP server's process is not the auditor's to read
	}
	a.progress(PhaseMemory, "peak memory at the cap")
	n := b.BodyCeiling
	if b.BodyCap != nil {
		n = *b.BodyCap
	} else if b.AtCap == nil {
		a.notMeasured("memory", "", "the body cap was not measured")
		return nil
	}
	if n < MinMemoryBytes {
		a.notMeasured("memory", "", fmt.Sprintf("the body cap, %d bytes, is under the %d bytes the memory probe measures with", n, MinMemoryBytes))
		return nil
	}
	a.capProbe = true // a transport that ends is this probe's failure, not a session ended
	defer func() { a.capProbe = false }()
	s, err := a.open(ctx, true)
	if err != nil {
		return fmt.Errorf("a new process for the memory probe: %w", err)
	}
	defer s.conn.Close()
	conn := s.conn.(*stdioConn)
	id := a.nextID()
	if _, sh, err := s.call(ctx, pingBody(64, id), id); err != nil || sh.Refused() {
		a.notMeasured("memory", "", fmt.Sprintf("a small ping on a fresh process was not answered (%s)", sh))
		return nil
	}
	before, err := conn.peakRSS()
	if err != nil {
		a.notMeasured("memory", "", "the process's peak resident set is not readable: "+err.Error())
		return nil
	}
	id = a.nextID()
	rid := json.RawMessage(strconv.Itoa(id))
	ans, err := s.sendWithin(ctx, pingBody(n, id), rid, a.bodyWait(n))
	sh := ShapeOf(ans, rid)
	if killed := (*rssKilled)(nil); errors.As(err, &killed) {
		return err
	}
	if err != nil || sh.Refused() {
		a.notMeasured("memory", "", fmt.Sprintf("the %d-byte ping answered at the cap was not answered on a fresh process (%s)", n, sh))
		return nil
	}
	after, err := conn.peakRSS()
	if err != nil {
		a.notMeasured("memory", "", "the process's peak resident set is not readable: "+err.Error())
		return nil
	}
	b.Memory = &Memory{RequestBytes: n, PeakBefore: before, PeakAfter: after, Answer: sh,
		PerByte: round3(float64(max(after-before, 0)) / float64(n))}
	return nil
}

// peakRSS is the process's VmHWM (Linux's /proc/PID/status), in bytes.
func (c *stdioConn) peakRSS() (int64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0, errors.New("no /proc status for the process (Linux only)")
	}
	return vmField(data, "VmHWM:")
}

// vmField reads a "Name:   N kB" line of /proc/PID/status, in bytes.
func vmField(status []byte, name string) (int64, error) {
	for _, l := range bytes.Split(status, []byte("\n")) {
		rest, ok := bytes.CutPrefix(l, []byte(name))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			break
		}
		kib, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil || kib < 0 || kib > 1<<40 {
			break
		}
		return kib << 10, nil
	}
	return 0, fmt.Errorf("no %s line in kB in the process's status", name)
}

func (b *Boundary) memoryFindings() []Finding {
	m := b.Memory
	if m == nil || m.PerByte < MemoryHurtRatio {
		return nil
	}
	return []Finding{finding(RuleMemory, "", fmt.Sprintf("one %d-byte message raised the process's peak resident set from %d to %d bytes: %.3g bytes per request byte (at least %d is a finding)",
		m.RequestBytes, m.PeakBefore, m.PeakAfter, m.PerByte, MemoryHurtRatio), m.PerByte, "resident bytes / request byte")}
}
