package charge_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

func TestDisplayText(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "plain", "plain"},
		{"quote_backslash", "a\"b\\c", `a\"b\\c`},
		{"controls", "\x00\x7f", `\u0000\u007f`},
		{"non_ascii", "é😀", `\u00e9\ud83d\ude00`},
		{"invalid_utf8", "\xff", `\ufffd`},
		{"cut_at_64", strings.Repeat("x", 70), strings.Repeat("x", 64) + "..."},
		{"cut_before_a_wider_piece", "x" + strings.Repeat("é", 20), "x" + strings.Repeat(`\u00e9`, 10) + "..."}, // cut before a piece that would pass 64
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := charge.DisplayText(c.in, 64); got != c.want {
				t.Errorf("DisplayText(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestDisplayPointer(t *testing.T) {
	if got := charge.DisplayPointer([]string{"a/b", "~c", "0"}); got != "/a~1b/~0c/0" {
		t.Errorf("pointer = %q", got)
	}
	if got := charge.DisplayPointer(nil); got != "" {
		t.Errorf("root pointer = %q, want empty", got)
	}
	deep := make([]string, 40)
	for i := range deep {
		deep[i] = "k"
	}
	if got := charge.DisplayPointer(deep); strings.Count(got, "/k") != charge.PointerSegments || !strings.Contains(got, "/...") {
		t.Errorf("deep pointer = %q", got)
	}
	// A 10,000-byte name is cut; the widest possible pointer fits the ceiling.
	wide := make([]string, 40)
	for i := range wide {
		wide[i] = strings.Repeat("\x01", 10_000)
	}
	if got := charge.DisplayPointer(wide); len(got) > charge.MaxPointerBytes {
		t.Errorf("pointer of %d bytes past MaxPointerBytes %d", len(got), charge.MaxPointerBytes)
	}
}

// TestDisplayPointerAtAndPastPointerSegments: PointerSegments tokens are all
// shown; one more keeps the first and last halves around "/...".
func TestDisplayPointerAtAndPastPointerSegments(t *testing.T) {
	toks := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = strconv.Itoa(i)
		}
		return out
	}
	at := toks(charge.PointerSegments)
	if got, want := charge.DisplayPointer(at), "/"+strings.Join(at, "/"); got != want {
		t.Errorf("%d tokens: %q, want %q", len(at), got, want)
	}
	past := toks(charge.PointerSegments + 1)
	half := charge.PointerSegments / 2
	want := "/" + strings.Join(past[:half], "/") + "/..." + "/" + strings.Join(past[len(past)-half:], "/")
	if got := charge.DisplayPointer(past); got != want {
		t.Errorf("%d tokens: %q, want %q", len(past), got, want)
	}
}

// TestDisplayPointerReadsOnlyWhatItShows: a token is cut to KeyCut+1 code
// points before its ~ and / are escaped, so a megabyte token costs what a
// short one does — measured as the bytes allocated, which the escaping of
// the whole token (2 MiB for a MiB of ~) would pass by far.
func TestDisplayPointerReadsOnlyWhatItShows(t *testing.T) {
	tok := strings.Repeat("~", 1<<20)
	want := "/" + strings.Repeat("~0", charge.KeyCut/2) + "..."
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := charge.DisplayPointer([]string{tok})
	runtime.ReadMemStats(&after)
	if got != want {
		t.Errorf("pointer = %q, want %q", got, want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("DisplayPointer of a 1 MiB token allocated %d bytes; a token is cut to %d code points first", n, charge.KeyCut+1)
	}
}
