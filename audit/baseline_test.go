package audit_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/theurian/boundlab/audit"
)

func TestParseCall(t *testing.T) {
	at := `{"q":"` + strings.Repeat("a", audit.MaxExampleBytes-8) + `"}`
	for _, c := range []struct {
		name, in, tool, refuse string
	}{
		{"object", `knowledge.search={"projectId":"demo"}`, "knowledge.search", ""},
		{"name holding =", `a=b={"x":1}`, "a", "not a JSON object"},
		{"no =", `knowledge.search`, "", "TOOL=JSON"},
		{"array", `t=[1]`, "", "not a JSON object"},
		{"invalid JSON", `t={"x":`, "", "not a JSON object"},
		{"at the bound", "t=" + at, "t", ""},
		{"past the bound", "t=" + at + " ", "", "past the " + strconv.Itoa(audit.MaxExampleBytes)},
	} {
		t.Run(c.name, func(t *testing.T) {
			tool, _, err := audit.ParseCall(c.in)
			if c.refuse != "" {
				if err == nil || !strings.Contains(err.Error(), c.refuse) {
					t.Fatalf("got %v, want an error saying %q", err, c.refuse)
				}
				if strings.Contains(err.Error(), "aaaaaaaa") {
					t.Errorf("the error quotes the value: %.80s", err)
				}
				return
			}
			if err != nil || tool != c.tool {
				t.Fatalf("tool %q, %v; want %q", tool, err, c.tool)
			}
		})
	}
}

func TestReadCalls(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	many := func(n int) string {
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`{"name":"t` + strconv.Itoa(i) + `","arguments":{}}`)
		}
		return b.String() + "]"
	}
	for _, c := range []struct {
		name, body, refuse string
		n                  int
	}{
		{"two calls", `[{"name":"a","arguments":{"x":1}},{"name":"b","arguments":{}}]`, "", 2},
		{"not an array", `{"a":{}}`, "not a JSON array", 0},
		{"no name", `[{"arguments":{}}]`, "has no name", 0},
		{"arguments not an object", `[{"name":"a","arguments":"zzsecret"}]`, "not a JSON object", 0},
		{"at the bound", many(audit.MaxExamples), "", audit.MaxExamples},
		{"past the bound", many(audit.MaxExamples + 1), "past the " + strconv.Itoa(audit.MaxExamples), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := audit.ReadCalls(write(strings.ReplaceAll(c.name, " ", "_")+".json", c.body))
			if c.refuse != "" {
				if err == nil || !strings.Contains(err.Error(), c.refuse) || strings.Contains(err.Error(), "zzsecret") {
					t.Fatalf("got %v, want an error saying %q, quoting nothing", err, c.refuse)
				}
				return
			}
			if err != nil || len(got) != c.n {
				t.Fatalf("%d calls, %v; want %d", len(got), err, c.n)
			}
		})
	}
}

// TestReadCallsFileBound: a file larger than MaxExamples calls of
// MaxExampleBytes can hold is refused before it is read; one at the bound
// is read (and refused here for what it holds). Sparse files: no disk.
func TestReadCallsFileBound(t *testing.T) {
	limit := int64(audit.MaxExamples) * (audit.MaxExampleBytes + 256)
	for _, c := range []struct {
		name   string
		size   int64
		refuse string
	}{
		{"at the bound", limit, "not a JSON array"},
		{"past the bound", limit + 1, "past the"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "calls.json")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(c.size); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if _, err := audit.ReadCalls(p); err == nil || !strings.Contains(err.Error(), c.refuse) {
				t.Errorf("got %v, want an error saying %q", err, c.refuse)
			}
		})
	}
}
