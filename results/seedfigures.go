package results

import (
	_ "embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// SeedFigure is one figure of the seed's list: what a lab can re-derive or
// measure of ADR-0031, and where the seed states it.
type SeedFigure struct {
	Number  int    `json:"number"`
	Section string `json:"section"`
	Text    string `json:"text"`
	// NotRederivable is why no lab can re-derive the figure; empty when
	// a record must carry it.
	NotRederivable string `json:"not_rederivable,omitempty"`
}

//go:embed seedfigures.tsv
var seedFiguresTSV string

// SeedFigures is the seed's figure list (results/seedfigures.tsv), in its
// order. The list is data, not a claim: Classify reports a listed figure no
// record carries as silent, which is how a figure is kept from being
// forgotten.
func SeedFigures() ([]SeedFigure, error) {
	var out []SeedFigure
	seen := map[int]bool{}
	for i, line := range strings.Split(seedFiguresTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 3 || len(cols) > 4 {
			return nil, fmt.Errorf("results: seedfigures.tsv:%d: %d columns, want 3 or 4", i+1, len(cols))
		}
		n, err := strconv.Atoi(cols[0])
		if err != nil || n <= 0 || seen[n] {
			return nil, fmt.Errorf("results: seedfigures.tsv:%d: number %q is not a new positive integer", i+1, cols[0])
		}
		seen[n] = true
		f := SeedFigure{Number: n, Section: cols[1], Text: cols[2]}
		if len(cols) == 4 {
			f.NotRederivable = cols[3]
		}
		out = append(out, f)
	}
	return out, nil
}

// catalogue sets each figure's section from the list, adds the figures the
// list says are not re-derivable, and lists the silent ones. A record naming
// a figure the list does not hold is an error; so is a figure the list
// excuses that a record carries all the same (one of the two is stale).
func (v *Verdict) catalogue() error {
	list, err := SeedFigures()
	if err != nil {
		return err
	}
	byNum := map[int]SeedFigure{}
	for _, f := range list {
		byNum[f.Number] = f
	}
	carried := map[int]bool{}
	for i, f := range v.Figures {
		if f.SeedFigure == 0 {
			continue
		}
		sf, ok := byNum[f.SeedFigure]
		if !ok {
			return fmt.Errorf("results: %s names seed figure %d, which seedfigures.tsv does not list", f.Record, f.SeedFigure)
		}
		if sf.NotRederivable != "" {
			return fmt.Errorf("results: %s carries seed figure %d, which seedfigures.tsv lists as not re-derivable", f.Record, f.SeedFigure)
		}
		v.Figures[i].Section = sf.Section
		carried[f.SeedFigure] = true
	}
	v.Listed = len(list)
	v.Silent = []int{}
	for _, f := range list {
		switch {
		case f.NotRederivable != "":
			v.Figures = append(v.Figures, Figure{Status: FigureNotRederivable, Title: f.Text, Seed: f.Text,
				SeedFigure: f.Number, Section: f.Section, Reason: f.NotRederivable})
		case !carried[f.Number]:
			v.Silent = append(v.Silent, f.Number)
		}
	}
	return nil
}

// Row is one line of the verdict table: one figure of the seed's list, with
// the verdict its records give it together (refuted if any refutes it,
// else retired if any retires it, else reproduced), or a figure no list
// names, alone.
type Row struct {
	SeedFigure int    `json:"seed_figure,omitempty"`
	Section    string `json:"section,omitempty"`
	Status     Status `json:"status"`
	Seed       string `json:"seed"`
	Lab        string `json:"lab,omitempty"`
	// Record is the record that decides the row: the counterexample when
	// refuted. Others counts the row's other records.
	Record string `json:"record,omitempty"`
	Others int    `json:"others,omitempty"`
}

// Rows groups the figures by seed figure, in the order of the seed's list,
// then the figures no list names; a silent figure has no row.
func (v Verdict) Rows() []Row {
	rank := map[Status]int{FigureRefuted: 0, FigureRetired: 1, FigureReproduced: 2, FigureNotRederivable: 3}
	by := map[int][]Figure{}
	var loose []Row
	for _, f := range v.Figures {
		if f.SeedFigure == 0 {
			loose = append(loose, rowOf(f, 0))
			continue
		}
		by[f.SeedFigure] = append(by[f.SeedFigure], f)
	}
	nums := make([]int, 0, len(by))
	for n := range by {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	var out []Row
	for _, n := range nums {
		fs := by[n]
		sort.SliceStable(fs, func(i, j int) bool { return rank[fs[i].Status] < rank[fs[j].Status] })
		out = append(out, rowOf(fs[0], len(fs)-1))
	}
	return append(out, loose...)
}

func rowOf(f Figure, others int) Row {
	rec := f.Record
	if f.Counterexample != "" {
		rec = f.Counterexample
	}
	lab := f.Lab
	if f.Status == FigureNotRederivable {
		lab = f.Reason
	}
	return Row{SeedFigure: f.SeedFigure, Section: f.Section, Status: f.Status, Seed: f.Seed, Lab: lab, Record: rec, Others: others}
}
