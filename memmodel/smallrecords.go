package memmodel

import (
	"fmt"

	"github.com/theurian/boundlab/results"
)

// smallRecords are the small-values family's records: each calibrated cost
// (measured), and each checked row's measurement beside the prediction the
// costs make (derived) and their ratio. A checked row the model misses fails
// the producer.
func smallRecords(cal Calibration, sc Scale) ([]results.Record, error) {
	checks, err := CheckSmall(cal.Small, sc)
	if err != nil {
		return nil, err
	}
	var out []results.Record
	src := "tracemalloc (the transport's bytearray and bytes, then the parse; reset_peak between) via `boundlab memmodel calibrate --small --python PATH --out " + CalibrationFile + "`; memmodel/calibrate.py, family small"
	mods := func(m Measurement) results.Build {
		return build(map[string]string{"cpython": m.Python, shortParser(m.Parser): m.ParserVersion})
	}
	costs, err := CostsFrom(cal.Small)
	if err != nil {
		return nil, err
	}
	for _, r := range cal.Small {
		if r.Role != SmallRoleCost {
			continue
		}
		m := r.Measured
		c := costs[costsKey(m)][SmallKind(r.Shape)]
		out = append(out, results.Record{
			ID:    fmt.Sprintf("memmodel.python.small.%s@%s%s.cost.%s", shortParser(m.Parser), m.Impl, m.Python, r.Shape),
			Title: "a small value's calibrated cost: the parse moment less the transport, the parser's body term and the outer array's slots, per value",
			Value: c, Unit: "bytes per value",
			Instance: fmt.Sprintf("a tools/call whose arguments' one member is an array of %s values, %s; %s wire bytes; one fresh %s %s process, %s %s",
				results.Thousands(r.Values), smallWhat(r.Shape), results.Thousands(m.Wire), m.Impl, m.Python, m.Parser, m.ParserVersion),
			Method: results.Measured, Source: src, Tolerance: max(1, c*MeasuredTolerance), Build: mods(m),
		})
	}
	worst := 0.0
	for _, ck := range checks {
		if ck.Err != nil {
			return nil, fmt.Errorf("the small-values model misses a pinned row: %w", ck.Err)
		}
		r, m, p := ck.Row, ck.Row.Measured, ck.Pred
		measured := m.Moments["parse"]
		inst := fmt.Sprintf("a tools/call whose arguments' one member is an array of %s values, %s; %s wire bytes", results.Thousands(r.Values), smallWhat(r.Shape), results.Thousands(m.Wire))
		base := fmt.Sprintf("memmodel.python.small.%s", shortParser(m.Parser))
		where := fmt.Sprintf("%s@%s%s.%s.%s", base, m.Impl, m.Python, r.Shape, r.Scale)
		ratio := float64(p.Parse) / float64(measured)
		worst = max(worst, ratio-1)
		out = append(out,
			results.Record{
				ID:    where + ".predicted-peak",
				Title: "a body of many small values: the model's parse-moment peak (transport + the parser's body term + the outer array's slots + each value's calibrated cost)",
				Value: float64(p.Parse), Unit: "bytes (tracemalloc-visible heap)", Instance: inst + fmt.Sprintf("; costs calibrated on %s %s", m.Impl, m.Python),
				Method: results.Derived, Source: "memmodel.PredictSmall(shape, wire, memmodel." + parserVar(m.Parser) + ", the costs of " + CalibrationFile + "'s calibrating rows)", Build: build(nil),
			},
			results.Record{
				ID:    where + ".measured-peak",
				Title: "a body of many small values: the parse moment's peak, measured (the transport's buffers included)",
				Value: float64(measured), Unit: "bytes (tracemalloc peak)", Instance: inst + fmt.Sprintf("; one fresh %s %s process, %s %s", m.Impl, m.Python, m.Parser, m.ParserVersion),
				Method: results.Measured, Source: src, Tolerance: float64(int64(MeasuredTolerance * float64(measured))), Build: mods(m),
			},
			results.Record{
				ID:    where + ".predicted-over-measured",
				Title: fmt.Sprintf("the model's parse peak over the measured one (the model's promise: at least 1, at most %.2f)", 1+SmallMargin),
				Value: ratio, Unit: "x the measured peak", Instance: inst,
				Method: results.Derived, Source: "the two records above: predicted-peak / measured-peak", Build: build(nil),
			},
		)
	}
	out = append(out, results.Record{
		ID:    "memmodel.python.small.worst-margin",
		Title: fmt.Sprintf("the most the small-values model sits above a pinned measurement, as a fraction of it (its stated margin: %.2f)", SmallMargin),
		Value: worst, Unit: "fraction of the measured peak", Instance: fmt.Sprintf("every checked small-values row of %s (%d rows)", CalibrationFile, len(checks)),
		Method: results.Derived, Source: "max over memmodel.CheckSmall's rows of predicted / measured - 1", Build: build(nil),
	})
	return out, nil
}

// smallWhat describes a shape or kind by name.
func smallWhat(name string) string {
	if s, ok := smallShapeNamed(name); ok {
		return s.What
	}
	return name
}

func parserVar(name string) string {
	switch name {
	case PydanticCore.Name:
		return "PydanticCore"
	case JSONLoads.Name:
		return "JSONLoads"
	}
	return name
}
