package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/results"
	"github.com/theurian/boundlab/sweeps"
)

// labTree is a temporary records dir holding the sweeps producers' records as
// pinned in the repository, a docs dir, and a records.md generated from them.
func labTree(t *testing.T) (results.VerifyOptions, []results.Producer) {
	t.Helper()
	dir := t.TempDir()
	ps := sweeps.Producers(charge.DefaultLimits())
	for _, p := range ps {
		data, err := os.ReadFile(filepath.Join("..", "..", "results", results.FileName(p.Name)))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, results.FileName(p.Name)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs := filepath.Join(dir, "docs")
	os.Mkdir(docs, 0o755)
	pinned, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	md := filepath.Join(docs, "records.md")
	// Producers() order is by name; Markdown must list them the same way verify does.
	os.WriteFile(md, results.Markdown(pinned, slices.Sorted(slices.Values(names))), 0o644)
	return results.VerifyOptions{RecordsDir: dir, Producers: ps, DocPaths: []string{docs}, RecordsMarkdown: md}, ps
}

// verifyOut runs the verb's verify and returns its exit status, and every
// problem (the verb prints only the first few of each kind).
func verifyOut(o results.VerifyOptions) (int, string) {
	var out, errb bytes.Buffer
	code := verifyWith(o, false, &out, &errb)
	probs, err := results.Verify(o)
	if err != nil {
		return -1, err.Error()
	}
	var all []string
	for _, p := range probs {
		all = append(all, p.String())
	}
	return code, out.String() + strings.Join(all, "\n")
}

func TestVerifyPassesOnThePinnedRecords(t *testing.T) {
	o, _ := labTree(t)
	if code, out := verifyOut(o); code != 0 {
		t.Fatalf("verify exit %d on the pinned records:\n%s", code, out)
	}
}

func TestVerifyFailsOnAPerturbedConstant(t *testing.T) {
	o, _ := labTree(t)
	l := charge.DefaultLimits()
	l.MaxSourceFileBytes++ // one byte more file: every body cap moves
	o.Producers = sweeps.Producers(l)
	code, out := verifyOut(o)
	if code != 1 || !strings.Contains(out, "drift [bodycap] bodycap.python-clients.cap: value: pinned 26,214,400 bytes, live 26,214,403 bytes") {
		t.Fatalf("verify exit %d, want 1 naming the cap's drift:\n%s", code, out)
	}
}

func TestVerifyFailsOnAPerturbedPinnedValue(t *testing.T) {
	o, _ := labTree(t)
	path := filepath.Join(o.RecordsDir, "worstrender.json")
	data, _ := os.ReadFile(path)
	perturbed := bytes.Replace(data, []byte(`"value": 75497472`), []byte(`"value": 75497473`), 1)
	if bytes.Equal(perturbed, data) {
		t.Fatal("the pinned file does not hold 75,497,472")
	}
	os.WriteFile(path, perturbed, 0o644)
	code, out := verifyOut(o)
	if code != 1 || !strings.Contains(out, "pinned 75,497,473 characters, live 75,497,472 characters") {
		t.Fatalf("verify exit %d, want 1 naming the value:\n%s", code, out)
	}
}

func TestVerifyFailsOnOrphanAndUnpinnedRecords(t *testing.T) {
	o, ps := labTree(t)
	os.WriteFile(filepath.Join(o.RecordsDir, "ghost.json"), []byte(`{"producer":"ghost","records":[{"id":"ghost.x","title":"t","value":1,"unit":"u","instance":"i","method":"derived","source":"s","build":{"go":"x"}}]}`), 0o644)
	o.Producers = append(ps, results.Producer{Name: "extra", Records: func() ([]results.Record, error) {
		return []results.Record{{ID: "extra.y", Value: 2, Method: results.Derived}}, nil
	}})
	o.RecordsMarkdown = ""
	code, out := verifyOut(o)
	if code != 1 || !strings.Contains(out, "orphan [ghost] ghost.x") || !strings.Contains(out, "unpinned [extra] extra.y") {
		t.Fatalf("verify exit %d, want orphan and unpinned:\n%s", code, out)
	}
}

func TestVerifyFailsOnARetiredFigureQuotedBare(t *testing.T) {
	o, _ := labTree(t)
	doc := filepath.Join(o.DocPaths[0], "note.md")
	os.WriteFile(doc, []byte("# Note\n\nThe worst render was 53,476,811 characters.\n"), 0o644)
	code, out := verifyOut(o)
	if code != 1 || !strings.Contains(out, "retired-quote") || !strings.Contains(out, "note.md:3") {
		t.Fatalf("verify exit %d, want a retired-quote at note.md:3:\n%s", code, out)
	}
	os.WriteFile(doc, []byte("# Note\n\nThe seed's 53,476,811 characters belong to the interim cap\n(retired.seed.interim-reach-filed-under-shipped-cap).\n"), 0o644)
	if code, out := verifyOut(o); code != 0 {
		t.Fatalf("an attributed quote still fails (exit %d):\n%s", code, out)
	}
}

func TestVerifyFailsOnAStaleRecordsReference(t *testing.T) {
	o, _ := labTree(t)
	data, _ := os.ReadFile(o.RecordsMarkdown)
	os.WriteFile(o.RecordsMarkdown, bytes.Replace(data, []byte("26,214,400"), []byte("26,214,401"), 1), 0o644)
	code, out := verifyOut(o)
	if code != 1 || !strings.Contains(out, "stale-markdown") {
		t.Fatalf("verify exit %d, want stale-markdown:\n%s", code, out)
	}
}

// pinnedOnAnotherBuild rewrites every pinned record's toolchain build to one
// no test runs on, so the lab tree's pins differ from the running build on
// every toolchain, as they do for a user on a newer Go.
func pinnedOnAnotherBuild(t *testing.T, o results.VerifyOptions) map[string][]results.Record {
	t.Helper()
	pinned, err := results.Load(o.RecordsDir)
	if err != nil {
		t.Fatal(err)
	}
	for name, rs := range pinned {
		for i := range rs {
			rs[i].Build.Go = "go1.0-simulated"
			rs[i].Build.Unicode = map[string]string{"go": "0.0.0", "python": charge.PythonUnicodeVersion}
		}
		if err := results.Save(o.RecordsDir, name, rs); err != nil {
			t.Fatal(err)
		}
	}
	return pinned
}

func setPinnedValue(t *testing.T, o results.VerifyOptions, producer, id string, v float64) {
	t.Helper()
	pinned, err := results.Load(o.RecordsDir)
	if err != nil {
		t.Fatal(err)
	}
	rs := pinned[producer]
	for i := range rs {
		if rs[i].ID == id {
			rs[i].Value = v
			if err := results.Save(o.RecordsDir, producer, rs); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no pinned %s in %s", id, producer)
}

// TestVerifyOnAnotherBuild: pins from another toolchain re-derive exactly
// the records that depend on the toolchain, and hold every other one exactly.
func TestVerifyOnAnotherBuild(t *testing.T) {
	o, _ := labTree(t)
	o.RecordsMarkdown = "" // the Holds-for lines name the rewritten build
	pinned := pinnedOnAnotherBuild(t, o)
	var dependent []string
	for _, rs := range pinned {
		for _, r := range rs {
			if len(r.DependsOn) > 0 {
				dependent = append(dependent, r.ID)
			}
		}
	}
	slices.Sort(dependent)
	rep, err := results.VerifyReport(o)
	if err != nil || len(rep.Problems) > 0 {
		t.Fatalf("verify on another build: %v %v", err, rep.Problems)
	}
	var got []string
	for _, r := range rep.Rederived {
		got = append(got, r.ID)
		for _, b := range r.Because {
			if !strings.HasPrefix(b, "go: go1.0-simulated -> ") && !strings.HasPrefix(b, "unicode.go: 0.0.0 -> ") {
				t.Errorf("%s re-derived because %q", r.ID, b)
			}
		}
		if len(r.Because) == 0 {
			t.Errorf("%s re-derived for no reason", r.ID)
		}
	}
	if !slices.Equal(got, dependent) || len(got) == 0 {
		t.Errorf("re-derived %v, want exactly the records that depend on the toolchain %v", got, dependent)
	}
	if !strings.Contains(rep.Pinned, "go1.0-simulated") || strings.Contains(rep.Running, "simulated") {
		t.Errorf("builds: pinned %q, running %q", rep.Pinned, rep.Running)
	}
	var out, errb bytes.Buffer
	if code := verifyWith(o, false, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "pins hold for go1.0-simulated (Unicode go=0.0.0") ||
		!strings.Contains(out.String(), "re-derived [sweep] sweep.go.printable (") {
		t.Errorf("verify exit %d:\n%s%s", code, out.String(), errb.String())
	}

	// A toolchain-independent record still matches exactly: a perturbed
	// python-dialect value fails on every toolchain.
	setPinnedValue(t, o, "worstrender", "worstrender.python-raw-codepoint-shipped.class", 75497473)
	if code, out := verifyOut(o); code != 1 || !strings.Contains(out, "drift [worstrender] worstrender.python-raw-codepoint-shipped.class: value: pinned 75,497,473") {
		t.Errorf("perturbed independent record on another build: exit %d:\n%s", code, out)
	}
	setPinnedValue(t, o, "worstrender", "worstrender.python-raw-codepoint-shipped.class", 75497472)

	// A dependent record that moved is reported with both values, not failed.
	var goPrint float64
	for _, r := range pinned["sweep"] {
		if r.ID == "sweep.go.printable" {
			goPrint = r.Value
		}
	}
	setPinnedValue(t, o, "sweep", "sweep.go.printable", goPrint+1)
	out.Reset()
	errb.Reset()
	if code := verifyWith(o, false, &out, &errb); code != 0 || !strings.Contains(out.String(), "sweep.go.printable (unicode.go: 0.0.0 -> ") ||
		!strings.Contains(out.String(), "value: pinned "+results.FormatValue(results.Record{Value: goPrint + 1, Unit: "code points"})) {
		t.Errorf("moved dependent record: exit %d:\n%s%s", code, out.String(), errb.String())
	}

	// --strict-build restores exact build matching.
	o.StrictBuild = true
	if code, out := verifyOut(o); code != 1 || !strings.Contains(out, `build.go: pinned "go1.0-simulated"`) {
		t.Errorf("strict build: exit %d:\n%s", code, out)
	}
}

func TestVerifyFailsOnADocFigureThatDriftsFromItsRecord(t *testing.T) {
	o, _ := labTree(t)
	doc := filepath.Join(o.DocPaths[0], "note.md")
	os.WriteFile(doc, []byte("# Note\n\nThe go dialect prints 148,998 code points (`sweep.go.printable`).\n"), 0o644)
	if code, out := verifyOut(o); code != 0 {
		t.Fatalf("a figure that matches its record fails (exit %d):\n%s", code, out)
	}
	os.WriteFile(doc, []byte("# Note\n\nThe go dialect prints 148,999 code points (`sweep.go.printable`).\n"), 0o644)
	code, out := verifyOut(o)
	if code != 1 || !strings.Contains(out, "doc-figure") || !strings.Contains(out, "note.md:3") {
		t.Fatalf("verify exit %d, want a doc-figure at note.md:3:\n%s", code, out)
	}
	os.WriteFile(doc, []byte("# Note\n\nA sweep once took 1,234 ms.\n"), 0o644)
	if code, out := verifyOut(o); code != 1 || !strings.Contains(out, "bare-figure") {
		t.Fatalf("verify exit %d, want a bare-figure:\n%s", code, out)
	}
}
