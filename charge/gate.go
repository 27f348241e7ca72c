package charge

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
	"sync"
	"unicode/utf8"
)

// Gate admits or refuses a JSON document in one pass over its raw bytes,
// building no tree. It is safe for concurrent use.
type Gate struct {
	dialect Dialect
	limits  Limits
	widths  *widthTable
	chunk   int // chunkBytes; smaller only in tests
	pool    sync.Pool
}

// Report is what Gate.Check counted in a document.
//
// When Check admits the document, the Report describes all of it:
//
//   - Bytes is the document's length.
//   - Nodes is its containers + member names + values.
//   - Depth is its deepest container nesting: 0 for a scalar, 1 for a flat
//     object or array.
//   - Charge is its total charge, in the dialect's unit, at most
//     Limits.MaxParamsRenderedChars.
//
// When Check refuses the document, the Report holds what the scan had counted
// when it stopped:
//
//   - Bytes is still the whole document's length, not how far the scan read
//     (the Refusal's Offset says where it stopped).
//   - Nodes counts the nodes the scan had started, the one it was reading
//     included; under BoundNodes it is Limits.MaxParamsNodes + 1.
//   - Depth is the deepest container the scan had entered; the container that
//     passed BoundNesting is not counted, so Depth is at most
//     Limits.MaxParamsNesting.
//   - Charge is the charge of every token the scan had read whole, the
//     repeated name under BoundDuplicateName included. Under BoundCharge it
//     adds what the token that passed the budget had cost by the time the scan
//     noticed — up to the Refusal's Offset, or inside a long string up to
//     64 KiB past it — so it exceeds Limits.MaxParamsRenderedChars. A token
//     refused for its own bytes (syntax, UTF-8, surrogate, control character,
//     number length or exponent) adds nothing.
type Report struct {
	Bytes  int   // the document's length
	Nodes  int   // containers + member names + values
	Depth  int   // deepest container nesting; 0 for a scalar document
	Charge int64 // the charge, in the dialect's unit
}

// NewGate returns a gate that holds documents to l and charges them under d.
func NewGate(d Dialect, l Limits) (*Gate, error) {
	if d != Python && d != Go {
		return nil, &configError{"unknown dialect " + d.String()}
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	g := &Gate{dialect: d, limits: l, widths: widthsFor(d), chunk: chunkBytes}
	g.pool.New = func() any { return new(scanner) }
	return g, nil
}

type configError struct{ msg string }

func (e *configError) Error() string { return "charge: " + e.msg }

// Check admits doc, returning a nil error, or refuses it at the first byte
// past a bound, returning a *Refusal (reach it with errors.As). Either way the
// Report says what the scan counted; see Report for what each field means on
// a refusal. The refusal holds no byte of doc.
func (g *Gate) Check(doc []byte) (Report, error) {
	s := g.pool.Get().(*scanner)
	s.reset(g, doc)
	ref := s.run()
	rep := Report{Bytes: len(doc), Nodes: s.nodes, Depth: s.maxDepth, Charge: s.charge}
	s.release()
	g.pool.Put(s)
	if ref != nil {
		return rep, ref
	}
	return rep, nil // a literal nil: a nil *Refusal in an error is not nil
}

// CheckValue admits the one JSON value that starts at doc[off] (after any
// whitespace) and returns the offset just past it, or refuses it at the first
// byte past a bound, as Check does. It reads nothing beyond the value's last
// byte, so whatever follows is the caller's to parse: a caller that parses a
// known frame itself (a JSON-RPC envelope) hands each member's value to the
// gate that holds its bounds, and no byte is scanned twice.
//
// The Report counts the value alone (Bytes is end-off). A refusal's Offset is
// into doc; its Pointer is relative to the value. On a refusal end is the
// refusal's offset.
func (g *Gate) CheckValue(doc []byte, off int) (end int, rep Report, err error) {
	s := g.pool.Get().(*scanner)
	s.reset(g, doc)
	s.pos, s.embedded = min(max(off, 0), len(doc)), true
	start := s.pos
	ref := s.run()
	end = s.pos
	rep = Report{Bytes: end - start, Nodes: s.nodes, Depth: s.maxDepth, Charge: s.charge}
	s.release()
	g.pool.Put(s)
	if ref != nil {
		// The value's bytes up to where it was refused, as documented; the
		// scanner may have read past the offset (a long string's run) before
		// it noticed.
		rep.Bytes = ref.Offset - start
		return ref.Offset, rep, ref
	}
	return end, rep, nil
}

// frame is one open container.
type frame struct {
	object   bool
	haveName bool  // object: the current member's name has been read
	index    int   // array: the current element's index
	nameAt   int32 // object: the current member name's raw content span
	nameEnd  int32
	namesAt  int32 // object: where this object's names start in scanner.list
	mapped   bool  // object: its names are in scanner.index too
	// object, before it is mapped: nameBit of each unescaped name it holds,
	// and whether it holds an escaped one.
	seen         uint64
	escapedNames bool
}

// nameRec is one member name of an open object.
type nameRec struct {
	hash    uint64
	key     uint64 // the raw content's first eight bytes (fewer: zero above them)
	at, end int32  // raw content span in the document
	escaped bool   // the span holds a backslash
}

// nameKey is the first eight bytes of the raw name doc[at:end], read as a
// little-endian word, the bytes past a shorter name zero. Two unescaped names
// are equal exactly when their lengths, keys and bytes past the eighth are.
func nameKey(doc []byte, at, end int) uint64 {
	n := end - at
	switch {
	case n >= 8:
		return binary.LittleEndian.Uint64(doc[at:])
	case at+8 <= len(doc):
		return binary.LittleEndian.Uint64(doc[at:]) & (1<<(8*n) - 1)
	}
	var k uint64
	for i := end - 1; i >= at; i-- {
		k = k<<8 | uint64(doc[i])
	}
	return k
}

// nameBit is the one bit of frame.seen an unescaped name of raw length n and
// nameKey key sets: equal names set the same bit, so a name whose bit is
// clear, in an object holding no escaped name, is no duplicate.
func nameBit(key uint64, n int) uint64 {
	return 1 << (((key ^ uint64(n)) * 0x9e3779b97f4a7c15) >> 58)
}

// linearNames is how many names an object holds before duplicate lookups
// switch from comparing with each earlier name to the hash index.
const linearNames = 16

var nameSeed = maphash.MakeSeed()

type scanner struct {
	g        *Gate
	t        *widthTable // g.widths, one load away in the hot paths
	l        Limits      // a copy of g.limits, one load away in the hot paths
	dialect  Dialect
	doc      []byte
	pos      int
	nodes    int
	depth    int
	maxDepth int
	charge   int64
	stack    []frame
	list     []nameRec
	index    nameIndex
	scratch  []byte
	embedded bool // CheckValue: stop at the value's end, trailing bytes are the caller's
}

func (s *scanner) reset(g *Gate, doc []byte) {
	s.g, s.t, s.l, s.dialect, s.doc, s.pos = g, g.widths, g.limits, g.dialect, doc, 0
	s.nodes, s.depth, s.maxDepth, s.charge = 0, 0, 0, 0
	s.embedded = false
	if cap(s.stack) < g.limits.MaxParamsNesting {
		s.stack = make([]frame, 0, g.limits.MaxParamsNesting)
	}
	s.stack, s.list = s.stack[:0], s.list[:0]
}

func (s *scanner) release() {
	s.index.release()
	s.g, s.t, s.doc = nil, nil, nil
	s.scratch = s.scratch[:0]
}

// isSpace marks RFC 8259 whitespace.
var isSpace [256]bool

// spaceRep is each whitespace byte repeated in every byte of a word, and
// for any other byte a word of spaces, which that byte differs from.
var spaceRep [256]uint64

func init() {
	for c := range spaceRep {
		spaceRep[c] = ones * ' '
	}
	for _, c := range []byte{' ', '\t', '\n', '\r'} {
		isSpace[c], spaceRep[c] = true, ones*uint64(c)
	}
}

// skipSpace returns where the whitespace at doc[i:] ends: a byte at a
// time, but for the run after a newline (an indented document's
// indentation), read a word at a time.
func skipSpace(doc []byte, i int) int {
	for i < len(doc) && doc[i] <= ' ' && isSpace[doc[i]] {
		if i++; doc[i-1] == '\n' {
			i = repeatsEnd(doc, i)
		}
	}
	return i
}

// repeatsEnd returns where the whitespace at doc[i:] ends if it is words
// of one byte repeated: it reads while a word fits, and each word that is
// not its first byte eight times ends the run at the first byte that
// differs (i itself when doc[i] is no whitespace); the caller reads on.
func repeatsEnd(doc []byte, i int) int {
	for ; i+8 <= len(doc); i += 8 {
		if x := binary.LittleEndian.Uint64(doc[i:]) ^ spaceRep[doc[i]]; x != 0 {
			return i + bits.TrailingZeros64(x)>>3 // the run's bytes before the first other one
		}
	}
	return i
}

func (s *scanner) refuse(b Bound, at int) *Refusal {
	r := &Refusal{Bound: b, Offset: at, Pointer: s.pointer()}
	l := s.l
	switch b {
	case BoundNesting:
		r.Limit, r.Unit = int64(l.MaxParamsNesting), "levels"
	case BoundNodes:
		r.Limit, r.Unit = int64(l.MaxParamsNodes), "nodes"
	case BoundNumberBytes:
		r.Limit, r.Unit = int64(l.MaxNumberBytes), "bytes"
	case BoundNumberExponent:
		r.Limit, r.Unit = int64(l.MaxNumberExponent), "in magnitude"
	case BoundCharge:
		r.Limit, r.Unit = l.MaxParamsRenderedChars, s.dialect.Unit()
	}
	return r
}

func (s *scanner) syntax() *Refusal { return s.refuse(BoundSyntax, s.pos) }

// run scans the value at s.pos. The position is a local of the hot paths
// (a field would go through memory at every byte they read); s.pos is set
// around the slower helpers that read it and on the way out.
func (s *scanner) run() *Refusal {
	doc := s.doc
	i := s.pos
	var f *frame // the innermost open container, nil outside every one
	for {
		// A value starts here.
		if i = skipSpace(doc, i); i >= len(doc) {
			return s.refuse(BoundSyntax, i)
		}
		if s.nodes++; s.nodes > s.l.MaxParamsNodes {
			return s.refuse(BoundNodes, i)
		}
		switch c := doc[i]; c {
		case '{', '[':
			s.depth++
			if s.depth > s.l.MaxParamsNesting {
				return s.refuse(BoundNesting, i)
			}
			s.maxDepth = max(s.maxDepth, s.depth)
			s.stack = s.stack[:len(s.stack)+1] // reset sized it to the nesting limit
			f = &s.stack[len(s.stack)-1]
			*f = frame{object: c == '{'}
			if f.object {
				f.namesAt = int32(len(s.list))
			}
			if i = skipSpace(doc, i+1); i < len(doc) && doc[i] == c+2 { // ] is [+2, } is {+2
				i++
				f = s.pop()
				break
			}
			if c == '{' {
				var r *Refusal
				if i, r = s.member(f, i); r != nil {
					return r
				}
			}
			continue
		case '"':
			// A short plain value is charged here whole: no escape, so no
			// quoting rule of either dialect adds to it.
			if n, w, _ := s.t.shortPlain(doc, i+1); n >= 0 && !s.over(w) {
				s.charge += w
				i += n + 2
				break
			}
			s.pos = i
			if r := s.str(false); r != nil {
				return r
			}
			i = s.pos
		case 't', 'f', 'n':
			var r *Refusal
			if i, r = s.literal(i); r != nil {
				return r
			}
		default:
			// Most numbers in tool arguments are short and non-negative: one
			// to three digits (widthTable.shortInts), maybe a point and one or
			// two more (shortFraction), render as themselves and are charged
			// their length here, within MaxNumberBytes; any other number takes
			// number(), which refuses what this passes on.
			if isDigit(c) && s.t.shortInts {
				j := shortIntEnd(doc, i)
				if j < len(doc) && continuesNumber[doc[j]] {
					j = s.t.shortFraction(doc, j)
				}
				if j >= 0 && j-i <= s.l.MaxNumberBytes {
					if s.spend(int64(j - i)) {
						return s.refuse(BoundCharge, i)
					}
					i = j
					break
				}
			}
			var r *Refusal
			if i, r = s.number(i); r != nil {
				return r
			}
		}

		// A value ended: close containers until one takes another member.
		for {
			if f == nil {
				if !s.embedded {
					if i = skipSpace(doc, i); i != len(doc) {
						return s.refuse(BoundTrailing, i)
					}
				}
				s.pos = i
				return nil
			}
			if i = skipSpace(doc, i); i >= len(doc) {
				return s.refuse(BoundSyntax, i)
			}
			c := doc[i]
			if c == ',' {
				i++
				if f.object {
					f.haveName = false
					var r *Refusal
					if i, r = s.member(f, i); r != nil {
						return r
					}
				} else {
					f.index++
				}
				break
			}
			if (f.object && c == '}') || (!f.object && c == ']') {
				i++
				f = s.pop()
				continue
			}
			return s.refuse(BoundSyntax, i)
		}
	}
}

// pop closes the innermost container and returns the one that held it, nil
// if none did.
func (s *scanner) pop() *frame {
	f := &s.stack[len(s.stack)-1]
	if f.object {
		s.list = s.list[:f.namesAt]
	}
	s.stack = s.stack[:len(s.stack)-1]
	s.depth--
	if len(s.stack) == 0 {
		return nil
	}
	return &s.stack[len(s.stack)-1]
}

// member reads `"name" :` at doc[i] inside the innermost object f and
// returns where it ends: a short plain name is charged here (go adds its
// pointer bytes, as closeString would), any other through str.
func (s *scanner) member(f *frame, i int) (int, *Refusal) {
	doc := s.doc
	if i = skipSpace(doc, i); i >= len(doc) || doc[i] != '"' {
		return i, s.refuse(BoundSyntax, i)
	}
	if s.nodes++; s.nodes > s.l.MaxParamsNodes {
		return i, s.refuse(BoundNodes, i)
	}
	at := i + 1
	if n, w, key := s.t.shortPlain(doc, at); n >= 0 && !s.over(w) {
		if s.dialect == Go {
			if n <= 8 {
				if hasPointerByte(key) { // the whole name
					w += int64(pointerBytesIn(key))
				}
			} else {
				w += int64(pointerBytes(doc, at, at+n))
			}
		}
		i = at + n + 1
		if s.spend(w) {
			return i, s.refuse(BoundCharge, at+n)
		}
		if r := s.name(f, at, at+n, false, key); r != nil {
			return i, r
		}
	} else {
		s.pos = i
		if r := s.str(true); r != nil { // which finds the byte that passes the budget
			return i, r
		}
		i = s.pos
	}
	if i = skipSpace(doc, i); i >= len(doc) || doc[i] != ':' {
		return i, s.refuse(BoundSyntax, i)
	}
	return i + 1, nil
}

// literal reads true, false or null at doc[i] and returns where it ends,
// comparing words: the first four bytes, then false's e.
func (s *scanner) literal(i int) (int, *Refusal) {
	doc := s.doc
	if i+4 <= len(doc) {
		n := 4
		switch binary.LittleEndian.Uint32(doc[i:]) {
		case 't' | 'r'<<8 | 'u'<<16 | 'e'<<24, 'n' | 'u'<<8 | 'l'<<16 | 'l'<<24:
		case 'f' | 'a'<<8 | 'l'<<16 | 's'<<24:
			if i+5 > len(doc) || doc[i+4] != 'e' {
				return i, s.refuse(BoundSyntax, i)
			}
			n = 5
		default:
			return i, s.refuse(BoundSyntax, i)
		}
		if s.spend(int64(s.dialect.literalWidth(doc[i]))) {
			return i, s.refuse(BoundCharge, i)
		}
		return i + n, nil
	}
	return i, s.refuse(BoundSyntax, i)
}

// over reports whether spending w more would pass the charge budget. It is
// the one place the budget is compared: every path that charges asks it,
// through spend or directly where a string is still being read.
func (s *scanner) over(w int64) bool { return w > s.l.MaxParamsRenderedChars-s.charge }

// spend charges w for a token and reports whether that passed the budget;
// the caller then refuses the token at its start with BoundCharge. It is
// small enough to inline.
func (s *scanner) spend(w int64) (over bool) {
	over = s.over(w)
	s.charge += w
	return over
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitsEnd returns where the run of ASCII digits at doc[i:] ends, reading
// a word at a time: a byte is a digit when its high nibble is 3 and stays 3
// with 6 added (0x30..0x39). A byte of 0xfa or more carries into the next
// one, which then may read wrong; but it is no digit itself, so the first
// byte that is none is found exactly.
func digitsEnd(doc []byte, i int) int {
	const nibbles, threes, sixes = 0xf0f0f0f0f0f0f0f0, 0x3030303030303030, 0x0606060606060606
	for ; i+8 <= len(doc); i += 8 {
		x := binary.LittleEndian.Uint64(doc[i : i+8])
		if other := (x&nibbles ^ threes) | ((x+sixes)&nibbles ^ threes); other != 0 {
			return i + bits.TrailingZeros64(other)>>3
		}
	}
	for i < len(doc) && isDigit(doc[i]) {
		i++
	}
	return i
}

// continuesNumber marks the bytes that can follow a digit inside one number
// token: more digits, a fraction or an exponent.
var continuesNumber = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true,
	'6': true, '7': true, '8': true, '9': true, '.': true, 'e': true, 'E': true}

// number reads the number at doc[start] and returns where it ends. Its
// width is priced from the parts the scan found (Dialect.scannedWidth), so
// its digits are not read a second time.
func (s *scanner) number(start int) (int, *Refusal) {
	doc, i := s.doc, start
	if doc[i] == '-' {
		i++
	}
	switch {
	case i < len(doc) && doc[i] == '0':
		i++
	case i < len(doc) && doc[i] >= '1' && doc[i] <= '9':
		i = digitsEnd(doc, i+1)
	default:
		return i, s.refuse(BoundSyntax, i)
	}
	intEnd := i
	if i < len(doc) && doc[i] == '.' {
		i++
		if i >= len(doc) || !isDigit(doc[i]) {
			return i, s.refuse(BoundSyntax, i)
		}
		i = digitsEnd(doc, i+1)
	}
	fracEnd := i
	exp, expAt := 0, -1
	if i < len(doc) && (doc[i] == 'e' || doc[i] == 'E') {
		i++
		neg := i < len(doc) && doc[i] == '-'
		if i < len(doc) && (doc[i] == '+' || doc[i] == '-') {
			i++
		}
		if i >= len(doc) || !isDigit(doc[i]) {
			return i, s.refuse(BoundSyntax, i)
		}
		// The exponent's magnitude, read while it stays within the limit;
		// expAt is the digit that passes it. Each step is checked before
		// it is taken: a magnitude past math.MaxInt/10 passes any limit
		// with one more digit, and below it ten times it cannot overflow.
		limit := s.l.MaxNumberExponent
		for ; i < len(doc) && isDigit(doc[i]); i++ {
			if expAt < 0 {
				if dg := int(doc[i] - '0'); exp <= math.MaxInt/10 && exp*10 <= limit-dg {
					exp = exp*10 + dg
				} else {
					expAt = i
				}
			}
		}
		if neg {
			exp = -exp
		}
	}
	if n := i - start; n > s.l.MaxNumberBytes {
		return i, s.refuse(BoundNumberBytes, start+s.l.MaxNumberBytes)
	}
	if expAt >= 0 {
		return i, s.refuse(BoundNumberExponent, expAt)
	}
	w := s.dialect.scannedWidth(doc, start, intEnd, fracEnd, i, exp)
	if s.spend(int64(w)) {
		return i, s.refuse(BoundCharge, start)
	}
	return i, nil
}

// str reads a string (a member name when name is true) starting at its opening
// quote, charging its exact rendered width.
//
// The scan runs in chunks of at most chunkBytes: inside a chunk every
// printable, DEL and multi-byte code point is charged from the width table
// without a budget check (widthTable.plain); between chunks the budget is
// checked, and a chunk that passed it is rescanned rune by rune to find the
// exact byte that tripped it. Escapes, quotes and refusals leave the chunk.
// At a two-byte escape, where the CPU has AVX2, the stretch of such escapes
// and plain ASCII bytes that follows is read a block at a time
// (escapeRun), within a chunk too.
func (s *scanner) str(name bool) *Refusal {
	doc := s.doc
	open := s.pos
	i := open + 1
	t := s.t
	q := quoting{backslashEnd: -1, trailingBackslash: s.dialect == Go && !name}
	// A short plain content (most names and many values) is not read here:
	// run and member charge it before they call str.
	var w int64
	for {
		from := i
		end := min(len(doc), i+s.g.chunk)
		var wc int64
		i, wc = t.plain(doc, i, end)
		if s.over(w + wc) {
			at := s.trip(from, w)
			s.charge += w + wc
			return s.refuse(BoundCharge, at)
		}
		w += wc
		if i >= end { // the chunk ran out, not the run
			if i >= len(doc) {
				s.pos = i
				return s.syntax()
			}
			continue
		}
		switch c := doc[i]; {
		case c == '"':
			return s.closeString(open, i, name, w, &q)
		case c == '\\':
			q.escaped = true
			if vectorRuns && t.escRuns && i+1 < len(doc) && t.escape[doc[i+1]] != 0 {
				// Two-byte escapes and the plain bytes between them, read
				// a block at a time (escapeRun); kept only when they stay
				// within the budget, else the escape loop below rereads
				// them and refuses exactly. A \u escape goes straight to
				// the loop.
				j, wr, quotes := t.escapeRun(doc, i, min(len(doc)-1, i+s.g.chunk))
				if j > i && !s.over(w+wr) {
					w, i, q.doubles = w+wr, j, q.doubles || quotes
					if i < len(doc) && doc[i] == '"' {
						return s.closeString(open, i, name, w, &q)
					}
					if i >= len(doc) || doc[i] != '\\' {
						// plain's loop reads on, or stops at once: for the
						// switch, or at the document's end (a string cut
						// short just after an escape's letter)
						continue
					}
				}
			}
			var r *Refusal
			if i, w, r = s.escapes(i, w, &q); r != nil {
				return r
			}
			if i < len(doc) && doc[i] == '"' {
				// Straight to the quote: w may stand one past the budget
				// for a trailing backslash closeString takes back.
				return s.closeString(open, i, name, w, &q)
			}
		case c < 0x20:
			s.pos = i
			return s.refuse(BoundControl, i)
		default:
			s.pos = i
			return s.refuse(BoundUTF8, i)
		}
	}
}

// quoting is what a string's escapes tell its closing quote about the
// dialect's quoting rules.
type quoting struct {
	doubles, escaped bool  // holds a " (Python then delimits with '); holds an escape
	escapedSingles   int64 // ' written as \u0027
	escapedPointer   int64 // ~ or / written as \u escapes
	backslashEnd     int   // where the last escape that decoded to a backslash ended
	// trailingBackslash: a backslash just before the closing quote renders
	// a byte narrower (go's values), so the escape that decodes to it may
	// pass the budget by one when the quote follows.
	trailingBackslash bool
}

// escapes charges the run of escapes starting at doc[i] (a backslash),
// checking the budget after each, and returns where the run ended.
func (s *scanner) escapes(i int, w int64, q *quoting) (int, int64, *Refusal) {
	doc, t := s.doc, s.t
	for i < len(doc) && doc[i] == '\\' {
		at := i
		if i+1 < len(doc) && t.escape[doc[i+1]] != 0 {
			// A two-byte escape: its width and what it stands for come
			// straight from the byte after the backslash.
			b := doc[i+1]
			w += int64(t.escape[b])
			i += 2
			switch b {
			case '"':
				q.doubles = true
			case '\\':
				q.backslashEnd = i
			}
		} else if j, wj, last := t.bmpEscapes(doc, i, w, s.l.MaxParamsRenderedChars-s.charge); j > i {
			// \uXXXX escapes naming code points past ASCII, a BMP one or a
			// surrogate pair (what an ensure_ascii encoder writes for
			// every such character): none of the quoting rules below looks
			// at them. They are read a word each while the budget holds;
			// the check below refuses at the last one read.
			i, w, at = j, wj, last
		} else {
			r, n := escapeAt(doc, i)
			if n == 0 {
				next, bad := escapeBound(doc, i)
				s.pos = next
				return i, w, s.refuse(bad, at)
			}
			i += n
			switch r {
			case '\'':
				q.escapedSingles++
			case '"':
				q.doubles = true
			case '\\':
				q.backslashEnd = i
			case '~', '/':
				q.escapedPointer++ // \u escapes only: \/ is counted with the raw bytes
			}
			w += int64(t.of(r))
		}
		if s.over(w) && !(q.trailingBackslash && q.backslashEnd == i && i < len(doc) && doc[i] == '"' && !s.over(w-1)) {
			s.charge += w
			return i, w, s.refuse(BoundCharge, at)
		}
	}
	return i, w, nil
}

// closeString ends the string whose content is doc[open+1:at] (at is its
// closing quote) with w charged for its code points: it adds what the
// dialect's quoting rules add, checks the budget, and hands a member name on
// to the duplicate check.
func (s *scanner) closeString(open, at int, name bool, w int64, q *quoting) *Refusal {
	doc := s.doc
	switch s.dialect {
	case Python:
		if q.doubles {
			// repr delimits with ' and escapes each ' as \'.
			w += int64(bytes.Count(doc[open+1:at], []byte{'\''})) + q.escapedSingles
		}
	case Go:
		if name {
			// A name is also rendered as a pointer segment in every
			// error's location, where ~ and / take two bytes each.
			w += int64(pointerBytes(doc, open+1, at)) + q.escapedPointer
		} else if q.backslashEnd == at || doc[at-1] == '\\' {
			// The last escape stands for a backslash: a \u005c
			// (backslashEnd), or a two-byte \\, whose second byte is the
			// only raw backslash an escape ends with (escapeRun records no
			// backslashEnd).
			w-- // v6's quote renders a trailing backslash as one byte
		}
	}
	s.pos = at + 1
	if s.spend(w) {
		return s.refuse(BoundCharge, at)
	}
	if name {
		return s.name(&s.stack[len(s.stack)-1], open+1, at, q.escaped, nameKey(doc, open+1, at))
	}
	return nil
}

// pointerBytes counts the ~ and / in the raw name doc[at:end]: long names
// with bytes.Count; short ones are first tested a word at a time (the last
// word masked to the name) and counted byte by byte only when a word holds
// one, which few names do, or when a word would run past the document.
func pointerBytes(doc []byte, at, end int) int {
	if end-at >= 32 {
		return bytes.Count(doc[at:end], []byte{'~'}) + bytes.Count(doc[at:end], []byte{'/'})
	}
	var marks uint64
	k := at
	for ; k < end && k+8 <= len(doc); k += 8 {
		x := binary.LittleEndian.Uint64(doc[k:])
		if rest := end - k; rest < 8 {
			x &= 1<<(8*rest) - 1 // zero bytes: neither ~ nor /
		}
		marks |= has(x, '~') | has(x, '/') // a mark only at or above a match
	}
	if k >= end && marks&highs == 0 {
		return 0
	}
	n := 0
	for k = at; k < end; k++ {
		if c := doc[k]; c == '~' || c == '/' {
			n++
		}
	}
	return n
}

// pointerBytesIn counts the ~ and / among the bytes of x.
func pointerBytesIn(x uint64) int {
	if !hasPointerByte(x) {
		return 0
	}
	return count(x, '~') + count(x, '/')
}

// hasPointerByte reports whether x holds a ~ or a / (has marks every match,
// maybe more): small enough to inline where most names hold neither.
func hasPointerByte(x uint64) bool { return (has(x, '~')|has(x, '/'))&highs != 0 }

// chunkBytes bounds how far a string scan runs between budget checks;
// Gate.chunk holds it (tests shrink it through export_test.go).
const chunkBytes = 64 << 10

// trip finds the byte at which a chunk that started at from, with w already
// spent, first passed left: the chunk holds only code points the chunk loop
// charges, so it is rescanned with the same widths, one code point at a time.
func (s *scanner) trip(from int, w int64) int {
	t := s.t
	for i := from; i < len(s.doc); {
		c := s.doc[i]
		n, wc := 1, int64(t.ascii[c])
		if c >= utf8.RuneSelf {
			var r rune
			r, n = decodeRune(s.doc[i:])
			wc = int64(t.of(r))
		}
		if w += wc; s.over(w) {
			return i
		}
		i += n
	}
	return len(s.doc)
}

// leadsOK reports whether each of the four two-byte lead bytes in x (bytes 0,
// 2, 4, 6) is at least 0xC2: C0 and C1 would start an overlong form.
//
// Given the lead bytes are 110xxxxx, a lead is C0 or C1 exactly when its bits
// 0x1e are clear; m holds those bits in each 16-bit lane (at most 0x1e), and
// only a lane of zero sets its top bit when decremented (a borrow runs up
// from a zero lane alone, so the lowest such lane is exact).
func leadsOK(x uint64) bool {
	const lanes = 0x0001000100010001
	m := x & (0x1e * lanes)
	return (m-lanes)&(0x8000*lanes) == 0
}

// simpleEscape maps the letter after a backslash to the rune a two-byte
// escape stands for; 0 for u (a \uXXXX escape) and for letters JSON forbids.
var simpleEscape = [256]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hexDigit is each byte's value as a hex digit, or -1.
var hexDigit = func() (h [256]int8) {
	for i := range h {
		h[i] = -1
	}
	for c := '0'; c <= '9'; c++ {
		h[c] = int8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		h[c], h[c-'a'+'A'] = int8(c-'a'+10), int8(c-'a'+10)
	}
	return h
}()

// hex4Fast decodes four hex digits at doc[i:], or returns -1.
func hex4Fast(doc []byte, i int) rune {
	a, b, c, d := hexDigit[doc[i]], hexDigit[doc[i+1]], hexDigit[doc[i+2]], hexDigit[doc[i+3]]
	if a|b|c|d < 0 {
		return -1
	}
	return rune(a)<<12 | rune(b)<<8 | rune(c)<<4 | rune(d)
}

// bmpEscapes reads from doc[i] the \uXXXX escapes that name code points past
// ASCII — a BMP one, or an astral one as a surrogate pair — a word each,
// adding each one's width to w while w stays within left (stopping early
// only hands the rest to the escape loop). It returns where it stopped, w,
// and where the last escape it read starts (i-6 when it read none). Not
// inlined: the escape loop's two-byte path stays small (inlined, it ran 6%
// slower on the escaped shape).
//
//go:noinline
func (t *widthTable) bmpEscapes(doc []byte, i int, w, left int64) (int, int64, int) {
	at := i - 6
	for w <= left && i+8 <= len(doc) {
		x := binary.LittleEndian.Uint64(doc[i:])
		if uint16(x) != '\\'|'u'<<8 {
			break
		}
		r := hexWord(uint32(x >> 16))
		if r < utf8.RuneSelf {
			break // ASCII, which a quoting rule may look at, or bad hex
		}
		if uint32(r-0xd800) < 0x800 {
			// A high half followed by a low one; anything else is the
			// escape loop's to refuse.
			if r >= 0xdc00 || i+14 > len(doc) {
				break
			}
			y := binary.LittleEndian.Uint64(doc[i+6:])
			lo := hexWord(uint32(y >> 16))
			if uint16(y) != '\\'|'u'<<8 || lo < 0xdc00 || lo >= 0xe000 {
				break
			}
			w += t.astralWidth(uint32(0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)))
			at, i = i, i+12
			continue
		}
		w += int64(t.bmp[r])
		at, i = i, i+6
	}
	return i, w, at
}

// hexWord is hex4Fast for the four digits of x, read little-endian (its low
// byte the first digit).
func hexWord(x uint32) rune {
	a, b, c, d := hexDigit[byte(x)], hexDigit[byte(x>>8)], hexDigit[byte(x>>16)], hexDigit[byte(x>>24)]
	if a|b|c|d < 0 {
		return -1
	}
	return rune(a)<<12 | rune(b)<<8 | rune(c)<<4 | rune(d)
}

// escapeAt decodes a well-formed escape at doc[i] (a backslash): a two-byte
// escape, a \uXXXX naming a scalar value, or a surrogate pair. n is 0 for
// anything else, which the slow path refuses with the right bound.
func escapeAt(doc []byte, i int) (r rune, n int) {
	if i+1 >= len(doc) {
		return 0, 0
	}
	if r := simpleEscape[doc[i+1]]; r != 0 {
		return r, 2
	}
	if doc[i+1] != 'u' || i+6 > len(doc) {
		return 0, 0
	}
	r = hex4Fast(doc, i+2)
	switch {
	case r < 0 || (r >= 0xdc00 && r < 0xe000):
		return 0, 0
	case r < 0xd800 || r >= 0xe000:
		return r, 6
	}
	if i+12 > len(doc) || doc[i+6] != '\\' || doc[i+7] != 'u' {
		return 0, 0
	}
	lo := hex4Fast(doc, i+8)
	if lo < 0xdc00 || lo >= 0xe000 {
		return 0, 0
	}
	return 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00), 12
}

// escapeBound says why the escape at doc[i] (a backslash), which escapeAt
// refused, is refused, and where the scan stops: a lone or reversed surrogate,
// or anything else (a letter JSON has no escape for, bad hex, the document's
// end).
func escapeBound(doc []byte, i int) (int, Bound) {
	if i+6 > len(doc) || doc[i+1] != 'u' {
		return min(i+2, len(doc)), BoundSyntax
	}
	r := hex4Fast(doc, i+2)
	switch {
	case r < 0:
		return i + 2, BoundSyntax
	case r >= 0xdc00 && r < 0xe000:
		return i + 6, BoundSurrogate // a low half with no high half before it
	}
	// A high half not followed by a low one. When \u follows it, the four
	// bytes after decide, and a document that ends among them is cut short:
	// a syntax error whatever would have followed, so the verdict never
	// depends on bytes past the document's end.
	if i+8 <= len(doc) && doc[i+6] == '\\' && doc[i+7] == 'u' {
		for k := i + 8; k < i+12; k++ {
			if k >= len(doc) || hexDigit[doc[k]] < 0 {
				return k, BoundSyntax
			}
		}
	}
	return i + 6, BoundSurrogate
}

// decodeRune decodes one multi-byte UTF-8 sequence, refusing overlong forms,
// surrogates and values past U+10FFFF (n == 0).
func decodeRune(b []byte) (rune, int) {
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n <= 1 {
		return 0, 0
	}
	return r, n
}

// name checks the member name just read (raw content doc[at:end], nameKey
// key) against the names the innermost object f already holds: by comparison
// while the object is small, through a map keyed by a seeded hash once it
// holds linearNames.
func (s *scanner) name(f *frame, at, end int, escaped bool, key uint64) *Refusal {
	f.nameAt, f.nameEnd, f.haveName = int32(at), int32(end), true
	if f.mapped {
		return s.mappedName(f, nameRec{key: key, at: int32(at), end: int32(end), escaped: escaped})
	}
	if bit := nameBit(key, end-at); !escaped && !f.escapedNames && f.seen&bit == 0 {
		f.seen |= bit // no earlier name can equal this one
	} else if s.earlierName(f, at, end, escaped, key) {
		return s.refuse(BoundDuplicateName, at-1)
	}
	f.escapedNames = f.escapedNames || escaped
	s.pushName(key, at, end, escaped)
	if len(s.list)-int(f.namesAt) == linearNames {
		s.mapNames(f)
	}
	return nil
}

// earlierName reports whether the object f, not yet mapped, holds a name
// equal to doc[at:end], comparing with each.
func (s *scanner) earlierName(f *frame, at, end int, escaped bool, key uint64) bool {
	rec := nameRec{key: key, at: int32(at), end: int32(end), escaped: escaped}
	for j := int(f.namesAt); j < len(s.list); j++ {
		o := &s.list[j]
		if o.escaped || escaped {
			if s.sameName(*o, rec) {
				return true
			}
			continue
		}
		// Unescaped: equal exactly when the raw bytes are.
		if o.key == key && o.end-o.at == rec.end-rec.at && (end-at <= 8 || bytes.Equal(s.doc[o.at+8:o.end], s.doc[at+8:end])) {
			return true
		}
	}
	return false
}

// mappedName is name for an object whose names are in the hash index.
func (s *scanner) mappedName(f *frame, rec nameRec) *Refusal {
	rec.hash = s.hashName(rec)
	for i := s.index.first(rec.hash); ; {
		j, after, ok := s.index.next(rec.hash, i)
		if !ok {
			break
		}
		// Only names of this object count; a slot left by a closed object may
		// point anywhere in the list.
		if j >= f.namesAt && int(j) < len(s.list) && s.list[j].hash == rec.hash && s.sameName(s.list[j], rec) {
			return s.refuse(BoundDuplicateName, int(rec.at)-1)
		}
		i = after
	}
	s.list = append(s.list, rec)
	s.index.add(rec.hash, int32(len(s.list)-1))
	return nil
}

// pushName appends a name to s.list field by field: copying a nameRec just
// built on the stack whole stalls on the store forwarding of its fields. Its
// hash is left as it is: mapNames sets it before anything reads it.
func (s *scanner) pushName(key uint64, at, end int, escaped bool) {
	if len(s.list) == cap(s.list) {
		s.list = append(s.list, nameRec{})[:len(s.list)]
	}
	s.list = s.list[:len(s.list)+1]
	r := &s.list[len(s.list)-1]
	r.key, r.at, r.end, r.escaped = key, int32(at), int32(end), escaped
}

// mapNames puts the names of the object f, which now holds linearNames, in
// the hash index: its later names are looked up there.
func (s *scanner) mapNames(f *frame) {
	f.mapped = true
	// Every name needs a value, so a document holds at most half its node
	// limit of names.
	s.index.ready(s.l.MaxParamsNodes/2 + 1)
	for j := int(f.namesAt); j < len(s.list); j++ {
		s.list[j].hash = s.hashName(s.list[j])
		s.index.add(s.list[j].hash, int32(j))
	}
}

// hashName hashes a name's unescaped form with a per-process seed, so callers
// cannot choose colliding names.
func (s *scanner) hashName(n nameRec) uint64 {
	raw := s.doc[n.at:n.end]
	if !n.escaped {
		return maphash.Bytes(nameSeed, raw)
	}
	s.scratch = appendUnescaped(s.scratch[:0], raw)
	return maphash.Bytes(nameSeed, s.scratch)
}

// sameName compares two member names after unescaping.
func (s *scanner) sameName(a, b nameRec) bool {
	ra, rb := s.doc[a.at:a.end], s.doc[b.at:b.end]
	if !a.escaped && !b.escaped {
		return bytes.Equal(ra, rb)
	}
	i, j := 0, 0
	for i < len(ra) && j < len(rb) {
		var x, y rune
		x, i = nextRune(ra, i)
		y, j = nextRune(rb, j)
		if x != y {
			return false
		}
	}
	return i == len(ra) && j == len(rb)
}

// nextRune decodes the rune at raw[i] of string content the gate has already
// validated, and returns the index after it.
func nextRune(raw []byte, i int) (rune, int) {
	if raw[i] == '\\' {
		r, n := escapeAt(raw, i)
		return r, i + n
	}
	if raw[i] < utf8.RuneSelf {
		return rune(raw[i]), i + 1
	}
	r, n := utf8.DecodeRune(raw[i:])
	return r, i + n
}

// pointer renders where the scan stands as a display-escaped JSON pointer.
func (s *scanner) pointer() string {
	var tokens []string
	for _, f := range s.stack {
		switch {
		case f.object && f.haveName:
			tokens = append(tokens, string(appendUnescaped(nil, s.doc[f.nameAt:f.nameEnd])))
		case !f.object:
			tokens = append(tokens, indexToken(f.index))
		}
	}
	return DisplayPointer(tokens)
}
