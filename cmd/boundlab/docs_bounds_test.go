package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

// TestDocsStateTheConstants: docs/mcpvalidate.md states the weights and
// defaults adopters size by; each statement is held to the live constant,
// so raising a weight from a measurement cannot leave the docs behind.
func TestDocsStateTheConstants(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "mcpvalidate.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, want := range []string{
		"`bounds.SessionCost` (`" + size(bounds.SessionCost) + "`)",
		"`bounds.StreamCost` (`" + size(bounds.StreamCost) + "`)",
		"`" + size(bounds.DefaultSessionBytes) + "` admits `" + thousands(bounds.DefaultSessionBytes/(bounds.SessionCost+bounds.StreamCost)) + "`",
		"`bounds.DefaultStreamIdle` (`" + minutes(bounds.DefaultStreamIdle) + "`)",
		"`SessionIdle` (`" + minutes(bounds.DefaultSessionIdle) + "`)",
		"`bounds.DefaultStreamsPerSession` (`" + strconv.Itoa(bounds.DefaultStreamsPerSession) + "`)",
		"(`" + size(bounds.ConnCost) + "` each",
		"`MaxHeaderBytes`, `" + size(bounds.MaxHeaderBytes) + "`",
		"`" + strconv.Itoa(int(bounds.ConnWait/time.Second)) + " s` for one",
		"`" + strconv.Itoa(int(bounds.ConnHeaderGrace/time.Second)) + " s` (`bounds.ConnHeaderGrace`)",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/mcpvalidate.md does not state %s", want)
		}
	}
}

func size(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

func minutes(d time.Duration) string { return strconv.Itoa(int(d/time.Minute)) + " minutes" }

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
