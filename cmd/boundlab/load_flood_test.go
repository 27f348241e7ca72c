package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/theurian/boundlab/load"
)

// The load verb's help lists the floods; each flood's own help its flags.
func TestFloodHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runLoad([]string{"-h"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, s := range load.FloodShapes() {
		if !strings.Contains(out.String(), "\n  "+s.Name+": ") {
			t.Errorf("load -h does not list %s", s.Name)
		}
		out.Reset()
		if code := runLoad([]string{s.Name, "-h"}, nil, &out, &errb); code != exitOK || !strings.Contains(out.String(), "--sessions") {
			t.Errorf("%s -h: exit %d\n%s", s.Name, code, out.String())
		}
	}
}

func TestFloodUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{load.SessionFlood, "--no-such-flag"},
		{load.SessionFlood, "a", "b"},
		{load.SessionFlood, "--variants", "guarded,nope"},
		{load.SessionFlood, "--sessions", "2000001"},
		{load.SessionFlood, "--sessions", "10", "--streams", "11"},
		{load.StreamFlood, "--streams-per-session", "9"},
		{load.ConnectionFlood, "--conns", "16001"},
		{load.ConnectionFlood, "--concurrency", "0"},
		{load.SessionFlood, "--hold", "20m", "--duration", "15m"},
		{load.SessionFlood, "--duration", "31m"},
		{load.SessionFlood, "--guard-mib", "1"},
	} {
		var out, errb bytes.Buffer
		if code := runLoad(args, nil, &out, &errb); code != exitUsage || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := runLoad([]string{load.SessionFlood, "no/such/flood.json"}, nil, &out, &errb); code != exitUsage {
		t.Errorf("missing flood file: exit %d", code)
	}
	if code := runLoad([]string{load.SessionFlood, "../../load/testdata/run-small.json"}, nil, &out, &errb); code != exitUsage {
		t.Errorf("an attack run read as a flood: exit %d", code)
	}
}

// A saved flood is reported, and its misses are exit 1.
func TestFloodReportsSavedRun(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runLoad([]string{load.SessionFlood, "../../load/testdata/flood-small.json"}, nil, &out, &errb); code != exitNo {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"middleware-only", "killed at guard", "MISS guarded: new clients served during the flood >= 95%", "ok   guarded: 0 crashes"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := runLoad([]string{load.SessionFlood, "--json", "../../load/testdata/flood-small.json"}, nil, &out, &errb); code != exitNo {
		t.Fatalf("--json: exit %d", code)
	}
	var got floodJSON
	if err := decodeStrict(out.Bytes(), &got); err != nil || len(got.Variants) != 2 || len(got.Targets) != 5 || load.Met(got.Targets) {
		t.Fatalf("--json: %v, %+v", err, got.Targets)
	}
}
