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
