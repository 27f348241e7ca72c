package fuzz

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// xtextFloatWidth is len(message.NewPrinter(language.English).Sprintf("%v", f))
// — how jsonschema/v6's messages print a number — computed with the standard
// library only, so package charge can adopt it (charge is stdlib-only).
// TestXTextFloatWidth holds it to golang.org/x/text itself.
func xtextFloatWidth(f float64) int {
	if math.IsInf(f, 0) {
		if f < 0 {
			return 4 // -∞
		}
		return 3 // ∞
	}
	if f == 0 {
		return 1 // x/text prints -0 as 0
	}
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], f, 'g', -1, 64)
	mant, exp := s, []byte(nil)
	for i, c := range s {
		if c == 'e' {
			mant, exp = s[:i], s[i+1:]
			break
		}
	}
	if exp == nil {
		intDigits := 0
		for _, c := range mant {
			if c == '.' {
				break
			}
			if c >= '0' && c <= '9' {
				intDigits++
			}
		}
		return len(mant) + (intDigits-1)/3 // grouping commas
	}
	w := len(mant) + len("×10")
	if exp[0] == '-' {
		w += len("⁻")
	}
	for _, c := range exp[1:] { // fmt writes at least two exponent digits
		if c == '1' || c == '2' || c == '3' {
			w += 2 // ¹ ² ³ are Latin-1
		} else {
			w += 3 // ⁰ ⁴ … ⁹ are U+2070..
		}
	}
	return w
}

func TestXTextFloatWidth(t *testing.T) {
	check := func(f float64) {
		if got, want := xtextFloatWidth(f), len(englishPrinter.Sprintf("%v", f)); got != want {
			t.Fatalf("%v: computed %d, x/text renders %q (%d)", f, got, englishPrinter.Sprintf("%v", f), want)
		}
	}
	widest := 0
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1234.5, 100000, 123456, 999999, 1e6, 1234567,
		1e20, 1e21, 1e-4, 1e-5, 1e-300, 5e-324, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64,
		9007199254740993, 1.2345678901234567e-307, -1.2345678901234567e-307, -9.876543210987654e-250, math.Inf(1), math.Inf(-1)} {
		check(f)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200_000; i++ {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) {
			continue
		}
		check(f)
		widest = max(widest, xtextFloatWidth(f))
	}
	for e := -324; e <= 308; e++ {
		for _, m := range []float64{1, -9.999999999999999, 1.2345678901234567} {
			f, _ := strconv.ParseFloat(strconv.FormatFloat(m, 'g', -1, 64)+"e"+strconv.Itoa(e), 64)
			check(f)
			widest = max(widest, xtextFloatWidth(f))
		}
	}
	if widest != 34 {
		t.Fatalf("widest render %d bytes, docs/fuzzing.md says 34", widest)
	}
}
