package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"sort"
	"syscall"
	"time"

	"github.com/theurian/boundlab/internal/residuals"
)

// Outcome kinds: how one request ended, seen from the client.
const (
	Served    = "served"      // a result that is not a tool error
	Refused   = "refused"     // a JSON-RPC error, or a tool result flagged isError
	Oversized = "oversized"   // an answer past headMax: read to the end, counted, not parsed
	NonRPC    = "non-jsonrpc" // an answer that is no JSON-RPC message
	Reset     = "reset"       // the connection ended before a whole answer
	Timeout   = "timeout"     // the lab's deadline passed first
	Held      = "held"        // a trickle the server still held when the client gave up
	ClientErr = "client-error"
)

// headMax is how much of an answer is kept to classify it; the rest is only
// counted and searched for the canary, so a 131 MB echo costs the lab no
// memory.
const headMax = 64 << 10

// answerMax bounds how much of one answer the lab reads.
const answerMax = 4 << 30

// result is one request's end.
type result struct {
	kind    string
	status  int // 0: no HTTP answer
	bytes   int64
	echoed  bool
	latency time.Duration
}

// newClient is an HTTP client for loopback: no proxy, no compression, enough
// idle connections for every worker.
func newClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: conns,
		DisableCompression:  true,
	}}
}

// send posts body and reads the whole answer, counting its bytes and
// searching it for the canary. every > 0 trickles the body one byte per
// every; the client then gives up after giveUp.
func send(ctx context.Context, cl *http.Client, url string, sh Shape, body []byte, protocol string, every, giveUp time.Duration) result {
	var r io.Reader = bytes.NewReader(body)
	if every > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, giveUp)
		defer cancel()
		r = &trickle{ctx: ctx, b: body, every: every}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, r)
	if err != nil {
		return result{kind: ClientErr}
	}
	req.ContentLength = int64(len(body))
	sh.SetHeaders(req.Header, protocol)
	start := time.Now()
	resp, err := cl.Do(req)
	if err != nil {
		return result{kind: transportKind(ctx, err, every > 0), latency: time.Since(start)}
	}
	defer resp.Body.Close()
	sc := &scan{}
	_, err = io.Copy(sc, io.LimitReader(resp.Body, answerMax))
	out := result{status: resp.StatusCode, bytes: sc.n, echoed: sc.found, latency: time.Since(start)}
	switch {
	case err != nil:
		out.kind = transportKind(ctx, err, every > 0)
	case sc.n > headMax:
		out.kind = Oversized
	default:
		out.kind = classify(sc.head)
	}
	return out
}

func transportKind(ctx context.Context, err error, trickling bool) string {
	switch {
	case ctx.Err() != nil && trickling:
		return Held
	case ctx.Err() != nil:
		return Timeout
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNREFUSED):
		return Reset
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return Reset
	}
	return ClientErr
}

// classify reads a whole answer (JSON or SSE) as a JSON-RPC message.
func classify(answer []byte) string {
	m, err := residuals.Message(answer)
	if err != nil {
		return NonRPC
	}
	if m["error"] != nil {
		return Refused
	}
	var res struct {
		IsError bool `json:"isError"`
	}
	if m["result"] == nil || json.Unmarshal(m["result"], &res) != nil {
		return NonRPC
	}
	if res.IsError {
		return Refused
	}
	return Served
}

// scan counts an answer, keeps its first headMax bytes and looks for Canary
// across write boundaries.
type scan struct {
	n     int64
	head  []byte
	carry []byte // the last len(Canary)-1 bytes seen
	found bool
}

func (s *scan) Write(p []byte) (int, error) {
	s.n += int64(len(p))
	if room := headMax + 1 - len(s.head); room > 0 {
		s.head = append(s.head, p[:min(room, len(p))]...)
	}
	if !s.found {
		edge := append(s.carry, p[:min(len(p), len(Canary)-1)]...)
		s.found = bytes.Contains(edge, []byte(Canary)) || bytes.Contains(p, []byte(Canary))
		if len(p) >= len(Canary)-1 {
			s.carry = append(s.carry[:0], p[len(p)-(len(Canary)-1):]...)
		} else {
			s.carry = append([]byte(nil), edge[max(0, len(edge)-(len(Canary)-1)):]...)
		}
	}
	return len(p), nil
}

// trickle yields its body one byte per every, until ctx ends.
type trickle struct {
	ctx   context.Context
	b     []byte
	every time.Duration
	sent  int
}

func (t *trickle) Read(p []byte) (int, error) {
	if t.sent == len(t.b) {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if t.sent > 0 {
		select {
		case <-t.ctx.Done():
			return 0, t.ctx.Err()
		case <-time.After(t.every):
		}
	}
	p[0] = t.b[t.sent]
	t.sent++
	return 1, nil
}

// percentile is the nearest-rank q-quantile of sorted durations, in ms.
func percentile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	i = max(0, min(i, len(sorted)-1))
	return float64(sorted[i].Microseconds()) / 1000
}

func sortDurations(d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
}
