package results

import (
	"slices"
	"strings"
	"testing"
)

// The pinned records classify; a perturbed value turns a reproduced figure
// into a refuted one, naming the record as the counterexample.
func TestClassifyPinnedAndPerturbed(t *testing.T) {
	recs, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	v, err := Classify(recs)
	if err != nil {
		t.Fatal(err)
	}
	find := func(v Verdict, id string) Figure {
		for _, f := range v.Figures {
			if f.Record == id {
				return f
			}
		}
		t.Fatalf("no figure for %s", id)
		return Figure{}
	}
	const cap = "bodycap.python-clients.cap"
	if f := find(v, cap); f.Status != FigureReproduced || f.Seed != "26,214,400 bytes" {
		t.Fatalf("%+v", f)
	}
	if v.Reproduced+v.Refuted+v.Retired+v.NotRederivable != len(v.Figures) || v.Refuted == 0 || v.Retired == 0 {
		t.Errorf("counts %d/%d/%d of %d", v.Reproduced, v.Refuted, v.Retired, len(v.Figures))
	}
	for i, r := range recs["bodycap"] {
		if r.ID == cap {
			recs["bodycap"][i].Value++
		}
	}
	w, err := Classify(recs)
	if err != nil {
		t.Fatal(err)
	}
	if f := find(w, cap); f.Status != FigureRefuted || f.Counterexample != cap || f.Lab != "26,214,401 bytes" {
		t.Fatalf("perturbed: %+v", f)
	}
	if w.Refuted != v.Refuted+1 || w.Figures[0].Status != FigureRefuted {
		t.Errorf("refuted %d, was %d; first %s", w.Refuted, v.Refuted, w.Figures[0].Status)
	}
}

// A retired claim with a counterexample is refuted while the counterexample
// differs, reproduced when it no longer does, and an error when no record
// holds it; without one it is retired.
func TestClassifyRetired(t *testing.T) {
	claim := Record{ID: "r", Value: 6, Unit: "x budget", Method: Retired,
		Retirement: &Retirement{Claim: "c", Counterexample: "ce"}}
	ce := Record{ID: "ce", Value: 6.17, Unit: "x budget", Method: Derived}
	statusOf := func(recs ...Record) (Status, error) {
		v, err := Classify(map[string][]Record{"p": recs})
		if err != nil {
			return "", err
		}
		return v.Figures[0].Status, nil
	}
	if s, err := statusOf(claim, ce); s != FigureRefuted || err != nil {
		t.Errorf("differing counterexample: %s %v", s, err)
	}
	ce.Value = 6
	if s, err := statusOf(claim, ce); s != FigureReproduced || err != nil {
		t.Errorf("equal counterexample: %s %v", s, err)
	}
	if _, err := statusOf(claim); err == nil || !strings.Contains(err.Error(), "ce") {
		t.Errorf("missing counterexample: %v", err)
	}
	claim.Retirement.Counterexample = ""
	if s, err := statusOf(claim); s != FigureRetired || err != nil {
		t.Errorf("no counterexample: %s %v", s, err)
	}
}

// A seed figure holds to the digits the seed printed, and no further.
func TestSeedValueHoldsToItsPrecision(t *testing.T) {
	for _, c := range []struct {
		name  string
		seed  string
		lab   float64
		holds bool
	}{
		{"integer_at", "26,214,400", 26214400, true},
		{"integer_one_past", "26,214,400", 26214401, false},
		{"two_places_rounding_down", "1.33", 1.3349, true},
		{"two_places_rounding_up", "1.33", 1.3351, false},
		{"one_place_rounding_up", "3.2", 3.1876, true},
		{"MiB_rounding_down", "75.1 MiB", 75.1499 * (1 << 20), true},
		{"MiB_rounding_up", "75.1 MiB", 75.1501 * (1 << 20), false},
		{"negative", "-14.88", -14.884, true},
		{"negative_past", "-14.88", -14.92, false},
		{"millions", "8.9 M", 8912847, true},
		{"millions_past", "8.9 M", 8951000, false},
		{"range_inside", "194-200 MiB", 197 * (1 << 20), true},
		{"range_top_rounding", "194\u2013200 MiB", 200.2 * (1 << 20), true},
		{"range_above", "194-200 MiB", 200.6 * (1 << 20), false},
		{"range_below", "194-200 MiB", 193.4 * (1 << 20), false},
		{"at_most_rounding", "<= 8.00", 8.004, true},
		{"at_most_past", "<= 8.00", 8.01, false},
		{"below_strict", "< 10 MiB", 9.99 * (1 << 20), true},
		{"below_strict_past", "< 10 MiB", 600 * (1 << 20), false},
		{"above_zero", "> 0", 1, true},
		{"above_zero_at", "> 0", 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			sv, err := ParseSeedValue(c.seed)
			if err != nil {
				t.Fatal(err)
			}
			if got := sv.Holds(c.lab); got != c.holds {
				t.Errorf("%s against %v: holds %v, want %v", c.seed, c.lab, got, c.holds)
			}
		})
	}
	for _, c := range []struct{ name, bad string }{
		{"empty", ""}, {"x", "x"}, {"1,23", "1,23"}, {"1234,567", "1234,567"}, {"1.", "1."}, {"1.2.3", "1.2.3"},
		{"3_MB", "3 MB"}, {"--1", "--1"}, {"1e3", "1e3"},
		{"open_range", "1-"}, {"falling_range", "5-3"}, {"bounded_range", "<= 1-2"}, {"bare_bound", "<"},
	} {
		t.Run("refuses_"+c.name, func(t *testing.T) {
			if _, err := ParseSeedValue(c.bad); err == nil {
				t.Errorf("%q parsed", c.bad)
			}
		})
	}
}

// Every figure of the seed's list has a verdict in the pinned records: a
// record that carries it, or the list's reason why no lab can. A figure
// added to the list, or a record that stops carrying one, fails here.
func TestEverySeedFigureHasAVerdict(t *testing.T) {
	list, err := SeedFigures()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 64 {
		t.Fatalf("the seed's list holds %d figures; the reading it was transcribed from found 64", len(list))
	}
	recs, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	v, err := Classify(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Silent) > 0 {
		t.Errorf("%d of the seed's %d figures have no verdict: %v", len(v.Silent), len(list), v.Silent)
	}
	if v.Listed != len(list) {
		t.Errorf("listed %d, want %d", v.Listed, len(list))
	}
	rows := 0
	for _, r := range v.Rows() {
		if r.SeedFigure > 0 {
			rows++
		}
		if r.Status == FigureNotRederivable && r.Lab == "" {
			t.Errorf("figure %d: not re-derivable without a reason", r.SeedFigure)
		}
	}
	if rows != len(list)-len(v.Silent) {
		t.Errorf("%d rows for %d figures with a verdict", rows, len(list)-len(v.Silent))
	}
}

// A record that names a figure the list does not hold, or carries one the
// list excuses, is an error; a listed figure nothing carries is silent.
func TestSeedFigureCatalogueChecks(t *testing.T) {
	list, err := SeedFigures()
	if err != nil {
		t.Fatal(err)
	}
	var excused, required int
	for _, f := range list {
		if f.NotRederivable != "" && excused == 0 {
			excused = f.Number
		}
		if f.NotRederivable == "" && required == 0 {
			required = f.Number
		}
	}
	r := Record{ID: "r", Value: 1, Unit: "x", Method: Derived, SeedValue: "1"}
	for _, c := range []struct {
		name string
		fig  int
		ok   bool
	}{{"unlisted", 100000, false}, {"excused", excused, false}, {"required", required, true}} {
		r.SeedFigure = c.fig
		v, err := Classify(map[string][]Record{"p": {r}})
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
		if c.ok && (len(v.Silent) != len(list)-v.NotRederivable-1 || slices.Contains(v.Silent, required)) {
			t.Errorf("%s: silent %v", c.name, v.Silent)
		}
	}
}

// A measured figure is judged at the seed's precision like a derived one:
// its re-measurement tolerance does not widen the window, so a peak in MiB
// and a ratio of it get the same verdict.
func TestMeasuredToleranceDoesNotWidenTheVerdict(t *testing.T) {
	peak := Record{ID: "peak", Value: 75.2 * (1 << 20), Unit: "bytes", Method: Measured, Tolerance: 1 << 20, SeedValue: "75.1 MiB"}
	ratio := Record{ID: "ratio", Value: 3.01, Unit: "x wire bytes", Method: Derived, SeedValue: "3.00"}
	v, err := Classify(map[string][]Record{"p": {peak, ratio}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range v.Figures {
		if f.Record != "" && f.Status != FigureRefuted {
			t.Errorf("%s: %s (lab %s against %s), want refuted", f.Record, f.Status, f.Lab, f.Seed)
		}
	}
	peak.Value = 75.14 * (1 << 20)
	if v, _ := Classify(map[string][]Record{"p": {peak}}); v.Figures[0].Record != "peak" || v.Figures[0].Status != FigureReproduced {
		t.Errorf("75.14 MiB against 75.1 MiB: %s", v.Figures[0].Status)
	}
}
