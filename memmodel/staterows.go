package memmodel

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
)

// StateRowsFile is where `boundlab memmodel measure-state --out FILE` pins
// the state rows, relative to the module root; embedded like the Go rows.
const StateRowsFile = "memmodel/staterows.json"

//go:embed staterows.json
var pinnedStateRows []byte

// PinnedStateRows reads the embedded state rows.
func PinnedStateRows() ([]StateRow, error) {
	var rows []StateRow
	if err := json.Unmarshal(pinnedStateRows, &rows); err != nil {
		return nil, fmt.Errorf("%s: %w", StateRowsFile, err)
	}
	return rows, nil
}

// ReadStateRows reads the rows WriteStateRows pinned at path.
func ReadStateRows(path string) ([]StateRow, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rows []StateRow
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// ReplaceStateRows is pinned with each fresh row in the place of the pinned
// row of its kind, a new kind's row appended.
func ReplaceStateRows(pinned, fresh []StateRow) []StateRow {
	out := append([]StateRow(nil), pinned...)
	for _, f := range fresh {
		replaced := false
		for i := range out {
			if out[i].Kind == f.Kind {
				out[i], replaced = f, true
			}
		}
		if !replaced {
			out = append(out, f)
		}
	}
	return out
}

// WriteStateRows pins rows as indented JSON.
func WriteStateRows(path string, rows []StateRow) error {
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
