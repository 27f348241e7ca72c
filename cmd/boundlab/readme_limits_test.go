package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// readmeLimitRow is the README's row for one limit, as the flags define it.
func readmeLimitRow(sp limitSpec) string {
	def := fmt.Sprint(sp.get(charge.DefaultLimits()))
	if sp.size {
		def = formatSize(sp.get(charge.DefaultLimits()))
	}
	return fmt.Sprintf("| `--%s` | `%s` | `%s` | %s | `%s` |", sp.flag, sp.key, sp.field, sp.about, def)
}

// The README's LIMITS table is the flags' own: one row per limit, in order,
// each with the flag, its --limits key, its charge.Limits field, its meaning
// and its default as the code has them, and no other row.
func TestREADMELimitsTable(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(raw)
	i := strings.Index(sec, "\n### LIMITS")
	if i < 0 {
		t.Fatal("the README has no ### LIMITS section")
	}
	sec = sec[i+1:]
	if j := strings.Index(sec[4:], "\n#"); j >= 0 {
		sec = sec[:j+4]
	}
	var got []string
	for _, l := range strings.Split(sec, "\n") {
		if strings.HasPrefix(l, "| `--") {
			got = append(got, l)
		}
	}
	var want []string
	for _, sp := range limitSpecs {
		want = append(want, readmeLimitRow(sp))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the README's LIMITS rows:\n%s\nwant, from limitSpecs:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, v := range []string{"derive", "sweep", "charge", "validate", "memmodel", "serve"} {
		if !strings.Contains(sec, "`"+v+"`") {
			t.Errorf("the LIMITS section does not name %s, which takes them", v)
		}
	}
}
