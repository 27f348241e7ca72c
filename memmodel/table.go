package memmodel

// TableRow is one shape under one parser: the model's prediction, the seed's
// expression for the same body, and every pinned measurement of that body.
type TableRow struct {
	Shape     string         `json:"shape"`
	Instance  string         `json:"instance"`
	Family    string         `json:"family"`
	Wire      int64          `json:"wire_bytes"`
	Parser    string         `json:"parser"`
	Moments   Moments        `json:"moments_bytes"`
	Peak      int64          `json:"predicted_peak_bytes"`
	Ratio     float64        `json:"predicted_ratio"`
	Decider   string         `json:"decider"`
	SeedPeak  int64          `json:"seed_expression_bytes"`
	SeedRatio float64        `json:"seed_expression_ratio"`
	Measured  *MeasuredCell  `json:"measured,omitempty"`
	All       []MeasuredCell `json:"measurements,omitempty"`
}

// MeasuredCell is one pinned calibration of a row's body.
type MeasuredCell struct {
	On    string  `json:"on"` // interpreter and parser, with versions
	Peak  int64   `json:"peak_bytes"`
	Ratio float64 `json:"ratio"`
	Holds bool    `json:"prediction_holds"`
}

// PythonTable is the model's rows at scale sc, beside the pinned calibration.
func PythonTable(sc Scale) []TableRow {
	full := sc.Cap == FullScale().Cap && sc.Limits.MaxParamsRenderedChars == FullScale().Limits.MaxParamsRenderedChars
	pinned, _ := PinnedCalibration()
	var out []TableRow
	for _, s := range CalibrationShapes(sc, full) {
		for _, p := range Parsers {
			pr := Predict(s, p, sc.Limits)
			seed, _ := SeedModel(s, sc.Limits)
			row := TableRow{
				Shape: s.Name, Instance: s.Describe(), Family: pr.Family.String(), Wire: pr.Stats.Wire,
				Parser: p.Name, Moments: pr.Moments, Peak: pr.Peak, Ratio: pr.Ratio(), Decider: pr.Decider,
				SeedPeak: seed, SeedRatio: float64(seed) / float64(pr.Stats.Wire),
			}
			for _, c := range pinned.Rows {
				if c.Shape != s.Name || c.Measured.Parser != p.Name || c.Measured.Wire != pr.Stats.Wire {
					continue
				}
				cell := MeasuredCell{
					On:   c.Measured.Impl + " " + c.Measured.Python + " " + c.Measured.Parser + " " + c.Measured.ParserVersion,
					Peak: c.Measured.Peak, Ratio: c.Ratio(), Holds: c.Holds() == nil,
				}
				row.All = append(row.All, cell)
			}
			for i := range row.All {
				if row.Measured == nil || row.All[i].Peak > row.Measured.Peak {
					row.Measured = &row.All[i]
				}
			}
			out = append(out, row)
		}
	}
	return out
}
