// Package sweeps holds charge's code-point model to independent
// implementations over every Unicode scalar value, and derives from the result
// the figures boundlab records: the class tables, the body-cap multiplier and
// its residual, and the worst render each charge rule admits under a given
// transport cap.
//
// What it promises: Run visits all 1,112,064 scalar values (every code point
// but the 2,048 surrogates, which no encoder puts on the wire) and compares,
// code point by code point, charge.WireClasses, Encoder.RuneWireBytes,
// Dialect.RuneClass and Dialect.RuneWidth with Go's encoding/json, a port of
// CPython 3.13's json.dumps escaping (ensure_ascii and raw) and the slow
// reference renderer in charge/reference. A derivation is only as good as that
// proof, so every producer here refuses to produce records when it fails.
//
// Where it ends: a sweep proves the per-code-point model. How a whole string
// renders (Python's quote rule) and what a document's punctuation adds are the
// gate's and the reference renderer's business, checked in package charge;
// the instances built here drive them end to end.
package sweeps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// ScalarValues is how many code points a sweep visits: U+0000..U+10FFFF
// without the surrogates U+D800..U+DFFF.
const ScalarValues = utf8.MaxRune + 1 - 0x800

// maxMismatches bounds how many disagreements a sweep keeps for its report.
const maxMismatches = 32

// Mismatch is one disagreement between the model and an oracle.
type Mismatch struct {
	Rune   rune
	What   string // which property
	Model  string
	Oracle string
}

func (m Mismatch) String() string {
	return fmt.Sprintf("U+%04X %s: model %s, oracle %s", m.Rune, m.What, m.Model, m.Oracle)
}

// Sweep is what the oracles said about every scalar value, and where the model
// disagreed with them.
type Sweep struct {
	CodePoints    int        // scalar values visited
	Checks        int64      // comparisons made
	Mismatches    []Mismatch // the first few disagreements, by code point
	MismatchCount int
	ClassCounts   []int // code points per charge.WireClasses entry, as the sweep tallied them

	// Oracle observations, indexed by code point; zero for surrogates.
	wire   [4][]uint8 // by charge.Encoder
	width  [3][]uint8 // by charge.Dialect: reference width without the quotes
	rclass [3][]charge.RenderClass
	class  []uint8 // index into wireClasses (the model's, proven unique)
}

// OK reports whether the model agreed with every oracle on every code point.
func (s *Sweep) OK() bool { return s.MismatchCount == 0 && s.CodePoints == ScalarValues }

// Err is nil when the proof holds, else an error naming the first mismatches.
func (s *Sweep) Err() error {
	if s.OK() {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sweep: %d of %d code points visited, %d mismatches", s.CodePoints, ScalarValues, s.MismatchCount)
	for _, m := range s.Mismatches {
		b.WriteString("\n  ")
		b.WriteString(m.String())
	}
	return fmt.Errorf("%s", b.String())
}

func isSurrogate(r rune) bool { return r >= 0xd800 && r < 0xe000 }

// renderClassOf reads the render class off inner, the reference renderer's
// text for r alone.
func renderClassOf(r rune, inner string) charge.RenderClass {
	switch {
	case r == '\'':
		return charge.Quote
	case inner == string(r):
		return charge.Printable
	case strings.HasPrefix(inner, `\x`):
		return charge.HexEscape
	case strings.HasPrefix(inner, `\u`):
		return charge.UEscape4
	case strings.HasPrefix(inner, `\U`):
		return charge.UEscape8
	case len(inner) == 2 && inner[0] == '\\':
		return charge.ShortEscape
	}
	return 0
}

type worker struct {
	s          *Sweep
	mismatches []Mismatch
	count      int
	checks     int64
	classCount []int
	visited    int
	runes      []rune
	batch      []byte
	py         []byte
	jbuf       bytes.Buffer
	jenc       *json.Encoder
}

func newWorker(s *Sweep) *worker {
	w := &worker{s: s, classCount: make([]int, len(wireClasses))}
	w.jenc = json.NewEncoder(&w.jbuf) // HTML escaping on: encoding/json's default
	return w
}

func (w *worker) mismatch(r rune, what string, model, oracle any) {
	w.count++
	if len(w.mismatches) < maxMismatches {
		w.mismatches = append(w.mismatches, Mismatch{r, what, fmt.Sprint(model), fmt.Sprint(oracle)})
	}
}

func (w *worker) checkInt(r rune, what string, model, oracle int) {
	w.checks++
	if model != oracle {
		w.mismatch(r, what, model, oracle)
	}
}

// Labels, built once: a sweep makes ~20 million comparisons.
var (
	wireLabel  [4]string
	classLabel [4]string
	widthLabel [3]string
	rclsLabel  [3]string
)

func init() {
	for _, e := range charge.Encoders() {
		wireLabel[e] = e.String() + " wire bytes (RuneWireBytes)"
		classLabel[e] = e.String() + " wire bytes (its wire class)"
	}
	for _, d := range charge.Dialects() {
		widthLabel[d] = d.String() + " render width (RuneWidth)"
		rclsLabel[d] = d.String() + " render class (RuneClass)"
	}
}

// sep separates code points in a batch: printable in both dialects, written
// raw by every encoder, so it can be found again in every oracle's output.
const sep = ' '

// quoteSensitive code points change how their neighbours render (Python's
// quote choice), so they are rendered alone rather than in a batch.
func quoteSensitive(r rune) bool { return r == '\'' || r == '"' }

// visitChunk checks every scalar value in [lo, hi).
func (w *worker) visitChunk(lo, hi rune) {
	w.runes = w.runes[:0]
	for r := lo; r < hi; r++ {
		if isSurrogate(r) {
			continue
		}
		w.visitModel(r)
		w.visitPython(r)
		if quoteSensitive(r) {
			w.visitOracles([]rune{r})
		} else {
			w.runes = append(w.runes, r)
		}
	}
	if len(w.runes) > 0 {
		w.visitOracles(w.runes)
	}
}

// visitModel checks that exactly one wire class holds r, and tallies it.
func (w *worker) visitModel(r rune) {
	w.visited++
	hits, idx := 0, -1
	for i, c := range wireClasses {
		if c.Contains(r) {
			hits++
			idx = i
		}
	}
	w.checkInt(r, "wire classes holding it", 1, hits)
	if idx < 0 {
		w.s.class[r] = noClass
		return
	}
	c := wireClasses[idx]
	w.classCount[idx]++
	w.s.class[r] = uint8(idx)
	w.checks++
	if mc, ok := charge.WireClassOf(r); !ok || mc.Name != c.Name {
		w.mismatch(r, "WireClassOf", mc.Name, c.Name)
	}
	w.checkInt(r, "landed bytes", c.Landed, utf8.RuneLen(r))
}

// visitPython checks r against the port of CPython's json.dumps.
func (w *worker) visitPython(r rune) {
	for _, e := range []charge.Encoder{charge.EnsureASCII, charge.Raw} {
		w.py = AppendPyJSONRune(w.py[:0], r, e == charge.EnsureASCII)
		w.record(e, r, len(w.py))
	}
}

func (w *worker) record(e charge.Encoder, r rune, got int) {
	w.s.wire[e][r] = uint8(got)
	w.checkInt(r, wireLabel[e], e.RuneWireBytes(r), got)
	if i := w.s.class[r]; i != noClass {
		w.checkInt(r, classLabel[e], wireClasses[i].Wire(e), got)
	}
}

// visitOracles renders the code points as one string, each followed by sep,
// through encoding/json and both reference renderers, and attributes each
// oracle's output back to the code point that produced it. The parse is
// self-checking: a segment that is not one of the forms below, or a missing
// separator, is a mismatch, never a silent re-synchronisation.
func (w *worker) visitOracles(runes []rune) {
	w.batch = w.batch[:0]
	for _, r := range runes {
		w.batch = utf8.AppendRune(w.batch, r)
		w.batch = append(w.batch, sep)
	}
	str := string(w.batch)

	w.jbuf.Reset()
	if err := w.jenc.Encode(str); err != nil {
		w.mismatch(runes[0], "encoding/json", "an encoding", err)
		return
	}
	out := w.jbuf.Bytes()
	w.attribute(runes, string(out[1:len(out)-2]), func(r rune, seg string) {
		w.record(charge.GoJSON, r, len(seg))
	}, jsonSegment)

	for _, d := range charge.Dialects() {
		text := reference.String(d, str)
		w.attribute(runes, text[1:len(text)-1], func(r rune, seg string) {
			width := len(seg)
			if d == charge.Python {
				width = utf8.RuneCountInString(seg)
			}
			rc := renderClassOf(r, seg)
			w.s.width[d][r] = uint8(width)
			w.s.rclass[d][r] = rc
			w.checkInt(r, widthLabel[d], d.RuneWidth(r), width)
			w.checks++
			if mc := d.RuneClass(r); mc != rc {
				w.mismatch(r, rclsLabel[d], mc, rc)
			}
		}, reprSegment)
	}
}

// attribute walks out, the oracle's output for runes each followed by sep,
// handing each code point its segment. segment returns the length of the
// segment at the start of rest (0 when rest starts with no known form).
func (w *worker) attribute(runes []rune, out string, each func(r rune, seg string), segment func(r rune, rest string) int) {
	for _, r := range runes {
		n := segment(r, out)
		if n == 0 || n >= len(out) || out[n] != sep {
			w.mismatch(r, "oracle output", "a segment then a separator", "unparseable output")
			return
		}
		each(r, out[:n])
		out = out[n+1:]
	}
	if out != "" {
		w.mismatch(runes[len(runes)-1], "oracle output", "no bytes after the last separator", len(out))
	}
}

// jsonSegment: encoding/json writes a code point raw, as a two-byte escape,
// or as \uXXXX.
func jsonSegment(r rune, rest string) int {
	if rest == "" {
		return 0
	}
	if rest[0] != '\\' {
		if strings.HasPrefix(rest, string(r)) {
			return utf8.RuneLen(r)
		}
		return 0
	}
	if len(rest) >= 6 && rest[1] == 'u' {
		return 6
	}
	return 2
}

// reprSegment: both renderers write a code point as itself or as one of
// \xNN, \uNNNN, \UNNNNNNNN or a two-character escape.
func reprSegment(r rune, rest string) int {
	if rest == "" {
		return 0
	}
	if rest[0] != '\\' {
		if strings.HasPrefix(rest, string(r)) {
			return utf8.RuneLen(r)
		}
		return 0
	}
	if len(rest) < 2 {
		return 0
	}
	n := 2
	switch rest[1] {
	case 'x':
		n = 4
	case 'u':
		n = 6
	case 'U':
		n = 10
	}
	if len(rest) < n {
		return 0
	}
	return n
}

// wireClasses is the class model the sweep checks, copied once: the sweep
// indexes it for every code point.
var wireClasses = charge.WireClasses()

// noClass marks a code point no wire class holds.
const noClass = 0xff

// Run sweeps every scalar value on all CPUs.
func Run() *Sweep {
	s := &Sweep{class: make([]uint8, utf8.MaxRune+1)}
	for _, e := range charge.Encoders() {
		s.wire[e] = make([]uint8, utf8.MaxRune+1)
	}
	for _, d := range charge.Dialects() {
		s.width[d] = make([]uint8, utf8.MaxRune+1)
		s.rclass[d] = make([]charge.RenderClass, utf8.MaxRune+1)
	}
	workers := make([]*worker, runtime.GOMAXPROCS(0))
	const chunk = 1 << 12
	next := make(chan rune, (utf8.MaxRune+1)/chunk+1)
	for lo := rune(0); lo <= utf8.MaxRune; lo += chunk {
		next <- lo
	}
	close(next)
	var wg sync.WaitGroup
	for i := range workers {
		w := newWorker(s)
		workers[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo := range next {
				w.visitChunk(lo, min(lo+chunk, utf8.MaxRune+1))
			}
		}()
	}
	wg.Wait()
	s.ClassCounts = make([]int, len(wireClasses))
	for _, w := range workers {
		s.CodePoints += w.visited
		s.Checks += w.checks
		s.MismatchCount += w.count
		s.Mismatches = append(s.Mismatches, w.mismatches...)
		for i, c := range w.classCount {
			s.ClassCounts[i] += c
		}
	}
	for i, c := range wireClasses {
		s.Checks++
		if s.ClassCounts[i] != c.Count {
			s.MismatchCount++
			s.Mismatches = append(s.Mismatches, Mismatch{c.Example, "class " + c.Name + " count",
				fmt.Sprint(c.Count), fmt.Sprint(s.ClassCounts[i])})
		}
	}
	sort.Slice(s.Mismatches, func(i, j int) bool { return s.Mismatches[i].Rune < s.Mismatches[j].Rune })
	if len(s.Mismatches) > maxMismatches {
		s.Mismatches = s.Mismatches[:maxMismatches]
	}
	return s
}

// Wire is the wire bytes the oracle observed for r under e.
func (s *Sweep) Wire(e charge.Encoder, r rune) int { return int(s.wire[e][r]) }

// Width is the reference render width observed for r under d.
func (s *Sweep) Width(d charge.Dialect, r rune) int { return int(s.width[d][r]) }

// isControl is the multiplier's exclusion, stated independently of the model's
// Control flag: C0 and DEL.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// ratioCmp compares a/b with c/d for positive denominators.
func ratioCmp(a, b, c, d int) int {
	x, y := a*d, c*b
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// Multiplier is the worst wire ratio the oracles observed over non-control
// code points under any of the encoders, and every code point (under any of
// them) whose ratio exceeds it.
type Multiplier struct {
	Ratio    *big.Rat
	Residual []rune
}

// Multiplier derives the body-cap multiplier from the oracles' observations.
func (s *Sweep) Multiplier(encoders ...charge.Encoder) Multiplier {
	bw, bl := 0, 1
	s.scalars(func(r rune) {
		if isControl(r) {
			return
		}
		l := utf8.RuneLen(r)
		for _, e := range encoders {
			if w := s.Wire(e, r); ratioCmp(w, l, bw, bl) > 0 {
				bw, bl = w, l
			}
		}
	})
	m := Multiplier{Ratio: big.NewRat(int64(bw), int64(bl))}
	s.scalars(func(r rune) {
		l := utf8.RuneLen(r)
		for _, e := range encoders {
			if ratioCmp(s.Wire(e, r), l, bw, bl) > 0 {
				m.Residual = append(m.Residual, r)
				return
			}
		}
	})
	return m
}

func (s *Sweep) scalars(f func(r rune)) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !isSurrogate(r) {
			f(r)
		}
	}
}
