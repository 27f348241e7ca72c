package audit

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// Backtracking is a pattern a backtracking engine (Python's re,
// JavaScript's RegExp, PCRE) can take exponential or polynomial time on:
// the static finding, and the string crafted to measure it.
type Backtracking struct {
	At      string `json:"at"` // the schema pointer of the pattern
	Pattern string `json:"pattern"`
	// Why: "nested quantifier" ((a+)+), "overlapping alternation"
	// ((a|a)*), "adjacent quantifiers" (\d+\d+, polynomial).
	Why string `json:"why"`
	// The crafted string is Prefix, then Pump repeated, then Suffix: the
	// pump matched ambiguously, the suffix failing the match, so a
	// backtracking engine tries every split of the pumps before it refuses.
	Prefix string `json:"prefix"`
	Pump   string `json:"pump"`
	Suffix string `json:"suffix"`
	// Exponential: each pump multiplies the work (nested quantifier,
	// overlapping alternation); else it grows as a power of the length.
	Exponential bool `json:"exponential"`
}

// maxBacktrackNodes bounds the syntax tree one pattern's analysis walks.
const maxBacktrackNodes = 4096

// backtracking reads a pattern's syntax tree for an unbounded repetition
// whose item can match one string in more than one way: a repetition
// nested in it, alternatives that match the same string, or (in a
// sequence) a repetition beside another that matches what it does. ok is
// false when the pattern shows none (or does not parse as Go's syntax).
func backtracking(p string) (Backtracking, bool) {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return Backtracking{}, false
	}
	var found *Backtracking
	nodes := 0
	var walk func(re *syntax.Regexp, before []*syntax.Regexp)
	walk = func(re *syntax.Regexp, before []*syntax.Regexp) {
		nodes++
		if found != nil || nodes > maxBacktrackNodes {
			return
		}
		if unbounded(re) {
			item := strip(re.Sub[0])
			if inner := firstUnbounded(item); inner != nil {
				found = &Backtracking{Pattern: p, Why: "nested quantifier", Pump: sample(inner.Sub[0]), Exponential: true}
			}
			if found != nil {
				found.Prefix = prefixOf(before)
				return
			}
		}
		if re.Op == syntax.OpConcat {
			for i, s := range re.Sub {
				if i > 0 && unbounded(s) {
					// a repetition after one whose item matches its item
					for k := i - 1; k >= 0; k-- {
						prev := re.Sub[k]
						if unbounded(prev) {
							pump := sample(strip(s.Sub[0]))
							if pump != "" && fullMatch(strip(prev.Sub[0]), pump) {
								found = &Backtracking{Pattern: p, Why: "adjacent quantifiers", Pump: pump, Prefix: prefixOf(append(before, re.Sub[:k]...))}
								return
							}
						}
						if !canBeEmpty(prev) {
							break
						}
					}
				}
				walk(s, append(slicesClone(before), re.Sub[:i]...))
			}
			return
		}
		for _, s := range re.Sub {
			walk(s, before)
		}
	}
	walk(re, nil)
	if found == nil {
		found = overlappingGroup(p)
	}
	if found == nil {
		return Backtracking{}, false
	}
	found.Suffix = failSuffix(p, found.Prefix, found.Pump)
	if found.Suffix == "" {
		return Backtracking{}, false // every ending matches: nothing to backtrack over
	}
	return *found, true
}

func slicesClone(s []*syntax.Regexp) []*syntax.Regexp { return append([]*syntax.Regexp(nil), s...) }

// unbounded: a repetition with no upper bound, or one past 16.
func unbounded(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus:
		return true
	case syntax.OpRepeat:
		return re.Max == -1 || re.Max > 16
	}
	return false
}

func strip(re *syntax.Regexp) *syntax.Regexp {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	return re
}

func firstUnbounded(re *syntax.Regexp) *syntax.Regexp {
	if unbounded(re) {
		return re
	}
	for _, s := range re.Sub {
		if u := firstUnbounded(s); u != nil {
			return u
		}
	}
	return nil
}

func canBeEmpty(re *syntax.Regexp) bool {
	r, err := regexp.Compile("^(?:" + re.String() + ")$")
	return err == nil && r.MatchString("")
}

// sample is the shortest non-empty string re matches (its least string,
// grown by one character when that is empty).
func sample(re *syntax.Regexp) string {
	s, err := walkPattern(re, 0, 0)
	if err == nil && s == "" {
		s, err = walkPattern(re, 1, 0)
	}
	if err != nil {
		return ""
	}
	return s
}

func fullMatch(re *syntax.Regexp, s string) bool {
	r, err := regexp.Compile("^(?:" + re.String() + ")$")
	return err == nil && r.MatchString(s)
}

// prefixOf is the least string the sequence before the repetition matches.
func prefixOf(before []*syntax.Regexp) string {
	var b strings.Builder
	for _, re := range before {
		s, err := walkPattern(re, 0, 0)
		if err != nil {
			return ""
		}
		b.WriteString(s)
	}
	return b.String()
}

// failSuffix is a character after the pumps that makes the whole pattern
// fail to match (Go's engine, linear, decides), "" when none of the
// candidates does.
func failSuffix(p, prefix, pump string) string {
	r, err := regexp.Compile(p)
	if err != nil {
		return ""
	}
	body := prefix + strings.Repeat(pump, 8)
	for _, c := range []string{"!", "\x00", "#", " ", "~", "0", "a", "A", "_", "-", "."} {
		if !r.MatchString(body + c) {
			return c
		}
	}
	return ""
}

// overlappingGroup finds, in the pattern's text, a repeated group whose
// alternatives match a common string ((a|a)*, (\d|\w)+). The syntax tree
// cannot show it: the parser merges such alternatives into one character
// class or literal, which Go's engine matches in linear time and a
// backtracking engine, reading the alternatives as written, does not.
func overlappingGroup(p string) *Backtracking {
	if len(p) > maxGroupScan {
		return nil // the text scan is quadratic: a longer pattern is read by its tree alone
	}
	for open := 0; open < len(p); open++ {
		if p[open] != '(' || escaped(p, open) || inClass(p, open) {
			continue
		}
		end := closing(p, open)
		if end < 0 || end+1 >= len(p) || !strings.ContainsRune("*+{", rune(p[end+1])) {
			continue
		}
		inner := p[open+1 : end]
		if strings.HasPrefix(inner, "?:") {
			inner = inner[2:]
		} else if strings.HasPrefix(inner, "?P<") || strings.HasPrefix(inner, "?<") {
			if i := strings.IndexByte(inner, '>'); i >= 0 {
				inner = inner[i+1:]
			}
		}
		alts := splitAlternatives(inner)
		if len(alts) < 2 {
			continue
		}
		var res []*syntax.Regexp
		for _, a := range alts {
			re, err := syntax.Parse(a, syntax.Perl)
			if err != nil {
				res = nil
				break
			}
			res = append(res, re)
		}
		for i := range res {
			s := sample(res[i])
			for j := range res {
				if j != i && s != "" && fullMatch(res[j], s) {
					prefix := ""
					if pre, err := syntax.Parse(p[:open], syntax.Perl); err == nil {
						prefix, _ = walkPattern(pre, 0, 0)
					}
					return &Backtracking{Pattern: p, Why: "overlapping alternation", Pump: s, Prefix: prefix, Exponential: true}
				}
			}
		}
	}
	return nil
}

func escaped(p string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && p[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// inClass reports whether p[i] sits inside a [...] class.
func inClass(p string, i int) bool {
	in := false
	for j := 0; j < i; j++ {
		switch {
		case p[j] == '\\':
			j++
		case p[j] == '[' && !in:
			in = true
		case p[j] == ']' && in:
			in = false
		}
	}
	return in
}

// closing is the index of the parenthesis closing the one at open, -1 if
// none.
func closing(p string, open int) int {
	depth := 0
	for j := open; j < len(p); j++ {
		if p[j] == '\\' {
			j++
			continue
		}
		if inClass(p, j) {
			continue
		}
		switch p[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// splitAlternatives splits a group's text at its top-level bars.
func splitAlternatives(s string) []string {
	var out []string
	depth, last := 0, 0
	for j := 0; j < len(s); j++ {
		switch {
		case s[j] == '\\':
			j++
		case inClass(s, j):
		case s[j] == '(':
			depth++
		case s[j] == ')':
			depth--
		case s[j] == '|' && depth == 0:
			out = append(out, s[last:j])
			last = j + 1
		}
	}
	return append(out, s[last:])
}

// maxGroupScan bounds the pattern text overlappingGroup scans.
const maxGroupScan = 1024
