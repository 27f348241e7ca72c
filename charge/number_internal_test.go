package charge

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestLiteralShortestReadsWhatItCan: literalShortest, the fast path that
// reads a number's shortest digits off its literal, answers (ok) for every
// nonzero literal of at most 15 significant digits with a decimal exponent
// within ±300 (a written exponent of up to five digits read whole), and past
// 15 where ownShortest proves the count, and its answer is what converting
// the literal gives; it declines zero, more digits that ownShortest cannot
// prove, and exponents past ±300 (which the caller converts). Its results never change a width — a decline
// is converted — so this holds that the fast path is taken where it claims.
func TestLiteralShortestReadsWhatItCan(t *testing.T) {
	answers := func(t *testing.T, lit string) {
		digits, exp, sign, ok := literalShortest([]byte(lit))
		wd, we, ws := shortest(parseFloat([]byte(lit)))
		if !ok || digits != wd || exp != we || sign != ws {
			t.Errorf("literalShortest(%s) = %d, %d, %d, %v; converting gives %d, %d, %d", lit, digits, exp, sign, ok, wd, we, ws)
		}
	}
	for _, lit := range []string{"1", "-7", "1.5", "-0.001", "0.1", "10", "100.000", "123456789012345", "-12345678901234.5",
		"0.000123456789012345", "1e5", "1E-5", "2.5e+10", "9.99999999999999e300", "1e-300", "100e-302", "0.001e303", "1e0300"} {
		t.Run("answers_"+caseName(lit), func(t *testing.T) { answers(t, lit) })
	}
	t.Run("answers_five_digit_exponent", func(t *testing.T) {
		answers(t, "0."+strings.Repeat("0", 9999)+"1e10000") // 1: a five-digit written exponent, read whole
	})
	// Past 15 digits, where ownShortest proves the count (see
	// TestOwnShortestAgreesWithConversion for the rest).
	for _, lit := range []string{"1234567890123456", "1.000000000000001", "-8.009290528515834E+23", "9007199254740993", "4503599627370497", "0.1000000000000000055511151231257827"[:18]} {
		t.Run("answers_"+caseName(lit), func(t *testing.T) { answers(t, lit) })
	}
	for _, lit := range []string{"0", "-0", "0.000", "0e5", "9999999999999999", "0.30000000000000004", "-8.009290528515839E+23", "12345678901234567890",
		"1e301", "1e-301", "10e300", "1e100000", "-1e-99999"} {
		t.Run("declines_"+caseName(lit), func(t *testing.T) {
			if _, _, _, ok := literalShortest([]byte(lit)); ok {
				t.Errorf("literalShortest(%s) answered; it must decline", lit)
			}
		})
	}
}

// TestGoLiteralWidthAtItsEdge: goLiteralWidth, go's path that prices a
// literal of more than 15 significant digits at its own length without
// converting it, takes a literal whose bound xtextWidth(D, e) is exactly its
// length (the 17-digit floats binary fractions print as, and a literal that
// rounds up to the next power of ten), or one whose count of shortest
// digits ownShortest proves, and declines one whose bound is one past it (a
// comma in the integer part) or more (the exponent form) where ownShortest
// cannot prove the count; what it answers is go's width by conversion, and
// up to 15 digits it always answers.
func TestGoLiteralWidthAtItsEdge(t *testing.T) {
	byConversion := func(lit string) int { return max(len(lit), xtextFloatWidth(parseFloat([]byte(lit)))) }
	for _, lit := range []string{"0.060000000000000005", "-0.06999999999999999", "12.350000000000001", "999.99999999999999999", "0.00012345678901234567",
		"12.35", "1234.5", "1e-7", "-123456789012345", "0.000012345678901234567"} {
		t.Run("answers_"+caseName(lit), func(t *testing.T) {
			w, ok := goLiteralWidth([]byte(lit))
			if !ok {
				t.Errorf("goLiteralWidth(%s) declined", lit)
			} else if want := byConversion(lit); w != want {
				t.Errorf("goLiteralWidth(%s) = %d; by conversion %d", lit, w, want)
			}
		})
	}
	for _, lit := range []string{"1234.0000000000000001", "-1000.0000000000000001", "0.000012345678901234569", "1234567890123456789"} {
		t.Run("declines_"+caseName(lit), func(t *testing.T) {
			if w, ok := goLiteralWidth([]byte(lit)); ok {
				t.Errorf("goLiteralWidth(%s) = %d; its bound is past its length, it must decline", lit, w)
			}
		})
	}
}

// TestOwnShortestAgreesWithConversion: wherever ownShortest answers for a
// literal of 16 to 19 significant digits, converting the literal gives a
// shortest form of as many digits with the first at the literal's exponent,
// and both dialects' widths off the literal are those by conversion. The
// literals: random mantissas of every length, at random scales across the
// normal range, in both notations, and the mantissas on each side of the
// proof's bound for every last digit (dist*4503599627000000, where the
// bound is nearest 2^52 units an ulp).
func TestOwnShortestAgreesWithConversion(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 46))
	var mants []uint64
	for range 20000 {
		d := 16 + rng.IntN(4)
		lo := uint64(1)
		for range d - 1 {
			lo *= 10
		}
		m := lo + rng.Uint64N(9*lo)
		if m%10 == 0 {
			m++
		}
		mants = append(mants, m)
	}
	for dist := uint64(1); dist <= 5; dist++ {
		for _, r := range []uint64{dist, 10 - dist} {
			edge := dist * 4_503_599_627_000_000
			for _, m := range []uint64{edge - edge%10 + r - 10, edge - edge%10 + r, edge - edge%10 + r + 10, 1<<52*dist - (1<<52*dist)%10 + r} {
				mants = append(mants, m)
			}
		}
	}
	answered := 0
	for k, m := range mants {
		digits := strconv.FormatUint(m, 10)
		var lit string
		switch k % 3 {
		case 0: // d.ddd…e±x
			lit = digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(rng.IntN(560)-280)
		case 1: // a point among the digits
			p := 1 + rng.IntN(len(digits)-1)
			lit = digits[:p] + "." + digits[p:]
		default: // 0.000ddd…
			lit = "0." + strings.Repeat("0", rng.IntN(6)) + digits
		}
		if k%2 == 1 {
			lit = "-" + lit
		}
		tok := []byte(lit)
		f := parseFloat(tok)
		wd, we, ws := shortest(f)
		if d, e, s, ok := literalShortest(tok); ok {
			answered++
			if d != wd || e != we || s != ws {
				t.Fatalf("literalShortest(%s) = %d, %d, %d; converting gives %d, %d, %d", lit, d, e, s, wd, we, ws)
			}
		}
		if got, want := Go.NumberWidth(tok), max(len(lit), xtextFloatWidth(f)); got != want {
			t.Fatalf("go NumberWidth(%s) = %d; by conversion %d", lit, got, want)
		}
		if got, want := Python.NumberWidth(tok), pythonFloatWidth(f); got != want {
			t.Fatalf("python NumberWidth(%s) = %d; by conversion %d", lit, got, want)
		}
	}
	// Of 16-digit mantissas ownShortest proves about six in seven; of more,
	// few.
	if answered < len(mants)/6 {
		t.Fatalf("ownShortest answered for %d of %d literals: the fast path is not taken", answered, len(mants))
	}
}

// TestDigitsEndEveryByte: digitsEnd finds the end of a run of digits as a
// byte at a time does: runs of every length to 40 closed by each of the 256
// bytes (followed by each of a few bytes, the carry of 0xfa..0xff among
// them) or by the document's end, from every start in the first word.
func TestDigitsEndEveryByte(t *testing.T) {
	ref := func(doc []byte, i int) int {
		for i < len(doc) && isDigit(doc[i]) {
			i++
		}
		return i
	}
	for n := 0; n <= 40; n++ {
		run := make([]byte, n)
		for k := range run {
			run[k] = "0123456789"[(k*7+3)%10]
		}
		for c := 0; c <= 256; c++ {
			for _, after := range []string{"", "9", "\xff9", "0\xfa", ":/"} {
				doc := append([]byte("-"), run...)
				if c < 256 {
					doc = append(doc, byte(c))
					doc = append(doc, after...)
				}
				for at := 0; at <= min(8, len(doc)); at++ {
					if got, want := digitsEnd(doc, at), ref(doc, at); got != want {
						t.Fatalf("digitsEnd(%q, %d) = %d, want %d", doc, at, got, want)
					}
				}
			}
		}
	}
}

// TestScannedWidthIsNumberWidth: the gate prices a number from the parts
// its scan found (scannedWidth), and that is NumberWidth of the token, in
// both dialects: every token of integer parts of up to four digits, 0 and
// nonzero ones of 1s and 9s, fractions of up to four digits of 0s, 1s and
// 9s, with and without exponents at each form's edges, both signs; and
// random tokens of up to 22 digits on each side of the point, half of them
// zeros (so runs of zeros at both ends, past 15 significant digits and
// past 19).
func TestScannedWidthIsNumberWidth(t *testing.T) {
	var ints []string
	ints = append(ints, "0")
	var grow func(s string, n int)
	grow = func(s string, n int) {
		if len(s) == n {
			ints = append(ints, s)
			return
		}
		for _, c := range "019" {
			if s == "" && c == '0' {
				continue
			}
			grow(s+string(c), n)
		}
	}
	for n := 1; n <= 4; n++ {
		grow("", n)
	}
	fracs := []string{""}
	for n := 1; n <= 4; n++ {
		for k := range pow(3, n) {
			f := []byte(".")
			for j := 0; j < n; j++ {
				f = append(f, "019"[k%3])
				k /= 3
			}
			fracs = append(fracs, string(f))
		}
	}
	exps := []string{"", "e0", "E+5", "e-5", "e-4", "e6", "e16", "e-16", "e-300", "e300", "e-301", "e301", "e-305", "e308",
		"e-7", "e05", "E+0001", "e999", "e-999"}
	for _, d := range Dialects() {
		g, err := NewGate(d, DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		agree := func(tok string) {
			want := d.NumberWidth([]byte(tok))
			if rep, err := g.Check([]byte(tok)); err != nil || rep.Charge != int64(want) {
				t.Fatalf("%v: %s charged %d (%v); NumberWidth %d", d, tok, rep.Charge, err, want)
			}
		}
		for _, sign := range []string{"", "-"} {
			for _, i := range ints {
				for _, f := range fracs {
					for _, e := range exps {
						agree(sign + i + f + e)
					}
				}
			}
		}
		rng := rand.New(rand.NewPCG(19, 46))
		digit := func() byte {
			if rng.IntN(2) == 0 {
				return '0'
			}
			return byte('1' + rng.IntN(9))
		}
		for range 50000 {
			tok := []byte{}
			if rng.IntN(2) == 0 {
				tok = append(tok, '-')
			}
			if n := rng.IntN(23); n == 0 {
				tok = append(tok, '0')
			} else {
				tok = append(tok, byte('1'+rng.IntN(9)))
				for range n - 1 {
					tok = append(tok, digit())
				}
			}
			if n := rng.IntN(23); n > 0 && rng.IntN(4) > 0 {
				tok = append(tok, '.')
				for range n {
					tok = append(tok, digit())
				}
			}
			if rng.IntN(2) == 0 {
				tok = append(tok, "eE"[rng.IntN(2)])
				tok = append(tok, "+-"[rng.IntN(2)])
				tok = strconv.AppendInt(tok, int64(rng.IntN(330)), 10)
			}
			agree(string(tok))
		}
	}
}

func pow(b, n int) int {
	p := 1
	for range n {
		p *= b
	}
	return p
}

// TestNearestFloatIsParseFloat: nearestFloat(m, q) is strconv's float64
// for m×10^q over its whole range of q, for random m of every bit length
// and for the integers exactly halfway between two floats (odd multiples
// of a half ulp, from 2^53 up, the ties half to even decides), with
// trailing zeros moved to q.
func TestNearestFloatIsParseFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 35))
	var ms []uint64
	for range 20000 {
		ms = append(ms, rng.Uint64()>>rng.IntN(64)|1<<rng.IntN(8))
	}
	for k := 53; k < 64; k++ {
		for range 200 {
			j := rng.Uint64N(1 << (k - 53))
			ms = append(ms, 1<<k+(2*j+1)<<(k-53)) // halfway: the bit below the last one kept
		}
	}
	// Products m×10^q whose low word is zero and whose high word holds more
	// than 53 bits: m = odd×2^(64-q), so the bits rounding drops are all
	// in the high word.
	for q := 10; q <= 19; q++ {
		for range 200 {
			ms = append(ms, (rng.Uint64N(1<<(q-1))*2+1)<<(64-q))
		}
	}
	for _, m := range ms {
		for q := -19; q <= 19; q++ {
			got, ok := nearestFloat(m, q)
			want, err := strconv.ParseFloat(strconv.FormatUint(m, 10)+"e"+strconv.Itoa(q), 64)
			if !ok || err != nil || got != want {
				t.Fatalf("nearestFloat(%d, %d) = %v, %v; ParseFloat %v (%v)", m, q, got, ok, want, err)
			}
		}
	}
	for _, q := range []int{-20, 20} {
		if _, ok := nearestFloat(1, q); ok {
			t.Errorf("nearestFloat(1, %d) answers out of its range", q)
		}
	}
}

// TestOwnDigitsIsConversion: for literals of 16 to 19 significant digits
// (mant×10^q, no trailing zero) at scales across nearestFloat's range,
// ownDigits says exactly whether converting gives a shortest form of as
// many digits with the first at the literal's exponent; past that range
// it answers only where ownShortest proves it. The mantissas: random ones
// of each length, both sides of ownShortest's bound, and integers halfway
// between two floats.
func TestOwnDigitsIsConversion(t *testing.T) {
	rng := rand.New(rand.NewPCG(46, 19))
	var mants []uint64
	for range 4000 {
		lo := pow10s[15+rng.IntN(4)]
		mants = append(mants, lo+rng.Uint64N(9*lo))
	}
	for k := 53; k < 64; k++ {
		for range 100 {
			j := rng.Uint64N(1 << (k - 53))
			mants = append(mants, 1<<k+(2*j+1)<<(k-53))
		}
	}
	answered := 0
	for _, m := range mants {
		for m%10 == 0 {
			m /= 10
		}
		digits := len(strconv.FormatUint(m, 10))
		if digits < 16 {
			continue
		}
		for q := -22; q <= 22; q++ {
			lit := strconv.FormatUint(m, 10) + "e" + strconv.Itoa(q)
			wd, we, _ := shortest(parseFloat([]byte(lit)))
			want := wd == digits && we == q+digits-1
			got := ownDigits(m, q)
			if inRange := q >= -19 && q <= 18; got != want && (inRange || got) {
				t.Fatalf("ownDigits(%d, %d) = %v; converting gives %d digits at %d", m, q, got, wd, we)
			} else if !inRange && got != ownShortest(m) {
				t.Fatalf("ownDigits(%d, %d) = %v out of nearestFloat's range; ownShortest says %v", m, q, got, !got)
			}
			if got && !ownShortest(m) {
				answered++
			}
		}
	}
	if answered < len(mants) {
		t.Fatalf("ownDigits answered past ownShortest for %d cases of %d mantissas: the exact path is not taken", answered, len(mants))
	}
}
