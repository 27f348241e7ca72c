package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/charge"
)

// docRequest is one curl of a doc, and the answer the doc shows for it.
type docRequest struct {
	url     string
	headers [][2]string
	body    string
	status  int
	answer  string // the JSON message: the SSE data line, or the whole body
}

// shellWords splits a one-line shell command: words separated by blanks,
// single quotes taken literally (all the doc's curls need).
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, in = true, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unclosed quote")
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// docSection is the text from the heading line to the next heading of its
// level or above.
func docSection(t *testing.T, doc, heading string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("the doc has no %q", heading)
	}
	rest := doc[i+1+len(heading):]
	level := strings.Repeat("#", strings.Index(heading, " "))
	for _, h := range []string{"\n" + level + " ", "\n" + level[:len(level)-1] + " "} {
		if j := strings.Index(rest, h); j >= 0 && len(h) > 2 {
			rest = rest[:j]
		}
	}
	return rest
}

// docRequests reads a section's ```sh curls, each followed by a ```text
// block whose first line is "HTTP <status>" and the rest the answer.
func docRequests(t *testing.T, section string) []docRequest {
	t.Helper()
	var reqs []docRequest
	blocks := strings.Split(section, "```")
	for i := 1; i+1 < len(blocks); i += 2 {
		b := blocks[i]
		switch {
		case strings.HasPrefix(b, "sh\n"):
			line := strings.ReplaceAll(strings.TrimPrefix(b, "sh\n"), "\\\n", " ")
			words, err := shellWords(strings.TrimSpace(line))
			if err != nil || len(words) < 2 || words[0] != "curl" {
				t.Fatalf("block %d is not one curl: %v %q", i, err, line)
			}
			var r docRequest
			for k := 1; k < len(words); k++ {
				switch w := words[k]; {
				case w == "-s":
				case (w == "-H" || w == "-d") && k+1 < len(words):
					k++
					if w == "-d" {
						r.body = words[k]
						continue
					}
					name, value, ok := strings.Cut(words[k], ":")
					if !ok {
						t.Fatalf("header %q", words[k])
					}
					r.headers = append(r.headers, [2]string{name, strings.TrimSpace(value)})
				case strings.HasPrefix(w, "http://"):
					r.url = w
				default:
					t.Fatalf("curl word %q the test does not know", w)
				}
			}
			reqs = append(reqs, r)
		case strings.HasPrefix(b, "text\n"):
			if len(reqs) == 0 || reqs[len(reqs)-1].status != 0 {
				t.Fatalf("block %d: an answer with no request before it", i)
			}
			lines := strings.Split(strings.TrimSpace(strings.TrimPrefix(b, "text\n")), "\n")
			st, err := strconv.Atoi(strings.TrimPrefix(lines[0], "HTTP "))
			if err != nil {
				t.Fatalf("block %d: first line %q is not HTTP <status>", i, lines[0])
			}
			r := &reqs[len(reqs)-1]
			r.status = st
			r.answer = sseData(strings.Join(lines[1:], "\n"))
		}
	}
	return reqs
}

// sseData is the data line of a server-sent event, or the text itself when
// it is no event.
func sseData(s string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			return d
		}
	}
	return strings.TrimSpace(s)
}

func jsonEqual(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// TestStatelessExampleInDocs runs the 2026-07-28 requests of
// docs/mcpvalidate.md, bytes as written, against `serve --stateless` in
// process on 127.0.0.1, and holds each answer to the one the doc shows.
func TestStatelessExampleInDocs(t *testing.T) {
	raw, err := os.ReadFile("../../docs/mcpvalidate.md")
	if err != nil {
		t.Fatal(err)
	}
	reqs := docRequests(t, docSection(t, string(raw), "### Protocol 2026-07-28: `serve --stateless`"))
	if len(reqs) < 3 {
		t.Fatalf("the section has %d requests, want the served call, the refused call and a header error", len(reqs))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stdout, stderr syncBuf
	go func() {
		done <- serveOn(ctx, ln, serveOptions{stateless: true, frontGate: true, limits: charge.DefaultLimits()}, &stdout, &stderr)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	const docAddr = "http://127.0.0.1:8080/mcp" // serve's default address, as the doc writes it
	cl := &http.Client{Timeout: 30 * time.Second}
	for i, r := range reqs {
		// each request by its place in the section, as the doc reads
		t.Run(fmt.Sprintf("request_%d", i+1), func(t *testing.T) {
			if r.url != docAddr || r.status == 0 {
				t.Fatalf("request %d: URL %q, answer status %d", i+1, r.url, r.status)
			}
			req, err := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/mcp", strings.NewReader(r.body))
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range r.headers {
				req.Header.Add(h[0], h[1])
			}
			resp, err := cl.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != r.status || !jsonEqual(sseData(string(got)), r.answer) {
				t.Errorf("request %d: HTTP %d %s\nthe doc shows HTTP %d %s", i+1, resp.StatusCode, bytes.TrimSpace(got), r.status, r.answer)
			}
		})
	}
}
