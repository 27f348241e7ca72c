package charge

import (
	"math"
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
// for format and enum messages) and fmt's %v of the float64 nearest its big.Rat
// (minimum, maximum, exclusive bounds, multipleOf) — so the width is the larger.
func (d Dialect) NumberWidth(tok []byte) int {
	integer := true
	for _, c := range tok {
		if c == '.' || c == 'e' || c == 'E' {
			integer = false
			break
		}
	}
	if d == Python {
		if integer {
			if len(tok) == 2 && tok[0] == '-' && tok[1] == '0' {
				return 1
			}
			return len(tok)
		}
		return pythonFloatWidth(parseFloat(tok))
	}
	return max(len(tok), goFloatWidth(parseFloat(tok)))
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

// goFloatWidth is len(fmt.Sprintf("%v", f)): strconv's shortest 'g' form, with
// fmt's "+Inf" for positive infinity.
func goFloatWidth(f float64) int {
	if math.IsInf(f, 1) {
		return 4
	}
	var buf [32]byte
	return len(strconv.AppendFloat(buf[:0], f, 'g', -1, 64))
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
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // [-]d[.ddd]e±XX
	sign := 0
	if e[0] == '-' {
		sign = 1
		e = e[1:]
	}
	digits, exp := 0, 0
	i := 0
	for ; i < len(e) && e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits++
		}
	}
	neg := e[i+1] == '-'
	for _, c := range e[i+2:] {
		exp = exp*10 + int(c-'0')
	}
	if neg {
		exp = -exp
	}
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
