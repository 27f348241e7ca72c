package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Filler is one class of over-long string content: Unit is raw JSON string
// content (escapes as written), repeated to fill Limits.EchoBytes.
type Filler struct {
	Name string
	Unit string
}

// Fillers are the classes the echo sweep sends: one per way a validator's
// quoting and a JSON encoder can widen a wire byte (Go %q writes a lone byte
// 0x80-0xFF and DEL as \xNN and a non-printable rune as \uNNNN or \UNNNNNNNN;
// JSON then escapes each backslash; a quote or backslash doubles twice;
// Go's encoding/json writes < > & U+2028 U+2029 as 6-byte \u escapes; a
// decoder that replaces a raw 0xFF with U+FFFD makes 3 bytes of 1).
func Fillers() []Filler {
	return []Filler{
		{"ASCII letter a", "a"},
		{"DEL U+007F", "\x7f"},
		{"lone byte 0xFF", "\xff"},
		{"2-byte U+0600", "\u0600"},
		{"3-byte U+200B", "\u200b"},
		{"astral U+E0001", "\U000e0001"},
		{`quote \"`, `\"`},
		{`backslash \\`, `\\`},
		{"less-than <", "<"},
		{"greater-than >", ">"},
		{"ampersand &", "&"},
		{"line separator U+2028", "\u2028"},
		{"paragraph separator U+2029", "\u2029"},
	}
}

// Echo is the worst answer an echo sweep drew in one place.
type Echo struct {
	Ratio    float64 `json:"ratio"` // answer bytes / request bytes
	Instance string  `json:"instance"`
	// Echoed: the answer quotes the whole value (the canary and every
	// filler unit after it), as sent or as an encoder family transformed
	// it (Form).
	Echoed       bool   `json:"echoed"`
	RequestBytes int    `json:"request_bytes"`
	Answer       Shape  `json:"answer"`
	Place        string `json:"place,omitempty"`  // where the value was sent
	Filler       string `json:"filler,omitempty"` // the filler class (Fillers) of the worst answer
	// Units is the filler units sent; UnitsBack the most that came back
	// in a row after the canary, in Form.
	Units     int    `json:"units,omitempty"`
	UnitsBack int    `json:"units_back,omitempty"`
	Form      string `json:"form,omitempty"`
}

// worse reports whether e is a worse echo than w: a higher ratio, or an
// echo beside a non-echo at the same ratio.
func (e *Echo) worse(w *Echo) bool {
	return w == nil || e.Ratio > w.Ratio || (e.Ratio == w.Ratio && e.Echoed && !w.Echoed)
}

// sweep sends one over-long string per filler through build (val is a
// JSON string, its quotes included) and keeps the worst ratio.
func (a *auditor) sweep(ctx context.Context, s *session, where string, build func(val string, id int) []byte) (*Echo, error) {
	return a.sweepWith(ctx, s, where, build, nil)
}

// sweepWith is sweep with the answer awaited for rid(val) instead of the
// numeric id (the id place: the id sent is the value itself).
func (a *auditor) sweepWith(ctx context.Context, s *session, where string, build func(val string, id int) []byte, rid func(val string) json.RawMessage) (*Echo, error) {
	var worst *Echo
	mark := a.canary + "ec"
	silent := 0
	for _, f := range Fillers() {
		if silent == MaxSilentFillers {
			// a server that drops the message (server-everything over
			// stdio drops a params it cannot read) costs the wait each
			// time: the place is left at what was measured
			a.notMeasured("echoes", "", fmt.Sprintf("%s: %d fillers in a row drew no answer; the other classes were not sent", where, silent))
			break
		}
		n := max(1, a.limits.EchoBytes/len(f.Unit))
		id := a.nextID()
		val := `"` + mark + strings.Repeat(f.Unit, n) + `"`
		body := build(val, id)
		a.what = fmt.Sprintf("over-long string in the %s: %d x %s", where, n, f.Name)
		var ans Answer
		var err error
		if rid != nil {
			ans, err = s.send(ctx, body, rid(val))
		} else {
			ans, _, err = s.call(ctx, body, id)
		}
		if err != nil {
			return nil, err
		}
		sh := ShapeOf(ans, json.RawMessage(strconv.Itoa(id)))
		if rid != nil {
			sh = ShapeOf(ans, rid(val))
		}
		if ans.Silent {
			silent++
		} else {
			silent = 0
		}
		back, form := unitsBack(ans.Raw, mark, f.Unit)
		e := &Echo{Ratio: float64(len(ans.Raw)) / float64(len(body)), Instance: fmt.Sprintf("%s: %d x %s", where, n, f.Name),
			Echoed: back >= n, RequestBytes: len(body), Answer: sh, Place: where, Filler: f.Name, Units: n, UnitsBack: back, Form: form}
		if e.worse(worst) {
			worst = e
		}
	}
	return worst, nil
}

// MaxSilentFillers is how many fillers in a row may draw no answer before
// a place's sweep stops.
const MaxSilentFillers = 2

// echoForm is one way an encoder family writes a filler unit back.
type echoForm struct{ name, text string }

// echoForms are the forms an answer can carry one filler unit in (unit is
// raw JSON string content): as sent; decoded and re-encoded by Go's
// encoding/json (HTML-safe \u003c, \u2028, invalid bytes as \ufffd), by an
// encoder that escapes only what JSON demands (Python's ensure_ascii=False,
// JavaScript's JSON.stringify), by Python's ensure_ascii (\uXXXX, astral
// as a surrogate pair); quoted by Go's %q and then JSON-encoded; and, for
// a byte that is not UTF-8, as U+FFFD (raw or escaped), as Python's
// surrogateescape \udcXX, or as %q's \xXX.
func echoForms(unit string) []echoForm {
	var v string
	raw := !strings.Contains(unit, `\`)
	if raw {
		v = unit
	} else if json.Unmarshal([]byte(`"`+unit+`"`), &v) != nil {
		return []echoForm{{"as sent", unit}}
	}
	out := []echoForm{{"as sent", unit}}
	add := func(name, text string) {
		for _, f := range out {
			if f.text == text {
				return
			}
		}
		out = append(out, echoForm{name, text})
	}
	if !utf8.ValidString(v) {
		for i := 0; i < len(v); i++ {
			add("U+FFFD", "\ufffd")
			add(`\ufffd`, `\ufffd`)
			add(`\uFFFD`, `\uFFFD`)
			add(`surrogateescape \udcXX`, fmt.Sprintf(`\udc%02x`, v[i]))
			add(`Go %q then JSON`, goJSON(strconv.Quote(v[i : i+1])[1:len(strconv.Quote(v[i:i+1]))-1]))
		}
		return out
	}
	add("Go encoding/json", goJSON(v))
	add("JSON, required escapes only", minimalJSON(v))
	add("JSON, ensure_ascii", asciiJSON(v))
	q := strconv.Quote(v)
	add("Go %q then JSON", goJSON(q[1:len(q)-1]))
	add("Go %q then JSON, required escapes only", minimalJSON(q[1:len(q)-1]))
	return out
}

// goJSON is s as Go's encoding/json writes it inside a string.
func goJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// minimalJSON escapes only what JSON demands: the quote, the backslash
// and controls below U+0020.
func minimalJSON(s string) string { return escapeJSON(s, false) }

// asciiJSON is Python's json.dumps with ensure_ascii: every rune outside
// printable ASCII as \uXXXX, an astral one as a surrogate pair.
func asciiJSON(s string) string { return escapeJSON(s, true) }

// escapeJSON writes s as a JSON string's contents: the required escapes,
// and under ascii every rune past U+007E escaped too.
func escapeJSON(s string, ascii bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		case ascii && r >= 0x10000:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		case ascii && r > 0x7e:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// maxMarks bounds the canary occurrences unitsBack follows in one answer.
const maxMarks = 16

// unitsBack is the most filler units that follow mark in a row in raw, in
// any one form of echoForms(unit), and that form's name.
func unitsBack(raw []byte, mark, unit string) (int, string) {
	best, name := 0, ""
	forms := echoForms(unit)
	rest := raw
	for range maxMarks {
		i := bytes.Index(rest, []byte(mark))
		if i < 0 {
			break
		}
		rest = rest[i+len(mark):]
		for _, f := range forms {
			n, t := 0, rest
			for bytes.HasPrefix(t, []byte(f.text)) {
				n++
				t = t[len(f.text):]
			}
			if n > best {
				best, name = n, f.name
			}
		}
	}
	return best, name
}
