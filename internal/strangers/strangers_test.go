package strangers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	m3 "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/audit"
	"github.com/theurian/boundlab/load"
	"github.com/theurian/boundlab/results"
)

// TestMain doubles as a child for the Child tests: with
// BOUNDLAB_STRANGERS_CHILD set the test binary is a tiny server instead.
func TestMain(m *testing.M) {
	switch os.Getenv("BOUNDLAB_STRANGERS_CHILD") {
	case "":
		os.Exit(m.Run())
	case "hog", "fat":
		// listens on loopback, prints the banner, then holds 256 MiB; fat
		// holds it before the banner, so its RSS is there when the child
		// is started, however loaded the machine
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			os.Exit(1)
		}
		touch := func() []byte {
			hold := make([]byte, 256<<20)
			for i := range hold {
				hold[i] = byte(i)
			}
			return hold
		}
		var hold []byte
		if os.Getenv("BOUNDLAB_STRANGERS_CHILD") == "fat" {
			hold = touch()
		}
		fmt.Printf("%shttp://%s/mcp\n", bannerPrefix, ln.Addr())
		if hold == nil {
			hold = touch()
		}
		time.Sleep(30 * time.Second)
		ln.Close() // the listener stays open (and out of the collector's reach) until here
		os.Exit(int(hold[len(hold)-1] & 0))
	case "elsewhere":
		fmt.Printf("%shttp://10.0.0.1:80/mcp\n", bannerPrefix)
		time.Sleep(30 * time.Second)
	case "dies":
		fmt.Fprintln(os.Stderr, "cannot start: no such thing")
		os.Exit(3)
	case "fakepy-stdio":
		// a stand-in for server.py over stdio (TestPythonPlumbing): mcp-go,
		// which answers a line it cannot parse and reads on (the go-sdk's
		// stdio transport ends the session at one of the audit's envelope
		// probes; the audit reports each as BLA019 and goes on in a new
		// session)
		s := m3server.NewMCPServer("fakepy", "v0", m3server.WithToolCapabilities(true))
		for _, name := range []string{"lookup", "count"} {
			s.AddTool(m3.NewTool(name, m3.WithString("key", m3.Required()), m3.WithReadOnlyHintAnnotation(true)),
				func(context.Context, m3.CallToolRequest) (*m3.CallToolResult, error) {
					return m3.NewToolResultText("ok"), nil
				})
		}
		if err := m3server.NewStdioServer(s).Listen(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
	case "fakepy-http":
		// a stand-in for server.py over HTTP: like the SDK's, it prints its
		// URL before it listens, on the port it was given
		port := os.Args[len(os.Args)-1]
		fmt.Printf("%shttp://127.0.0.1:%s/mcp\n", bannerPrefix, port)
		time.Sleep(300 * time.Millisecond)
		srv := fakeServer()
		mux := http.NewServeMux()
		mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		if err := http.ListenAndServe("127.0.0.1:"+port, mux); err != nil {
			os.Exit(1)
		}
	}
}

// fakeServer is the stand-in for the Python stranger: two read-only tools.
func fakeServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "fakepy", Version: "v0"}, nil)
	type in struct {
		Key string `json:"key"`
	}
	for _, name := range []string{"lookup", "count"} {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
			})
	}
	return srv
}

// TestPythonPlumbing runs the Python strangers' plumbing (the interpreter
// check, the version probe, server.py written out and run over HTTP and
// under ulimit -v over stdio) with a stand-in interpreter: a shell script
// that answers the checks and runs this test binary as a go-sdk server. It
// says nothing of the Python SDK (TestStrangers does, where one is named);
// it holds that the harness would audit one, at the default limits (the
// stdio stand-in under the address-space guard too).
func TestPythonPlumbing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child servers")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	py := filepath.Join(t.TempDir(), "python")
	script := `#!/bin/sh
if [ "$1" = -c ]; then
	[ "$2" = "import mcp" ] && exit 0
	echo "9.9.9 3.99.0"; exit 0
fi
[ -f "$1" ] || { echo "no script $1" >&2; exit 2; }
BOUNDLAB_STRANGERS_CHILD=fakepy-$2 exec "` + exe + `" "$@"
`
	if err := os.WriteFile(py, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(PythonEnv, py)
	for _, s := range Strangers() {
		if s.Runtime != RuntimePython {
			continue
		}
		t.Run(s.Key, func(t *testing.T) {
			target, stop, err := s.start(context.Background(), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			rep, err := audit.Run(context.Background(), audit.Config{Target: target, Seed: Seed})
			if serr := stop(); serr != nil {
				t.Error(serr)
			}
			if err != nil {
				t.Fatal(err)
			}
			called := 0
			for _, tr := range rep.Tools {
				if tr.Probed {
					called++
				}
			}
			if called != 2 || rep.Boundary == nil {
				t.Fatalf("%d tools called over the stand-in: %s", called, headline(rep))
			}
			b, err := buildOf(context.Background(), s)
			if err != nil || b.Modules["pypi:mcp"] != "9.9.9" || b.Modules["python"] != "3.99.0" {
				t.Errorf("the build named %v (%v), want the stand-in's mcp 9.9.9 on Python 3.99.0", b.Modules, err)
			}
		})
	}
}

func self(t *testing.T, role string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "BOUNDLAB_STRANGERS_CHILD="+role)
	return cmd
}

// TestChild: load.StartChild as the strangers use it — the guard kills a
// child past it and spares one under it; a child that prints a URL off
// loopback, or dies before its banner, is refused with why.
func TestChild(t *testing.T) {
	t.Run("rss_guard_kills", func(t *testing.T) {
		c, err := load.StartChild(self(t, "hog"), bannerPrefix, 64<<20)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second) // the hog touches 256 MiB in well under a second
		if rss, killed := c.Stop(); !killed || rss <= 64<<20 {
			t.Fatalf("a child holding 256 MiB under a 64 MiB guard: killed %v, largest RSS %d", killed, rss)
		}
	})
	t.Run("rss_guard_spares", func(t *testing.T) {
		c, err := load.StartChild(self(t, "fat"), bannerPrefix, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		if rss, killed := c.Stop(); killed || rss < 200<<20 {
			t.Fatalf("a child holding 256 MiB under a 1 GiB guard: killed %v, largest RSS %d", killed, rss)
		}
	})
	t.Run("loopback_only", func(t *testing.T) {
		if _, err := load.StartChild(self(t, "elsewhere"), bannerPrefix, RSSGuard); err == nil || !strings.Contains(err.Error(), "loopback only") {
			t.Fatalf("a child on 10.0.0.1 was started: %v", err)
		}
	})
	t.Run("early_exit_says_why", func(t *testing.T) {
		if _, err := load.StartChild(self(t, "dies"), bannerPrefix, RSSGuard); err == nil || !strings.Contains(err.Error(), "no such thing") {
			t.Fatalf("a child that died: %v", err)
		}
	})
}

// TestPythonUnavailable: with no interpreter named, or one without mcp, the
// Python producer is Unavailable (verify skips it), never a failure.
func TestPythonUnavailable(t *testing.T) {
	for _, c := range []struct{ name, env, want string }{
		{"unset", "", PythonEnv + " is not set"},
		{"no_interpreter", "/nonexistent/python3", "cannot import mcp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(PythonEnv, c.env)
			_, err := Records(RuntimePython)
			why, ok := results.IsUnavailable(err)
			if !ok || !strings.Contains(why, c.want) {
				t.Fatalf("Records(python) = %v; want Unavailable saying %q", err, c.want)
			}
		})
	}
}

// everyRun are the strangers the suite audits on every run, one per
// transport the product protects: the bare go-sdk over HTTP (held to raw
// measurements) and the guarded one over stdio. BOUNDLAB_FULL=1 audits all.
var everyRun = map[string]bool{"go-sdk": true, "go-sdk-stdio-guarded": true}

// TestStrangers audits each stranger whose runtime is present (skipping the
// others, saying why) and holds the report to direct measurements over
// independent raw HTTP: the body cap (the cap answered with a result, one
// byte past not; or the ceiling answered), and the params echo ratio. It
// also measures the answer to a 64 KiB unknown tool name, per filler, and
// logs it beside the report's echo ratio. -short skips it (it builds and
// runs child servers).
func TestStrangers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the strangers' servers as children")
	}
	full := os.Getenv("BOUNDLAB_FULL") != ""
	for _, s := range Strangers() {
		t.Run(s.Key, func(t *testing.T) {
			if !full && !everyRun[s.Key] {
				t.Skip("SKIP: set BOUNDLAB_FULL=1 to audit every stranger here; `verify --all` re-measures each (producers audit-strangers-*)")
			}
			ctx := context.Background()
			work := t.TempDir()
			target, stop, err := s.start(ctx, work)
			if why, ok := results.IsUnavailable(err); ok {
				t.Skipf("SKIP: %s", why)
			}
			if err != nil {
				t.Fatal(err)
			}
			rep, err := audit.Run(ctx, audit.Config{Target: target, Seed: Seed, Call: s.Call})
			if err != nil {
				stop()
				t.Fatal(err)
			}
			if h, ok := target.(*audit.HTTP); ok {
				checkDirect(t, h.URL, rep)
			}
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			called := 0
			for _, tr := range rep.Tools {
				if tr.Probed {
					called++
				}
			}
			if want := max(2, len(s.Call)); called != want {
				t.Errorf("%d tools called, want %d", called, want)
			}
			checkStdioGuard(t, s.Key, rep)
			// a protected server passes its default run (exit 0): notes only
			if s.Key == "boundlab-serve" && audit.Fails(rep.Findings, audit.DefaultFailOn) {
				t.Errorf("boundlab serve fails the default --fail-on %s: %s", audit.DefaultFailOn, headline(rep))
			}
			t.Logf("%s", headline(rep))
		})
	}
}

// stdioGuarded and stdioBare are the stdio strangers served with the gate
// in front and the same servers without it.
var (
	stdioGuarded = []string{"go-sdk-stdio-guarded", "boundlab-serve-stdio", "mcp-go-stdio-guarded"}
	stdioBare    = map[string][]string{"go-sdk-stdio": {"BLA019"}, "boundlab-serve-stdio-bare": {"BLA019"}}
)

// checkStdioGuard: a stdio server with the gate in front answers every
// probe and keeps its session (no BLA019, nothing in session_ended), bounds
// its frames (no BLA014, BLA016) and echoes no member name (no BLA001); the
// same go-sdk servers bare end their sessions, which is what the gate is
// for.
func checkStdioGuard(t *testing.T, key string, rep *audit.Report) {
	t.Helper()
	counts := map[string]int{}
	for _, f := range rep.Findings {
		counts[f.Rule]++
	}
	if slices.Contains(stdioGuarded, key) {
		for _, rule := range []string{"BLA001", "BLA014", "BLA016", "BLA019"} {
			if counts[rule] > 0 {
				t.Errorf("guarded over stdio, %d findings of %s: %s", counts[rule], rule, headline(rep))
			}
		}
		if len(rep.SessionEnds) > 0 {
			t.Errorf("guarded over stdio, the session ended on %d probes: %+v", len(rep.SessionEnds), rep.SessionEnds)
		}
	}
	for _, rule := range stdioBare[key] {
		if counts[rule] == 0 {
			t.Errorf("bare over stdio, no %s (the control: the gate's absence must show): %s", rule, headline(rep))
		}
	}
}

// isResult reports whether raw (JSON or one SSE event) is a JSON-RPC result.
func isResult(raw []byte) bool {
	msg := raw
	if i := bytes.Index(raw, []byte("data:")); i >= 0 {
		msg = bytes.TrimSpace(bytes.SplitN(raw[i+5:], []byte("\n"), 2)[0])
	}
	var m struct {
		Result json.RawMessage `json:"result"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Result != nil
}

func ping(n int64) []byte {
	head, tail := `{"jsonrpc":"2.0","id":5,"method":"ping"`, `}`
	return []byte(head + strings.Repeat(" ", int(n)-len(head)-len(tail)) + tail)
}

func checkDirect(t *testing.T, url string, rep *audit.Report) {
	t.Helper()
	b := rep.Boundary
	s := OpenSession(url)
	if b.BodyCap != nil {
		if _, raw := s.Post(ping(*b.BodyCap)); !isResult(raw) {
			t.Errorf("a %d-byte ping (the reported cap) is not answered with a result: %.100q", *b.BodyCap, raw)
		}
		if _, raw := OpenSession(url).Post(ping(*b.BodyCap + 1)); isResult(raw) {
			t.Errorf("a %d-byte ping (one past the reported cap) is answered with a result", *b.BodyCap+1)
		}
	} else if _, raw := s.Post(ping(b.BodyCeiling)); !isResult(raw) {
		t.Errorf("no cap reported, but a %d-byte ping is not answered with a result", b.BodyCeiling)
	}
	// the depth, in the placement the report names, against depth 2
	carrier := `"` + b.Carrier + `"`
	call := func(depth int) string {
		params := `"arguments":` + nest(depth)
		if b.DepthPlacement == "params._meta" {
			params = `"arguments":{},"_meta":` + nest(depth)
		}
		status, raw := OpenSession(url).Post([]byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":` + carrier + `,` + params + `}}`))
		return fmt.Sprintf("HTTP %d result %v", status, isResult(raw))
	}
	shallow := call(2)
	if b.MaxDepth != nil {
		if got := call(*b.MaxDepth); got != shallow {
			t.Errorf("depth %d (the reported max) is answered %s, depth 2 %s", *b.MaxDepth, got, shallow)
		}
		if got := call(*b.MaxDepth + 1); got == shallow {
			t.Errorf("depth %d (one past the reported max) is answered as depth 2: %s", *b.MaxDepth+1, got)
		}
	} else if got := call(b.DepthCeiling); got != shallow {
		t.Errorf("no depth bound reported, but depth %d is answered %s, depth 2 %s", b.DepthCeiling, got, shallow)
	}
	params, err := ParamsEcho(url)
	if err != nil {
		t.Fatal(err)
	}
	if e := b.EnvelopeEcho.Ratio; e < params.Ratio*0.99-0.005 || e > params.Ratio*1.01+0.01 {
		t.Errorf("the reported params echo is %.4f; measured directly %.4f (%s)", e, params.Ratio, params.Instance)
	}
	// the unknown tool name (issue 25's first miss); the producer pins it
	// beside the report (direct.unknown-tool-echo). Every echo the server
	// makes is in the report's worst ratio.
	unknown, err := UnknownToolEcho(url)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []Echo{params, unknown} {
		if b.EchoRatio < d.Ratio-0.01 {
			t.Errorf("the report's echo ratio %.3f (%s) misses an echo measured directly: %.3f (%s)", b.EchoRatio, b.EchoInstance, d.Ratio, d.Instance)
		}
	}
	t.Logf("direct: params echo %.3f, unknown tool name %.3f (%s); the report's echo ratio %.3f (%s)",
		params.Ratio, unknown.Ratio, unknown.Instance, b.EchoRatio, b.EchoInstance)
}

// nest is depth levels of {"a":…{}}.
func nest(depth int) string {
	return strings.Repeat(`{"a":`, depth-1) + "{}" + strings.Repeat("}", depth-1)
}

func headline(r *audit.Report) string {
	b := r.Boundary
	capText, depth := "none", "none"
	if b.BodyCap != nil {
		capText = fmt.Sprint(*b.BodyCap)
	}
	if b.MaxDepth != nil {
		depth = fmt.Sprint(*b.MaxDepth)
	}
	counts := map[string]int{}
	var order []string
	for _, f := range r.Findings {
		if counts[f.Rule] == 0 {
			order = append(order, f.Rule)
		}
		counts[f.Rule]++
	}
	var rules []string
	for _, id := range order {
		rules = append(rules, fmt.Sprintf("%s x%d", id, counts[id]))
	}
	return fmt.Sprintf("%s: echo %.3f, cap %s, depth %s, unknown %s, dup %s/%s, utf8 %s, surrogate %s, control %s, trailing %s, "+
		"before-initialized %s, before-initialize %s, requests %d, findings %d (%s)", r.Target, b.EchoRatio, capText, depth,
		b.UnknownKeys, b.DuplicateNames, b.DuplicateNamesEnvelope, b.InvalidUTF8, b.LoneSurrogates, b.RawControls, b.TrailingBytes,
		b.BeforeInitialized, b.BeforeInitialize, r.Requests, len(r.Findings), strings.Join(rules, ", "))
}
