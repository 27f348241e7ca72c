package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// docs/cli.md is what `boundlab help --markdown` prints now: a flag, a verb
// or a help text changed without regenerating it fails here.
func TestCLIDocIsCurrent(t *testing.T) {
	code, out, errOut := runVerb(t, "", "help", "--markdown")
	if code != exitOK || errOut != "" {
		t.Fatalf("help --markdown: exit %d, stderr %q", code, errOut)
	}
	have, err := os.ReadFile("../../" + CLIDocFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(have) == out {
		return
	}
	got, want := strings.Split(string(have), "\n"), strings.Split(out, "\n")
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Fatalf("%s is stale from line %d:\n  has:  %q\n  want: %q\nregenerate: go run ./cmd/boundlab help --markdown > %s",
				CLIDocFile, i+1, g, w, CLIDocFile)
		}
	}
}

// The reference holds every verb's and subcommand's -h output whole, each
// under its own heading, and one table row per limit; the table of contents
// links each heading.
func TestCLIDocHoldsEveryHelp(t *testing.T) {
	var doc bytes.Buffer
	if err := writeCLIDoc(&doc); err != nil {
		t.Fatal(err)
	}
	text := doc.String()
	for _, target := range helpTargets() {
		name := strings.Join(target, " ")
		t.Run(name, func(t *testing.T) {
			_, help, _ := runVerb(t, "", append(target, "-h")...)
			head := "## `boundlab " + name + "`\n\n```text\n"
			i := strings.Index(text, head)
			if i < 0 {
				t.Fatalf("no section %q", head)
			}
			if !strings.HasPrefix(text[i+len(head):], help+"```\n") {
				t.Errorf("the section of %s is not its -h output", name)
			}
			if !strings.Contains(text, "(#"+anchor(target)+")") {
				t.Errorf("the contents do not link %s", name)
			}
		})
	}
	if n := len(helpTargets()); n != len(verbs)+2 {
		t.Errorf("%d help targets for %d verbs and memmodel's two subcommands", n, len(verbs))
	}
	for _, sp := range limitSpecs {
		t.Run("row_"+sp.flag, func(t *testing.T) {
			if !strings.Contains(text, "\n"+limitRow(sp)+"\n") {
				t.Errorf("no row for --%s", sp.flag)
			}
		})
	}
	var help bytes.Buffer
	usage(&help)
	if !strings.Contains(text, "```text\n"+help.String()+"```\n") {
		t.Error("the conventions are not boundlab help's output")
	}
}

// Every limit's row states its flag, --limits key, charge.Limits field,
// meaning and default as the code has them.
func TestLimitRow(t *testing.T) {
	for _, c := range []struct{ flag, want string }{
		{"max-source-file-bytes", "| `--max-source-file-bytes` | `max_source_file_bytes` | `MaxSourceFileBytes` | the largest file a call may land, in UTF-8 bytes; the body cap derives from it | `8MiB` |"},
		{"max-nesting", "| `--max-nesting` | `max_nesting` | `MaxParamsNesting` | how deep containers nest (the root is depth 1) | `64` |"},
	} {
		t.Run(c.flag, func(t *testing.T) {
			for _, sp := range limitSpecs {
				if sp.flag == c.flag {
					if got := limitRow(sp); got != c.want {
						t.Errorf("got  %s\nwant %s", got, c.want)
					}
					return
				}
			}
			t.Fatalf("no limit --%s", c.flag)
		})
	}
}
