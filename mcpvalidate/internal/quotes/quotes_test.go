package quotes

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// words is a value with no repeats a search could mistake: random
// lower-case letters.
func words(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	return string(b)
}

func args(t *testing.T, kv map[string]string) []byte {
	t.Helper()
	b, err := json.Marshal(kv)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// longestRun is the slow reference: the longest stretch of out that is a
// substring of one of forms, by trying every start and length.
func longestRun(out string, forms []string) int {
	best := 0
	for i := range out {
		for _, f := range forms {
			n := best + 1
			for i+n <= len(out) && strings.Contains(f, out[i:i+n]) {
				best = n
				n++
			}
		}
	}
	return best
}

// allForms are the forms Strip promises to recognise, built here without
// its helpers.
func allForms(s string) []string {
	q := strconv.Quote(s)
	j, _ := json.Marshal(s)
	var plain strings.Builder
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	p := strings.TrimSpace(plain.String())
	return []string{s, q[1 : len(q)-1], string(j[1 : len(j)-1]), p[1 : len(p)-1],
		url.PathEscape(s), url.QueryEscape(s), (&url.URL{Scheme: "file", Path: s}).EscapedPath()}
}

func TestARunAtTheBoundStaysOnePastIsMarked(t *testing.T) {
	v := words(1, 4000)
	a := args(t, map[string]string{"file": v})
	for _, c := range []struct {
		run  int
		kept bool
	}{{MaxRun, true}, {MaxRun + 1, false}, {4000, false}} {
		for _, at := range []int{0, min(17, 4000-c.run), 4000 - c.run} {
			text := "open " + v[at:at+c.run] + ": no such file"
			out, changed := Strip(text, a)
			if c.kept {
				if changed || out != text {
					t.Errorf("a run of %d bytes at %d: changed to %q", c.run, at, out)
				}
				continue
			}
			want := "open " + Mark(c.run) + ": no such file"
			if !changed || out != want {
				t.Errorf("a run of %d bytes at %d: %q, want %q", c.run, at, out, want)
			}
		}
	}
}

func TestEveryFormIsRecognised(t *testing.T) {
	// Each byte class widens in some form: a quote, a backslash, HTML
	// characters, a control, U+2028, a non-printable rune, a space, a
	// slash, DEL.
	v := strings.Repeat("ab\"c\\d<e>f&g\x01h\u2028i\u00adj k/l\x7f", 60)
	a := args(t, map[string]string{"name": v})
	for i, f := range allForms(v) {
		text := "bad name \"" + f + "\" (twice: " + f + ")"
		out, changed := Strip(text, a)
		if !changed {
			t.Errorf("form %d not recognised", i)
			continue
		}
		if n := longestRun(out, allForms(v)); n > MaxRun {
			t.Errorf("form %d: a run of %d bytes left in %q", i, n, out)
		}
		if !strings.HasPrefix(out, "bad name \"") || !strings.HasSuffix(out, ")") {
			t.Errorf("form %d: the handler's own text lost: %q", i, out)
		}
	}
}

func TestTheAuditsEchoIsCut(t *testing.T) {
	// The value the auditor sends (a canary, then the filler), quoted
	// twice the way mcp-grafana's get_datasource quotes it: the text's
	// windows fall in the filler, at alignments that miss the canary.
	v := "cAnArY77" + strings.Repeat("&", 65536)
	a := args(t, map[string]string{"name": v})
	text := "get datasource by name " + v + ": Get \"http://127.0.0.1:9/api/datasources/name/" + v + "\": connection refused"
	out, changed := Strip(text, a)
	want := "get datasource by name " + Mark(len(v)) + ": Get \"http://127.0.0.1:9/api/datasources/name/" + Mark(len(v)) + "\": connection refused"
	if !changed || out != want {
		t.Fatalf("%d bytes answered for a %d-byte value quoted twice: %.200q", len(out), len(v), out)
	}
	if n := longestRun(out, []string{v}); n > MaxRun {
		t.Errorf("a run of %d bytes left", n)
	}

}

func TestShortArgumentsAndShortTextsPass(t *testing.T) {
	v := words(2, 4000)
	if out, changed := Strip(v[:MaxRun], args(t, map[string]string{"a": v})); changed || out != v[:MaxRun] {
		t.Error("a text of MaxRun bytes changed")
	}
	short := args(t, map[string]string{"a": v[:minString-1]})
	text := strings.Repeat(v[:minString-1], 20)
	if out, changed := Strip(text, short); changed || out != text {
		t.Error("a text quoting only a string too short to matter changed")
	}
	// A member name counts as a string.
	named := []byte(`{"` + v + `":1}`)
	if _, changed := Strip("unknown "+v, named); !changed {
		t.Error("a long member name quoted back was kept")
	}
}

func TestTextTooRepetitiveIsWithheld(t *testing.T) {
	// Every window of the text matches every position of the value, and
	// no run is long: the search would compare without end.
	v := strings.Repeat("a", 1<<16)
	text := strings.Repeat(strings.Repeat("a", 200)+"b", 100)
	if out, changed := Strip(text, args(t, map[string]string{"a": v})); !changed || out != Withheld {
		t.Errorf("got %.80q, want the fixed text", out)
	}
}

func TestAMarkWrittenIntoTheValueIsFound(t *testing.T) {
	// The caller writes into the value what the mark between its two
	// halves will read: the first pass leaves one long run behind.
	head, tail := words(3, 200), words(4, 200)
	mid := words(5, 300)
	v := head + Mark(300) + tail
	a := args(t, map[string]string{"a": v, "b": mid})
	text := head + mid + tail
	out, _ := Strip(text, a)
	if n := longestRun(out, append(allForms(v), allForms(mid)...)); n > MaxRun {
		t.Errorf("a run of %d bytes left: %q", n, out)
	}
}

func TestErrorKeepsTheChain(t *testing.T) {
	v := words(6, 1000)
	base := errors.New("no such file " + v)
	a := Of(args(t, map[string]string{"file": v}))
	err := a.Error(base)
	if err.Error() != "no such file "+Mark(1000) || !errors.Is(err, base) {
		t.Errorf("Error: %q, is base %v", err, errors.Is(err, base))
	}
	clean := errors.New("no such file")
	if a.Error(clean) != clean {
		t.Error("an error with nothing to strip was replaced")
	}
	if a.Error(nil) != nil {
		t.Error("nil error not nil")
	}
}

// One Arguments serves every text of an answer: the forms a later text
// needs are built then, and a form an earlier text built still counts.
func TestOneArgumentsManyTexts(t *testing.T) {
	v := strings.Repeat("<ab", 200)
	a := Of(args(t, map[string]string{"q": v}))
	q := strconv.Quote(v)
	if out, changed := a.Strip("plain " + v); !changed || out != "plain "+Mark(len(v)) {
		t.Errorf("as sent: %.80q", out)
	}
	if a.built[escaped] {
		t.Error("escaped forms built for a text without a backslash")
	}
	if out, changed := a.Strip("quoted " + q); !changed || out != "quoted \""+Mark(len(q)-2)+"\"" {
		t.Errorf("%%q: %.80q", out)
	}
	if out, changed := a.Strip("again " + v); !changed || out != "again "+Mark(len(v)) {
		t.Errorf("as sent, after: %.80q", out)
	}
}

func FuzzStrip(f *testing.F) {
	f.Add("abc<\"\\def", 40, 3, 300, uint8(0), "pre", "post")
	f.Add("x", 300, 0, 300, uint8(1), "", "")
	f.Add("\u2028\x01é", 100, 5, 257, uint8(2), "a\\", "b")
	f.Fuzz(func(t *testing.T, unit string, reps, at, n int, form uint8, pre, post string) {
		if reps < 0 || reps > 2000 || len(unit)*reps > 1<<14 || len(pre)+len(post) > 1<<10 {
			return
		}
		v := strings.ToValidUTF8(strings.Repeat(unit, reps), "?")
		a, err := json.Marshal(map[string]string{"v": v})
		if err != nil {
			return
		}
		fs := allForms(v)
		fv := fs[int(form)%len(fs)]
		if at < 0 || n < 0 || at > len(fv) {
			return
		}
		n = min(n, len(fv)-at)
		text := pre + fv[at:at+n] + post
		out, changed := Strip(text, a)
		if out == Withheld {
			return
		}
		if m := longestRun(out, fs); m > MaxRun {
			t.Fatalf("a run of %d bytes left", m)
		}
		if !changed && out != text {
			t.Fatal("unchanged, but not the text")
		}
		if longestRun(text, fs) <= MaxRun && out != text {
			t.Fatalf("no long run, but changed: %q", out)
		}
	})
}
