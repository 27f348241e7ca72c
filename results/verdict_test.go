package results

import (
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
	if v.Reproduced+v.Refuted+v.Retired != len(v.Figures) || v.Refuted == 0 || v.Retired == 0 {
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

// A seed figure holds to the digits the seed printed, plus a measured
// record's tolerance, and no further.
func TestSeedValueHoldsToItsPrecision(t *testing.T) {
	for _, c := range []struct {
		name     string
		seed     string
		lab, tol float64
		holds    bool
	}{
		{"integer_at", "26,214,400", 26214400, 0, true},
		{"integer_one_past", "26,214,400", 26214401, 0, false},
		{"two_places_rounding_down", "1.33", 1.3349, 0, true},
		{"two_places_rounding_up", "1.33", 1.3351, 0, false},
		{"one_place_rounding_up", "3.2", 3.1876, 0, true},
		{"MiB_rounding_down", "75.1 MiB", 75.1499 * (1 << 20), 0, true},
		{"MiB_rounding_up", "75.1 MiB", 75.1501 * (1 << 20), 0, false},
		{"MiB_rounding_up_within_tolerance", "75.1 MiB", 75.1501 * (1 << 20), 1000, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sv, err := ParseSeedValue(c.seed)
			if err != nil {
				t.Fatal(err)
			}
			if got := sv.Holds(c.lab, c.tol); got != c.holds {
				t.Errorf("%s against %v ±%v: holds %v, want %v", c.seed, c.lab, c.tol, got, c.holds)
			}
		})
	}
	for _, c := range []struct{ name, bad string }{
		{"empty", ""}, {"x", "x"}, {"1,23", "1,23"}, {"1234,567", "1234,567"}, {"1.", "1."}, {"1.2.3", "1.2.3"},
		{"3_MB", "3 MB"}, {"-1", "-1"}, {"1e3", "1e3"},
	} {
		t.Run("refuses_"+c.name, func(t *testing.T) {
			if _, err := ParseSeedValue(c.bad); err == nil {
				t.Errorf("%q parsed", c.bad)
			}
		})
	}
}
