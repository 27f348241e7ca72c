package audit

import (
	"errors"
	"regexp/syntax"
	"strings"
	"unicode"
)

// patternString builds a string the regular expression p matches, from its
// syntax tree: each repetition at its least count, grown (leftmost first)
// until the string is at least target characters when the expression
// allows; the first branch of each alternation; for a character class, a
// letter or digit it holds before anything else (variant picks a later
// one). The caller checks the result: anchors and word boundaries are not
// reasoned about here.
func patternString(p string, target, variant int) (string, error) {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return "", err
	}
	re = re.Simplify()
	least, err := walkPattern(re, 0, variant)
	if err != nil {
		return "", err
	}
	if need := target - len([]rune(least)); need > 0 {
		return walkPattern(re, need, variant)
	}
	return least, nil
}

// maxPatternRunes bounds what one generated string may grow to.
const maxPatternRunes = 1 << 16

func walkPattern(re *syntax.Regexp, need, variant int) (string, error) {
	var b strings.Builder
	n := 0
	var walk func(re *syntax.Regexp) error
	walk = func(re *syntax.Regexp) error {
		if n > maxPatternRunes {
			return errors.New("the pattern's string grows past the bound")
		}
		switch re.Op {
		case syntax.OpNoMatch:
			return errors.New("the pattern matches nothing")
		case syntax.OpLiteral:
			for _, r := range re.Rune {
				b.WriteRune(r)
				n++
			}
		case syntax.OpCharClass:
			b.WriteRune(classRune(re.Rune, variant))
			n++
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('a')
			n++
		case syntax.OpCapture:
			return walk(re.Sub[0])
		case syntax.OpConcat:
			for _, s := range re.Sub {
				if err := walk(s); err != nil {
					return err
				}
			}
		case syntax.OpAlternate:
			return walk(re.Sub[0])
		case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
			lo, hi := 0, -1
			switch re.Op {
			case syntax.OpPlus:
				lo = 1
			case syntax.OpQuest:
				hi = 1
			case syntax.OpRepeat:
				lo, hi = re.Min, re.Max
			}
			reps := 0
			for ; reps < lo; reps++ {
				if err := walk(re.Sub[0]); err != nil {
					return err
				}
			}
			for need > 0 && (hi < 0 || reps < hi) {
				before := n
				if err := walk(re.Sub[0]); err != nil {
					return err
				}
				reps++
				need -= n - before // only what the optional repetitions add counts toward the growth
				if n == before {
					break // the item is empty: repeating it grows nothing
				}
			}
		}
		return nil
	}
	if err := walk(re); err != nil {
		return "", err
	}
	return b.String(), nil
}

// classRune picks a rune from a class's ranges (pairs lo, hi): a lowercase
// letter, a digit, an uppercase letter, then any printable rune, the
// variant-th such when there are several.
func classRune(ranges []rune, variant int) rune {
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	var picks []rune
	for _, span := range [][2]rune{{'a', 'z'}, {'0', '9'}, {'A', 'Z'}} {
		for r := span[0]; r <= span[1] && len(picks) <= variant; r++ {
			if in(r) {
				picks = append(picks, r)
			}
		}
	}
	for i := 0; i+1 < len(ranges) && len(picks) <= variant; i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && len(picks) <= variant && r-ranges[i] < 256; r++ {
			if unicode.IsPrint(r) && !strings.ContainsRune(string(picks), r) {
				picks = append(picks, r)
			}
		}
	}
	if len(picks) == 0 {
		if len(ranges) > 0 {
			return ranges[0]
		}
		return 'a'
	}
	return picks[min(variant, len(picks)-1)]
}
