package memmodel

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"

	"github.com/theurian/boundlab/charge"
)

// GoRowsFile is where `boundlab memmodel measure-go --write` pins the Go rows,
// relative to the module root; embedded like the calibration.
const GoRowsFile = "memmodel/gorows.json"

//go:embed gorows.json
var pinnedGoRows []byte

// PinnedGoRows reads the embedded Go rows.
func PinnedGoRows() ([]GoMeasurement, error) {
	var rows []GoMeasurement
	if err := json.Unmarshal(pinnedGoRows, &rows); err != nil {
		return nil, fmt.Errorf("%s: %w", GoRowsFile, err)
	}
	return rows, nil
}

// WriteGoRows pins rows as indented JSON.
func WriteGoRows(path string, rows []GoMeasurement) error {
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// GoRow is one shape's Go measurements beside the CPython model's.
type GoRow struct {
	Shape          string  `json:"shape"`
	Instance       string  `json:"instance"`
	Wire           int64   `json:"wire_bytes"`
	ArgsWire       int64   `json:"args_wire_bytes"`
	CheckPeak      int64   `json:"middleware_peak_bytes"`
	CheckRatio     float64 `json:"middleware_peak_over_args"`
	CheckAlloc     int64   `json:"middleware_alloc_bytes"`
	HTTPPeak       int64   `json:"http_peak_bytes"`
	HTTPRatio      float64 `json:"http_peak_over_wire"`
	HTTPAllocRatio float64 `json:"http_alloc_over_wire"`
	HTTPModel      int64   `json:"http_model_bytes"`
	Outcome        string  `json:"outcome"`
	PythonPeak     int64   `json:"python_predicted_peak_bytes"`
	PythonFamily   string  `json:"python_family"`
	PythonOverGo   float64 `json:"python_over_go_http"`
}

// GoTable joins the pinned Go rows with the CPython model's prediction
// (pydantic_core) for the same body. Rows exist at full scale only.
func GoTable(sc Scale) ([]GoRow, error) {
	pinned, err := PinnedGoRows()
	if err != nil {
		return nil, err
	}
	full := sc.Cap == FullScale().Cap
	var out []GoRow
	for _, s := range CalibrationShapes(sc, full) {
		st := s.Stats()
		row := GoRow{Shape: s.Name, Instance: s.Describe(), Wire: st.Wire, ArgsWire: st.ArgsWire}
		found := false
		for _, m := range pinned {
			if m.Shape != s.Name || m.Wire != st.Wire {
				continue
			}
			found = true
			switch m.Path {
			case PathCheck:
				row.CheckPeak, row.CheckAlloc = m.PeakLive, m.TotalAlloc
				row.CheckRatio = float64(m.PeakLive) / float64(m.ArgsWire)
				row.Outcome = m.Outcome
			case PathHTTP:
				row.HTTPPeak = m.PeakLive
				row.HTTPRatio = float64(m.PeakLive) / float64(m.Wire)
				row.HTTPAllocRatio = float64(m.TotalAlloc) / float64(m.Wire)
			}
		}
		if !found {
			continue
		}
		row.HTTPModel = GoHTTPModel(s, sc.Limits)
		pr := Predict(s, PydanticCore, sc.Limits)
		row.PythonPeak, row.PythonFamily = pr.Peak, pr.Family.String()
		if row.HTTPPeak > 0 {
			row.PythonOverGo = float64(pr.Peak) / float64(row.HTTPPeak)
		}
		out = append(out, row)
	}
	return out, nil
}

// GoFixed is what one Check costs whatever the arguments: the decoder's and
// the validator's own state, the refusal. Measured at about 360 KiB on the
// smallest rows here (del+astral-at-budget at 1/64 scale: 509,808 bytes for
// 49,182 arguments bytes).
const GoFixed = 512 << 10

// GoCharge is the charge.Go gate's charge of the shape's arguments, in bytes
// (mcpvalidate's default dialect): the leaf as jsonschema/v6 renders it, and
// the member names and the context value.
func GoCharge(st Stats) int64 {
	return st.GoRendered + int64(len("projectId")+len("demo")+len("query"))
}

// GoMiddlewareModel is the model of mcpvalidate's marginal allocation for a
// shape, with the terms named:
//
//   - a gate refusal allocates nothing (one pass, no tree);
//   - sonic's Unmarshal copies the arguments (string(buf)), and the decoded
//     strings alias that copy: 1x the arguments' wire bytes;
//   - jsonschema/v6 copies a string leaf ([]byte(str)) each time a keyword
//     reads it: under the published knowledge.search schema (type, maxLength,
//     the allOf context, unevaluatedProperties) that measured 2x the landed
//     bytes for a mostly-ASCII leaf and 3x for a dense non-ASCII one, with or
//     without maxLength; the model takes 3x.
//
// It bounds total allocation, and so the peak live heap. The terms are a fit
// to the measured rows, not a derivation from v6's source.
func GoMiddlewareModel(s Shape, l charge.Limits) int64 {
	st := s.Stats()
	if GoCharge(st) > l.MaxParamsRenderedChars {
		return GoFixed
	}
	return st.ArgsWire + 3*st.Landed + GoFixed
}

// The whole-request fit: the go-sdk's own moment and what it keeps live while
// the middleware runs, in multiples of the wire bytes, plus a fixed term. They
// are fitted to the pinned HTTP rows (the SDK's moment measured 3.92x at the
// cap and up to 4.33x on 3 MiB bodies, where the fixed term matters), not
// derived from the SDK's source; GoHTTPModel is checked against every pinned
// row by the producer.
const (
	SDKMomentFactor   = 4
	SDKRetainedFactor = 2
	SDKFixed          = 2 << 20
)

// GoHTTPModel bounds one whole HTTP request's peak live heap through the
// go-sdk streamable handler with mcpvalidate's middleware: a maximum over two
// moments, the SDK's parses (the body read with io.ReadAll, then the same
// bytes decoded again by each of the SDK's JSON passes, each copying the value
// it reads) and the middleware's work on top of what the SDK still holds.
func GoHTTPModel(s Shape, l charge.Limits) int64 {
	st := s.Stats()
	return max(SDKMomentFactor*st.Wire, SDKRetainedFactor*st.Wire+GoMiddlewareModel(s, l)) + SDKFixed
}
