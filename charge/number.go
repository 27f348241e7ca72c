package charge

import (
	"math"
	"math/bits"
	"strconv"
	"unsafe"
)

// NumberWidth is the width the dialect renders a JSON number token at. tok must
// be a valid RFC 8259 number; the gate guarantees that.
//
// Python: json.loads makes an integer literal an int, whose repr is the literal
// itself except that "-0" becomes 0; anything with a fraction or an exponent
// becomes a float, rendered by repr: shortest round-trip digits, exponent form
// when the decimal exponent is < -4 or >= 16, inf/-inf on overflow, -0.0.
//
// Go: jsonschema/v6 prints a json.Number two ways — the literal itself (display,
// for format messages) and, for minimum, maximum, the exclusive bounds and
// multipleOf, %v of the float64 nearest its big.Rat through golang.org/x/text's
// English message printer, which groups digits (123,456.5) and writes exponents
// as superscripts (1×10⁻⁰⁵) — so the width is the larger.
func (d Dialect) NumberWidth(tok []byte) int {
	integer := true
	for _, c := range tok {
		if c == '.' || c == 'e' || c == 'E' {
			integer = false
			break
		}
	}
	return d.numberWidth(tok, integer)
}

// numberWidth is NumberWidth for a token already known to be an integer
// literal or not; the gate calls it with what its scan learnt.
func (d Dialect) numberWidth(tok []byte, integer bool) int {
	if d == Python {
		if integer {
			if len(tok) == 2 && tok[0] == '-' && tok[1] == '0' {
				return 1
			}
			return len(tok)
		}
		if digits, exp, sign, ok := literalShortest(tok); ok {
			return pythonWidth(digits, exp, sign)
		}
		return pythonFloatWidth(parseFloat(tok))
	}
	if integer {
		digits := len(tok)
		if tok[0] == '-' {
			digits--
		}
		if digits <= 15 {
			return max(len(tok), xtextIntegerWidth(tok)) // a float64 exactly
		}
	}
	if w, ok := goLiteralWidth(tok); ok {
		return w
	}
	return max(len(tok), xtextFloatWidth(parseFloat(tok)))
}

// scannedWidth is numberWidth for the valid number token doc[start:end]
// whose parts the gate's scan found: its integer part ends at intEnd, its
// fraction (a point and digits) at fracEnd (fracEnd == intEnd without
// one), and e is its exponent's value (0 without one). It prices the
// token as numberWidth does, reading its significant digits off those
// ends (scannedDigits) rather than reading the token again.
func (d Dialect) scannedWidth(doc []byte, start, intEnd, fracEnd, end, e int) int {
	tok := doc[start:end]
	sign, intAt := 0, start
	if doc[start] == '-' {
		sign, intAt = 1, start+1
	}
	if end == intEnd { // an integer literal
		if d == Python {
			if sign == 1 && intEnd-intAt == 1 && doc[intAt] == '0' {
				return 1 // -0 is 0
			}
			return len(tok)
		}
		if n := intEnd - intAt; n <= 15 { // a float64 exactly: xtextIntegerWidth
			if doc[intAt] == '0' {
				return len(tok) // 0 or -0, printed 0
			}
			last := intEnd - 1
			for doc[last] == '0' {
				last--
			}
			return max(len(tok), xtextWidth(last-intAt+1, n-1, sign))
		}
	}
	if digits, exp, first, last, ok := scannedDigits(doc, intAt, intEnd, fracEnd, e); ok {
		if d == Python {
			if digits <= 15 || ownDigits(scannedMantissa(doc, first, last, digits), exp-digits+1) {
				return pythonWidth(digits, exp, sign)
			}
			return pythonFloatWidth(parseFloat(tok))
		}
		if w := xtextWidth(digits, exp, sign); digits <= 15 || w <= len(tok) || ownDigits(scannedMantissa(doc, first, last, digits), exp-digits+1) {
			return max(len(tok), w)
		}
	} else if d == Python {
		return pythonFloatWidth(parseFloat(tok))
	}
	return max(len(tok), xtextFloatWidth(parseFloat(tok)))
}

// scannedDigits is literalDigits for a number token whose integer part is
// doc[intAt:intEnd], whose fraction, if any, ends at fracEnd, and whose
// exponent is e: its significant digits' count, the decimal exponent of
// the first, and where the first and the last are in doc. The first is
// the integer part's first digit unless that is 0 (then the first nonzero
// digit of the fraction), the last is found from the end back past the
// zeros. ok is false for zero and for a decimal exponent outside ±300, as
// for literalDigits, and for an exponent of more than 1000 in magnitude
// (which literalDigits refuses but for a token of hundreds of digits, where
// both ways are exact).
func scannedDigits(doc []byte, intAt, intEnd, fracEnd, e int) (digits, exp, first, last int, ok bool) {
	if e > 1000 || e < -1000 {
		return 0, 0, 0, 0, false
	}
	first, exp = intAt, intEnd-intAt-1+e
	if doc[intAt] == '0' { // the integer part is 0
		if first = intEnd + 1; first >= fracEnd {
			return 0, 0, 0, 0, false // zero
		}
		for doc[first] == '0' {
			if first++; first == fracEnd {
				return 0, 0, 0, 0, false // zero
			}
		}
		exp = intEnd - first + e
	}
	last = fracEnd - 1
	for doc[last] == '0' || doc[last] == '.' { // stops at first at the latest
		last--
	}
	digits = last - first + 1
	if first < intEnd && last > intEnd {
		digits-- // the point lies between them
	}
	if exp < -300 || exp > 300 {
		return 0, 0, 0, 0, false
	}
	return digits, exp, first, last, true
}

// scannedMantissa is mantissa for the significant digits doc[first:last+1]
// (a point among them skipped), digits of them: 0 past 19.
func scannedMantissa(doc []byte, first, last, digits int) uint64 {
	if digits > 19 {
		return 0
	}
	var m uint64
	for k := first; k <= last; k++ {
		if c := doc[k]; c != '.' {
			m = m*10 + uint64(c-'0')
		}
	}
	return m
}

// goLiteralWidth is go's width for tok read off the literal without
// converting it, when that is sure (ok): up to 15 significant digits, the
// float's shortest digits are the literal's own (literalShortest); past 15,
// when x/text's rendering of the float nearest it is provably no wider than
// the literal, its width is the literal's length — the 17-digit floats binary
// fractions print as (0.060000000000000005), for one. ok false means convert.
//
// The proof for more than 15 digits:
// Let the literal L have D significant digits and its first at decimal
// exponent e, and let f be the float64 nearest it (normal: e is well inside
// the range). shortest(f) is the decimal of fewest digits in f's rounding
// interval, which holds L, so it has at most D digits. Its first digit is at
// e or e+1: were it below 10^e (or at or past 10^(e+1)), that power of ten
// would lie between it and L, inside the interval, and the interval of a
// normal float is far too narrow to hold two one-digit decimals; for the same
// reason, at e+1 it is 10^(e+1) itself, one digit. xtextWidth grows with the
// digit count at a fixed exponent, so x/text's width is at most the larger of
// xtextWidth(D, e) and xtextWidth(1, e+1). The second never decides: one
// digit renders in at most sign+17 bytes (1×10⁻ and three superscript
// digits), while a literal of 16 or more digits with a point or an exponent
// is at least sign+17 bytes long, and an integer one (e >= 15) at least
// sign+16, where 10^(e+1) renders in at most sign+14 (1×10 and three
// superscript digits). So when xtextWidth(D, e) <= len(tok), the width is
// len(tok).
//
// Past 15 digits the literal's own digits are also the float's shortest when
// ownShortest proves it, and the width is then xtextWidth(D, e) whatever it is.
func goLiteralWidth(tok []byte) (int, bool) {
	digits, exp, sign, ok := literalDigits(tok)
	if !ok {
		return 0, false
	}
	if w := xtextWidth(digits, exp, sign); digits <= 15 || w <= len(tok) || ownShortest(mantissa(tok, digits)) {
		return max(len(tok), w), true
	}
	return 0, false
}

// ownShortest reports whether the float64 nearest a literal whose
// significant digits, read as an integer, are mant (no trailing zero; 0 when
// there are too many to read) has a shortest form of as many significant
// digits as the literal, the first at the literal's decimal exponent: all a
// width needs. (Not always the literal's digits: 9007199254740993 is
// 9007199254740992.)
//
// The proof: let the literal L have D digits, its last of unit u (L =
// mant*u), and f be the float nearest it (normal, as literalDigits ensures).
// A decimal of fewer digits at L's scale is a multiple of 10u, so it lies at
// least dist = min(mant%10, 10-mant%10) units from L (dist >= 1: the last
// digit is not zero). shortest(f) lies in f's rounding interval, which holds
// L and reaches at most half an ulp from f, itself within half an ulp of L:
// so within an ulp of L. An ulp of a normal float is at most f*2^-52, and
// f/L is within 2^-53 of 1, so when mant*2^-52*(1+2^-52) < dist, an ulp is
// less than dist units and no decimal of fewer digits is in the interval;
// shortest(f) then has D digits (L, in the interval, has D), and its first digit is at
// L's exponent (a first digit one place up or down would put that power of
// ten, one digit, between it and L, inside the interval). The constant is
// 2^52 less a margin far wider than the factor 1+2^-52.
func ownShortest(mant uint64) bool {
	r := mant % 10
	return mant < min(r, 10-r)*4_503_599_627_000_000
}

// ownDigits is ownShortest, and where its bound cannot tell, the exact
// answer by nearestFloat: whether the float64 nearest mant×10^q (mant's
// digits significant, no trailing zero; 0 when too many to read) has a
// shortest form of as many significant digits as mant, the first at the
// same decimal exponent. False where neither can tell (the caller
// converts).
//
// The exact answer: a decimal of fewer digits at the literal's scale or
// above is a multiple of 10×10^q, and the set of reals that round to the
// float f nearest the literal L is an interval holding L; so one lies in
// it exactly when the nearest such multiple below L (lo) or above it (hi)
// does, that is when lo or hi rounds to f. If neither does, the shortest
// form has as many digits as L, and its first is at L's exponent (as in
// ownShortest's proof: a power of ten between would be a shorter decimal
// in the interval).
func ownDigits(mant uint64, q int) bool {
	if mant == 0 {
		return false
	}
	if ownShortest(mant) {
		return true
	}
	f, ok := nearestFloat(mant, q)
	lo := mant / 10
	below, okScale := nearestFloat(lo, q+1)
	above, _ := nearestFloat(lo+1, q+1)
	return ok && okScale && below != f && above != f
}

// pow10s are the powers of ten that fit a uint64.
var pow10s = func() (p [20]uint64) {
	p[0] = 1
	for k := 1; k < len(p); k++ {
		p[k] = p[k-1] * 10
	}
	return p
}()

// nearestFloat is the float64 nearest m×10^q (m > 0), rounded half to
// even as strconv.ParseFloat rounds, for q in [-19, 19]: the exact
// product, or a quotient of at least 62 bits with its remainder, rounded
// to 53 bits. ok is false outside that range.
func nearestFloat(m uint64, q int) (float64, bool) {
	switch {
	case q >= 0 && q < len(pow10s):
		hi, lo := bits.Mul64(m, pow10s[q])
		return roundBits(hi, lo, false, 0), true
	case q < 0 && -q < len(pow10s):
		d := pow10s[-q]
		// m×2^s / d has 63 or 64 bits: m×2^s < 2^(len(m)+s) = 2^63×2^len(d)
		// < 2^64×d, and m×2^s >= 2^(len(m)-1+s) = 2^62×2^len(d) > 2^62×d.
		s := 63 + bits.Len64(d) - bits.Len64(m)
		var hi, lo uint64
		if s >= 64 {
			hi = m << (s - 64)
		} else {
			hi, lo = m>>(64-s), m<<s
		}
		quo, rem := bits.Div64(hi, lo, d)
		return roundBits(0, quo, rem != 0, -s), true
	}
	return 0, false
}

// roundBits is the float64 nearest (hi×2^64 + lo + ε)×2^e, where ε is in
// (0, 1) when sticky and 0 otherwise, rounded half to even; the result
// must be a normal float.
func roundBits(hi, lo uint64, sticky bool, e int) float64 {
	n := bits.Len64(lo)
	if hi != 0 {
		n = 64 + bits.Len64(hi)
	}
	if n <= 53 && !sticky {
		return math.Ldexp(float64(lo), e) // exact
	}
	// Keep 54 bits (53 and the rounding bit); the rest join sticky.
	shift := n - 54
	var top uint64
	switch {
	case shift < 0:
		top = lo << -shift
	case shift == 0:
		top = lo
	case shift < 64:
		top = lo>>shift | hi<<(64-shift)
		sticky = sticky || lo&(1<<shift-1) != 0
	default:
		top = hi >> (shift - 64)
		sticky = sticky || lo != 0 || hi&(1<<(shift-64)-1) != 0
	}
	mant := top >> 1
	if top&1 == 1 && (sticky || mant&1 == 1) {
		mant++
	}
	return math.Ldexp(float64(mant), e+shift+1)
}

// literalShortest reads shortest's answer off a number token without
// converting it, when that is sure: a nonzero value of at most 15
// significant digits (DBL_DIG: every such decimal survives the round trip
// through float64, so no shorter decimal names the same float, and its
// shortest digits are its own) and a decimal exponent well inside the normal
// range. ok is false otherwise, and the caller converts.
func literalShortest(tok []byte) (digits, exp, sign int, ok bool) {
	digits, exp, sign, ok = literalDigits(tok)
	if !ok || (digits > 15 && !ownShortest(mantissa(tok, digits))) {
		return 0, 0, 0, false // zero, or too many digits to be sure
	}
	return digits, exp, sign, true
}

// literalDigits reads a nonzero number token's significant digits (from its
// first nonzero digit to its last), the decimal exponent of the first, and its
// sign. ok is false for zero and for a decimal exponent outside ±300, where a
// float64 may be subnormal or overflow.
func literalDigits(tok []byte) (digits, exp, sign int, ok bool) {
	i := 0
	if tok[0] == '-' {
		sign, i = 1, 1
	}
	first, last := -1, -1 // positions, among the mantissa's digits, of the first and last nonzero
	pos, point := 0, -1   // digits read; how many preceded the point
	for ; i < len(tok); i++ {
		c := tok[i]
		if c == '.' {
			point = pos
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		if c != '0' {
			if first < 0 {
				first = pos
			}
			last = pos
		}
		pos++
	}
	if point < 0 {
		point = pos
	}
	if first < 0 {
		return 0, 0, 0, false // zero
	}
	e := 0
	if i < len(tok) { // e or E, then the exponent
		i++
		neg := tok[i] == '-'
		if tok[i] == '-' || tok[i] == '+' {
			i++
		}
		for ; i < len(tok); i++ {
			if e > 1000 {
				return 0, 0, 0, false
			}
			e = e*10 + int(tok[i]-'0')
		}
		if neg {
			e = -e
		}
	}
	exp = point - first - 1 + e
	if exp < -300 || exp > 300 {
		return 0, 0, 0, false
	}
	return last - first + 1, exp, sign, true
}

// mantissa is a number token's significant digits read as an integer, when
// there are at most 19 of them (digits, as literalDigits counts them); 0
// otherwise.
func mantissa(tok []byte, digits int) uint64 {
	if digits > 19 {
		return 0
	}
	var m uint64
	for _, c := range tok {
		switch {
		case c == '.' || c == '-':
			continue
		case c < '0' || c > '9':
			return m // the exponent
		case m == 0 && c == '0':
			continue // a leading zero
		}
		if digits == 0 {
			return m // past the last nonzero: trailing zeros
		}
		m = m*10 + uint64(c-'0')
		digits--
	}
	return m
}

// parseFloat converts a valid number token to the nearest float64 (±Inf on
// overflow) without copying it.
func parseFloat(tok []byte) float64 {
	if len(tok) == 0 {
		return 0
	}
	// The string does not outlive this call and tok is not written meanwhile.
	f, _ := strconv.ParseFloat(unsafe.String(&tok[0], len(tok)), 64)
	return f
}

// xtextFloatWidth is the byte length of golang.org/x/text/message's English
// %v of f, the way jsonschema/v6's messages print a bound's got value: strconv's
// shortest digits; decimal when the exponent is in [-4, 6), with a comma every
// three integer digits; otherwise d.ddd×10 and a superscript exponent of at
// least two digits, ⁻ for a negative one; ∞ for infinity; 0 for both zeros.
func xtextFloatWidth(f float64) int {
	switch {
	case math.IsInf(f, 0):
		if f < 0 {
			return 1 + len("∞")
		}
		return len("∞")
	case f == 0:
		return 1
	}
	digits, exp, sign := shortest(f)
	return xtextWidth(digits, exp, sign)
}

// xtextIntegerWidth is xtextFloatWidth for an integer literal of at most 15
// digits, read from the literal: such an integer is a float64 exactly, and its
// shortest digits are its own without trailing zeros.
func xtextIntegerWidth(tok []byte) int {
	sign := 0
	if tok[0] == '-' {
		sign, tok = 1, tok[1:]
	}
	if len(tok) == 1 && tok[0] == '0' {
		return 1 // x/text prints -0 as 0
	}
	digits := len(tok)
	for digits > 1 && tok[digits-1] == '0' {
		digits--
	}
	return xtextWidth(digits, len(tok)-1, sign)
}

// xtextWidth is the width of a finite nonzero number with the given count of
// significant digits, decimal exponent of the first, and sign.
func xtextWidth(digits, exp, sign int) int {
	if exp < -4 || exp >= 6 {
		w := sign + digits + len("×10")
		if digits > 1 {
			w++ // the decimal point
		}
		if exp < 0 {
			w += len("⁻")
			exp = -exp
		}
		if exp < 10 {
			w += len("⁰") // the second exponent digit, a leading zero
		}
		for ; exp > 0; exp /= 10 {
			w += superscriptBytes[exp%10]
		}
		return w
	}
	if exp < 0 {
		return sign + 2 + (-exp - 1) + digits // 0.000ddd
	}
	intDigits := exp + 1
	w := sign + intDigits + (intDigits-1)/3 // commas
	if frac := digits - intDigits; frac > 0 {
		w += 1 + frac
	}
	return w
}

// superscriptBytes is the UTF-8 length of each superscript digit ⁰¹²³⁴⁵⁶⁷⁸⁹.
var superscriptBytes = [10]int{3, 2, 2, 2, 3, 3, 3, 3, 3, 3}

// shortest is f's shortest round-trip decimal form: how many significant
// digits, the decimal exponent of the first, and 1 if f is negative.
func shortest(f float64) (digits, exp, sign int) {
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // [-]d[.ddd]e±XX
	if e[0] == '-' {
		sign = 1
		e = e[1:]
	}
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits++
		}
	}
	for _, c := range e[i+2:] {
		exp = exp*10 + int(c-'0')
	}
	if e[i+1] == '-' {
		exp = -exp
	}
	return digits, exp, sign
}

// pythonFloatWidth is len(repr(f)) under CPython's float_repr_style "short".
func pythonFloatWidth(f float64) int {
	switch {
	case math.IsInf(f, 0):
		if f < 0 {
			return 4 // -inf
		}
		return 3 // inf
	case math.IsNaN(f):
		return 3 // JSON cannot spell NaN; kept total for callers
	}
	return pythonWidth(shortest(f))
}

// pythonWidth is pythonFloatWidth of a finite float with the given count of
// shortest significant digits, decimal exponent of the first, and sign.
func pythonWidth(digits, exp, sign int) int {
	if exp < -4 || exp >= 16 {
		// d[.ddd]e±XX with at least two exponent digits.
		w := digits
		if digits > 1 {
			w++
		}
		mag := exp
		if mag < 0 {
			mag = -mag
		}
		expDigits := 1
		for ; mag >= 10; mag /= 10 {
			expDigits++
		}
		return sign + w + 2 + max(expDigits, 2)
	}
	if exp < 0 {
		return sign + 2 + (-exp - 1) + digits // 0.000ddd
	}
	intDigits := exp + 1
	if digits <= intDigits {
		return sign + intDigits + 2 // ddd000.0
	}
	return sign + digits + 1 // ddd.ddd
}
