package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/audit"
)

// TestParseCensus: a list is a JSON array of targets, each named, with
// exactly one of url and stdio; every bound is held at it and past it.
func TestParseCensus(t *testing.T) {
	long := strings.Repeat("n", audit.MaxCensusName)
	many := func(n int) string {
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`{"name":"s` + strconv.Itoa(i) + `","url":"http://127.0.0.1:1/mcp"}`)
		}
		return b.String() + "]"
	}
	for _, c := range []struct {
		name, list string
		ok         bool
	}{
		{"url", `[{"name":"a","url":"http://127.0.0.1:1/mcp","header":{"Authorization":"Bearer x"}}]`, true},
		{"stdio with env", `[{"name":"b-1.x_y","stdio":["node","server.js"],"env":{"K":"v"},"dir":"/tmp","address_space":1073741824,"tools":["t"],"skip":["u"],"calls":[{"name":"t","arguments":{"q":"x"}}]}]`, true},
		{"name at its bound", `[{"name":"` + long + `","url":"http://127.0.0.1:1/mcp"}]`, true},
		{"name past its bound", `[{"name":"` + long + `n","url":"http://127.0.0.1:1/mcp"}]`, false},
		{"a name that is a path", `[{"name":"../x","url":"http://127.0.0.1:1/mcp"}]`, false},
		{"a name led by a dot", `[{"name":".x","url":"http://127.0.0.1:1/mcp"}]`, false},
		{"no name", `[{"url":"http://127.0.0.1:1/mcp"}]`, false},
		{"a name twice", `[{"name":"a","url":"http://127.0.0.1:1/mcp"},{"name":"a","stdio":["x"]}]`, false},
		{"both url and stdio", `[{"name":"a","url":"http://127.0.0.1:1/mcp","stdio":["x"]}]`, false},
		{"neither", `[{"name":"a"}]`, false},
		{"env on a url", `[{"name":"a","url":"http://127.0.0.1:1/mcp","env":{"K":"v"}}]`, false},
		{"an env name with =", `[{"name":"a","stdio":["x"],"env":{"K=1":"v"}}]`, false},
		{"an empty command", `[{"name":"a","stdio":[""]}]`, false},
		{"a negative address space", `[{"name":"a","stdio":["x"],"address_space":-1}]`, false},
		{"a call that is not an object", `[{"name":"a","stdio":["x"],"calls":[{"name":"t","arguments":[1]}]}]`, false},
		{"an unknown member", `[{"name":"a","stdio":["x"],"command":"y"}]`, false},
		{"empty", `[]`, false},
		{"targets at the bound", many(audit.MaxCensusTargets), true},
		{"targets past the bound", many(audit.MaxCensusTargets + 1), false},
		{"not an array", `{"name":"a"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := audit.ParseCensus([]byte(c.list))
			if (err == nil) != c.ok {
				t.Errorf("error %v, want ok %v", err, c.ok)
			}
		})
	}
	big := filepath.Join(t.TempDir(), "big.json")
	os.WriteFile(big, []byte(`[{"name":"a","url":"http://127.0.0.1:1/mcp"}]`+strings.Repeat(" ", audit.MaxCensusBytes)), 0o644)
	if _, err := audit.ReadCensus(big); err == nil || !strings.Contains(err.Error(), "past") {
		t.Errorf("a list past %d bytes: %v", audit.MaxCensusBytes, err)
	}
}

// TestCensus: a list of an HTTP server, a stdio server (this binary as
// fakePy, named by its env) and a port nobody listens on is audited into
// one census: a row per server with the figures of its own audit, the
// stdio one run under its address-space bound, and the absent one an
// error that does not stop the others.
func TestCensus(t *testing.T) {
	srv := dozen()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	list, _ := json.Marshal([]map[string]any{
		{"name": "dozen", "url": hs.URL, "skip": []string{"tool3"}},
		{"name": "fakepy-stdio", "stdio": []string{os.Args[0]}, "env": map[string]string{fakeEnv: fakePyMode}, "address_space": 2 << 30},
		{"name": "absent", "url": closed},
		// the bound is applied: a Go process cannot start in 8 MiB
		{"name": "bounded", "stdio": []string{os.Args[0]}, "env": map[string]string{fakeEnv: fakePyMode}, "address_space": 8 << 20},
	})
	targets, err := audit.ParseCensus(list)
	if err != nil {
		t.Fatal(err)
	}
	l := audit.DefaultLimits()
	l.BodyCeiling, l.DepthCeiling, l.EchoBytes, l.Timeout = 256<<10, 200, 1<<10, 5*time.Second
	var started []string
	c := audit.RunCensus(context.Background(), targets, audit.Config{Seed: 7, Limits: l}, func(i int, name string) { started = append(started, name) })
	if strings.Join(started, ",") != "dozen,fakepy-stdio,absent,bounded" || len(c.Servers) != 4 {
		t.Fatalf("started %q, %d servers", started, len(c.Servers))
	}
	d, py, absent, bounded := c.Servers[0], c.Servers[1], c.Servers[2], c.Servers[3]
	if d.Report == nil || py.Report == nil || absent.Report != nil || absent.Error == "" || bounded.Report != nil {
		t.Fatalf("dozen %q, fakepy %q, absent %q, bounded %q: want two audits and two errors", d.Error, py.Error, absent.Error, bounded.Error)
	}
	if row := audit.CensusRowOf(d.Report); row.Called != 11 || row.Listed != 12 || d.Report.Target != hs.URL {
		t.Errorf("dozen: %d of %d tools called, target %q; want 11 of 12 (tool3 skipped), the URL", row.Called, row.Listed, d.Report.Target)
	}
	if py.Report.Target != os.Args[0] || py.Report.Tools[0].Name != "echo" || py.Report.Boundary.BodyCap != nil {
		t.Errorf("fakepy over stdio: target %q, tools %+v", py.Report.Target, py.Report.Tools)
	}
	t.Logf("bounded: %s", bounded.Error)
	// the table holds each server's own figures
	var out bytes.Buffer
	if err := audit.WriteCensusText(&out, c); err != nil {
		t.Fatal(err)
	}
	t.Logf("the census:\n%s", out.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("table:\n%s", out.String())
	}
	for i, s := range c.Servers[:2] {
		row := audit.CensusRowOf(s.Report)
		if !strings.HasPrefix(lines[i+1], s.Name+" ") || !strings.Contains(lines[i+1], "  "+row.BodyCap+"  ") ||
			!strings.Contains(lines[i+1], "  "+strconv.FormatFloat(row.Echo, 'f', 3, 64)+"  ") {
			t.Errorf("row %q: want %s, cap %s, echo %.3f", lines[i+1], s.Name, row.BodyCap, row.Echo)
		}
		if !strings.Contains(lines[i+1], strconv.Itoa(len(s.Report.Findings)-row.Severity[audit.SeverityNote]-row.Severity[audit.SeverityWarning])+"/"+
			strconv.Itoa(row.Severity[audit.SeverityWarning])+"/"+strconv.Itoa(row.Severity[audit.SeverityNote])) {
			t.Errorf("row %q does not count its %d findings by severity", lines[i+1], len(s.Report.Findings))
		}
	}
	if !strings.HasPrefix(lines[3], "absent") || !strings.Contains(lines[3], "not audited") {
		t.Errorf("absent row %q", lines[3])
	}
}
