package audit

import (
	"bytes"
	"context"
	"fmt"
	"strings"
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
// JSON then escapes each backslash; a quote or backslash doubles twice).
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
	}
}

// Echo is the worst answer an echo sweep drew.
type Echo struct {
	Ratio        float64 `json:"ratio"` // answer bytes / request bytes
	Instance     string  `json:"instance"`
	Echoed       bool    `json:"echoed"` // the answer quotes the filler's canary
	RequestBytes int     `json:"request_bytes"`
	Answer       Shape   `json:"answer"`
}

// sweep sends one over-long string per filler through build and keeps the
// worst ratio.
func (a *auditor) sweep(ctx context.Context, s *session, where string, build func(val string, id int) []byte) (*Echo, error) {
	var worst *Echo
	mark := a.canary + "ec"
	for _, f := range Fillers() {
		n := max(1, a.limits.EchoBytes/len(f.Unit))
		id := a.nextID()
		body := build(`"`+mark+strings.Repeat(f.Unit, n)+`"`, id)
		ans, sh, err := s.call(ctx, body, id)
		if err != nil {
			return nil, err
		}
		r := float64(len(ans.Raw)) / float64(len(body))
		if worst == nil || r > worst.Ratio {
			worst = &Echo{Ratio: r, Instance: fmt.Sprintf("%s: %d x %s", where, n, f.Name),
				Echoed: bytes.Contains(ans.Raw, []byte(mark)), RequestBytes: len(body), Answer: sh}
		}
	}
	return worst, nil
}
