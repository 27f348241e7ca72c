package charge_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// CheckValue's Report counts the value alone: Bytes is end-off, and on a
// refusal end is the refusal's offset — whichever bound, wherever in the
// value, however far past the offset the scanner read before it noticed (a
// long escaped string past the budget is read on for a while).
func TestCheckValueReportsBytesUpToTheRefusal(t *testing.T) {
	l := charge.DefaultLimits()
	l.MaxParamsRenderedChars = 100
	g, err := charge.NewGate(charge.Go, l)
	if err != nil {
		t.Fatal(err)
	}
	const pre = `{"frame":` // the value starts at len(pre)
	for _, c := range []struct{ name, value string }{
		{"escape_run", `"` + strings.Repeat(`\u00e9`, 400) + `"`},     // past the budget inside an escape run
		{"plain_run", `"` + strings.Repeat("a", 400) + `"`},           // past the budget inside a plain run
		{"two_byte_escapes", `["` + strings.Repeat(`\n`, 300) + `"]`}, // an escape run of width 2
		{"repeated_name", `{"a":1,"a":2}`},
		{"control_character", `"ab` + "\x01" + `c"`},
		{"long_number", `[1,2,` + strings.Repeat("9", 80) + `]`}, // a number past its length bound
		{"multibyte_run", `"` + strings.Repeat("é", 300) + `"`},  // a multi-byte run past the budget
	} {
		t.Run(c.name, func(t *testing.T) {
			value := c.value
			doc := []byte(pre + value + `}`)
			end, rep, err := g.CheckValue(doc, len(pre))
			var r *charge.Refusal
			if !errors.As(err, &r) {
				t.Fatalf("%.40q...: admitted (%v), want a refusal", value, err)
			}
			if end != r.Offset || rep.Bytes != r.Offset-len(pre) {
				t.Errorf("%.40q...: end %d, Bytes %d; want the refusal's offset %d and %d", value, end, rep.Bytes, r.Offset, r.Offset-len(pre))
			}
		})
	}
	// Admitted, Bytes is the value's length.
	end, rep, err := g.CheckValue([]byte(pre+`[1,"two"]}`), len(pre))
	if err != nil || end != len(pre)+len(`[1,"two"]`) || rep.Bytes != len(`[1,"two"]`) {
		t.Fatalf("admitted value: end %d, Bytes %d, %v", end, rep.Bytes, err)
	}
}
