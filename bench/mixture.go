package bench

import (
	"math/rand/v2"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is a distribution of realistic JSON text, not a list of shapes:
// Mixture(seed, size) draws a document's profile from the seed (which
// encoder wrote it, which scripts its text is in, how dense its escapes,
// emoji and numbers are, how deep it nests, whether it is indented), then
// draws the document from the profile. The same seed gives the same bytes on
// every run and build, so two builds can be compared seed by seed.
//
// It imports nothing outside the standard library: the A/B runner copies it
// beside an earlier commit's gate.

// Mixture builds a document of about size bytes (at least size, at most a few
// KiB more) from the mixture seed selects. Every document is valid JSON that
// jsontext and charge's gate admit under charge.DefaultLimits, for sizes up
// to a few MiB: its nodes stay under 90,000 and its nesting under 40.
func Mixture(seed uint64, size int) []byte {
	g := newMixGen(seed)
	return g.document(size)
}

// script is a writing system the text generator draws words from.
type script int

const (
	scriptASCII      script = iota // English-like words
	scriptLatin                    // Latin with diacritics, precomposed and combining
	scriptCyrillic                 // Russian/Ukrainian letters
	scriptGreek                    // Greek letters
	scriptCJK                      // Han with hiragana, katakana and CJK punctuation, no spaces
	scriptHangul                   // Hangul syllables
	scriptArabic                   // Arabic letters, harakat, Arabic-Indic digits, direction marks
	scriptHebrew                   // Hebrew letters
	scriptDevanagari               // consonants, vowel signs, virama, ZWJ/ZWNJ, danda
	numScripts
)

// textKind is what a string holds; each has its own rhythm of escapes.
type textKind int

const (
	kindProse    textKind = iota // sentences and paragraphs: escapes at line ends and quotes
	kindChat                     // short lines, emoji-heavy
	kindCode                     // source code: newlines, indentation, quotes, backslashes
	kindLog                      // log lines: timestamps, paths, key=value
	kindTable                    // TSV/CSV rows: tabs and newlines
	kindEmbedded                 // a JSON document carried as a string: \" and \\ throughout
	numKinds
)

// encoder is how the document's strings were escaped: the encoders tool
// calls come from.
type encoder struct {
	name        string
	html        bool // < > & as \u003c \u003e \u0026 (Go's encoding/json)
	lineSep     bool // U+2028, U+2029 as escapes (Go's encoding/json, JavaScript engines since ES2019 do not)
	ensureASCII bool // every code point past ASCII a \uXXXX escape, astral ones a surrogate pair (Python's default)
	upperHex    bool // \u00E9 rather than \u00e9 (Java, .NET)
	slash       bool // / as \/ (PHP's default)
	shortBF     bool // \b and \f rather than \u0008 and \u000c
}

var encoders = []encoder{
	{name: "go", html: true, lineSep: true, shortBF: true},
	{name: "go-nohtml", lineSep: true, shortBF: true},
	{name: "python", ensureASCII: true, shortBF: true},
	{name: "python-utf8", shortBF: true},
	{name: "javascript", shortBF: true},
	{name: "java", ensureASCII: true, upperHex: true, shortBF: true},
	{name: "dotnet", html: true, upperHex: true},
	{name: "php", ensureASCII: true, slash: true, shortBF: true},
	{name: "php-unicode", slash: true, shortBF: true},
}

// profile is one document's draw from the mixture.
type profile struct {
	enc        encoder
	scripts    [numScripts]float64 // weights
	kinds      [numKinds]float64   // weights
	wordMean   float64             // mean word length in code points
	emoji      float64             // chance of an emoji sequence after a word
	quote      float64             // chance of a quoted phrase
	backslash  float64             // chance of a path or a regex in prose
	control    float64             // chance of a stray control (\r, \b, \f, \u001b)
	lineMean   float64             // mean words per line
	numbers    float64             // share of leaves that are numbers
	depth      int                 // deepest nesting of records
	indent     string              // "" compact, else one level of indentation
	nonASCIIKs float64             // chance a member name is not ASCII
	strMean    float64             // mean words of a string value
}

type mixGen struct {
	r     *rand.Rand
	p     profile
	out   []byte
	nodes int
	level int // indentation level
	// room is how many more containers and leaves the item being written
	// may hold: a deep profile nests one path deep, not a full tree.
	room int
}

func newMixGen(seed uint64) *mixGen {
	g := &mixGen{r: rand.New(rand.NewPCG(seed, 0x6d69787475726573))} // "mixtures"
	g.p = g.drawProfile()
	return g
}

// pow draws from [0,1) skewed toward 0: a density that is usually low and
// sometimes high, the way real documents spread.
func (g *mixGen) pow(k float64) float64 {
	x := g.r.Float64()
	v := x
	for i := 1; i < int(k); i++ {
		v *= x
	}
	return v
}

func (g *mixGen) drawProfile() profile {
	var p profile
	p.enc = encoders[g.r.IntN(len(encoders))]
	// Scripts: ASCII nearly always present; one to three others with weights.
	p.scripts[scriptASCII] = 0.2 + g.r.Float64()*2
	for range 1 + g.r.IntN(3) {
		s := script(1 + g.r.IntN(int(numScripts)-1))
		p.scripts[s] += 0.2 + g.r.Float64()*2
	}
	if g.r.IntN(5) == 0 { // a fifth of documents are ASCII only
		p.scripts = [numScripts]float64{scriptASCII: 1}
	}
	for k := range p.kinds {
		if g.r.IntN(2) == 0 {
			p.kinds[k] = g.pow(2) * 3
		}
	}
	p.kinds[g.r.IntN(int(numKinds))] += 1 // at least one kind
	p.wordMean = 2 + g.r.Float64()*7
	p.emoji = g.pow(3) * 0.4
	p.quote = g.pow(2) * 0.2
	p.backslash = g.pow(3) * 0.1
	p.control = g.pow(4) * 0.02
	p.lineMean = 3 + g.r.Float64()*25
	p.numbers = g.pow(2) * 0.8
	p.depth = 1 + g.r.IntN(4)
	if g.r.IntN(6) == 0 {
		p.depth = 8 + g.r.IntN(28) // a tree: an AST, a nested config
	}
	switch g.r.IntN(8) {
	case 0:
		p.indent = "  "
	case 1:
		p.indent = "\t"
	case 2:
		p.indent = "    "
	}
	p.nonASCIIKs = g.pow(3) * 0.5
	p.strMean = 1 + g.pow(2)*60
	return p
}

// pick draws an index with the given weights.
func (g *mixGen) pick(w []float64) int {
	var sum float64
	for _, v := range w {
		sum += v
	}
	x := g.r.Float64() * sum
	for i, v := range w {
		if x < v {
			return i
		}
		x -= v
	}
	return len(w) - 1
}

// geo draws a count with the given mean, at least 1.
func (g *mixGen) geo(mean float64) int {
	n := 1
	for g.r.Float64() > 1/mean && n < int(8*mean)+8 {
		n++
	}
	return n
}

// --- text ---

var asciiWords = []string{
	"the", "of", "and", "to", "in", "is", "you", "that", "it", "for", "was", "on", "are", "with", "as", "be",
	"this", "have", "from", "or", "one", "had", "by", "word", "but", "not", "what", "all", "were", "we",
	"when", "your", "can", "said", "there", "use", "an", "each", "which", "she", "do", "how", "their",
	"if", "will", "up", "other", "about", "out", "many", "then", "them", "these", "so", "some", "her",
	"would", "make", "like", "him", "into", "time", "has", "look", "two", "more", "write", "go", "see",
	"number", "no", "way", "could", "people", "my", "than", "first", "water", "been", "call", "who",
	"request", "server", "schema", "tool", "result", "error", "value", "config", "deploy", "build",
	"customer", "invoice", "summary", "meeting", "tomorrow", "thanks", "please", "update", "review",
}

var latinLetters = []rune("abcdeéèêëfghiíìîïjklmnñoóòôöõpqrsßtuúùûüvwxyýzàáâäãåæçøœ")

// combining marks a decomposed (NFD) text carries after a base letter.
var combining = []rune{0x0301, 0x0300, 0x0302, 0x0308, 0x0303, 0x0327}

func (g *mixGen) word(s script, b []rune) []rune {
	n := g.geo(g.p.wordMean)
	switch s {
	case scriptASCII:
		w := asciiWords[g.r.IntN(len(asciiWords))]
		if g.r.IntN(10) == 0 && len(w) > 0 {
			b = append(b, rune(w[0]-'a'+'A'))
			w = w[1:]
		}
		return append(b, []rune(w)...)
	case scriptLatin:
		for range n {
			if g.r.IntN(3) == 0 {
				b = append(b, latinLetters[g.r.IntN(len(latinLetters))])
			} else {
				b = append(b, rune('a'+g.r.IntN(26)))
			}
			if g.r.IntN(25) == 0 {
				b = append(b, combining[g.r.IntN(len(combining))])
			}
		}
	case scriptCyrillic:
		for range n {
			if g.r.IntN(12) == 0 {
				b = append(b, []rune("іїєґё")[g.r.IntN(5)])
			} else {
				b = append(b, rune(0x0430+g.r.IntN(32)))
			}
		}
	case scriptGreek:
		for range n {
			b = append(b, rune(0x03B1+g.r.IntN(25)))
			if g.r.IntN(8) == 0 {
				b = append(b, []rune("άέήίόύώ")[g.r.IntN(7)])
			}
		}
	case scriptCJK:
		for range n * 2 {
			switch g.r.IntN(10) {
			case 0, 1:
				b = append(b, rune(0x3041+g.r.IntN(86))) // hiragana
			case 2:
				b = append(b, rune(0x30A1+g.r.IntN(90))) // katakana
			default:
				b = append(b, rune(0x4E00+g.r.IntN(0x5200))) // CJK unified ideographs, the common block
			}
		}
	case scriptHangul:
		for range n {
			b = append(b, rune(0xAC00+g.r.IntN(11172)))
		}
	case scriptArabic:
		for range n {
			b = append(b, rune(0x0621+g.r.IntN(42)))
			if g.r.IntN(6) == 0 {
				b = append(b, rune(0x064B+g.r.IntN(8))) // harakat
			}
		}
		if g.r.IntN(30) == 0 {
			b = append(b, []rune{0x200F, 0x061C, 0x200E}[g.r.IntN(3)]) // direction marks
		}
		if g.r.IntN(15) == 0 {
			for range 1 + g.r.IntN(4) {
				b = append(b, rune(0x0660+g.r.IntN(10))) // Arabic-Indic digits
			}
		}
	case scriptHebrew:
		for range n {
			b = append(b, rune(0x05D0+g.r.IntN(27)))
		}
	case scriptDevanagari:
		for i := range n {
			b = append(b, rune(0x0915+g.r.IntN(37))) // consonant
			switch g.r.IntN(5) {
			case 0, 1:
				b = append(b, rune(0x093E+g.r.IntN(15))) // vowel sign
			case 2:
				if i < n-1 {
					b = append(b, 0x094D) // virama: a conjunct with the next consonant
					if g.r.IntN(8) == 0 {
						b = append(b, []rune{0x200D, 0x200C}[g.r.IntN(2)]) // ZWJ, ZWNJ
					}
				}
			}
		}
		if g.r.IntN(10) == 0 {
			b = append(b, 0x0902) // anusvara
		}
	}
	return b
}

var singleEmoji = []rune{0x1F600, 0x1F602, 0x1F60A, 0x1F60D, 0x1F914, 0x1F44D, 0x1F64F, 0x1F680, 0x1F389, 0x1F525, 0x2705, 0x23F3, 0x1F440, 0x1F4BB, 0x1F331}

// emoji appends one emoji sequence: a single code point, one with a skin tone,
// a ZWJ sequence (a profession, a family), a flag (two regional indicators),
// one with VS16, or a keycap.
func (g *mixGen) emoji(b []rune) []rune {
	switch g.r.IntN(8) {
	case 0, 1, 2:
		return append(b, singleEmoji[g.r.IntN(len(singleEmoji))])
	case 3: // skin tone
		return append(b, []rune{0x1F44D, 0x1F44B, 0x1F64F, 0x1F44F, 0x270C}[g.r.IntN(5)], rune(0x1F3FB+g.r.IntN(5)))
	case 4: // ZWJ: a person with a tone at work, or a family
		if g.r.IntN(2) == 0 {
			return append(b, []rune{0x1F469, 0x1F468, 0x1F9D1}[g.r.IntN(3)], rune(0x1F3FB+g.r.IntN(5)), 0x200D, []rune{0x1F4BB, 0x1F52C, 0x1F680, 0x1F373}[g.r.IntN(4)])
		}
		return append(b, 0x1F468, 0x200D, 0x1F469, 0x200D, 0x1F467, 0x200D, 0x1F466)
	case 5: // flag
		flags := []string{"FR", "DE", "JP", "BR", "CA", "IN", "UA", "VN", "US", "NG"}
		f := flags[g.r.IntN(len(flags))]
		return append(b, rune(0x1F1E6+int(f[0]-'A')), rune(0x1F1E6+int(f[1]-'A')))
	case 6: // VS16, and the rainbow flag's ZWJ
		if g.r.IntN(3) == 0 {
			return append(b, 0x1F3F3, 0xFE0F, 0x200D, 0x1F308)
		}
		return append(b, []rune{0x2764, 0x263A, 0x2600, 0x2B50}[g.r.IntN(4)], 0xFE0F)
	default: // keycap
		return append(b, rune('0'+g.r.IntN(10)), 0xFE0F, 0x20E3)
	}
}

// punct ends a sentence in the script's way.
func punct(s script) string {
	switch s {
	case scriptCJK:
		return "。"
	case scriptArabic:
		return "؟"
	case scriptDevanagari:
		return "।"
	}
	return "."
}

var paths = []string{`C:\Users\anna\Documents\report.docx`, `\\server\share\q3.xlsx`, `^\d{3}-\d{4}$`, `\s+`, `D:\build\out\`, `\frac{a}{b}`}

// text builds one string value's raw content (before escaping).
func (g *mixGen) text(kind textKind, words int) string {
	var b []rune
	switch kind {
	case kindCode:
		depth := 0
		for range words {
			for range depth {
				if g.p.indent == "\t" || g.r.IntN(2) == 0 {
					b = append(b, '\t')
				} else {
					b = append(b, ' ', ' ', ' ', ' ')
				}
			}
			switch g.r.IntN(6) {
			case 0:
				b = append(b, []rune("if err != nil {")...)
				depth = min(depth+1, 6)
			case 1:
				b = append(b, []rune(`fmt.Printf("%s: %d\n", name, n)`)...)
			case 2:
				b = append(b, '}')
				depth = max(depth-1, 0)
			case 3:
				b = append(b, []rune("// ")...)
				b = g.word(g.pickScript(), b)
				b = append(b, ' ')
				b = g.word(g.pickScript(), b)
			case 4:
				b = append(b, []rune(`re := regexp.MustCompile("^\\w+\\s*=\\s*\"[^\"]*\"$")`)...)
			default:
				b = append(b, []rune("x := compute(a, b) + 1")...)
			}
			b = append(b, '\n')
		}
		return string(b)
	case kindLog:
		for i := range words {
			b = append(b, []rune("2026-12-05T01:"+two(i%60)+":"+two(g.r.IntN(60))+"."+strconv.Itoa(100+g.r.IntN(900))+"Z ")...)
			b = append(b, []rune([]string{"INFO", "WARN", "ERROR", "DEBUG"}[g.r.IntN(4)])...)
			b = append(b, []rune(" request_id="+strconv.FormatUint(g.r.Uint64()%1e12, 16)+" path=/api/v1/items/"+strconv.Itoa(g.r.IntN(1e5))+" msg=\"")...)
			b = g.sentence(b, 2+g.r.IntN(6))
			b = append(b, '"')
			if g.r.IntN(4) == 0 {
				b = append(b, []rune(" file="+paths[g.r.IntN(2)])...)
			}
			b = append(b, '\n')
		}
		return string(b)
	case kindTable:
		cols := 2 + g.r.IntN(6)
		for range words {
			for c := range cols {
				if c > 0 {
					b = append(b, '\t')
				}
				if g.r.IntN(2) == 0 {
					b = append(b, []rune(strconv.Itoa(g.r.IntN(100000)))...)
				} else {
					b = g.word(g.pickScript(), b)
				}
			}
			b = append(b, '\r', '\n')
		}
		return string(b)
	case kindEmbedded:
		// A JSON document as a string: its own strings escaped once (by
		// this profile's encoder), then the whole escaped again by the
		// caller.
		var inner []byte
		inner = append(inner, '[')
		for i := range max(words/4, 1) {
			if i > 0 {
				inner = append(inner, ',')
			}
			inner = append(inner, `{"id":`...)
			inner = strconv.AppendInt(inner, int64(g.r.IntN(1e6)), 10)
			inner = append(inner, `,"text":`...)
			inner = g.appendString(inner, g.text(kindProse, 3+g.r.IntN(8)))
			inner = append(inner, '}')
		}
		inner = append(inner, ']')
		return string(inner)
	case kindChat:
		lines := 1 + g.r.IntN(4)
		for l := range lines {
			if l > 0 {
				b = append(b, '\n')
			}
			b = g.sentence(b, 1+g.r.IntN(max(words/lines, 1)+1))
			if g.r.Float64() < 0.5+g.p.emoji {
				b = g.emoji(b)
			}
		}
		return string(b)
	}
	// prose
	n := 0
	for n < words {
		k := min(g.geo(g.p.lineMean), words-n)
		b = g.sentence(b, k)
		n += k
		if n < words {
			if g.r.IntN(3) == 0 {
				b = append(b, '\n', '\n')
			} else if g.r.IntN(2) == 0 {
				b = append(b, '\n')
			} else {
				b = append(b, ' ')
			}
		}
	}
	return string(b)
}

func two(i int) string {
	if i < 10 {
		return "0" + strconv.Itoa(i)
	}
	return strconv.Itoa(i)
}

func (g *mixGen) pickScript() script { return script(g.pick(g.p.scripts[:])) }

// sentence appends words of one script (sometimes switching), separated as
// the script separates them, with quotes, paths, controls and emoji at the
// profile's densities.
func (g *mixGen) sentence(b []rune, words int) []rune {
	s := g.pickScript()
	for i := range words {
		if g.r.IntN(8) == 0 {
			s = g.pickScript()
		}
		if i > 0 && s != scriptCJK {
			b = append(b, ' ')
		}
		quoted := g.r.Float64() < g.p.quote
		if quoted {
			b = append(b, '"')
		}
		b = g.word(s, b)
		if quoted {
			b = append(b, '"')
		}
		if g.r.Float64() < g.p.backslash {
			b = append(b, ' ')
			b = append(b, []rune(paths[g.r.IntN(len(paths))])...)
		}
		if g.r.Float64() < g.p.control {
			b = append(b, []rune{'\r', '\b', '\f', 0x1b, 0x00, 0x7f}[g.r.IntN(6)])
		}
		if g.r.Float64() < g.p.emoji {
			if s != scriptCJK {
				b = append(b, ' ')
			}
			b = g.emoji(b)
		}
		if g.r.IntN(40) == 0 {
			b = append(b, []rune{'<', '>', '&', '/', '\'', 0x2028, 0x2026, 0x20AC, 0x2014}[g.r.IntN(9)])
		}
	}
	return append(b, []rune(punct(s))...)
}

// --- encoding ---

const hexLower, hexUpper = "0123456789abcdef", "0123456789ABCDEF"

func (g *mixGen) appendU(dst []byte, u uint16) []byte {
	hex := hexLower
	if g.p.enc.upperHex {
		hex = hexUpper
	}
	return append(dst, '\\', 'u', hex[u>>12], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
}

// appendString writes s as a JSON string the way the profile's encoder writes it.
func (g *mixGen) appendString(dst []byte, s string) []byte {
	e := g.p.enc
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"':
			dst = append(dst, '\\', '"')
		case r == '\\':
			dst = append(dst, '\\', '\\')
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\b' && e.shortBF:
			dst = append(dst, '\\', 'b')
		case r == '\f' && e.shortBF:
			dst = append(dst, '\\', 'f')
		case r < 0x20:
			dst = g.appendU(dst, uint16(r))
		case r == '/' && e.slash:
			dst = append(dst, '\\', '/')
		case (r == '<' || r == '>' || r == '&') && e.html:
			dst = g.appendU(dst, uint16(r))
		case (r == 0x2028 || r == 0x2029) && (e.lineSep || e.ensureASCII):
			dst = g.appendU(dst, uint16(r))
		case r >= utf8.RuneSelf && e.ensureASCII:
			for _, u := range utf16.Encode([]rune{r}) {
				dst = g.appendU(dst, u)
			}
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}

// --- structure ---

func (g *mixGen) newline() {
	if g.p.indent == "" {
		return
	}
	g.out = append(g.out, '\n')
	for range g.level {
		g.out = append(g.out, g.p.indent...)
	}
}

func (g *mixGen) colon() {
	g.out = append(g.out, ':')
	if g.p.indent != "" {
		g.out = append(g.out, ' ')
	}
}

var nameWords = []string{"id", "name", "type", "value", "items", "text", "content", "role", "user", "created", "updated", "at", "count", "total", "price", "tags", "meta", "data", "query", "limit", "offset", "status", "title", "body", "url", "lang", "score", "enabled", "children", "path", "line", "message", "source"}

var nonASCIINames = []string{"名前", "説明", "prénom", "описание", "الاسم", "नाम", "größe", "título", "数量", "città"}

// memberName draws a member name in the profile's style, unique within used.
func (g *mixGen) memberName(used map[string]bool) string {
	for {
		var n string
		if g.r.Float64() < g.p.nonASCIIKs {
			n = nonASCIINames[g.r.IntN(len(nonASCIINames))]
		} else {
			n = nameWords[g.r.IntN(len(nameWords))]
			if g.r.IntN(3) == 0 {
				w := nameWords[g.r.IntN(len(nameWords))]
				if g.r.IntN(2) == 0 {
					n += "_" + w
				} else {
					n += string(rune(w[0]-'a'+'A')) + w[1:]
				}
			}
		}
		if !used[n] {
			used[n] = true
			return n
		}
		if len(used) > 8 {
			n += strconv.Itoa(len(used))
			if !used[n] {
				used[n] = true
				return n
			}
		}
	}
}

// number appends a number of a kind real documents carry: small and large
// integers, negatives, prices, measurements, exponents, timestamps.
func (g *mixGen) number() {
	o := g.out
	switch g.r.IntN(9) {
	case 0:
		o = strconv.AppendInt(o, int64(g.r.IntN(10)), 10)
	case 1:
		o = strconv.AppendInt(o, int64(g.r.IntN(1000)), 10)
	case 2:
		o = strconv.AppendInt(o, -int64(g.r.IntN(100000)), 10)
	case 3:
		o = strconv.AppendInt(o, 1_700_000_000_000+int64(g.r.IntN(1e11)), 10) // a timestamp in ms
	case 4:
		o = strconv.AppendFloat(o, float64(g.r.IntN(100000))/100, 'f', -1, 64) // a price
	case 5:
		o = strconv.AppendFloat(o, g.r.NormFloat64()*1000, 'g', -1, 64) // a measurement, shortest form
	case 6:
		o = strconv.AppendFloat(o, g.r.Float64()*1e-7, 'e', 3+g.r.IntN(10), 64)
	case 7:
		o = strconv.AppendFloat(o, 6.02214076e23*(1+g.r.Float64()), 'E', -1, 64)
	default:
		o = strconv.AppendInt(o, int64(g.r.Uint32()), 10)
	}
	g.out = o
	g.nodes++
}

// leaf appends a string, a number, a bool or null.
func (g *mixGen) leaf() {
	x := g.r.Float64()
	switch {
	case x < g.p.numbers:
		g.number()
		return
	case x < g.p.numbers+0.05:
		g.out = append(g.out, []string{"true", "false", "null"}[g.r.IntN(3)]...)
		g.nodes++
		return
	}
	g.str(g.r.IntN(4) == 0)
}

// str appends a string value: short (an identifier, a label) or text of the
// profile's kinds.
func (g *mixGen) str(long bool) {
	words := 1 + g.r.IntN(3)
	kind := kindProse
	if long {
		words = g.geo(g.p.strMean)
		kind = textKind(g.pick(g.p.kinds[:]))
	}
	g.out = g.appendString(g.out, g.text(kind, words))
	g.nodes++
}

// value appends a record, an array or a leaf, nesting at most depth more.
func (g *mixGen) value(depth int) {
	g.room--
	if depth <= 0 || g.room <= 0 || g.r.IntN(3) == 0 {
		g.leaf()
		return
	}
	if g.r.IntN(3) == 0 {
		g.array(depth-1, 1+g.r.IntN(6))
		return
	}
	g.object(depth-1, 1+g.r.IntN(8))
}

func (g *mixGen) object(depth, members int) {
	g.out = append(g.out, '{')
	g.nodes++
	g.level++
	used := map[string]bool{}
	for i := range members {
		if i > 0 {
			g.out = append(g.out, ',')
		}
		g.newline()
		g.out = g.appendString(g.out, g.memberName(used))
		g.nodes++
		g.colon()
		g.value(depth)
	}
	g.level--
	g.newline()
	g.out = append(g.out, '}')
}

func (g *mixGen) array(depth, n int) {
	g.out = append(g.out, '[')
	g.nodes++
	g.level++
	numeric := g.r.Float64() < g.p.numbers/2 // a vector of numbers
	for i := range n {
		if i > 0 {
			g.out = append(g.out, ',')
		}
		g.newline()
		if numeric {
			g.number()
		} else {
			g.value(depth)
		}
	}
	g.level--
	g.newline()
	g.out = append(g.out, ']')
}

// item appends one element of the document's main array: a chat message, a
// record of the profile's depth, a long text, or a vector of numbers.
func (g *mixGen) item() {
	g.room = 8 + g.r.IntN(120)
	switch g.r.IntN(4) {
	case 0: // a message
		g.out = append(g.out, '{')
		g.level++
		g.newline()
		g.out = g.appendString(g.out, "role")
		g.colon()
		g.out = g.appendString(g.out, []string{"user", "assistant", "system", "tool"}[g.r.IntN(4)])
		g.out = append(g.out, ',')
		g.newline()
		g.out = g.appendString(g.out, "content")
		g.colon()
		g.str(true)
		g.level--
		g.newline()
		g.out = append(g.out, '}')
		g.nodes += 5
	case 1: // a deep record
		g.object(g.p.depth, 2+g.r.IntN(6))
	case 2: // a text
		g.str(true)
	default:
		g.value(g.p.depth)
	}
}

func (g *mixGen) document(size int) []byte {
	g.out = make([]byte, 0, size+size/8+4096)
	envelope := g.r.IntN(3) != 0
	if envelope {
		g.out = append(g.out, `{"jsonrpc":"2.0","id":`...)
		g.out = strconv.AppendInt(g.out, int64(1+g.r.IntN(1000)), 10)
		g.out = append(g.out, `,"method":"tools/call","params":{"name":"`...)
		g.out = append(g.out, []string{"chat.summarize", "docs.index", "records.upsert", "code.review", "logs.search"}[g.r.IntN(5)]...)
		g.out = append(g.out, `","arguments":`...)
		g.level = 2
	}
	g.out = append(g.out, '{')
	g.level++
	g.newline()
	g.out = g.appendString(g.out, "items")
	g.colon()
	g.out = append(g.out, '[')
	g.level++
	const maxNodes = 90_000
	for i := 0; len(g.out) < size && g.nodes < maxNodes; i++ {
		if i > 0 {
			g.out = append(g.out, ',')
		}
		g.newline()
		g.item()
	}
	g.level--
	g.newline()
	g.out = append(g.out, ']')
	g.level--
	g.newline()
	g.out = append(g.out, '}')
	if envelope {
		g.out = append(g.out, "}}"...)
	}
	return g.out
}
