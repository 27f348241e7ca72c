package fuzz

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/theurian/boundlab/charge"
)

// englishPrinter is jsonschema/v6's defaultPrinter.
var englishPrinter = message.NewPrinter(language.English)

// The go dialect's number width against golang.org/x/text itself, which
// package charge (stdlib only) cannot import: for every token, the width is
// the larger of the literal (what v6's display prints) and the x/text render
// of its float64 (what minimum/maximum/exclusive*/multipleOf print).
func TestGoNumberWidthIsXTextRender(t *testing.T) {
	check := func(t *testing.T, tok string) {
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil && !math.IsInf(f, 0) {
			t.Fatalf("%s: %v", tok, err)
		}
		want := max(len(tok), len(englishPrinter.Sprintf("%v", f)))
		if got := charge.Go.NumberWidth([]byte(tok)); got != want {
			t.Fatalf("%s: charge %d, x/text renders %q (width %d)", tok, got, englishPrinter.Sprintf("%v", f), want)
		}
	}
	// A subtest per listed token; the random draws and the exponent sweep
	// stay loops in a subtest each, a failure naming its token.
	for _, tok := range []string{"0", "-0", "-0.0", "1", "0.5", "1234.5", "100000", "123456", "999999", "1e6", "1234567",
		"1e20", "1e21", "1e-4", "1e-5", "1E-5", "1e-300", "5e-324", "1.7976931348623157e308", "-1.7976931348623157e308",
		"1e309", "-1e309", "1e-400", "9007199254740993", "-1.2345678901234567e-307", "123456789012345678901234567890"} {
		t.Run(tok, func(t *testing.T) { check(t, tok) })
	}
	t.Run("random", func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 200_000; i++ {
			f := math.Float64frombits(r.Uint64())
			if math.IsNaN(f) || math.IsInf(f, 0) {
				continue
			}
			check(t, strconv.FormatFloat(f, 'g', -1, 64))
			check(t, strconv.FormatInt(r.Int64N(1<<62)-1<<61, 10))
		}
	})
	t.Run("every_exponent", func(t *testing.T) {
		for e := -324; e <= 308; e++ {
			check(t, "1e"+strconv.Itoa(e))
			check(t, "-1.2345678901234567e"+strconv.Itoa(e))
		}
	})
}
