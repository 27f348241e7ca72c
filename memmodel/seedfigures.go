package memmodel

import (
	"fmt"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/results"
)

// The seed's memory figures that are ratios, differences or arithmetic over
// its rows, each re-derived from the pinned calibration (the pydantic_core
// rows: the seed's SDK parses with pydantic_core.from_json) or from the live
// model and constants. A ratio of a pinned peak is exact given the pinned
// row, so it is judged at the seed's printed precision with no tolerance;
// the peak's own record carries the re-measurement tolerance.

// seedRatio is one figure the seed printed as a measured row's ratio.
type seedRatio struct {
	shape, moment, seed string // moment "" is the peak
	figure              int
	what                string
}

var seedRatios = []seedRatio{
	{"ascii", "", "3.00", 42, "family (i), all ASCII at the cap"},
	{"del", "", "3.01", 43, "family (i), dense U+007F at the cap"},
	{"del+2byte", "", "5.00", 44, "family (i), U+007F + one 2-byte character at the cap"},
	{"del+astral", "", "7.00", 45, "family (i), U+007F + one astral character at the cap"},
	{"astral-nonprintable-at-budget", "", "8.11", 39, "non-printable astral at the budget"},
	{"arabic-at-budget", "", "9.11", 40, "non-printable U+0600 at the budget"},
	{"2byte-printable-at-budget", "", "5.12", 51, "printable 2-byte text at the budget"},
	{"seed-ratio-worst", "", "38.04", 49, "the seed's family-(ii) ratio-worst instance"},
	{"search-ii-absolute", "", "<= 8.00", 50, "family (ii)'s worst absolute body at the cap"},
	{"ascii", "transport", "2", 32, "the transport moment, all ASCII at the cap"},
	{"cjk-at-cap", "parse", "5.00", 52, "printable CJK at the cap, its parse moment"},
	{"cjk-at-cap", "render", "4.00", 52, "printable CJK at the cap, its render moment"},
}

// tightShapes are the single-large-leaf shapes whose widest code point is
// printable or 1-byte, where the seed says its expression is tight and
// always above: the four family-(i) rows and printable CJK at the cap.
var tightShapes = []string{"ascii", "del", "del+2byte", "del+astral", "cjk-at-cap"}

func pydanticRow(cal Calibration, shape string) (CalibratedRow, bool) {
	for _, r := range cal.Rows {
		if r.Shape == shape && r.Measured.Parser == PydanticCore.Name {
			return r, true
		}
	}
	return CalibratedRow{}, false
}

// seedFigureRecords are the derived records that judge the seed's memory
// figures the measured-peak records do not carry themselves.
func seedFigureRecords(cal Calibration, shapes map[string]Shape, sc Scale) ([]results.Record, error) {
	var out []results.Record
	rec := func(id, title string, v float64, unit, instance, source, seedValue string, fig int) {
		out = append(out, results.Record{ID: "memmodel.seed." + id, Title: title, Value: v, Unit: unit, Instance: instance,
			Method: results.Derived, Source: source, SeedValue: seedValue, SeedFigure: fig, Build: build(nil)})
	}
	rowOf := func(shape string) (CalibratedRow, Shape, error) {
		r, ok := pydanticRow(cal, shape)
		s, sok := shapes[shape]
		if !ok || !sok {
			return r, s, fmt.Errorf("memmodel: no pinned pydantic_core row or shape %q", shape)
		}
		return r, s, nil
	}
	pinned := func(r CalibratedRow) string {
		return fmt.Sprintf("the pinned calibration row %s (%s)", measuredID(r), CalibrationFile)
	}
	for _, sr := range seedRatios {
		r, s, err := rowOf(sr.shape)
		if err != nil {
			return nil, err
		}
		v, what := r.Measured.Peak, "peak"
		if sr.moment != "" {
			v, what = r.Measured.Moments[sr.moment], sr.moment+" moment"
		}
		id := sr.shape + ".measured-ratio"
		if sr.moment != "" {
			id = sr.shape + "." + sr.moment + "-ratio"
		}
		rec(id, sr.what+": the measured "+what+" over the wire bytes", float64(v)/float64(r.Measured.Wire), "x wire bytes",
			fmt.Sprintf("%s; %d wire bytes; %s %s", s.Describe(), r.Measured.Wire, r.Measured.Impl, r.Measured.Python),
			"tracemalloc "+what+" / wire bytes, from "+pinned(r), sr.seed, sr.figure)
	}

	// The seed's expression beside the measurement (figures 39-41).
	for _, c := range []struct {
		shape, seed string
		fig         int
	}{{"astral-nonprintable-at-budget", "23.00", 39}, {"arabic-at-budget", "15.00", 40}} {
		r, s, err := rowOf(c.shape)
		if err != nil {
			return nil, err
		}
		seedPeak, _ := SeedModel(s, sc.Limits)
		rec(c.shape+".seed-expression-ratio", "the seed's expression for the same body, over its wire bytes", float64(seedPeak)/float64(r.Measured.Wire), "x wire bytes",
			fmt.Sprintf("%s; %d wire bytes", s.Describe(), r.Measured.Wire), "memmodel.SeedModel(shape, charge.DefaultLimits()) / wire bytes", c.seed, c.fig)
	}
	minGap, maxGap, worstOver := 1e9, -1e9, 1e9
	var minShape, maxShape, overShape string
	for _, name := range tightShapes {
		r, _, err := rowOf(name)
		if err != nil {
			return nil, err
		}
		g := float64(r.SeedPeak-r.Measured.Peak) / float64(r.Measured.Wire)
		if g < minGap {
			minGap, minShape = g, name
		}
		if g > maxGap {
			maxGap, maxShape = g, name
		}
	}
	for _, r := range cal.Rows {
		if r.Measured.Parser != PydanticCore.Name {
			continue
		}
		if g := float64(r.Measured.Peak-r.SeedPeak) / float64(r.Measured.Wire); g < worstOver {
			worstOver, overShape = g, r.Shape
		}
	}
	tight := fmt.Sprintf("the pinned pydantic_core rows of %v", tightShapes)
	rec("expression-tightness.most-above", "the seed's expression less the measured peak, at most, over the shapes it calls tight",
		maxGap, "x wire bytes", tight+"; the most is "+maxShape, "(memmodel.SeedModel - measured peak) / wire bytes, the maximum", "<= 0.12", 32)
	rec("expression-tightness.least-above", "the seed's expression less the measured peak, at least, over the shapes it calls tight (the seed: always above)",
		minGap, "x wire bytes", tight+"; the least is "+minShape, "(memmodel.SeedModel - measured peak) / wire bytes, the minimum", "> 0", 32)
	rec("expression.worst-over-prediction", "the measured peak less the seed's expression, at its most negative, over every pinned pydantic_core row",
		worstOver, "x wire bytes", "every pinned pydantic_core row (the seed swept code points; the lab its calibrated shapes); the worst is "+overShape,
		"(measured peak - memmodel.SeedModel) / wire bytes, the minimum", "-14.88", 41)

	// The additive form, for printable 2-byte text (figure 51).
	r, s, err := rowOf("2byte-printable-at-budget")
	if err != nil {
		return nil, err
	}
	add := float64(SeedAdditive(s, sc.Limits)) / float64(r.Measured.Wire)
	inst := fmt.Sprintf("%s; %d wire bytes", s.Describe(), r.Measured.Wire)
	rec("2byte-printable-at-budget.additive-ratio", "the seed's withdrawn additive form for printable 2-byte text, over its wire bytes", add, "x wire bytes", inst,
		"memmodel.SeedAdditive(shape, charge.DefaultLimits()) / wire bytes", "7.00", 51)
	rec("2byte-printable-at-budget.additive-over-measured", "how far the additive form over-states that body", add-r.Ratio(), "x wire bytes", inst,
		"memmodel.SeedAdditive / wire - "+pinned(r)+"'s peak / wire", "1.88", 51)

	// The ratio-worst instance (figures 49, 53).
	rw, rs, err := rowOf("seed-ratio-worst")
	if err != nil {
		return nil, err
	}
	st := rs.Stats()
	rinst := fmt.Sprintf("%s; %d wire bytes", rs.Describe(), st.Wire)
	rec("seed-ratio-worst.wire", "the seed's ratio-worst instance: its wire bytes in the lab's minimal envelope", float64(st.Wire), "bytes", rinst,
		"memmodel.RatioWorstSeedShape().Stats().Wire", "3,145,848", 49)
	rec("seed-ratio-worst.leaf-charge", "the seed's ratio-worst instance: its leaf's charge", float64(st.Rendered), "characters", rinst,
		"charge.Python.StringWidth of the leaf (memmodel Stats.Rendered)", "12,582,869", 49)
	var famI float64
	var famIShape string
	for _, name := range []string{"ascii", "del", "del+2byte", "del+astral"} {
		r, _, err := rowOf(name)
		if err != nil {
			return nil, err
		}
		if r.Ratio() > famI {
			famI, famIShape = r.Ratio(), name
		}
	}
	rec("seed-ratio-worst.over-family-i", "the ratio-worst's ratio over the largest ratio of the seed's family-(i) table", rw.Ratio()/famI, "x",
		rinst+"; over "+famIShape, pinned(rw)+" / the family-(i) rows' largest ratio", "5", 53)
	rec("seed-ratio-worst.size-fraction", "the cap over the ratio-worst's wire bytes (the seed: at an eighth of the size)", float64(sc.Cap)/float64(st.Wire), "x",
		rinst, "charge.BodyCap(EnsureASCII, Raw).Cap / the instance's wire bytes", "8", 53)

	// Arithmetic the seed states about the render and the fallback.
	rec("jsonschema-message-term", "jsonschema's message term: two render strings at the budget, at the widest kind", float64(2*sc.Limits.MaxParamsRenderedChars*4), "bytes",
		"2 x MaxParamsRenderedChars x 4 bytes per code point", "charge.DefaultLimits().MaxParamsRenderedChars x 2 x 4", "96 MiB", 36)
	for _, c := range []struct {
		shape, seed string
	}{{"del", "100 MiB"}, {"del+astral", "400 MiB"}} {
		s, ok := shapes[c.shape]
		if !ok {
			return nil, fmt.Errorf("memmodel: no shape %q", c.shape)
		}
		st := s.Stats()
		rec("whole-leaf-fallback."+c.shape, "the old fallback's repr of the whole leaf: its characters at the repr output's kind", float64((st.Rendered+2)*int64(st.ReprKind)), "bytes",
			fmt.Sprintf("%s; %d wire bytes", s.Describe(), st.Wire), "(charge.Python.StringWidth(leaf) + 2) x the repr output's PEP 393 kind (memmodel Stats)", c.seed, 54)
	}
	// a non-printable astral code point renders widest: \U0001000c
	maxRepr := int64(charge.Python.RuneWidth(0x1000c))
	rec("chunk-transient-ceiling", "the chunked fallback's transient ceiling: the repr output and the slice it reprs, per code point, at the widest kind",
		float64(chunkCodePoints*(maxRepr+1)*4), "bytes", fmt.Sprintf("_CHUNK_CODE_POINTS %d x (%d + 1) x 4", chunkCodePoints, maxRepr),
		"memmodel's chunkCodePoints x (charge.Python's widest code point + 1) x 4", "352 KiB", 55)

	// What raising MAX_SOURCE_FILE_BYTES costs (figure 59) and what a
	// maxLength counted in code points admits in bytes (figure 60).
	l2 := sc.Limits
	l2.MaxSourceFileBytes += 1 << 20
	slope := float64(charge.BodyCap(l2, charge.EnsureASCII, charge.Raw).Cap-sc.Cap) / float64(1<<20)
	rec("cap-slope", "bytes of cap per byte of MaxSourceFileBytes", slope, "x", "MaxSourceFileBytes raised by 1 MiB",
		"charge.BodyCap(EnsureASCII, Raw) at MaxSourceFileBytes + 1 MiB, less at the default, over 1 MiB", "3", 59)
	asc, ast := shapes["ascii"], shapes["del+astral"]
	pa, pt := Predict(asc, PydanticCore, sc.Limits), Predict(ast, PydanticCore, sc.Limits)
	rec("astral-row-over-ascii-row", "what one astral character makes an at-cap body cost per wire byte, over the all-ASCII body (the seed: up to four times)",
		pt.Ratio()/pa.Ratio(), "x", fmt.Sprintf("%s, over %s", ast.Describe(), asc.Describe()), "memmodel.Predict(PydanticCore) ratios, del+astral over ascii", "<= 4", 59)
	rec("maxlength-bytes-per-code-point", "the UTF-8 bytes a code point counted by maxLength can carry, at most", float64(utf8.UTFMax), "bytes per code point",
		"an astral code point", "unicode/utf8.UTFMax", "4", 60)
	return out, nil
}
