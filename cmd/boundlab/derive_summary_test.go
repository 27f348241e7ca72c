package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/theurian/boundlab/results"
)

// The bounds derive's default output is held to: what a security engineer
// reads in a terminal, not the record dump.
const (
	summaryMaxLines   = 150
	summaryMaxColumns = 120
)

// derive with no flag, from the repository's root as a user runs it, is the
// summary: the verdict, the limits and what derives from them, and where the
// records are and how to list them, within the bounds; every producer that
// re-measures servers is named as not run, with how to run it; --list-records
// adds every record.
func TestDeriveSummaryIsBoundedAndSaysWhereTheRecordsAre(t *testing.T) {
	t.Chdir("../..")
	code, out, errOut := runVerb(t, "", "derive")
	if code != exitOK {
		t.Fatalf("derive: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > summaryMaxLines {
		t.Errorf("derive prints %d lines, more than %d", len(lines), summaryMaxLines)
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > summaryMaxColumns {
			t.Errorf("derive line %d is %d columns: %q", i+1, n, l)
		}
	}
	for _, want := range []string{"Did the seed hold?", "The core's limits", "What derives from them", "body cap, ensure_ascii+raw clients",
		"results/<producer>.json", "boundlab derive --list-records", "to re-measure them: boundlab derive --only"} {
		if !strings.Contains(out, want) {
			t.Errorf("derive's summary lacks %q", want)
		}
	}
	_, notRun, err := results.Select(results.Producers(), nil, false)
	if err != nil || len(notRun) == 0 {
		t.Fatalf("no producer re-measures a server (%v): the test has nothing to hold", err)
	}
	for _, sk := range notRun {
		if !strings.Contains(out, "not re-measured ["+sk.Producer+"]") {
			t.Errorf("derive does not say %s was not re-measured", sk.Producer)
		}
	}
	pinned, err := results.Load("results")
	if err != nil {
		t.Fatal(err)
	}
	someID := pinned["memmodel"][len(pinned["memmodel"])-1].ID
	if strings.Contains(out, someID) {
		t.Errorf("the summary lists records (%s) without --list-records", someID)
	}
	code, list, errOut := runVerb(t, "", "derive", "--list-records")
	if code != exitOK || !strings.HasPrefix(list, out[:strings.Index(out, "\nThe records")]) {
		t.Fatalf("derive --list-records: exit %d, not the summary first: %s", code, errOut)
	}
	for name, rs := range pinned {
		for _, r := range rs {
			if !strings.Contains(list, "  "+r.ID+"  ") {
				t.Errorf("derive --list-records lacks %s's record %s", name, r.ID)
				break
			}
		}
	}
}

// derive --json keeps every record: a producer not run has its pinned
// records in producers and its reason in not_run.
func TestDeriveJSONNamesWhatItDidNotRun(t *testing.T) {
	t.Chdir("../..")
	code, out, errOut := runVerb(t, "", "derive", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got deriveJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	pinned, err := results.Load("results")
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]int{}
	for _, f := range got.Producers {
		in[f.Producer] = len(f.Records)
	}
	_, notRun, _ := results.Select(results.Producers(), nil, false)
	if len(got.NotRun) != len(notRun) {
		t.Errorf("not_run holds %d producers, want %d", len(got.NotRun), len(notRun))
	}
	for _, sk := range got.NotRun {
		if sk.Reason == "" || sk.Pinned != len(pinned[sk.Producer]) || in[sk.Producer] != len(pinned[sk.Producer]) {
			t.Errorf("not_run %+v: producers holds %d of its records, %d pinned", sk, in[sk.Producer], len(pinned[sk.Producer]))
		}
	}
}

func TestDeriveOnlyRefusesAnUnknownProducer(t *testing.T) {
	for _, verb := range []string{"derive", "verify"} {
		if code, _, errOut := runVerb(t, "", verb, "--only", "sweep,no-such-producer"); code != exitUsage || !strings.Contains(errOut, `"no-such-producer"`) {
			t.Errorf("%s --only no-such-producer: exit %d, %s", verb, code, errOut)
		}
		if code, _, _ := runVerb(t, "", verb, "--all", "--only", "sweep"); code != exitUsage {
			t.Errorf("%s --all --only: exit %d", verb, code)
		}
	}
}

// writeFitted keeps every line within the width: a last cell wraps beside
// its row, or, when a word of it cannot stand there, goes under the row's
// second column, or hangs when it cannot stand there either (a word wider
// than the whole line stands alone past it).
func TestWriteFitted(t *testing.T) {
	var b bytes.Buffer
	writeFitted(&b, "  ", [][]string{
		{"a", "one", "short"},
		{"bbbb", "two", "many words that do not fit beside the row"},
		{"c", "three", "an-identifier-of-30-columns-xx"},
		{"d", "four", "an-identifier-of-36-columns-xxxxxxxx"},
		{"lone"},
	}, 40)
	want := "" +
		"  a     one    short\n" +
		"  bbbb  two    many words that do not\n" +
		"               fit beside the row\n" +
		"  c     three\n" +
		"        an-identifier-of-30-columns-xx\n" +
		"  d     four\n" +
		"      an-identifier-of-36-columns-xxxxxxxx\n" +
		"  lone\n"
	if b.String() != want {
		t.Errorf("writeFitted:\n%s\nwant:\n%s", b.String(), want)
	}
}
