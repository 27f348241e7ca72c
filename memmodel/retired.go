package memmodel

import (
	"fmt"
	"strings"

	"github.com/theurian/boundlab/results"
)

const retiredAttribution = "ADR-0031 Amendment 1 (2026-09-15, round three), retired by boundlab memmodel against the pinned calibration"

// retired states the seed's withdrawn memory claims, each with the pinned
// measurement that refutes it. A claim is stated only while a pinned row
// refutes it: the counterexample is found in the calibration, not written
// here.
func retired(cal Calibration, shapes map[string]Shape, sc Scale) ([]results.Record, error) {
	var out []results.Record
	// 1. The parse term: 1x, 3x or 5x by the widest code point, and "the
	// expression never under-predicts".
	var worst *CalibratedRow
	for i, r := range cal.Rows {
		if r.Measured.Parser != PydanticCore.Name || r.Measured.Peak <= r.SeedPeak {
			continue
		}
		if worst == nil || r.Ratio()-float64(r.SeedPeak)/float64(r.Measured.Wire) >
			worst.Ratio()-float64(worst.SeedPeak)/float64(worst.Measured.Wire) {
			worst = &cal.Rows[i]
		}
	}
	if worst != nil {
		w := float64(worst.Measured.Wire)
		s := shapes[worst.Shape]
		out = append(out, results.Record{
			ID:         "memmodel.retired.seed-expression-never-under-predicts",
			SeedFigure: 33,
			Title:      "the seed's parse term (1x, 3x or 5x by the widest code point) and its claim that the expression never under-predicts",
			Value:      float64(worst.SeedPeak) / w,
			Unit:       "x wire bytes (the seed expression's prediction for the counterexample)",
			Instance:   fmt.Sprintf("%s; %d wire bytes", s.Describe(), worst.Measured.Wire),
			Method:     results.Retired,
			Source:     "memmodel.SeedModel beside the pinned calibration row " + worst.Shape,
			Seed:       "ADR-0031 A1: \"The parse's own peak — 1x, 3x or 5x, set by the widest code point\"; \"Swept over the code point space the expression never under-predicts\"",
			Build: build(map[string]string{"cpython": worst.Measured.Python,
				shortParser(worst.Measured.Parser): worst.Measured.ParserVersion}),
			Retirement: &results.Retirement{
				Claim: "the parse moment is 2x + 1x, 3x or 5x the wire bytes and the composed expression never under-predicts",
				Correction: fmt.Sprintf("%s %s on %s %s measured %.2fx (%d bytes) where the seed's expression says %.2fx: CPython's UTF-8 decoder widens once per new kind, holding the old and new buffers (L x (old kind + new kind)), so ASCII then a kind-2 code point then an astral one peaks at 2x + 6x; the parse term is a property of the parser (memmodel.PydanticCore, memmodel.JSONLoads)",
					worst.Measured.Parser, worst.Measured.ParserVersion, worst.Measured.Impl, worst.Measured.Python,
					worst.Ratio(), worst.Measured.Peak, float64(worst.SeedPeak)/w),
				Attribution:    retiredAttribution,
				Counterexample: measuredID(*worst),
				Keys:           []string{`(?i)never under-predicts`, `(?i)1x, 3x or 5x`},
			},
		})
	}
	// 2. "The worst of family (i) is 7.00x": the largest family-(i) ratio
	// measured, per parser, in one record (one claim, one key).
	seedWorst, _ := SeedModel(shapes["del+astral"], sc.Limits)
	seedRatio := float64(seedWorst) / float64(shapes["del+astral"].Stats().Wire)
	var corrections []string
	var worstRow *CalibratedRow // over every parser: the counterexample
	mods := map[string]string{}
	for _, p := range Parsers {
		var top *CalibratedRow
		for i, r := range cal.Rows {
			if r.Family != ChargeRefused.String() || r.Measured.Parser != p.Name {
				continue
			}
			if top == nil || r.Ratio() > top.Ratio() {
				top = &cal.Rows[i]
			}
		}
		if top == nil || top.Ratio() <= seedRatio+0.005 {
			continue
		}
		if worstRow == nil || top.Ratio() > worstRow.Ratio() {
			worstRow = top
		}
		corrections = append(corrections, fmt.Sprintf("%s %s on %s %s: %s measured %.2fx (%d bytes at %d wire bytes)",
			top.Measured.Parser, top.Measured.ParserVersion, top.Measured.Impl, top.Measured.Python,
			top.Shape, top.Ratio(), top.Measured.Peak, top.Measured.Wire))
		mods["cpython "+top.Measured.Python] = "measured"
		mods[shortParser(p.Name)] = top.Measured.ParserVersion
	}
	if len(corrections) > 0 {
		out = append(out, results.Record{
			ID:         "memmodel.retired.family-i-worst-7x",
			SeedFigure: 47,
			Title:      "the seed's worst family-(i) ratio, U+007F + one astral character at the cap",
			Value:      seedRatio,
			Unit:       "x wire bytes (the seed expression for its own worst row)",
			Instance:   fmt.Sprintf("%s; %d wire bytes", shapes["del+astral"].Describe(), shapes["del+astral"].Stats().Wire),
			Method:     results.Retired,
			Source:     "memmodel.SeedModel(del+astral) beside the pinned calibration's worst family-(i) row per parser",
			Seed:       "ADR-0031 A1: \"The worst of family (i) is 7.00x\"",
			Build:      build(mods),
			Retirement: &results.Retirement{
				Claim:          "the worst of family (i) is 7.00x the wire bytes",
				Correction:     strings.Join(corrections, "; "),
				Attribution:    retiredAttribution,
				Counterexample: measuredID(*worstRow),
				Keys:           []string{`(?i)worst of family \(i\) is 7\.00x`},
			},
		})
	}
	return out, nil
}
