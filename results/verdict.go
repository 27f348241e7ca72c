package results

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Status is what became of one figure the seed states.
type Status string

const (
	// FigureReproduced: the lab's value, printed to the seed's precision, is
	// the seed's figure.
	FigureReproduced Status = "reproduced"
	// FigureRefuted: a live record holds a different value, the counterexample.
	FigureRefuted Status = "refuted"
	// FigureRetired: the seed's own later rounds withdrew the claim; its retired
	// record keeps the claim beside the correction.
	FigureRetired Status = "retired"
	// FigureNotRederivable: no lab can re-derive the figure; the seed's
	// figure list (SeedFigures) says why.
	FigureNotRederivable Status = "not re-derivable here"
)

// Figure is one figure the seed states and what became of it.
type Figure struct {
	Status Status `json:"status"`
	// Record states the figure: the record whose value is compared with the
	// seed's, or the retired record that keeps the claim.
	Record string `json:"record"`
	Title  string `json:"title"`
	// Seed is the seed's figure: as it printed it, or a retired claim's value.
	Seed string `json:"seed"`
	// Claim is a retired claim's wording.
	Claim string `json:"claim,omitempty"`
	// Lab is the lab's value, printed like the seed's figure when there is
	// one; empty for a retired claim.
	Lab      string  `json:"lab,omitempty"`
	LabValue float64 `json:"lab_value"`
	Unit     string  `json:"unit"`
	// Counterexample is the record whose value refutes the figure.
	Counterexample string `json:"counterexample,omitempty"`
	// Correction is a retired claim's correction.
	Correction string `json:"correction,omitempty"`
	// SeedFigure is the figure's number in SeedFigures (0: in none), and
	// Section where the seed states it.
	SeedFigure int    `json:"seed_figure,omitempty"`
	Section    string `json:"section,omitempty"`
	// Reason is why a figure is not re-derivable here.
	Reason string `json:"reason,omitempty"`
}

// Verdict is every figure the records say the seed states, refuted first,
// then retired, then reproduced, then those not re-derivable here, with the
// counts.
type Verdict struct {
	Reproduced     int `json:"reproduced"`
	Refuted        int `json:"refuted"`
	Retired        int `json:"retired"`
	NotRederivable int `json:"not_rederivable"`
	// Listed is how many figures SeedFigures lists; Silent are the numbers
	// of those no record carries and no reason excuses.
	Listed  int      `json:"listed"`
	Silent  []int    `json:"silent"`
	Figures []Figure `json:"figures"`
}

// Classify reads the seed's figures from the records: every record with a
// SeedValue, compared with its own value, and every retired record, refuted
// when it names a counterexample whose value differs from the claim's,
// retired otherwise. records is keyed by producer (what Load and Live
// return). An error names a SeedValue that does not parse or a
// counterexample no record holds.
func Classify(records map[string][]Record) (Verdict, error) {
	byID := map[string]Record{}
	var all []Record
	for _, name := range sortedKeys(records) {
		for _, r := range records[name] {
			byID[r.ID] = r
			all = append(all, r)
		}
	}
	var v Verdict
	for _, r := range all {
		var f Figure
		var err error
		switch {
		case r.SeedValue != "":
			f, err = compareSeed(r)
		case r.Method == Retired && r.Retirement != nil:
			f, err = classifyRetired(r, byID)
		default:
			continue
		}
		if err != nil {
			return Verdict{}, err
		}
		v.Figures = append(v.Figures, f)
	}
	if err := v.catalogue(); err != nil {
		return Verdict{}, err
	}
	rank := map[Status]int{FigureRefuted: 0, FigureRetired: 1, FigureReproduced: 2, FigureNotRederivable: 3}
	sort.SliceStable(v.Figures, func(i, j int) bool { return rank[v.Figures[i].Status] < rank[v.Figures[j].Status] })
	for _, f := range v.Figures {
		switch f.Status {
		case FigureReproduced:
			v.Reproduced++
		case FigureRefuted:
			v.Refuted++
		case FigureRetired:
			v.Retired++
		case FigureNotRederivable:
			v.NotRederivable++
		}
	}
	return v, nil
}

// compareSeed decides a record's SeedValue against its value.
func compareSeed(r Record) (Figure, error) {
	sv, err := ParseSeedValue(r.SeedValue)
	if err != nil {
		return Figure{}, fmt.Errorf("results: %s: seed_value: %w", r.ID, err)
	}
	unit := sv.unitLabel(r.Unit)
	f := Figure{Status: FigureReproduced, Record: r.ID, Title: r.Title, LabValue: r.Value, Unit: r.Unit,
		Seed: withUnit(strings.TrimSuffix(r.SeedValue, " "+sv.Scale), unit), Lab: withUnit(sv.Format(r.Value), unit),
		SeedFigure: r.SeedFigure}
	if sv.Bound != "" && math.Abs(r.Value/sv.factor) < 1000 {
		// a bound says nothing of precision: print the lab's value to
		// two places past the bound's, so "> 0" shows -0.01, not 0
		sv.Decimals += 2
		f.Lab = withUnit(sv.Format(r.Value), unit)
		sv.Decimals -= 2
	}
	// Judged at the seed's printed precision alone, in whatever unit the
	// seed printed it: a measured record's tolerance is how far the lab's own
	// re-measurement may move, not a disagreement allowed with the seed.
	if !sv.Holds(r.Value) {
		f.Status, f.Counterexample = FigureRefuted, r.ID
	}
	return f, nil
}

// classifyRetired decides a retired claim: refuted by its counterexample,
// reproduced when the counterexample no longer differs, else retired.
func classifyRetired(r Record, byID map[string]Record) (Figure, error) {
	ret := r.Retirement
	f := Figure{Status: FigureRetired, Record: r.ID, Title: r.Title, Seed: shortValue(r), Claim: ret.Claim,
		LabValue: r.Value, Unit: r.Unit, Correction: ret.Correction, SeedFigure: r.SeedFigure}
	if ret.Counterexample == "" {
		return f, nil
	}
	ce, ok := byID[ret.Counterexample]
	if !ok {
		return Figure{}, fmt.Errorf("results: %s names counterexample %s, which no record holds", r.ID, ret.Counterexample)
	}
	f.Status, f.Counterexample, f.LabValue, f.Unit, f.Lab = FigureRefuted, ce.ID, ce.Value, ce.Unit, shortValue(ce)
	if ce.Unit == r.Unit && math.Abs(ce.Value-r.Value) <= ce.tolerance() {
		f.Status, f.Counterexample = FigureReproduced, ""
	}
	return f, nil
}

// tolerance is how far a re-measurement may move: a measured record's
// pinned tolerance, nothing for a derived one.
func (r Record) tolerance() float64 {
	if r.Method == Measured {
		return r.Tolerance
	}
	return 0
}

// SeedValue is a parsed Record.SeedValue.
type SeedValue struct {
	Value    float64 // in the record's unit; a range's low end
	High     float64 // a range's high end; Value otherwise
	Decimals int     // the digits the seed printed after the point
	Scale    string  // "", "M", "KiB", "MiB" or "GiB"
	// Bound is how the seed states the figure: "" for a value (or a
	// range), or "<", "<=", ">", ">=" for a bound ("up to 8.00x" is
	// "<= 8.00", "a few MiB" is "< 10 MiB").
	Bound  string
	factor float64
}

var seedScales = map[string]float64{"": 1, "M": 1e6, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}

// ParseSeedValue reads [BOUND] NUMBER[-NUMBER] [SCALE]: BOUND is <, <=, >
// or >=; a NUMBER is an optional minus, digits with optional thousands
// commas in groups of three and an optional fraction; two NUMBERs joined by
// "-" (or an en dash) are a range; SCALE is M (millions), KiB, MiB or GiB.
func ParseSeedValue(s string) (SeedValue, error) {
	s = strings.TrimSpace(s)
	var bound string
	for _, b := range []string{"<=", ">=", "<", ">"} {
		if rest, ok := strings.CutPrefix(s, b); ok {
			bound, s = b, strings.TrimSpace(rest)
			break
		}
	}
	num, scale, _ := strings.Cut(s, " ")
	factor, ok := seedScales[scale]
	if !ok {
		return SeedValue{}, fmt.Errorf("scale %q is not M, KiB, MiB or GiB", scale)
	}
	num = strings.ReplaceAll(num, "\u2013", "-")
	lo, hi := num, ""
	if i := strings.Index(num, "-"); i > 0 {
		lo, hi = num[:i], num[i+1:]
		if hi == "" {
			return SeedValue{}, fmt.Errorf("%q: a range with no high end", s)
		}
	}
	if bound != "" && hi != "" {
		return SeedValue{}, fmt.Errorf("%q: a bound on a range", s)
	}
	v, dec, err := parseSeedNumber(lo)
	if err != nil {
		return SeedValue{}, err
	}
	sv := SeedValue{Value: v * factor, High: v * factor, Decimals: dec, Scale: scale, Bound: bound, factor: factor}
	if hi != "" {
		h, hdec, err := parseSeedNumber(hi)
		if err != nil {
			return SeedValue{}, err
		}
		if h < v {
			return SeedValue{}, fmt.Errorf("%q: a range from high to low", s)
		}
		sv.High, sv.Decimals = h*factor, max(dec, hdec)
	}
	return sv, nil
}

// parseSeedNumber reads one number as the seed prints it, with the digits
// after its point.
func parseSeedNumber(num string) (float64, int, error) {
	digits := strings.TrimPrefix(num, "-")
	whole, frac, hasFrac := strings.Cut(digits, ".")
	groups := strings.Split(whole, ",")
	for i, g := range groups {
		if g == "" || !allDigits(g) || (i > 0 && len(g) != 3) || (len(groups) > 1 && i == 0 && len(g) > 3) {
			return 0, 0, fmt.Errorf("%q is not a number as the seed prints one", num)
		}
	}
	if hasFrac && (frac == "" || !allDigits(frac)) {
		return 0, 0, fmt.Errorf("%q is not a number as the seed prints one", num)
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", ""), 64)
	return v, len(frac), err
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Holds reports whether lab, printed to the seed's precision, is the seed's
// figure (or falls in its range, or within its bound).
func (s SeedValue) Holds(lab float64) bool {
	half := 0.5 * math.Pow10(-s.Decimals) * s.factor
	switch s.Bound {
	case "<":
		return lab < s.Value
	case "<=":
		return lab <= s.Value+half
	case ">":
		return lab > s.Value
	case ">=":
		return lab >= s.Value-half
	}
	return lab >= s.Value-half && lab <= s.High+half
}

// Format prints a value in the seed's scale and precision.
func (s SeedValue) Format(v float64) string {
	v /= s.factor
	if s.Decimals == 0 && math.Abs(v) < 1e15 {
		return Thousands(int64(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'f', s.Decimals, 64)
}

// withUnit joins a number and its unit as FormatValue does: "6.00x budget",
// "26,214,400 bytes".
func withUnit(num, unit string) string {
	if strings.HasPrefix(unit, "x") {
		return num + unit
	}
	return num + " " + unit
}

// shortValue is FormatValue without the unit's parenthesised gloss.
func shortValue(r Record) string {
	r.Unit, _, _ = strings.Cut(r.Unit, " (")
	return FormatValue(r)
}

// unitLabel is the unit a figure is printed in: the seed's scale, or the
// record's unit without its parenthesised gloss.
func (s SeedValue) unitLabel(unit string) string {
	u, _, _ := strings.Cut(unit, " (")
	switch s.Scale {
	case "":
		return u
	case "M":
		return "M " + u
	}
	return s.Scale
}
