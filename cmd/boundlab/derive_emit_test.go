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
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/derivation"
	"github.com/theurian/boundlab/results"
	"github.com/theurian/boundlab/sweeps"
)

// smallLimits are limits at which every instance is small: the instance
// tests run the whole path at them (serve and validate take the same flags).
var smallLimits = []string{"--max-source-file-bytes", "64KiB", "--envelope", "4KiB", "--budget", "96KiB", "--max-nodes", "2000"}

func planAt(t *testing.T, extra ...string) manifestJSON {
	t.Helper()
	code, out, errOut := runVerb(t, "", append(append([]string{"derive", "--instances", "--list", "--json"}, smallLimits...), extra...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m manifestJSON
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The plan's total is the sum of the instances' sizes; --max-bytes at the
// total writes them all, one byte under writes nothing; each file is exactly
// the size the plan said, printed before any file is written.
func TestDeriveInstancesPlanAndMaxBytes(t *testing.T) {
	m := planAt(t)
	var sum int64
	for _, in := range m.Instances {
		sum += in.Bytes
	}
	if len(m.Instances) == 0 || m.TotalBytes != sum || m.Tool != derivation.ServedTool {
		t.Fatalf("plan: %d instances, total %d, sum %d, tool %q", len(m.Instances), m.TotalBytes, sum, m.Tool)
	}
	code, out, _ := runVerb(t, "", append([]string{"derive", "--instances", "--list"}, smallLimits...)...)
	if code != exitOK || !strings.Contains(out, results.Thousands(sum)+" bytes") {
		t.Errorf("--list: exit %d, no total %s in:\n%s", code, results.Thousands(sum), out)
	}

	under := filepath.Join(t.TempDir(), "under")
	code, _, errOut := runVerb(t, "", append([]string{"derive", "--instances", "--out", under, "--max-bytes", fmt.Sprint(sum - 1)}, smallLimits...)...)
	if code != exitUsage || !strings.Contains(errOut, "wrote nothing") || !strings.Contains(errOut, results.Thousands(sum)) {
		t.Errorf("one byte under the total: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(under); !os.IsNotExist(err) {
		t.Errorf("one byte under the total: %s exists (%v)", under, err)
	}

	dir := filepath.Join(t.TempDir(), "new", "instances")
	code, _, errOut = runVerb(t, "", append([]string{"derive", "--instances", "--out", dir, "--max-bytes", fmt.Sprint(sum)}, smallLimits...)...)
	if code != exitOK {
		t.Fatalf("at the total: exit %d, %s", code, errOut)
	}
	if i, j := strings.Index(errOut, results.Thousands(sum)+" bytes"), strings.Index(errOut, "wrote "); i < 0 || j < i {
		t.Errorf("the plan's total is not printed before the first write:\n%s", errOut)
	}
	written, err := manifestOf(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(written.Instances) != len(m.Instances) || written.TotalBytes != sum {
		t.Errorf("manifest: %d instances, %d bytes; plan %d, %d", len(written.Instances), written.TotalBytes, len(m.Instances), sum)
	}
	for _, in := range m.Instances {
		t.Run(in.Name, func(t *testing.T) {
			st, err := os.Stat(filepath.Join(dir, in.Name+".json"))
			if err != nil || st.Size() != in.Bytes {
				t.Errorf("%s: %v, %d bytes, plan %d", in.Name, err, st.Size(), in.Bytes)
			}
		})
	}

	// The default bound: the default limits' instances total more than it.
	code, out, errOut = runVerb(t, "", "derive", "--instances", "--list", "--json")
	var def manifestJSON
	if code != exitOK || json.Unmarshal([]byte(out), &def) != nil {
		t.Fatalf("default plan: exit %d, %s", code, errOut)
	}
	if def.TotalBytes <= defaultMaxEmitBytes {
		t.Fatalf("the default instances total %d bytes, within the default --max-bytes %d: the guard guards nothing", def.TotalBytes, defaultMaxEmitBytes)
	}
	code, _, errOut = runVerb(t, "", "derive", "--instances", "--out", filepath.Join(t.TempDir(), "d"))
	if code != exitUsage || !strings.Contains(errOut, "wrote nothing") {
		t.Errorf("default limits, default --max-bytes: exit %d, %s", code, errOut)
	}
}

func TestDeriveInstancesScenarioFilter(t *testing.T) {
	all := planAt(t)
	got := planAt(t, "--scenario", "go-go-*,document-go")
	want := 0
	for _, in := range all.Instances {
		if strings.HasPrefix(in.Scenario, "go-go-") || in.Scenario == "document-go" {
			want++
		}
	}
	if len(got.Instances) != want || want == 0 {
		t.Fatalf("--scenario go-go-*,document-go: %d instances, want %d", len(got.Instances), want)
	}
	for _, in := range got.Instances {
		if !strings.HasPrefix(in.Scenario, "go-go-") && in.Scenario != "document-go" {
			t.Errorf("--scenario kept %s", in.Scenario)
		}
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"a_pattern_that_matches_nothing", []string{"--scenario", "go-go-*,nosuch-canary"}},
		{"a_malformed_pattern", []string{"--scenario", "[canary"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runVerb(t, "", append(append([]string{"derive", "--instances", "--list"}, smallLimits...), c.args...)...)
			if code != exitUsage || out != "" || errOut == "" || strings.Contains(errOut, "canary") {
				t.Errorf("%q: exit %d, stdout %q, stderr echoes or is empty: %.200q", c.args, code, out, errOut)
			}
		})
	}
}

func TestDeriveInstancesUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"scenario_without_instances", []string{"--scenario", "go-*"}},
		{"max-bytes_without_instances", []string{"--max-bytes", "1MiB"}},
		{"list_without_instances", []string{"--list"}},
		{"instances_without_list_or_out", []string{"--instances"}},
		{"list_and_out", []string{"--instances", "--list", "--out", dir}},
		{"out_and_json", []string{"--instances", "--out", dir, "--json"}},
		{"instances_and_only", []string{"--instances", "--list", "--only", "sweep"}},
		{"max-bytes_not_a_size", []string{"--instances", "--list", "--max-bytes", "1MB"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runVerb(t, "", append([]string{"derive"}, c.args...)...)
			if code != exitUsage || out != "" || errOut == "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %.100q", c.args, code, out, errOut)
			}
		})
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a usage error wrote %d files", len(ents))
	}
}

// toolAnswer is what a served tools/call got: the HTTP status and, for a
// tool result, its text and isError.
type toolAnswer struct {
	status  int
	isError bool
	text    string
}

func post(t *testing.T, url string, body []byte) toolAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	cl := &http.Client{Timeout: 30 * time.Second}
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := toolAnswer{status: resp.StatusCode}
	var msg struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "data: ")
		if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &msg) == nil {
			a.isError = msg.Result.IsError
			for _, c := range msg.Result.Content {
				a.text += c.Text
			}
			break
		}
	}
	return a
}

// boundWords is what a refusal's text says for each predicted bound.
var boundWords = map[string]string{"charge": "(bound charge)", "nodes": "(bound nodes)", "maxLength": "maxLength",
	"unevaluatedProperties": "unevaluatedProperties"}

// checkAnswer holds a served answer to the predicted outcome.
func checkAnswer(t *testing.T, what string, o derivation.Outcome, a toolAnswer) {
	t.Helper()
	switch o.Stage {
	case derivation.StageTransport:
		if a.status != http.StatusRequestEntityTooLarge {
			t.Errorf("%s: HTTP %d, predicted 413 (%s)", what, a.status, o.Reason)
		}
	case derivation.StageAdmit:
		if a.status != http.StatusOK || a.isError {
			t.Errorf("%s: HTTP %d isError %v, predicted admit", what, a.status, a.isError)
		}
	default:
		if a.status != http.StatusOK || !a.isError || !strings.Contains(a.text, boundWords[o.Bound]) {
			t.Errorf("%s: HTTP %d isError %v %.200q, predicted %s refusal by %s (%s)", what, a.status, a.isError, a.text, o.Stage, o.Bound, o.Reason)
		}
		if o.Stage == derivation.StageSchema && !strings.Contains(a.text, "input schema") ||
			o.Stage == derivation.StageGate && strings.Contains(a.text, "input schema") {
			t.Errorf("%s: %.200q is not a %s refusal", what, a.text, o.Stage)
		}
	}
}

// serveAt runs `boundlab serve --stateless` in process on 127.0.0.1 at the
// small limits and returns its endpoint.
func serveAt(t *testing.T, goClients bool) string {
	t.Helper()
	l, err := parseLimitArgs(smallLimits)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stdout, stderr syncBuf
	go func() {
		done <- serveOn(ctx, ln, serveOptions{stateless: true, goClients: goClients, frontGate: true, limits: l}, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// Every emitted instance, fed to validate --request and POSTed to serve (in
// process, at the same limits), gets the answer the derivation predicted —
// with and without --go-clients — and the string instances the charge binds
// are at the bound: one more code point of their last run is refused by the
// charge.
func TestEmittedInstancesReproduce(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runVerb(t, "", append([]string{"derive", "--instances", "--out", dir}, smallLimits...)...); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	m, err := manifestOf(dir)
	if err != nil {
		t.Fatal(err)
	}
	l0, err := parseLimitArgs(smallLimits)
	if err != nil {
		t.Fatal(err)
	}
	derived, err := derivation.ServedInstances(l0)
	if err != nil {
		t.Fatal(err)
	}
	if len(derived) != len(m.Instances) {
		t.Fatalf("the manifest lists %d instances, the derivation %d", len(m.Instances), len(derived))
	}
	for i := range derived {
		if derived[i].Name != m.Instances[i].Name || derived[i].Serve != m.Instances[i].Serve || derived[i].ServeGo != m.Instances[i].ServeGo {
			t.Errorf("manifest entry %d is not the derivation's: %+v", i, m.Instances[i])
		}
	}
	m.Instances = derived
	urls := map[bool]string{false: serveAt(t, false), true: serveAt(t, true)}
	l := l0
	// What the cases must cover, counted here in the parent from the
	// derivation alone, so that -run picking one instance cannot fail it.
	stages, atBound := map[string]bool{}, 0
	for _, in := range m.Instances {
		for _, goClients := range []bool{false, true} {
			o := in.Serve
			if goClients {
				o = in.ServeGo
			}
			stages[o.Stage+"/"+o.Bound] = true
		}
		atBound += len(pastTheCharge(in, l))
	}
	for _, in := range m.Instances {
		t.Run(in.Name, func(t *testing.T) {
			file := filepath.Join(dir, in.Name+".json")
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, goClients := range []bool{false, true} {
				t.Run(fmt.Sprintf("go-clients=%v", goClients), func(t *testing.T) {
					o := in.Serve
					args := append([]string{"validate", "--request", "--json"}, smallLimits...)
					if goClients {
						o = in.ServeGo
						args = append(args, "--go-clients")
					}
					what := fmt.Sprintf("%s (go clients %v)", in.Name, goClients)
					code, out, errOut := runVerb(t, "", append(args, file)...)
					var res validateResult
					if err := json.Unmarshal([]byte(out), &res); err != nil {
						t.Fatalf("%s: validate: exit %d, %s %s", what, code, out, errOut)
					}
					wantStage, wantCode := o.Stage, exitNo
					if o.Stage == derivation.StageAdmit {
						wantStage, wantCode = "", exitOK
					}
					if code != wantCode || res.Stage != wantStage || !strings.Contains(res.Message, boundWords[o.Bound]) {
						t.Errorf("%s: validate --request exit %d stage %q %.200q; predicted %s by %s (%s)", what, code, res.Stage, res.Message, o.Stage, o.Bound, o.Reason)
					}
					checkAnswer(t, what+" served", o, post(t, urls[goClients], body))
				})
			}
			// At the served charge's bound: one more code point of the last
			// run passes the budget, and the gate refuses it.
			for _, goClients := range pastTheCharge(in, l) {
				t.Run(fmt.Sprintf("one_code_point_past_go-clients=%v", goClients), func(t *testing.T) {
					past := in
					past.Spans = append([]sweeps.Span(nil), in.Spans...)
					past.Spans[len(past.Spans)-1].N++
					a := post(t, urls[goClients], past.Build())
					checkAnswer(t, fmt.Sprintf("%s plus one code point (go clients %v)", in.Name, goClients),
						derivation.Outcome{Stage: derivation.StageGate, Bound: "charge"}, a)
				})
			}
		})
	}
	if atBound == 0 {
		t.Error("no instance sits at the served charge's bound: the bound is not tested")
	}
	for _, want := range []string{"transport/body cap", "gate/charge", "schema/maxLength", "schema/unevaluatedProperties"} {
		if !stages[want] {
			t.Errorf("no instance is predicted %s: the test does not cover it (%v)", want, stages)
		}
	}
}

// pastTheCharge is, for each client set (go clients or not), whether in sits
// at the served charge's bound: its strings are charged whole (no empty
// arrays), one more code point of its last run would pass the budget, the
// schema refuses in as it is, and the body one code point longer still fits
// the body cap, so the gate's charge is what refuses it.
func pastTheCharge(in derivation.ServedInstance, l charge.Limits) []bool {
	if in.EmptyArrays > 0 {
		return nil
	}
	last := in.Spans[len(in.Spans)-1].Rune
	if in.ServedCharge+int64(charge.Go.RuneWidth(last)) <= l.MaxParamsRenderedChars {
		return nil
	}
	pastBytes := in.Bytes + int64(len(sweeps.EncodeRune(in.Encoder, last)))
	var out []bool
	for _, goClients := range []bool{false, true} {
		o, encs := in.Serve, []charge.Encoder{charge.EnsureASCII, charge.Raw}
		if goClients {
			o, encs = in.ServeGo, append(encs, charge.GoJSON)
		}
		if o.Stage != derivation.StageSchema || pastBytes > charge.BodyCap(l, encs...).Cap {
			continue
		}
		out = append(out, goClients)
	}
	return out
}

// parseLimitArgs resolves limit flags as every verb does.
func parseLimitArgs(args []string) (charge.Limits, error) {
	c := newCommand("limits", nil, "")
	lf := addLimitFlags(c)
	c.SetOutput(io.Discard)
	if err := c.Parse(args); err != nil {
		return charge.Limits{}, err
	}
	return lf.resolve()
}

// validate --request: a body that is not a tools/call, or whose envelope the
// front gate refuses, is refused before any tool, without echoing the body;
// --request reads the tool from the request, so --tool beside it is a usage
// error, and --go-clients goes with --request only.
func TestValidateRequest(t *testing.T) {
	for _, tc := range []struct {
		name, body, stage string
	}{
		{"not_a_tools_call", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"canary":1}}`, "envelope"},
		{"a_duplicate_name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"knowledge.search","name":"canary","arguments":{}}}`, "envelope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runVerb(t, tc.body, "validate", "--request", "--json", "-")
			var res validateResult
			if code != exitNo || json.Unmarshal([]byte(out), &res) != nil || res.Stage != tc.stage || strings.Contains(out, "canary") {
				t.Errorf("%s: exit %d, %s %s", tc.body, code, out, errOut)
			}
		})
	}
	code, out, _ := runVerb(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"knowledge.search","arguments":{"projectId":"demo","query":"cap"}}}`,
		"validate", "--request", "-")
	if code != exitOK || out != "admit\n" {
		t.Errorf("a valid call: exit %d, %q", code, out)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"request_and_tool", []string{"--request", "--tool", "knowledge.search", "-"}},
		{"request_without_a_file", []string{"--request"}},
		{"go-clients_without_request", []string{"--go-clients", "--tool", "knowledge.search", "-"}},
		{"request_and_list", []string{"--request", "--list"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runVerb(t, "{}", append([]string{"validate"}, c.args...)...)
			if code != exitUsage || out != "" || errOut == "" {
				t.Errorf("%q: exit %d, stdout %q", c.args, code, out)
			}
		})
	}
}
