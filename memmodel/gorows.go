package memmodel

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/theurian/boundlab/charge"
)

// GoRowsFile is where `boundlab memmodel measure-go --out FILE` pins the Go rows,
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

// ReadGoRows reads the rows WriteGoRows pinned at path.
func ReadGoRows(path string) ([]GoMeasurement, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rows []GoMeasurement
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// ReplaceGoRows is pinned with each row of fresh in the place of the pinned
// row of its shape and path, every other row as it was: re-measuring the
// shapes a change touches re-pins those alone. The rows of a shape with no
// pinned row at all (a new shape, measured on each of its paths) are
// appended, in fresh's order. A fresh row of a pinned shape on a path it has
// no row for is an error: a new path is pinned by a full run.
func ReplaceGoRows(pinned, fresh []GoMeasurement) ([]GoMeasurement, error) {
	out := slices.Clone(pinned)
	for _, f := range fresh {
		i := slices.IndexFunc(out, func(p GoMeasurement) bool { return p.Shape == f.Shape && p.Path == f.Path })
		if i >= 0 {
			out[i] = f
			continue
		}
		if slices.ContainsFunc(pinned, func(p GoMeasurement) bool { return p.Shape == f.Shape }) {
			return nil, fmt.Errorf("no pinned row %s %s to replace: pin a new path with a full run", f.Shape, f.Path)
		}
		out = append(out, f)
	}
	return out, nil
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
	CheckFirst     int64   `json:"middleware_first_call_alloc_bytes"`
	HTTPPeak       int64   `json:"http_peak_bytes"`
	HTTPRatio      float64 `json:"http_peak_over_wire"`
	HTTPAllocRatio float64 `json:"http_alloc_over_wire"`
	HTTPModel      int64   `json:"http_model_bytes"`
	GuardedPeak    int64   `json:"guarded_peak_bytes"`
	GuardedRatio   float64 `json:"guarded_peak_over_wire"`
	CheckModel     int64   `json:"middleware_model_bytes"`
	Measured       bool    `json:"measured"` // false: no pinned row at this scale, the models only
	Outcome        string  `json:"outcome"`
	PythonPeak     int64   `json:"python_predicted_peak_bytes"`
	PythonFamily   string  `json:"python_family"`
	PythonOverGo   float64 `json:"python_over_go_http"`
}

// GoTable joins the pinned Go rows with the CPython model's prediction
// (pydantic_core) for the same body. Pinned rows exist at full scale only; at
// another scale a row carries the Go models alone (Measured false).
func GoTable(sc Scale) ([]GoRow, error) {
	pinned, err := PinnedGoRows()
	if err != nil {
		return nil, err
	}
	full := sc.Cap == FullScale().Cap
	var out []GoRow
	for _, s := range CalibrationShapes(sc, full) {
		st := s.Stats()
		row := GoRow{Shape: s.Name, Instance: s.Describe(), Wire: st.Wire, ArgsWire: st.ArgsWire,
			CheckModel: GoMiddlewareModel(s, charge.DefaultLimits()), HTTPModel: GoHTTPModel(s, charge.DefaultLimits())}
		row.Outcome = "passes the gate (model)"
		if GoCharge(st) > charge.DefaultLimits().MaxParamsRenderedChars {
			row.Outcome = "refused: gate charge (model)"
		}
		found := false
		for _, m := range pinned {
			if m.Shape != s.Name || m.Wire != st.Wire {
				continue
			}
			found = true
			switch m.Path {
			case PathCheck:
				row.CheckPeak, row.CheckAlloc, row.CheckFirst = m.PeakLive, m.TotalAlloc, m.FirstAlloc
				row.CheckRatio = float64(m.PeakLive) / float64(m.ArgsWire)
				row.Outcome = m.Outcome
			case PathHTTP:
				row.HTTPPeak = m.PeakLive
				row.HTTPRatio = float64(m.PeakLive) / float64(m.Wire)
				row.HTTPAllocRatio = float64(m.TotalAlloc) / float64(m.Wire)
			case PathGuarded:
				row.GuardedPeak = m.PeakLive
				row.GuardedRatio = float64(m.PeakLive) / float64(m.Wire)
			}
		}
		row.Measured = found
		pr := Predict(s, PydanticCore, sc.Limits)
		row.PythonPeak, row.PythonFamily = pr.Peak, pr.Family.String()
		if row.HTTPPeak > 0 {
			row.PythonOverGo = float64(pr.Peak) / float64(row.HTTPPeak)
		}
		out = append(out, row)
	}
	return out, nil
}

// GoFixed is what one Check costs whatever the arguments, after a warm-up
// call (sonic compiles its decoder on first use, about 0.5 MiB, once per
// process): the decoded map, the validator's state, the refusal. Measured
// under 70 KiB on the smallest rows here.
const GoFixed = 256 << 10

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
//     the allOf context, unevaluatedProperties) that measured up to 2x the
//     landed bytes, with or without maxLength.
//
// It bounds total allocation, and so the peak live heap. The terms are a fit
// to the measured rows, not a derivation from v6's source.
func GoMiddlewareModel(s Shape, l charge.Limits) int64 {
	st := s.Stats()
	if GoCharge(st) > l.MaxParamsRenderedChars {
		return GoFixed
	}
	return st.ArgsWire + 2*st.Landed + GoFixed
}

// The whole-request fit: what the go-sdk holds while a request is in flight,
// in multiples of the wire bytes, plus a fixed term, with the middleware's
// work on top. The constants are fitted to the pinned HTTP rows (steady-state
// peaks 4.4x-6.0x the wire bytes; the largest multiples are on 3-5 MiB bodies,
// where the SDK's fixed cost weighs), with room for the sampled peak's
// run-to-run spread (4.92x and 5.24x on same-size bodies); they are not
// derived from the SDK's source. The producer checks GoHTTPModel against every
// pinned row.
const (
	SDKFactor = 6
	SDKFixed  = 4 << 20
)

// GoHTTPModel bounds one whole HTTP request's peak live heap through the
// go-sdk streamable handler with mcpvalidate's middleware: the SDK's own
// buffers (the body read with io.ReadAll, then the same bytes decoded again by
// each of the SDK's JSON passes, each copying the value it reads) plus the
// middleware's work.
func GoHTTPModel(s Shape, l charge.Limits) int64 {
	st := s.Stats()
	return SDKFactor*st.Wire + GoMiddlewareModel(s, l) + SDKFixed
}
