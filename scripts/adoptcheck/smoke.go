package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Bounds of the smoke run: it is a handful of small requests, so each is
// generous and the whole is short.
const (
	startWithin   = 30 * time.Second // the server's "serving MCP at" line
	requestWithin = 10 * time.Second
	maxAnswer     = 1 << 20  // bytes of one answer read
	maxChildRSS   = 1 << 30  // the child is killed past this resident size
	rssWhere      = "VmRSS:" // the line of /proc/PID/status read
)

// servingAt is the line each program logs once it listens.
var servingAt = regexp.MustCompile(`serving MCP at (http://127\.0\.0\.1:[0-9]+/mcp)`)

// smoke runs bin on 127.0.0.1 and speaks MCP to it over streamable HTTP:
// initialize, tools/list, a call with arguments its first tool's schema
// admits (served), and a call whose arguments repeat a member name, with a
// canary value (refused, the canary not echoed: the go-sdk alone would take
// the last member). The child is killed when done, or when its RSS passes
// maxChildRSS.
func smoke(ctx context.Context, bin string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, startWithin+6*requestWithin)
	defer cancel()
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, "-addr", addr)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	logged := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if m := servingAt.FindStringSubmatch(sc.Text()); m != nil && !sent {
				logged <- m[1]
				sent = true
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	var endpoint string
	select {
	case endpoint = <-logged:
	case <-time.After(startWithin):
		return nil, fmt.Errorf("no %q line on stderr within %v", "serving MCP at http://"+addr+"/mcp", startWithin)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if endpoint != "http://"+addr+"/mcp" {
		return nil, fmt.Errorf("the server says it serves at %s, not at the -addr it was given (%s)", endpoint, addr)
	}
	if err := awaitListening(ctx, addr); err != nil {
		return nil, err
	}
	c := &mcpClient{url: endpoint, http: &http.Client{Timeout: requestWithin}, pid: cmd.Process.Pid, rssGuard: maxChildRSS}
	init, err := c.call(ctx, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"adoptcheck","version":"v0"}}`)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(init, &ir); err != nil || ir.ProtocolVersion == "" {
		return nil, errors.New("initialize: the result names no protocolVersion")
	}
	c.protocol = ir.ProtocolVersion
	if err := c.notify(ctx, "notifications/initialized"); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	list, err := c.call(ctx, "tools/list", `{}`)
	if err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	var tl struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(list, &tl); err != nil || len(tl.Tools) == 0 {
		return nil, errors.New("tools/list: no tool")
	}
	tool := tl.Tools[0]
	name, _ := json.Marshal(tool.Name)
	notes := []string{fmt.Sprintf("serve: initialize (protocol %s); tools/list: %d tool(s)", c.protocol, len(tl.Tools))}

	if args, ok := admitted(tool.InputSchema); ok {
		res, err := c.call(ctx, "tools/call", `{"name":`+string(name)+`,"arguments":`+args+`}`)
		if err != nil {
			return notes, fmt.Errorf("tools/call %s %s: %w", tool.Name, args, err)
		}
		if isError(res) {
			return notes, fmt.Errorf("tools/call %s %s: answered isError, want served: %.300s", tool.Name, args, res)
		}
		notes = append(notes, fmt.Sprintf("serve: tools/call %s %s served", tool.Name, args))
	} else {
		notes = append(notes, "serve: no flat required members in the schema to build admitted arguments from; no served call")
	}

	canary, err := newCanary()
	if err != nil {
		return notes, err
	}
	args := `{"adoptcheck":"` + canary + `","adoptcheck":"` + canary + `"}`
	raw, res, rpcErr, err := c.post(ctx, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":`+string(name)+`,"arguments":`+args+`}}`)
	if err != nil {
		return notes, fmt.Errorf("tools/call with a repeated member: %w", err)
	}
	if bytes.Contains(raw, []byte(canary)) {
		return notes, errors.New("tools/call with a repeated member: the answer echoes the caller's value")
	}
	if rpcErr == nil && !isError(res) {
		return notes, fmt.Errorf("tools/call with a repeated member: served, want refused: %.300s", res)
	}
	notes = append(notes, "serve: tools/call with a member repeated refused, the value not echoed")
	return notes, nil
}

// mcpClient is the least of a streamable HTTP client: one session, one
// request at a time, answers as JSON or one server-sent event.
type mcpClient struct {
	url, session, protocol string
	http                   *http.Client
	pid                    int
	rssGuard               int64 // bytes of the child's RSS past which post fails
	id                     int
}

func (c *mcpClient) call(ctx context.Context, method, params string) (json.RawMessage, error) {
	c.id++
	_, res, rpcErr, err := c.post(ctx, `{"jsonrpc":"2.0","id":`+strconv.Itoa(c.id)+`,"method":"`+method+`","params":`+params+`}`)
	if err != nil {
		return nil, err
	}
	if rpcErr != nil {
		return nil, fmt.Errorf("JSON-RPC error %d: %.200s", rpcErr.Code, rpcErr.Message)
	}
	return res, nil
}

func (c *mcpClient) notify(ctx context.Context, method string) error {
	_, _, _, err := c.post(ctx, `{"jsonrpc":"2.0","method":"`+method+`"}`)
	return err
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// post sends one message and returns the answer's bytes and, for a request,
// its result or error.
func (c *mcpClient) post(ctx context.Context, body string) (raw []byte, result json.RawMessage, rpcErr *rpcError, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		return nil, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.protocol != "" {
		req.Header.Set("Mcp-Protocol-Version", c.protocol)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, nil, err
	}
	defer resp.Body.Close()
	raw, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return raw, nil, nil, err
	}
	if len(raw) > maxAnswer {
		return raw[:maxAnswer], nil, nil, fmt.Errorf("HTTP %d, an answer of more than %d bytes", resp.StatusCode, maxAnswer)
	}
	if err := c.checkRSS(); err != nil {
		return raw, nil, nil, err
	}
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		c.session = s
	}
	if !strings.Contains(body, `"id":`) { // a notification
		if resp.StatusCode/100 != 2 {
			return raw, nil, nil, fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		return raw, nil, nil, nil
	}
	msg := raw
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msg = nil
		for _, l := range strings.Split(string(raw), "\n") {
			if d, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), "data:"); ok {
				msg = []byte(strings.TrimSpace(d))
				break
			}
		}
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil || (m.Result == nil && m.Error == nil) {
		return raw, nil, nil, fmt.Errorf("HTTP %d, no JSON-RPC answer: %.200q", resp.StatusCode, raw)
	}
	return raw, m.Result, m.Error, nil
}

// checkRSS fails (and the caller kills the child) when the child's resident
// size passes rssGuard; where /proc is missing it checks nothing.
func (c *mcpClient) checkRSS() error {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(c.pid) + "/status")
	if err != nil {
		return nil
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, rssWhere); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				if kb<<10 > c.rssGuard {
					return fmt.Errorf("the server's RSS is %d bytes, past the %d-byte guard", kb<<10, c.rssGuard)
				}
			}
		}
	}
	return nil
}

// isError says whether a tools/call result is an error result.
func isError(result json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(result, &r) == nil && r.IsError
}

// admitted builds arguments a flat schema admits: each required member a
// small value of its type. ok is false when a required member has no type
// it can build (nested objects are built empty: an object's own required
// members are not looked into).
func admitted(schema json.RawMessage) (string, bool) {
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Required) == 0 {
		return "", false
	}
	values := map[string]string{"string": `"x"`, "integer": `1`, "number": `1`, "boolean": `false`, "array": `[]`, "object": `{}`}
	var b strings.Builder
	b.WriteString("{")
	for i, name := range s.Required {
		p, ok := s.Properties[name]
		if !ok {
			return "", false
		}
		t, _ := p.Type.(string)
		v, ok := values[t]
		if !ok {
			return "", false
		}
		n, _ := json.Marshal(name)
		if i > 0 {
			b.WriteString(",")
		}
		b.Write(n)
		b.WriteString(":" + v)
	}
	b.WriteString("}")
	return b.String(), true
}

// freePort is a loopback address no listener holds now (the server is
// given it: a program's -addr is all it takes).
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// awaitListening waits until addr accepts a connection: a program logs its
// address just before it listens.
func awaitListening(ctx context.Context, addr string) error {
	deadline := time.Now().Add(startWithin)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			return conn.Close()
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("nothing listens at %s within %v: %w", addr, startWithin, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func newCanary() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "canary-" + hex.EncodeToString(b[:]), nil
}
