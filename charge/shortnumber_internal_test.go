package charge

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
)

// TestShortDecimalsIsEveryShortDecimalRenderingAsItself: the gate charges a
// one- to three-digit integer with one or two digits after a point its
// length without NumberWidth only when shortDecimals says every such literal
// renders as itself in the dialect.
func TestShortDecimalsIsEveryShortDecimalRenderingAsItself(t *testing.T) {
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			want := true
			for n := range 1000 {
				for _, frac := range []string{"%d", "%02d"} {
					for f := range 100 {
						if frac == "%d" && f >= 10 {
							break
						}
						lit := strconv.Itoa(n) + "." + fmt.Sprintf(frac, f)
						want = want && d.NumberWidth([]byte(lit)) == len(lit)
					}
				}
			}
			if got := widthsFor(d).shortDecimals; got != want {
				t.Fatalf("%v: shortDecimals = %v, want %v", d, got, want)
			}
		})
	}
}

// TestShortIntEndReadsAtMostThreeDigits: shortIntEnd stops after the third
// digit, at the first byte that is not a digit, after a leading zero, and at
// the document's end.
func TestShortIntEndReadsAtMostThreeDigits(t *testing.T) {
	// The name is the digits after [ and what follows them: end (the
	// document's), close, comma, brace, point.
	for _, c := range []struct {
		name, doc string
		want      int // shortIntEnd(doc, 1)
	}{
		{"0_end", "[0", 2}, {"0_close", "[0]", 2}, {"01", "[01", 2}, {"00", "[00", 2}, {"0.5", "[0.5", 2},
		{"7_end", "[7", 2}, {"7_comma", "[7,", 2}, {"7.5", "[7.5", 2}, {"7e1", "[7e1", 2},
		{"12_end", "[12", 3}, {"12_close", "[12]", 3}, {"12.5", "[12.5", 3}, {"10_end", "[10", 3},
		{"123_end", "[123", 4}, {"123_brace", "[123}", 4}, {"100_end", "[100", 4}, {"1234_end", "[1234", 4}, {"123_point_end", "[123.", 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := shortIntEnd([]byte(c.doc), 1); got != c.want {
				t.Errorf("shortIntEnd(%q, 1) = %d, want %d", c.doc, got, c.want)
			}
		})
	}
}

// TestShortFractionEndsWhereTheTokenEnds: after a short integer part,
// shortFraction takes a point and one or two digits when shortDecimals
// holds, and only a token that nothing after it continues; at the
// document's end too.
func TestShortFractionEndsWhereTheTokenEnds(t *testing.T) {
	both := *widthsFor(Go)
	both.shortDecimals = true
	ints := both
	ints.shortDecimals = false
	// The name is the token after [ and what follows it: end (the
	// document's), close, comma, space, x.
	for _, c := range []struct {
		name, doc string
		j         int // the byte after the integer part
		both      int // shortFraction under each table; ints is always -1
	}{
		{"1._end", "[1.", 2, -1}, {"1._close", "[1.]", 2, -1}, {"1._x", "[1.x", 2, -1}, {"1..5", "[1..5", 2, -1},
		{"1.5_end", "[1.5", 2, 4}, {"1.5_close", "[1.5]", 2, 4}, {"0.5_comma", "[0.5,", 2, 4}, {"0.05_end", "[0.05", 2, 5},
		{"1.25_end", "[1.25", 2, 5}, {"1.25_space", "[1.25 ", 2, 5},
		{"999.99_close", "[999.99]", 4, 7}, {"999.99_end", "[999.99", 4, 7}, {"1.255_end", "[1.255", 2, -1}, {"1.255_close", "[1.255]", 2, -1},
		{"1.5e3", "[1.5e3", 2, -1}, {"1.5E3", "[1.5E3", 2, -1}, {"1.25e3", "[1.25e3", 2, -1}, {"1.5.3", "[1.5.3", 2, -1},
		{"1e3", "[1e3", 2, -1}, {"12E3", "[12E3", 3, -1}, {"1234", "[1234", 4, -1}, {"01", "[01", 2, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := both.shortFraction([]byte(c.doc), c.j); got != c.both {
				t.Errorf("shortFraction(%q, %d) = %d, want %d", c.doc, c.j, got, c.both)
			}
			if got := ints.shortFraction([]byte(c.doc), c.j); got != -1 {
				t.Errorf("without shortDecimals: shortFraction(%q, %d) = %d, want -1", c.doc, c.j, got)
			}
		})
	}
}

// TestShortNumbersAgreeWithTheNumberPath: every document of short numbers
// and their neighbours (too many digits, a third decimal, an exponent, a
// sign, broken forms) gets the same report and refusal from the gate as
// from one whose tables send every number to number(), under the default
// limits and under tiny number-length and charge budgets.
func TestShortNumbersAgreeWithTheNumberPath(t *testing.T) {
	var toks []string
	for _, n := range []string{"0", "1", "9", "10", "99", "100", "999", "1000", "01"} {
		for _, frac := range []string{"", ".", ".0", ".5", ".05", ".50", ".99", ".123"} {
			for _, exp := range []string{"", "e1", "E-2", ".5"} {
				toks = append(toks, n+frac+exp, "-"+n+frac+exp)
			}
		}
	}
	contexts := []string{"%s", "[%s]", "[%s,1]", `{"a":%s}`, `{"a":%s,"b":2}`, " %s ", "[ %s ]", "[%s"}
	var limits []Limits
	var names []string // each limit's subtest
	for n := 1; n <= 7; n++ {
		l := DefaultLimits()
		l.MaxNumberBytes = n
		limits = append(limits, l)
		names = append(names, fmt.Sprintf("MaxNumberBytes=%d", n))
	}
	for c := int64(1); c <= 12; c++ {
		l := DefaultLimits()
		l.MaxParamsRenderedChars = c
		limits = append(limits, l)
		names = append(names, fmt.Sprintf("MaxParamsRenderedChars=%d", c))
	}
	names = append(names, "defaults")
	limits = append(limits, DefaultLimits())
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			for k, l := range limits {
				t.Run(names[k], func(t *testing.T) {
					fast, err := NewGate(d, l)
					if err != nil {
						t.Fatal(err)
					}
					slow, _ := NewGate(d, l)
					tables := *slow.widths
					tables.shortInts, tables.shortDecimals = false, false
					slow.widths = &tables
					for _, tok := range toks {
						for _, ctx := range contexts {
							doc := []byte(fmt.Sprintf(ctx, tok))
							fr, fe := fast.Check(doc)
							sr, se := slow.Check(doc)
							var fref, sref *Refusal
							errors.As(fe, &fref)
							errors.As(se, &sref)
							if fr != sr || (fref == nil) != (sref == nil) || (fref != nil && *fref != *sref) {
								t.Fatalf("%v %+v %q: fast %+v %v, number() %+v %v", d, l, doc, fr, fe, sr, se)
							}
						}
					}
				})
			}
		})
	}
}
