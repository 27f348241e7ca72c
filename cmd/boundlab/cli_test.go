package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/theurian/boundlab/results"
)

// Every verb and subcommand answers -h and --help with its help on stdout
// and exit 0; every help line fits 80 columns.
func TestHelpExitsZeroWithin80Columns(t *testing.T) {
	for _, target := range helpTargets() {
		t.Run(strings.Join(target, " "), func(t *testing.T) { // t.Run writes the space as _
			for _, h := range []string{"-h", "--help"} {
				t.Run(h, func(t *testing.T) {
					code, out, errOut := runVerb(t, "", append(target, h)...)
					if code != exitOK || errOut != "" || !strings.HasPrefix(out, "usage: boundlab "+target[0]) {
						t.Errorf("%v %s: exit %d, stdout %.60q, stderr %q", target, h, code, out, errOut)
					}
					checkWidth(t, strings.Join(target, " ")+" "+h, out)
					if !strings.Contains(out, "--json") {
						t.Errorf("%v: help names no --json", target)
					}
				})
			}
		})
	}
	code, out, _ := runVerb(t, "", "help")
	if code != exitOK {
		t.Fatalf("help: exit %d", code)
	}
	checkWidth(t, "help", out)
	for name := range verbs { // no hidden verbs
		t.Run("help_lists_"+name, func(t *testing.T) {
			if !strings.Contains(out, "\n  "+name+" ") {
				t.Errorf("help does not list %s", name)
			}
		})
	}
	for _, want := range []string{"0  success", "1  the answer is no", "2  usage or input error", "--records DIR", "--out PATH", "admit or refuse"} {
		if !strings.Contains(out, want) {
			t.Errorf("help does not state %q", want)
		}
	}
	if code, out, _ := runVerb(t, "", "help", "derive"); code != exitOK || !strings.HasPrefix(out, "usage: boundlab derive") {
		t.Errorf("help derive: exit %d, %.40q", code, out)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"no_verb", []string{}},
		{"help_of_an_unknown_verb", []string{"help", "nosuch"}},
		{"an_unknown_verb", []string{"nosuch"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if code, _, errOut := runVerb(t, "", c.args...); code != exitUsage || errOut == "" {
				t.Errorf("%v: exit %d, stderr %q; want 2 with the usage on stderr", c.args, code, errOut)
			}
		})
	}
}

func checkWidth(t *testing.T, what, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if len([]rune(line)) > helpWidth {
			t.Errorf("%s: help line of %d columns: %q", what, len([]rune(line)), line)
		}
	}
}

// A subcommand memmodel dispatches is named in its help: no hidden modes.
func TestMemmodelHelpNamesEveryMode(t *testing.T) {
	_, out, _ := runVerb(t, "", "memmodel", "-h")
	for _, want := range []string{"memmodel calibrate", "memmodel measure-go", "--row SHAPE"} {
		if !strings.Contains(out, want) {
			t.Errorf("memmodel -h does not name %q", want)
		}
	}
}

// perturbedRecords is a copy of the pinned records with one value moved.
func perturbedRecords(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	paths, _ := filepath.Glob("../../results/*.json")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(p) == "bodycap.json" {
			data = bytes.Replace(data, []byte(`"value": 26214400`), []byte(`"value": 26214401`), 1)
		}
		os.WriteFile(filepath.Join(dir, filepath.Base(p)), data, 0o644)
	}
	return dir
}

// slowGate is the pinned suite with every gate sample ten times slower.
func slowGate(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../results/bench/suite.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) > 3 && strings.Contains(f[0], "/impl=gate") && f[3] == "ns/op" {
			lines[i] = strings.Replace(l, " "+f[2]+" ns/op", " "+f[2]+"0 ns/op", 1)
		}
	}
	path := filepath.Join(t.TempDir(), "slow.txt")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
	return path
}

// exitCase is one run of a verb: its exit status, and for --json a check of
// the value decoded with encoding/json.
type exitCase struct {
	name  string
	stdin string
	args  []string
	want  int
	json  func(t *testing.T, out []byte)
}

func decode[T any](check func(t *testing.T, v T)) func(t *testing.T, out []byte) {
	return func(t *testing.T, out []byte) {
		t.Helper()
		var v T
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("--json output does not decode: %v\n%.300s", err, out)
		}
		check(t, v)
	}
}

func TestVerbExitCodesAndJSON(t *testing.T) {
	perturbed := perturbedRecords(t)
	verifyArgs := []string{"verify", "--json", "--docs", "../../docs,../../README.md", "--records-md", ""}
	cases := []exitCase{
		{"charge admit", `{"a":1}`, []string{"charge", "--json", "-"}, 0, decode(func(t *testing.T, r chargeResult) {
			if r.Verdict != verdictAdmit {
				t.Errorf("verdict %q", r.Verdict)
			}
		})},
		{"charge refuse", `[[[1]]]`, []string{"charge", "--json", "--max-nesting", "2", "-"}, 1, decode(func(t *testing.T, r chargeResult) {
			if r.Verdict != verdictRefuse || r.Bound != "nesting" {
				t.Errorf("verdict %q bound %q", r.Verdict, r.Bound)
			}
		})},
		{"charge bad dialect", `{}`, []string{"charge", "--dialect", "cobol", "-"}, 2, nil},
		{"charge bad flag", `{}`, []string{"charge", "--no-such-flag", "-"}, 2, nil},
		{"sweep", "", []string{"sweep", "--json", "--dialect", "go"}, 0, decode(func(t *testing.T, s sweepJSON) {
			if s.CodePoints != 1112064 || len(s.Mismatches) != 0 || len(s.Tables["go"]) == 0 {
				t.Errorf("code points %d, mismatches %v, %d go rows", s.CodePoints, s.Mismatches, len(s.Tables["go"]))
			}
		})},
		{"sweep bad dialect", "", []string{"sweep", "--dialect", "cobol"}, 2, nil},
		{"verify ok", "", append(verifyArgs, "--records", "../../results"), 0, decode(func(t *testing.T, v verifyJSON) {
			if !v.OK || v.Records == 0 || len(v.Problems) != 0 {
				t.Errorf("%+v", v)
			}
		})},
		{"verify drift", "", append(verifyArgs, "--records", perturbed), 1, decode(func(t *testing.T, v verifyJSON) {
			// the drift, and every doc that quotes the moved record
			kinds := map[string]int{}
			for _, p := range v.Problems {
				if p.ID != "bodycap.python-clients.cap" {
					t.Errorf("problem about another record: %+v", p)
				}
				kinds[p.Kind]++
			}
			if v.OK || kinds["drift"] != 1 || kinds["doc-figure"] == 0 {
				t.Errorf("%+v", v)
			}
		})},
		{"verify no dir", "", []string{"verify", "--records", "/no/such/dir"}, 2, nil},
		{"bench file", "", []string{"bench", "--json", "../../bench/testdata/synthetic.txt"}, 0, decode(func(t *testing.T, b benchJSON) {
			if len(b.Rows) == 0 || b.Source == "" {
				t.Errorf("%d rows from %q", len(b.Rows), b.Source)
			}
		})},
		{"bench check drift", "", []string{"bench", "--json", "--check", slowGate(t)}, 1, decode(func(t *testing.T, b benchJSON) {
			drift := 0
			for _, c := range b.Check {
				if c.Drift {
					drift++
				}
			}
			if drift == 0 {
				t.Errorf("no drift in %+v", b.Check)
			}
		})},
		{"bench check pinned", "", []string{"bench", "--check", "../../results/bench/suite.txt"}, 0, nil},
		{"bench missing file", "", []string{"bench", "no/such/file"}, 2, nil},
		{"bench two files", "", []string{"bench", "a", "b"}, 2, nil},
		{"derive summary", "", []string{"derive", "--records", "../../results", "--summary", "--json"}, 0, decode(func(t *testing.T, v results.Verdict) {
			if len(v.Figures) == 0 || v.Reproduced+v.Refuted+v.Retired+v.NotRederivable != len(v.Figures) || len(v.Silent) > 0 {
				t.Errorf("%d figures, counts %d/%d/%d/%d, silent %v", len(v.Figures), v.Reproduced, v.Refuted, v.Retired, v.NotRederivable, v.Silent)
			}
		})},
		{"derive json", "", []string{"derive", "--records", "../../results", "--json"}, 0, decode(func(t *testing.T, d deriveJSON) {
			if len(d.Verdict.Figures) == 0 || len(d.Producers) == 0 || d.Core.Limits.MaxParamsNodes == 0 {
				t.Errorf("verdict %d figures, %d producers", len(d.Verdict.Figures), len(d.Producers))
			}
		})},
		{"derive records and out", "", []string{"derive", "--records", "../../results", "--out", t.TempDir()}, 2, nil},
		{"derive instances without out", "", []string{"derive", "--instances"}, 2, nil},
		{"derive unknown producer", "", []string{"derive", "--only", "nosuch"}, 2, nil},
		{"derive no dir", "", []string{"derive", "--records", "/no/such/dir"}, 2, nil},
		{"validate admit", `{"projectId":"demo","query":"cap"}`, []string{"validate", "--json", "--tool", "knowledge.search", "-"}, 0,
			decode(func(t *testing.T, r validateResult) {
				if r.Verdict != verdictAdmit {
					t.Errorf("%+v", r)
				}
			})},
		{"validate refuse", `{"projectId":"demo"}`, []string{"validate", "--json", "--tool", "knowledge.search", "-"}, 1,
			decode(func(t *testing.T, r validateResult) {
				if r.Verdict != verdictRefuse || r.Stage != "schema" {
					t.Errorf("%+v", r)
				}
			})},
		{"validate schema dir", `{"projectId":"demo","query":"cap"}`, []string{"validate", "--schemas", "../../schemas/mcp", "--tool", "knowledge.search", "-"}, 0, nil},
		{"validate list", "", []string{"validate", "--list", "--json", "--schemas", "../../schemas/mcp"}, 0, decode(func(t *testing.T, l []listedJSON) {
			if len(l) != 7 || l[0].Source == "" {
				t.Errorf("%+v", l)
			}
		})},
		{"validate no tool", `{}`, []string{"validate", "-"}, 2, nil},
		{"validate list and tool", "", []string{"validate", "--list", "--tool", "x"}, 2, nil},
		{"validate no schemas", `{}`, []string{"validate", "--schemas", "/no/such/dir", "--tool", "x", "-"}, 2, nil},
		{"serve stray", "", []string{"serve", "stray"}, 2, nil},
		{"serve bad flag", "", []string{"serve", "--port", "1"}, 2, nil},
		{"memmodel", "", []string{"memmodel", "--json", "--wire", "3276800"}, 0, decode(func(t *testing.T, rows []json.RawMessage) {
			if len(rows) == 0 {
				t.Error("no rows")
			}
		})},
		{"memmodel go", "", []string{"memmodel", "--json", "--dialect", "go"}, 0, decode(func(t *testing.T, rows []json.RawMessage) {
			if len(rows) == 0 {
				t.Error("no rows")
			}
		})},
		{"memmodel calibrate no python", "", []string{"memmodel", "calibrate", "--json"}, 2, nil},
		{"memmodel measure-go bad div", "", []string{"memmodel", "measure-go", "--json", "--div", "0"}, 2, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runVerb(t, c.stdin, c.args...)
			if code != c.want {
				t.Fatalf("%v: exit %d, want %d\nstderr: %.500s", c.args, code, c.want, errOut)
			}
			if c.want == exitUsage && errOut == "" {
				t.Errorf("exit 2 without saying why")
			}
			if c.json != nil {
				c.json(t, []byte(out))
			}
		})
	}
}

// bench - reads the stdin the verb was handed.
func TestBenchReadsItsStdin(t *testing.T) {
	data, err := os.ReadFile("../../bench/testdata/synthetic.txt")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runVerb(t, string(data), "bench", "--json", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var b benchJSON
	if err := json.Unmarshal([]byte(out), &b); err != nil || b.Source != "stdin" || len(b.Rows) == 0 {
		t.Fatalf("source %q, %d rows, %v", b.Source, len(b.Rows), err)
	}
}

// derive's first screen answers "did the seed hold?": the counts, then a
// row per figure (its record on a line of its own when the row would pass
// summaryWidth), within one 48-line screen.
func TestDeriveOpensWithTheVerdict(t *testing.T) {
	code, out, errOut := runVerb(t, "", "derive", "--records", "../../results")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "Did the seed hold?") || !strings.Contains(lines[1], "reproduced") {
		t.Fatalf("derive opens with %q / %q", lines[0], lines[1])
	}
	code, summary, _ := runVerb(t, "", "derive", "--records", "../../results", "--summary")
	if code != exitOK || !strings.HasPrefix(out, summary) {
		t.Fatalf("--summary (exit %d) is not derive's first screen:\n%s", code, summary)
	}
	if n := strings.Count(summary, "\n"); n > 48 {
		t.Errorf("the verdict takes %d lines", n)
	}
	for _, want := range []string{"13  refuted  16,777,216 characters",
		"reproduced: 1 2 3", "56  retired  320 KiB", "not re-derivable here: 4 5 6"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the verdict lacks %q:\n%s", want, summary)
		}
	}
	// the lab's value and the counterexample, however wide the columns are
	if !regexp.MustCompile(`16,776,824 characters +worstrender\.python-raw-codepoint-sdk4mib\.class`).MatchString(summary) {
		t.Errorf("the verdict lacks figure 13's counterexample:\n%s", summary)
	}
}

// derive --out DIR pins what derive --records DIR reads back.
func TestDeriveOutPinsWhatRecordsReads(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runVerb(t, "", "derive", "--only", "sweep,bodycap", "--summary", "--out", dir); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	pinned, err := results.Load(dir)
	if err != nil || len(pinned["sweep"]) == 0 || len(pinned["bodycap"]) == 0 || len(pinned) != 2 {
		t.Fatalf("pinned %d producers: %v", len(pinned), err)
	}
	dir = t.TempDir()
	if code, _, errOut := runVerb(t, "", "derive", "--instances", "--out", dir, "--scenario", "python-raw-codepoint-sdk4mib"); code != exitOK {
		t.Fatalf("--instances: exit %d: %s", code, errOut)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(files) == 0 {
		t.Error("--instances --out wrote no instance")
	}
}

// validate --schemas FILE reads a saved tools/list answer, the JSON-RPC
// response or its result: each tool's inputSchema is its contract, and a tool
// without one is refused.
func TestValidateAgainstASavedToolsList(t *testing.T) {
	dir := t.TempDir()
	result := `{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string","maxLength":4}},` +
		`"required":["text"],"additionalProperties":false}},{"name":"bare"}]}`
	files := map[string]string{
		"response.json": `{"jsonrpc":"2.0","id":1,"result":` + result + `}`,
		"result.json":   result,
		"error.json":    `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`,
		"other.json":    `{"jsonrpc":"2.0","id":1,"result":{}}`,
		"dup.json":      `{"tools":[{"name":"echo","inputSchema":{"type":"object","type":"object"}}]}`,
	}
	for name, body := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	for _, c := range []struct {
		name, file, tool, args string
		want                   int
	}{
		{"response_admits", "response.json", "echo", `{"text":"hi"}`, 0},
		{"result_admits", "result.json", "echo", `{"text":"hi"}`, 0},
		{"past_maxLength", "response.json", "echo", `{"text":"too long"}`, 1},
		{"unknown_member", "response.json", "echo", `{"text":"hi","x":1}`, 1},
		{"no_inputSchema", "response.json", "bare", `{}`, 1}, // no inputSchema: no contract, refused
		{"unknown_tool", "response.json", "nosuch", `{}`, 1},
		{"JSON-RPC_error", "error.json", "echo", `{}`, 2},
		{"no_tools", "other.json", "echo", `{}`, 2},
		{"repeated_member", "dup.json", "echo", `{}`, 2}, // a schema that is not strict JSON
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runVerb(t, c.args, "validate", "--schemas", filepath.Join(dir, c.file), "--tool", c.tool, "-")
			if code != c.want {
				t.Errorf("%s %s %s: exit %d, want %d\n%s%s", c.file, c.tool, c.args, code, c.want, out, errOut)
			}
		})
	}
}

// validate --schemas FILE over a saved tools/list with an open tool refuses
// the contract, naming the tool, unless --open-tools names it: then an
// unknown member is admitted on purpose, and a wrong type is still refused.
func TestValidateOpenToolsFlag(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "tools.json")
	os.WriteFile(list, []byte(`{"tools":[{"name":"loose","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}`), 0o644)
	for _, c := range []struct {
		name, open, args string
		want             int
		wantErr          string
	}{
		{"refused-without-the-flag", "", `{"text":"hi"}`, 2, `"loose"`},
		{"named-other-tool", "other", `{"text":"hi"}`, 2, "other"},
		{"kept-open-admits-unknown", "loose", `{"text":"hi","x":1}`, 0, ""},
		{"kept-open-still-typed", "loose", `{"text":1}`, 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"validate", "--schemas", list, "--tool", "loose"}
			if c.open != "" {
				args = append(args, "--open-tools", c.open)
			}
			code, out, errOut := runVerb(t, c.args, append(args, "-")...)
			if code != c.want || !strings.Contains(errOut, c.wantErr) {
				t.Errorf("exit %d, want %d (stderr want %q)\n%s%s", code, c.want, c.wantErr, out, errOut)
			}
		})
	}
}
