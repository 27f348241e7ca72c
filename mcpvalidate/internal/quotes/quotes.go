// Package quotes keeps a tool's error from quoting a long argument back to
// the caller. A handler that reports a bad file or an unknown name often
// quotes the value it was given; when the value is long, the error costs
// the caller's bytes again, six times over once Go's JSON encoder escapes
// them.
//
// Strip replaces every run of more than MaxRun bytes of one argument string
// found in an error's text — as the caller sent it, quoted the way Go's %q
// and strconv.Quote write it, escaped the way encoding/json writes it, or
// percent-encoded the way net/url writes a path or a query value (a file
// name turned into a URI) —
// by a short mark that says how many bytes were left out. A run of at most
// MaxRun bytes (a path, a name) stays, so an error stays useful.
//
// Where it ends: a run is a stretch of consecutive bytes of one string's
// form; a handler that re-encodes a value some other way (upper-cased,
// base64, a number printed) or prints many short arguments together is
// not recognised. The work is linear in the text and the forms of the long
// strings, with a fixed allowance of comparisons: text too repetitive to
// separate within it is replaced whole by a fixed message.
package quotes

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/theurian/boundlab/mcpvalidate/bounds"
)

// MaxRun is the longest run of one argument's bytes an error may keep.
const MaxRun = bounds.MaxArgumentQuote

// anchor is the length of the text windows the search starts from: one
// every anchor bytes, so any run of 2*anchor-1 bytes holds a whole window.
const anchor = (MaxRun + 1) / 2

// minString is the shortest string whose longest form (encoding/json
// writes '<' as six bytes) can be longer than MaxRun.
const minString = (MaxRun + 1 + 5) / 6

// Withheld is the text an error is replaced by when its quotes cannot be
// separated within the search's allowance.
const Withheld = "the tool's error quoted its arguments; its text is not sent"

// Arguments are one call's arguments (raw JSON) as the search of its
// answer's texts needs them: the long strings decoded once, each form
// built once, when a text first needs it.
type Arguments struct {
	raw     []byte
	decoded bool
	long    []string // the strings (member names included) of minString bytes or more
	forms   [][]byte // each form longer than MaxRun, once
	built   [3]bool  // the kinds of form in forms: as sent, backslash-escaped, percent-encoded
}

// Of returns arguments ready to search texts for.
func Of(arguments []byte) *Arguments { return &Arguments{raw: arguments} }

// Strip returns text with each run of more than MaxRun bytes of a string
// in the arguments replaced by a mark, and whether it changed anything.
// Arguments too short to hold such a string, or a text too short to quote
// one, cost a length comparison.
func (a *Arguments) Strip(text string) (string, bool) {
	if len(text) <= MaxRun || len(a.raw) < minString+2 {
		return text, false
	}
	forms := a.formsFor(text)
	if len(forms) == 0 {
		return text, false
	}
	out, changed, ok := strip(text, forms)
	if ok && changed {
		// A mark can only join two runs into one when the caller wrote
		// the mark into the value: one more pass finds that.
		var again bool
		out, again, ok = strip(out, forms)
		ok = ok && !again
	}
	if !ok {
		return Withheld, true
	}
	return out, changed
}

// Strip is Of(arguments).Strip(text).
func Strip(text string, arguments []byte) (string, bool) { return Of(arguments).Strip(text) }

// The kinds of form.
const (
	sent = iota
	escaped
	percent
)

// formsFor returns the forms text may quote: as sent (decoded); as %q
// writes it, and as encoding/json writes it with and without HTML
// escaping, without their quotes; percent-encoded as net/url writes a
// path, a query value and a file URL's path. The escaped forms differ from
// the decoded one only by backslash escapes (percent escapes), so they are
// built only for a text holding a backslash (a percent sign).
func (a *Arguments) formsFor(text string) [][]byte {
	if !a.decoded {
		a.decoded = true
		a.long = longStrings(a.raw)
	}
	a.build(sent)
	if strings.IndexByte(text, '\\') >= 0 {
		a.build(escaped)
	}
	if strings.IndexByte(text, '%') >= 0 {
		a.build(percent)
	}
	return a.forms
}

func (a *Arguments) build(kind int) {
	if a.built[kind] {
		return
	}
	a.built[kind] = true
	for _, s := range a.long {
		switch kind {
		case sent:
			a.add([]byte(s))
		case escaped:
			q := strconv.Quote(s)
			a.add([]byte(q[1 : len(q)-1]))
			a.add(jsonForm(s, true))
			a.add(jsonForm(s, false))
		case percent:
			a.add([]byte(url.PathEscape(s)))
			a.add([]byte(url.QueryEscape(s)))
			a.add([]byte((&url.URL{Scheme: "file", Path: s}).EscapedPath()))
		}
	}
}

// add keeps f if it is longer than MaxRun and not kept already.
func (a *Arguments) add(f []byte) {
	if len(f) <= MaxRun {
		return
	}
	for _, g := range a.forms {
		if bytes.Equal(f, g) {
			return
		}
	}
	a.forms = append(a.forms, f)
}

// longStrings returns each string (member names included) of minString
// bytes or more in arguments, decoded.
func longStrings(arguments []byte) []string {
	var long []string
	for i := 0; i < len(arguments); i++ {
		if arguments[i] != '"' {
			continue
		}
		end := stringEnd(arguments, i+1)
		if end < 0 {
			break
		}
		if end-i-1 >= minString {
			var s string
			if json.Unmarshal(arguments[i:end+1], &s) == nil {
				long = append(long, s)
			}
		}
		i = end
	}
	return long
}

// stringEnd is the index of the quote that ends the JSON string whose
// content starts at i, or -1.
func stringEnd(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// jsonForm is s as encoding/json writes it, without its quotes.
func jsonForm(s string, html bool) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	if enc.Encode(s) != nil {
		return nil
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return b[1 : len(b)-1]
}

// The window hash: a polynomial over the bytes, mod 2^64.
const base = 0x100000001b3

var basePow = func() uint64 {
	p := uint64(1)
	for range anchor {
		p *= base
	}
	return p
}()

func hash(b []byte) uint64 {
	var h uint64
	for _, c := range b {
		h = h*base + uint64(c)
	}
	return h
}

func hashString(s string) uint64 {
	var h uint64
	for i := 0; i < len(s); i++ {
		h = h*base + uint64(s[i])
	}
	return h
}

// strip is one pass: it finds every run of more than MaxRun bytes of a
// form in text and replaces it. ok is false when the comparisons it would
// take pass the allowance.
func strip(text string, forms [][]byte) (out string, changed, ok bool) {
	// Windows of the text, one every anchor bytes, by hash; gone marks
	// those inside a run already found.
	windows := make(map[uint64][]int, len(text)/anchor)
	for p := 0; p+anchor <= len(text); p += anchor {
		h := hashString(text[p : p+anchor])
		windows[h] = append(windows[h], p)
	}
	gone := make([]bool, len(text)/anchor)
	var runs []span
	// Each comparison reads at most the run it finds; the allowance is a
	// few reads of the text and the forms. Widening runs has as much
	// again, and stops short when it is spent.
	allowance := 8 * (len(text) + anchor)
	for _, f := range forms {
		allowance += 8 * len(f)
	}
	widening := allowance
	for _, f := range forms {
		if len(f) < anchor {
			continue
		}
		h := hash(f[:anchor])
		for q := 0; ; q++ {
			if ps, hit := windows[h]; hit {
				kept := ps[:0]
				for _, p := range ps {
					if gone[p/anchor] {
						continue
					}
					from, to, cost := extend(text, f, p, q, &widening)
					allowance -= cost
					if allowance < 0 {
						return "", false, false
					}
					if to-from <= MaxRun {
						kept = append(kept, p)
						continue
					}
					runs = append(runs, span{from, to})
					for w := (from + anchor - 1) / anchor; w*anchor+anchor <= to; w++ {
						gone[w] = true
					}
				}
				if len(kept) == 0 {
					delete(windows, h)
				} else {
					windows[h] = kept
				}
			}
			if q+anchor >= len(f) {
				break
			}
			h = h*base + uint64(f[q+anchor]) - basePow*uint64(f[q])
		}
	}
	if len(runs) == 0 {
		return text, false, true
	}
	return replace(text, runs), true, true
}

// span is a run of text, [from, to).
type span struct{ from, to int }

// extend returns the longest run around text[p:p+anchor] that equals f
// around f[q:q+anchor], empty when the window is a hash collision, and the
// bytes compared. A long run is then widened by the bytes of f at another
// alignment on either side (a value that repeats itself, or whose start
// the window missed), within the budget w.
func extend(text string, f []byte, p, q int, w *int) (from, to, cost int) {
	if text[p:p+anchor] != string(f[q:q+anchor]) {
		return p, p, anchor
	}
	from, to = p, p+anchor
	for i := 1; p-i >= 0 && q-i >= 0 && text[p-i] == f[q-i]; i++ {
		from = p - i
	}
	for j := anchor; p+j < len(text) && q+j < len(f) && text[p+j] == f[q+j]; j++ {
		to = p + j + 1
	}
	cost = anchor + (to - from)
	if to-from <= MaxRun {
		return from, to, cost
	}
	from -= widen(from, func(k int) []byte { return []byte(text[from-k : from+anchor]) }, f, w)
	to += widen(len(text)-to, func(k int) []byte { return []byte(text[to-anchor : to+k]) }, f, w)
	return from, to, cost
}

// widen returns the most bytes k (at most room and MaxRun) for which
// seg(k) is in f — by bisection, a part of a segment in f being in f —
// each search taken from the budget w; with none left, what it has.
func widen(room int, seg func(k int) []byte, f []byte, w *int) int {
	in := func(k int) bool {
		if *w <= 0 {
			return false
		}
		i := bytes.Index(f, seg(k))
		if i < 0 {
			*w -= len(f)
			return false
		}
		*w -= i + k + anchor
		return true
	}
	hi := min(room, MaxRun)
	// Most quotes end where the argument does: one byte tells.
	if hi == 0 || !in(1) {
		return 0
	}
	if in(hi) {
		return hi
	}
	lo := 1
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if in(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// replace writes text with each run (merged where they overlap or touch)
// replaced by a mark.
func replace(text string, runs []span) string {
	// Few runs: insertion order is enough to sort them.
	for i := 1; i < len(runs); i++ {
		for j := i; j > 0 && runs[j].from < runs[j-1].from; j-- {
			runs[j], runs[j-1] = runs[j-1], runs[j]
		}
	}
	var b strings.Builder
	at := 0
	for i := 0; i < len(runs); {
		from, to := runs[i].from, runs[i].to
		for i++; i < len(runs) && runs[i].from <= to; i++ {
			to = max(to, runs[i].to)
		}
		b.WriteString(text[at:from])
		b.WriteString(Mark(to - from))
		at = to
	}
	b.WriteString(text[at:])
	return b.String()
}

// Mark is what a run of n bytes of the arguments is replaced by.
func Mark(n int) string {
	return "[" + strconv.Itoa(n) + " bytes of the call's arguments, not quoted]"
}

// Error returns err with its text stripped of long quotes of the
// arguments: err itself when there are none, else an error whose Error is
// the stripped text and which unwraps to err, so errors.Is and errors.As
// see what the handler returned.
func (a *Arguments) Error(err error) error {
	if err == nil {
		return nil
	}
	msg, changed := a.Strip(err.Error())
	if !changed {
		return err
	}
	return &stripped{msg, err}
}

type stripped struct {
	msg string
	err error
}

func (e *stripped) Error() string { return e.msg }
func (e *stripped) Unwrap() error { return e.err }
