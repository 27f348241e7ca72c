package results

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeDoc(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "doc.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

var figureRecs = []Record{
	{ID: "bodycap.python-clients.cap", Value: 26214400, Unit: "bytes"},
	{ID: "worstrender.python-raw-codepoint-shipped.mix-ratio", Value: 6.166651, Unit: "x budget"},
	{ID: "load.guarded.peak-rss", Value: 289804288, Unit: "bytes"},
	{ID: "mcpvalidate.residual.sdk.malformed-400-answer-bytes", Value: 136, Unit: "bytes"},
}

func TestScanFigures(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		kind      string // "" when the doc holds
	}{
		{"explicit link holds", "The cap is [26,214,400 bytes](records.md#bodycap.python-clients.cap).\n", ""},
		{"explicit link drifts", "The cap is [26,214,401 bytes](records.md#bodycap.python-clients.cap).\n", "doc-figure"},
		{"explicit three digits hold", "It answers [136 bytes](records.md#mcpvalidate.residual.sdk.malformed-400-answer-bytes).\n", ""},
		{"explicit three digits drift", "It answers [145 bytes](records.md#mcpvalidate.residual.sdk.malformed-400-answer-bytes).\n", "doc-figure"},
		{"explicit link to no record", "See [1,000](records.md#no.such-record).\n", "doc-figure"},
		{"neighbour holds", "The cap, 26,214,400 bytes (`bodycap.python-clients.cap`).\n", ""},
		{"neighbour to the printed precision", "Worst 6.17x, record worstrender.python-raw-codepoint-shipped.mix-ratio.\n", ""},
		{"neighbour past the printed precision", "Worst 6.18x, record worstrender.python-raw-codepoint-shipped.mix-ratio.\n", "doc-figure"},
		{"scaled", "Peak 276.4 MiB (`load.guarded.peak-rss`).\n", ""},
		{"scaled drift", "Peak 277.4 MiB (`load.guarded.peak-rss`).\n", "doc-figure"},
		{"wildcard names", "Peak 276.4 MiB (`load.guarded.*`).\n", ""},
		{"placeholder names", "Peak 276.4 MiB (`load.<variant>.peak-rss`).\n", ""},
		{"bare", "It measured 2.125x once.\n", "bare-figure"},
		{"bare integer", "A run of 10,349 calls.\n", "bare-figure"},
		{"an id in another paragraph does not count", "Cap 26,214,400.\n\nRecord `bodycap.python-clients.cap`.\n", "bare-figure"},
		{"a limit is allowed bare", "The budget is 12,582,912 characters.\n", ""},
		{"versions, dates, ports, hex, RFCs are not figures",
			"Go 1.26.8, CPython 3.13, Unicode 15.1, protocol 2026-07-28, draft 2020-12, 127.0.0.1:8080, U+1F600, 0x7F, RFC 8259.\n", ""},
		{"HTTP statuses are not figures", "Answered 413, then 400.\n", ""},
		{"code is not prose", "Run `--wire 3276800`.\n\n```\n2.125x 10,349\n```\n\n    indented 9,999\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) { // t.Run writes the spaces as _
			probs := ScanFigures(figureRecs, []string{writeDoc(t, c.doc)}, DocConstants())
			if c.kind == "" {
				if len(probs) != 0 {
					t.Errorf("%s: want no problem, got %v", c.name, probs)
				}
				return
			}
			if len(probs) == 0 || probs[0].Kind != c.kind {
				t.Errorf("%s: want a %s problem, got %v", c.name, c.kind, probs)
			}
		})
	}
}

// TestDocsHoldAndEveryQuoteBreaksOnPerturbation runs the scan over the
// repository's own docs and pinned records: they must hold, and moving any
// record a doc quotes must make the scan fail at that quote.
func TestDocsHoldAndEveryQuoteBreaksOnPerturbation(t *testing.T) {
	pinned, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	recs := allRecords(pinned)
	paths := []string{filepath.Join("..", "docs"), filepath.Join("..", "README.md")}
	quotes, probs := DocQuotes(recs, paths, DocConstants())
	for _, p := range probs {
		t.Errorf("the docs drift from the pinned records: %v", p)
	}
	if len(quotes) < 50 {
		t.Fatalf("only %d quotes found in the docs; the scan is not reading them", len(quotes))
	}
	byID := map[string][]Quote{}
	for _, q := range quotes {
		byID[q.ID] = append(byID[q.ID], q)
	}
	for id, qs := range byID {
		t.Run(id, func(t *testing.T) { // one subtest per quoted record, named by its id
			moved := make([]Record, len(recs))
			copy(moved, recs)
			for i := range moved {
				if moved[i].ID == id {
					moved[i].Value = moved[i].Value*1.37 + 1
				}
			}
			// Only the files that quote the record can change.
			var files []string
			for _, q := range qs {
				if !slices.Contains(files, q.File) {
					files = append(files, q.File)
				}
			}
			after, probs := DocQuotes(moved, files, DocConstants())
			for _, q := range qs {
				at := fmt.Sprintf("%s:%d ", q.File, q.Line)
				failed := false
				for _, p := range probs {
					if strings.HasPrefix(p.Detail, at) && strings.Contains(p.Detail, " "+q.Figure) {
						failed = true
					}
				}
				for _, a := range after {
					// another record the paragraph names holds the same value
					if a.File == q.File && a.Line == q.Line && a.Figure == q.Figure && a.ID != id {
						failed = true
					}
					if a == q {
						failed = false
						break
					}
				}
				if !failed {
					t.Errorf("record %s moved and %s:%d still quotes %s as it", id, q.File, q.Line, q.Figure)
				}
			}
		})
	}
	t.Logf("%d quotes of %d records, each broken by moving its record", len(quotes), len(byID))
}
