package audit

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Amplification is what one costly input cost the server in time: the
// input grown step by step and stopped at the first step that hurts (or
// at its largest size), its answer time (a median of a few) against the
// baseline's.
type Amplification struct {
	// Probe: "redos" (a crafted string for a member's pattern), "digits" (a
	// long number literal), "wide" (a long array), "duplicates" (one
	// member name many times).
	Probe  string `json:"probe"`
	Member string `json:"member,omitempty"`
	// Sent is the input at the last step, in a few words.
	Sent         string  `json:"sent"`
	RequestBytes int     `json:"request_bytes"`
	Steps        int     `json:"steps"`
	Seconds      float64 `json:"seconds"`          // the median answer time at the last step
	Baseline     float64 `json:"baseline_seconds"` // the median answer time of the call without it
	Ratio        float64 `json:"ratio"`            // Seconds / Baseline
	// SecondsPerKiB is the time past the baseline's per KiB of request.
	SecondsPerKiB float64 `json:"seconds_per_kib"`
	// Hurt says the growth stopped because the answer took at least
	// HurtRatio times the baseline's and HurtFloor more; else it stopped
	// at its largest size.
	Hurt   bool  `json:"hurt"`
	Answer Shape `json:"answer"`
	// Count is how many pumps (redos) or units the last step sent.
	Count int `json:"count"`
}

// An input hurts when its answer takes HurtRatio times the baseline's and
// at least HurtFloor more: a server slowed that much by one request is
// one a few clients can hold busy. Growth stops there, before it costs
// the server more.
const (
	HurtRatio = 10
	HurtFloor = 100 * time.Millisecond
	// medianOf is how many times a step that hurts (and the baseline) is
	// sent: the figure is their median.
	medianOf = 3
)

// timed sends args to the tool and returns the answer time.
func (a *auditor) timed(ctx context.Context, s *session, tp *toolProbe, args string) (time.Duration, Shape, int, error) {
	id := a.nextID()
	body := callBody(id, tp.name, args)
	start := time.Now()
	before := a.sent
	_, sh, err := s.call(ctx, body, id)
	a.timedSent += a.sent - before
	return time.Since(start), sh, len(body), err
}

// median is the median answer time of args sent n times (fewer when one
// draws no answer: sending it again only holds the server longer).
func (a *auditor) median(ctx context.Context, s *session, tp *toolProbe, args string, n int, first ...time.Duration) (time.Duration, Shape, int, error) {
	ds := slices.Clone(first)
	var sh Shape
	var size int
	for range n {
		d, x, b, err := a.timed(ctx, s, tp, args)
		if err != nil {
			return 0, sh, 0, err
		}
		ds, sh, size = append(ds, d), x, b
		if x.Kind == KindSilent || x.Kind == KindClosed || x.Kind == KindHung {
			break
		}
	}
	slices.Sort(ds)
	return ds[len(ds)/2], sh, size, nil
}

// hurts reports whether an answer time d hurts against the baseline b.
func hurts(d, b time.Duration) bool { return d >= HurtRatio*b && d-b >= HurtFloor }

// grow sends build(n) for each n of steps until one hurts (then sent again
// for a median) or draws no answer; the figure is at that step, or at the
// last.
func (a *auditor) grow(ctx context.Context, s *session, tp *toolProbe, probe, member string, base time.Duration, steps []int, build func(n int) (args, sent string)) (*Amplification, error) {
	var out *Amplification
	for i, n := range steps {
		args, sent := build(n)
		a.what = fmt.Sprintf("%s: %s", probe, sent)
		d, sh, size, err := a.timed(ctx, s, tp, args)
		if err != nil {
			return nil, err
		}
		hurt := hurts(d, base) || sh.Kind == KindSilent || sh.Kind == KindClosed || sh.Kind == KindHung
		if hurt && sh.Kind != KindSilent && sh.Kind != KindClosed && sh.Kind != KindHung {
			if d, _, _, err = a.median(ctx, s, tp, args, medianOf-1, d); err != nil {
				return nil, err
			}
			hurt = hurts(d, base)
		}
		out = &Amplification{Probe: probe, Member: member, Sent: sent, RequestBytes: size, Steps: i + 1, Seconds: d.Seconds(),
			Baseline: base.Seconds(), Hurt: hurt, Answer: sh, Count: n}
		if base > 0 {
			out.Ratio = round3(float64(d) / float64(base))
		}
		if size > 0 {
			out.SecondsPerKiB = max(0, (d-base).Seconds()) / (float64(size) / 1024)
		}
		if hurt {
			break
		}
	}
	return out, nil
}

// redosSteps are the pump counts a crafted string is grown through: each
// pump doubles the work of an exponential pattern, so the steps are close;
// a polynomial one is grown by doubling its length.
func redosSteps(b Backtracking, limit int) []int {
	var out []int
	if b.Exponential {
		for n := 4; n <= 40 && n*len(b.Pump) <= limit; n += 2 {
			out = append(out, n)
		}
		return out
	}
	for n := 256; n*len(b.Pump) <= limit; n *= 2 {
		out = append(out, n)
	}
	return out
}

// amplify measures the tool's costly inputs: the crafted string of each
// root member's backtracking pattern, and (target-wide, on the carrier)
// long digit strings, wide arrays and many duplicate names.
func (a *auditor) amplify(ctx context.Context, s *session, tp *toolProbe, tr *ToolReport, redos, wide bool) error {
	phase := PhaseTools
	if !redos {
		phase = PhaseAmplification // the carrier's, target-wide
	}
	a.progress(phase, "amplification "+tp.tool.Name)
	type candidate struct {
		p  prop
		bt Backtracking
	}
	var crafted []candidate
	for _, p := range tp.props {
		if !redos {
			break
		}
		pat, ok := p.schema["pattern"].(string)
		if !ok || !hasType(p.schema, "string") {
			continue
		}
		if bt, ok := backtracking(pat); ok {
			crafted = append(crafted, candidate{p, bt})
		}
	}
	if len(crafted) == 0 && !wide {
		return nil // nothing to time: the baseline's time is not wanted
	}
	base, _, _, err := a.median(ctx, s, tp, object(tp.base), medianOf)
	if err != nil {
		return err
	}
	for _, c := range crafted {
		p, bt := c.p, c.bt
		am, err := a.grow(ctx, s, tp, "redos", p.name, base, redosSteps(bt, a.limits.EchoBytes), func(n int) (string, string) {
			v := bt.Prefix + strings.Repeat(bt.Pump, n) + bt.Suffix
			return object(with(tp.base, p.name, marshal(v))), fmt.Sprintf("%d x %q after %q, then %q", n, bt.Pump, bt.Prefix, bt.Suffix)
		})
		if err != nil {
			return err
		}
		if am != nil {
			tr.Amplification = append(tr.Amplification, *am)
		}
	}
	if !wide {
		return nil
	}
	sizes := []int{}
	for n := 1 << 10; n <= a.limits.EchoBytes; n *= 4 {
		sizes = append(sizes, n)
	}
	member := a.canary + "am"
	for _, k := range []struct {
		probe string
		build func(n int) (string, string)
	}{
		{"digits", func(n int) (string, string) {
			return object(with(tp.base, member, strings.Repeat("7", n))), fmt.Sprintf("a %d-digit integer", n)
		}},
		{"wide", func(n int) (string, string) {
			return object(with(tp.base, member, "["+strings.Repeat("0,", n/2-1)+"0]")), fmt.Sprintf("an array of %d zeros", n/2)
		}},
		{"duplicates", func(n int) (string, string) {
			return object(with(tp.base, member, "{"+strings.Repeat(`"d":0,`, n/6-1)+`"d":0}`)), fmt.Sprintf("one member name %d times", n/6)
		}},
	} {
		am, err := a.grow(ctx, s, tp, k.probe, "", base, sizes, k.build)
		if err != nil {
			return err
		}
		if am != nil {
			tr.Amplification = append(tr.Amplification, *am)
		}
	}
	return nil
}
