package load

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Issue 9's targets for the guarded server.
const (
	TargetPeakRSS       = 512 << 20 // bytes
	TargetAnswerBytes   = 4 << 10   // every hostile answer at most this
	TargetValidFraction = 0.95      // small valid calls served during the attack
)

// Verdict is one target checked on one variant.
type Verdict struct {
	Variant string `json:"variant"`
	Target  string `json:"target"`
	Got     string `json:"got"`
	OK      bool   `json:"ok"`
}

// Hostile sums the variant's hostile rows.
func (v VariantResult) Hostile() (sent, unsent, refused, echoed int, maxAnswer int64) {
	for _, s := range v.Shapes {
		if !s.Hostile {
			continue
		}
		sent += s.Sent
		unsent += s.Unsent
		refused += s.Outcomes[Refused]
		echoed += s.Echoed
		maxAnswer = max(maxAnswer, s.MaxAnswer)
	}
	return
}

// Shape returns the variant's row for a shape.
func (v VariantResult) Shape(name string) (ShapeResult, bool) {
	for _, s := range v.Shapes {
		if s.Shape == name {
			return s, true
		}
	}
	return ShapeResult{}, false
}

// ServedFraction is the fraction of the row's requests served.
func (s ShapeResult) ServedFraction() float64 {
	if s.Sent+s.Unsent == 0 {
		return 0
	}
	return float64(s.Outcomes[Served]) / float64(s.Sent+s.Unsent)
}

// Targets checks issue 9's targets on the guarded variant, and issue 24's
// (its peak within the memory ceiling serve printed); the other variants
// are the comparison and are not held to them.
func (r *Run) Targets() []Verdict {
	var out []Verdict
	for _, v := range r.Variants {
		if v.Variant.Name != Guarded {
			continue
		}
		add := func(target, got string, ok bool) {
			out = append(out, Verdict{Variant: v.Variant.Name, Target: target, Got: got, OK: ok})
		}
		if v.Error != "" {
			add("measured", v.Error, false)
			continue
		}
		sent, unsent, refused, echoed, maxAnswer := v.Hostile()
		add(fmt.Sprintf("peak RSS <= %s", mib(TargetPeakRSS)), mib(v.PeakRSS), v.PeakRSS <= TargetPeakRSS && !v.Killed)
		// Issue 24: the ceiling serve prints holds in every shape, the
		// at-cap mix included.
		if ceiling, ok := ceilingOf(v.Banner); ok {
			add(fmt.Sprintf("peak RSS <= the printed ceiling %s", mib(ceiling)), mib(v.PeakRSS), v.PeakRSS <= ceiling && !v.Killed)
		} else {
			add("peak RSS <= the printed ceiling", "serve printed no ceiling", false)
		}
		add("0 answers echo caller bytes", fmt.Sprint(echoed), echoed == 0)
		add(fmt.Sprintf("every hostile answer <= %d bytes", TargetAnswerBytes), fmt.Sprintf("max %d", maxAnswer), maxAnswer <= TargetAnswerBytes)
		add("0 crashes", crashWord(v), !v.Crashed && !v.Killed)
		add("every hostile request refused (no reset)", fmt.Sprintf("%d of %d", refused, sent+unsent), refused == sent+unsent && sent > 0)
		add("serves a valid call afterwards", yes(v.ServedAfter), v.ServedAfter)
		if s, ok := v.Shape(ValidShape); ok {
			f := s.ServedFraction()
			add(fmt.Sprintf("valid calls served >= %.0f%%", 100*TargetValidFraction),
				fmt.Sprintf("%.1f%% (%d/%d), p99 %.1f ms", 100*f, s.Outcomes[Served], s.Sent+s.Unsent, s.P99MS), f >= TargetValidFraction)
		}
	}
	return out
}

// Met reports whether every verdict holds.
func Met(vs []Verdict) bool {
	for _, v := range vs {
		if !v.OK {
			return false
		}
	}
	return true
}

func crashWord(v VariantResult) string {
	switch {
	case v.Killed:
		return fmt.Sprintf("killed at guard (VmRSS %s)", mib(v.KilledRSS))
	case v.Crashed:
		return "exited during the run"
	}
	return "none"
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// WriteTable prints the run: one row per variant and shape, each variant's
// summary, and the targets.
func WriteTable(w io.Writer, r *Run, verdicts []Verdict) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tshape\tbody B\tsent\tunsent\toutcomes\tstatuses\tmax answer B\techoed\tp50 ms\tp99 ms")
	for _, v := range r.Variants {
		if v.Error != "" {
			fmt.Fprintf(tw, "%s\t(not measured)\n", v.Variant.Name)
			continue
		}
		for _, s := range v.Shapes {
			echo := "-"
			if s.Canary {
				echo = fmt.Sprint(s.Echoed)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%d\t%s\t%.1f\t%.1f\n", v.Variant.Name, s.Shape, s.BodyBytes,
				s.Sent, s.Unsent, counts(s.Outcomes), statuses(s.Statuses), s.MaxAnswer, echo, s.P50MS, s.P99MS)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, v := range r.Variants {
		fmt.Fprintf(w, "\n%s (%s):\n", v.Variant.Name, strings.Join(append([]string{"serve --stateless"}, v.Variant.Flags...), " "))
		if v.Error != "" {
			fmt.Fprintf(w, "  not measured: %s\n", v.Error)
			continue
		}
		fmt.Fprintf(w, "  peak RSS %s (VmHWM, %d samples); crash: %s; serves afterwards: %s\n",
			mib(v.PeakRSS), v.Samples, crashWord(v), yes(v.ServedAfter))
		fmt.Fprintf(w, "  body cap %d, hostile bodies %d bytes, %d in flight, %.1f s\n",
			v.BodyCap, v.BodyBytes, v.Concurrency, float64(v.ElapsedMS)/1000)
		if s, ok := v.Shape(ValidShape); ok {
			fmt.Fprintf(w, "  valid calls during the attack: %d/%d served (%.1f%%), p99 %.1f ms\n",
				s.Outcomes[Served], s.Sent+s.Unsent, 100*s.ServedFraction(), s.P99MS)
		}
	}
	if len(verdicts) > 0 {
		fmt.Fprintln(w, "\nissue 9 targets:")
		for _, v := range verdicts {
			mark := "ok  "
			if !v.OK {
				mark = "MISS"
			}
			fmt.Fprintf(w, "  %s %s: %s: %s\n", mark, v.Variant, v.Target, v.Got)
		}
	}
	return nil
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func statuses(m map[int]int) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		name := fmt.Sprint(k)
		if k == 0 {
			name = "none"
		}
		parts = append(parts, fmt.Sprintf("%s:%d", name, m[k]))
	}
	return strings.Join(parts, " ")
}
