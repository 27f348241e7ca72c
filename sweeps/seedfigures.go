package sweeps

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/results"
)

// The seed's figures about wire ratios, caps and the pre-fix charge that the
// cap and worst-render records do not carry themselves, each derived from
// the live encoders, limits and punctuation tables.

// wireRatio is one code point's wire bytes under e over its UTF-8 bytes.
func wireRatio(e charge.Encoder, r rune) float64 {
	return float64(e.RuneWireBytes(r)) / float64(utf8.RuneLen(r))
}

// seedWireRecords are the per-character wire ratios the seed names: the
// classes at the multiplier (figure 2), the residual's (3), and the
// "realistic" sample the first draft sized the cap from (11); then the
// interim cap (8) and the cap's place above the budget (9).
func seedWireRecords(l charge.Limits) []results.Record {
	var out []results.Record
	add := func(id, title string, v float64, unit, instance, source, seedValue string, fig int) {
		r := derived(id, title, v, unit, instance, source, "")
		r.SeedValue, r.SeedFigure = seedValue, fig
		out = append(out, r)
	}
	for _, c := range []struct {
		id   string
		e    charge.Encoder
		r    rune
		seed string
		fig  int
		what string
	}{
		{"ensure-ascii.u0416", charge.EnsureASCII, 0x416, "3.0", 2, "a 2-byte character (Cyrillic)"},
		{"ensure-ascii.u1f600", charge.EnsureASCII, 0x1f600, "3.0", 2, "an astral character"},
		{"ensure-ascii.u0001", charge.EnsureASCII, 0x01, "6.0", 3, "a C0 control other than \\b \\t \\n \\f \\r"},
		{"ensure-ascii.u007f", charge.EnsureASCII, 0x7f, "6.0", 3, "DEL"},
		{"raw.u007f", charge.Raw, 0x7f, "1.0", 3, "DEL sent raw"},
		{"ensure-ascii.u0022", charge.EnsureASCII, '"', "2.0", 11, "a quote"},
		{"ensure-ascii.u005c", charge.EnsureASCII, '\\', "2.0", 11, "a backslash"},
		{"ensure-ascii.u000a", charge.EnsureASCII, '\n', "2.0", 11, "a newline"},
		{"ensure-ascii.u0009", charge.EnsureASCII, '\t', "2.0", 11, "a tab"},
		{"ensure-ascii.u4e2d", charge.EnsureASCII, 0x4e2d, "2.0", 11, "a CJK character"},
	} {
		add("bodycap.wire-ratio."+c.id, "wire bytes over landed bytes for "+c.what+" under "+c.e.String()+" clients", wireRatio(c.e, c.r), "x landed bytes",
			fmt.Sprintf("U+%04X (%s): %d wire bytes for %d landed", c.r, RuneName(c.r), c.e.RuneWireBytes(c.r), utf8.RuneLen(c.r)),
			"charge.Encoder.RuneWireBytes / utf8.RuneLen (held to encoding/json and the CPython json.dumps port by the sweep)", c.seed, c.fig)
	}
	caps := CapsFor(l)
	add("bodycap.interim.cap", "the interim cap the seed's first draft sized at 2x", float64(caps.Interim), "bytes",
		fmt.Sprintf("%d x MaxSourceFileBytes %s + EnvelopeAllowance %s", InterimMultiplier, thousands(l.MaxSourceFileBytes), thousands(l.EnvelopeAllowance)),
		"sweeps.CapsFor(limits).Interim", "17,825,792", 8)
	add("bodycap.python-clients.cap-over-budget", "the shipped cap less the render budget (the seed: the cap sits above it)",
		float64(caps.Shipped-l.MaxParamsRenderedChars), "bytes", fmt.Sprintf("cap %s bytes, budget %s characters", thousands(caps.Shipped), thousands(l.MaxParamsRenderedChars)),
		"charge.BodyCap(EnsureASCII, Raw).Cap - MaxParamsRenderedChars", "> 0", 9)
	return out
}

// worstFloat is the widest float CPython's repr prints: 17 significant
// digits, a sign, a point and a three-digit negative exponent.
const worstFloat = -2.2250738585072014e-308

// seedFloatRecords re-derive the seed's round-two counterexample to the
// pre-fix charge (figure 30): one string and 99,995 full-precision floats at
// MaxParamsNodes, the member names and floats charged nothing, so the
// string's charge is the budget less the names' widths. The render is the
// python dialect's whole repr of {'query': '<string>', 'x': [<floats>]}.
func seedFloatRecords(l charge.Limits) []results.Record {
	p := charge.Python.Punctuation()
	names := []string{"query", "x"}
	floats := int64(l.MaxParamsNodes) - 5 // the object, two names, the string, the array
	var nameWidth int64
	for _, n := range names {
		nameWidth += int64(charge.Python.StringWidth(n))
	}
	str := l.MaxParamsRenderedChars - nameWidth
	fw := int64(len(strconv.FormatFloat(worstFloat, 'g', -1, 64)))
	render := int64(p.Container) + // {}
		2*int64(p.Quotes) + nameWidth + 2*int64(p.Colon) + int64(p.Separator) + // 'query': … , 'x': …
		int64(p.Quotes) + str + // the string
		int64(p.Container) + floats*fw + (floats-1)*int64(p.Separator) // [f, f, …]
	inst := fmt.Sprintf(`{"query": <%s printable ASCII characters>, "x": [%s x %d]}: %s nodes; a float renders at %d characters`,
		thousands(str), strconv.FormatFloat(worstFloat, 'g', -1, 64), floats, thousands(int64(l.MaxParamsNodes)), fw)
	src := "charge.Python punctuation and StringWidth; a float's width is its shortest round-trip repr (strconv 'g', -1, which CPython's repr matches)"
	mk := func(id, title string, v float64, unit, seedValue string) results.Record {
		r := derived("worstrender.seed-floats."+id, title, v, unit, inst, src, "")
		r.SeedValue, r.SeedFigure = seedValue, 30
		return r
	}
	return []results.Record{
		mk("pre-fix-charge", "the pre-fix charge of the seed's float counterexample (strings only, member names and floats charged nothing)", float64(str), "characters", "12,582,906"),
		mk("render", "that document's whole python render", float64(render), "characters", "15,182,796"),
		mk("render-over-budget", "that render over the budget", float64(render)/float64(l.MaxParamsRenderedChars), "x budget", "1.207"),
	}
}
