package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/charge"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "limits.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The flags are charge's limits-file members, one each, in its order, each
// named as its member in kebab case (the help says the file's keys are the
// flags' names in snake case).
func TestLimitFlagsAreChargesMembers(t *testing.T) {
	var keys []string
	for _, sp := range limitSpecs {
		keys = append(keys, sp.key)
		t.Run(sp.flag, func(t *testing.T) {
			if want := strings.ReplaceAll(sp.key, "_", "-"); sp.flag != want {
				t.Errorf("flag --%s for member %s, want --%s", sp.flag, sp.key, want)
			}
		})
	}
	if got := charge.LimitsMembers(); !slices.Equal(keys, got) {
		t.Errorf("the flags' keys %v, charge's members %v", keys, got)
	}
}

// Every flag sets the charge.Limits field its help names, from a flag and
// from a file, and a flag beside the file wins.
func TestLimitFlagsSetTheirFields(t *testing.T) {
	for i, sp := range limitSpecs {
		v := sp.get(charge.DefaultLimits()) + int64(i) + 1
		for _, tc := range []struct {
			name string
			args []string
		}{
			{"flag", []string{"--" + sp.flag, formatSize(v)}},
			{"file", []string{"--limits", writeFile(t, `{"`+sp.key+`": `+formatJSONValue(v)+`}`)}},
			{"flag beside file", []string{"--limits", writeFile(t, `{"`+sp.key+`": 1}`), "--" + sp.flag, formatSize(v)}},
		} {
			t.Run(sp.flag+"/"+tc.name, func(t *testing.T) {
				c := newCommand("t", nil, "")
				lf := addLimitFlags(c)
				if err := c.Parse(tc.args); err != nil {
					t.Fatal(err)
				}
				got, err := lf.resolve()
				if err != nil || !lf.given() {
					t.Fatalf("%v: %v, given %v", tc.args, err, lf.given())
				}
				f := reflect.ValueOf(&got).Elem().FieldByName(sp.field)
				if !f.IsValid() || f.Int() != v {
					t.Fatalf("%v: field %s is %v, want %d", tc.args, sp.field, f, v)
				}
				if f.SetInt(sp.get(charge.DefaultLimits())); got != charge.DefaultLimits() {
					t.Errorf("%v: set another field too: %+v", tc.args, got)
				}
			})
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
		{"key twice", []string{"--limits", writeFile(t, `{"budget": 1, "budget": 2}`)}},
		{"file too large", []string{"--limits", writeFile(t, "{}"+strings.Repeat(" ", charge.MaxLimitsFileBytes))}},
		{"no such file", []string{"--limits", filepath.Join(t.TempDir(), "none.json")}},
		{"invalid limits", []string{"--budget", "0"}},
		{"int overflow", []string{"--max-nodes", "4GiB"}},
		{"body cap overflow", []string{"--max-source-file-bytes", "9223372036854775807"}},
	} {
		for _, verb := range []string{"derive", "charge"} {
			t.Run(tc.name+"/"+verb, func(t *testing.T) {
				args := append([]string{verb}, tc.args...)
				if verb == "charge" {
					args = append(args, "-")
				}
				code, out, errOut := runVerb(t, "{}", args...)
				if code != exitUsage || out != "" {
					t.Errorf("exit %d, stdout %q", code, out)
				}
				if strings.Contains(errOut, "CANARY") || len(errOut) > 400 {
					t.Errorf("stderr quotes the input or runs long (%d bytes): %s", len(errOut), errOut)
				}
			})
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
