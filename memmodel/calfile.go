package memmodel

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

// CalibrationFile is where `boundlab memmodel calibrate` pins its rows,
// relative to the module root. It is embedded so that verify can check every
// pinned row against the live model without an interpreter.
const CalibrationFile = "memmodel/calibration.json"

//go:embed calibration.json
var pinnedCalibration []byte

// Calibration is the pinned calibration: every row, from every interpreter
// it was run on, with the scale it was run at.
type Calibration struct {
	Cap    int64           `json:"cap"`
	Budget int64           `json:"budget"`
	Rows   []CalibratedRow `json:"rows"`
	// Small are the small-values family's rows (CalibrateSmall).
	Small []SmallRow `json:"small,omitempty"`
}

// PinnedCalibration reads the embedded calibration.
func PinnedCalibration() (Calibration, error) {
	var c Calibration
	if err := json.Unmarshal(pinnedCalibration, &c); err != nil {
		return c, fmt.Errorf("%s: %w", CalibrationFile, err)
	}
	return c, nil
}

// Merge replaces the rows of c that share an interpreter version and parser
// with rows, and keeps the rest; rows stay in a stable order.
func (c *Calibration) Merge(rows []CalibratedRow) {
	key := func(r CalibratedRow) string {
		return r.Measured.Impl + " " + r.Measured.Python + " " + r.Measured.Parser + " " + r.Measured.ParserVersion
	}
	fresh := map[string]bool{}
	for _, r := range rows {
		fresh[key(r)] = true
	}
	kept := c.Rows[:0]
	for _, r := range c.Rows {
		if !fresh[key(r)] {
			kept = append(kept, r)
		}
	}
	c.Rows = append(kept, rows...)
	sort.SliceStable(c.Rows, func(i, j int) bool { return key(c.Rows[i]) < key(c.Rows[j]) })
}

// WriteFile writes c as indented JSON.
func (c Calibration) WriteFile(path string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadCalibrationFile reads a calibration from disk (the pinned file as it is
// now, which may be newer than the copy embedded in this binary).
func ReadCalibrationFile(path string) (Calibration, error) {
	var c Calibration
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}
