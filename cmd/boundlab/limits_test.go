package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/charge"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"16777216", 16 << 20, true},
		{"16MiB", 16 << 20, true},
		{"16 mib", 16 << 20, true},
		{"1_024KiB", 1 << 20, true},
		{"2GiB", 2 << 30, true},
		{"7B", 7, true},
		{"0", 0, true},
		{"", 0, false},
		{"MiB", 0, false},
		{"16MB", 0, false},
		{"-1", 0, false},
		{"1.5MiB", 0, false},
		{"9223372036854775807", 1<<63 - 1, true},
		{"9223372036854775808", 0, false},
		{"8589934592GiB", 0, false},
		{strings.Repeat("1", 40), 0, false},
	} {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && len(tc.in) > 5 && strings.Contains(err.Error(), tc.in) {
			t.Errorf("parseSize(%q): the error quotes the input: %v", tc.in, err)
		}
	}
}

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "limits.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every flag sets its own field, from a flag and from a file, and a flag
// beside the file wins.
func TestLimitFlagsSetTheirFields(t *testing.T) {
	for i, sp := range limitSpecs {
		want := charge.DefaultLimits()
		v := sp.get(want) + int64(i) + 1
		sp.set(&want, v)
		for _, args := range [][]string{
			{"--" + sp.flag, formatSize(v)},
			{"--limits", writeFile(t, `{"`+sp.key+`": `+formatJSONValue(v)+`}`)},
			{"--limits", writeFile(t, `{"`+sp.key+`": 1}`), "--" + sp.flag, formatSize(v)},
		} {
			c := newCommand("t", nil, "")
			lf := addLimitFlags(c)
			if err := c.Parse(args); err != nil {
				t.Fatal(err)
			}
			got, err := lf.resolve()
			if err != nil || got != want || !lf.given() {
				t.Errorf("%v: got %+v, %v; want %+v", args, got, err, want)
			}
		}
	}
	c := newCommand("t", nil, "")
	lf := addLimitFlags(c)
	if l, err := lf.resolve(); err != nil || l != charge.DefaultLimits() || lf.given() {
		t.Errorf("no flags: %+v, %v, given %v", l, err, lf.given())
	}
}

func formatJSONValue(v int64) string {
	if v%2 == 0 {
		return `"` + formatSize(v) + `"`
	}
	return formatSize(v)
}

func TestLimitsErrorsAreBounded(t *testing.T) {
	secret := "CANARY" + strings.Repeat("x", 100)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"bad size", []string{"--budget", secret}},
		{"unknown key", []string{"--limits", writeFile(t, `{"`+secret+`": 1}`)}},
		{"bad value", []string{"--limits", writeFile(t, `{"budget": "`+secret+`"}`)}},
		{"not an object", []string{"--limits", writeFile(t, `["`+secret+`"]`)}},
		{"invalid limits", []string{"--budget", "0"}},
		{"int overflow", []string{"--max-nodes", "4GiB"}},
	} {
		for _, verb := range []string{"derive", "charge"} {
			args := append([]string{verb}, tc.args...)
			if verb == "charge" {
				args = append(args, "-")
			}
			code, out, errOut := runVerb(t, "{}", args...)
			if code != exitUsage || out != "" {
				t.Errorf("%s %s: exit %d, stdout %q", verb, tc.name, code, out)
			}
			if strings.Contains(errOut, "CANARY") || len(errOut) > 400 {
				t.Errorf("%s %s: stderr quotes the input or runs long (%d bytes): %s", verb, tc.name, len(errOut), errOut)
			}
		}
	}
}

func TestDeriveAtSixteenMiB(t *testing.T) {
	code, out, errOut := runVerb(t, "", "derive", "--max-source-file-bytes", "16MiB")
	if code != exitNo {
		t.Fatalf("exit %d, want 1 (printable text at 16 MiB is charge-bound under 12 MiB): %s", code, errOut)
	}
	for _, want := range []string{"printed, not pinned", "51,380,224", "101,711,872", "16,777,220", "67,108,868",
		"CONTRADICTS MaxSourceFileBytes", "python-raw-exact-shipped", "predicted rows at cap 51,380,224"} {
		if !strings.Contains(out, want) {
			t.Errorf("derive at 16 MiB does not print %q", want)
		}
	}
	if strings.Contains(out, "Did the seed hold?") {
		t.Error("derive at other limits prints the seed's verdict, which the records hold for the defaults")
	}
	code, out, _ = runVerb(t, "", "derive", "--max-source-file-bytes", "16MiB", "--budget", "16777220", "--json")
	if code != exitOK || !strings.Contains(out, `"pinned": false`) || !strings.Contains(out, `"contradicts": false`) {
		t.Errorf("at the needed budget: exit %d, %.300s", code, out)
	}
	if code, _, _ := runVerb(t, "", "derive", "--max-source-file-bytes", "16MiB", "--out", t.TempDir()); code != exitUsage {
		t.Errorf("--out at other limits: exit %d, want 2", code)
	}
}

// serve enforces the limits it is given: the body cap it announces is the one
// derived from them.
func TestServeTakesTheLimits(t *testing.T) {
	l := charge.DefaultLimits()
	l.MaxSourceFileBytes = 1 << 20
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuf
	done := make(chan error, 1)
	go func() {
		done <- serveOn(ctx, ln, serveOptions{json: true, frontGate: true, budget: 256 << 20, limits: l}, &stdout, &stderr)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(stdout.String(), "max_request_body_bytes") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var ann serveAnnouncement
	if err := json.Unmarshal([]byte(stdout.String()), &ann); err != nil {
		t.Fatal(err)
	}
	if want := charge.BodyCap(l, charge.EnsureASCII, charge.Raw).Cap; ann.MaxRequestBodyBytes != want {
		t.Errorf("serve at a 1 MiB file limit announces cap %d, want %d", ann.MaxRequestBodyBytes, want)
	}
	if code, _, errOut := runVerb(t, "", "serve", "--in-flight-budget", "lots"); code != exitUsage || strings.Contains(errOut, "lots") {
		t.Errorf("a bad --in-flight-budget: exit %d, %s", code, errOut)
	}
}
