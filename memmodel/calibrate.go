package memmodel

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/theurian/boundlab/charge"
)

// CalibrationScript is the Python program Calibrate runs, one fresh process
// per row: it reads a body on stdin, runs the seed's request path over it
// under tracemalloc and prints each moment's peak as JSON.
//
//go:embed calibrate.py
var CalibrationScript string

// ErrUnsupportedInterpreter is returned when the interpreter cannot run the
// calibration (CPython before 3.9 has no tracemalloc.reset_peak).
var ErrUnsupportedInterpreter = errors.New("unsupported interpreter")

// Measurement is what one interpreter run reports.
type Measurement struct {
	Python        string           `json:"python"`
	Impl          string           `json:"implementation"`
	Parser        string           `json:"parser"`
	ParserVersion string           `json:"parser_version"`
	Unicode       string           `json:"unicode"`
	Wire          int64            `json:"wire"`
	Moments       map[string]int64 `json:"moments"`
	Peak          int64            `json:"peak"`
	Charge        int64            `json:"charge"`
	CodePoints    int64            `json:"code_points"`
	MessageChars  int64            `json:"message_chars,omitempty"`
	MaxRSSKiB     int64            `json:"ru_maxrss_kib"`
	Values        int64            `json:"values,omitempty"` // the small-values family: the array's members
}

// CalibratedRow is one shape through one parser on one interpreter: measured
// beside predicted.
type CalibratedRow struct {
	Shape       string      `json:"shape"`
	Instance    string      `json:"instance"`
	Family      string      `json:"family"`
	Interpreter string      `json:"interpreter"` // the path that was run
	Measured    Measurement `json:"measured"`
	Predicted   Moments     `json:"predicted"`
	PredPeak    int64       `json:"predicted_peak"`
	Decider     string      `json:"decider"`
	SeedPeak    int64       `json:"seed_model_peak"` // the seed's expression, for the same body
}

// Ratio is the measured peak over the wire bytes.
func (r CalibratedRow) Ratio() float64 { return float64(r.Measured.Peak) / float64(r.Measured.Wire) }

// Holds reports whether the prediction bounds the measurement, moment by
// moment and at the peak.
func (r CalibratedRow) Holds() error {
	var errs []error
	check := func(name string, pred int64) {
		if m, ok := r.Measured.Moments[name]; ok && m > pred {
			errs = append(errs, fmt.Errorf("%s/%s on %s %s: %s moment measured %d > predicted %d",
				r.Shape, r.Measured.Parser, r.Measured.Impl, r.Measured.Python, name, m, pred))
		}
	}
	check("transport", r.Predicted.Transport)
	check("parse", r.Predicted.Parse)
	check("charge", r.Predicted.Charge)
	if r.Family == SchemaRefused.String() {
		check("render", r.Predicted.Render)
	}
	if r.Measured.Peak > r.PredPeak {
		errs = append(errs, fmt.Errorf("%s/%s: peak measured %d > predicted %d", r.Shape, r.Measured.Parser, r.Measured.Peak, r.PredPeak))
	}
	return errors.Join(errs...)
}

// ParsersAvailable asks the interpreter which of the model's parsers it can
// import.
func ParsersAvailable(ctx context.Context, python string) ([]Parser, error) {
	var out []Parser
	for _, p := range Parsers {
		cmd := exec.CommandContext(ctx, python, "-c", "import "+p.Module)
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				continue // the module is absent
			}
			return nil, fmt.Errorf("running %s: %w", python, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// Measure runs one shape through one parser in a fresh interpreter.
func Measure(ctx context.Context, python string, s Shape, p Parser, l charge.Limits) (CalibratedRow, error) {
	pred := Predict(s, p, l)
	body := s.Body()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-I", "-c", CalibrationScript, p.Name, pred.Family.String(), strconv.Itoa(TransportChunk))
	cmd.Stdin = bytes.NewReader(body)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 3 {
			return CalibratedRow{}, fmt.Errorf("%s: %w: %s", python, ErrUnsupportedInterpreter, strings.TrimSpace(stderr.String()))
		}
		msg := stderr.String()
		if len(msg) > 400 {
			msg = msg[len(msg)-400:]
		}
		return CalibratedRow{}, fmt.Errorf("%s %s on %s: %w: %s", s.Name, p.Name, python, err, strings.TrimSpace(msg))
	}
	var m Measurement
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
		return CalibratedRow{}, fmt.Errorf("%s %s: unreadable calibration output: %w", s.Name, p.Name, err)
	}
	if m.Wire != pred.Stats.Wire || m.CodePoints != pred.Stats.CodePoints {
		return CalibratedRow{}, fmt.Errorf("%s: interpreter saw %d wire bytes and %d code points, the lab built %d and %d",
			s.Name, m.Wire, m.CodePoints, pred.Stats.Wire, pred.Stats.CodePoints)
	}
	seed, _ := SeedModel(s, l)
	return CalibratedRow{
		Shape: s.Name, Instance: s.Describe(), Family: pred.Family.String(), Interpreter: python,
		Measured: m, Predicted: pred.Moments, PredPeak: pred.Peak, Decider: pred.Decider, SeedPeak: seed,
	}, nil
}

// Calibrate measures every shape through every parser the interpreter has,
// one fresh process per row, in order. progress, if not nil, is told of each
// row as it lands.
func Calibrate(ctx context.Context, python string, shapes []Shape, l charge.Limits, progress func(CalibratedRow)) ([]CalibratedRow, error) {
	parsers, err := ParsersAvailable(ctx, python)
	if err != nil {
		return nil, err
	}
	if len(parsers) == 0 {
		return nil, fmt.Errorf("%s imports none of the parsers the model prices", python)
	}
	var rows []CalibratedRow
	for _, s := range shapes {
		for _, p := range parsers {
			r, err := Measure(ctx, python, s, p, l)
			if err != nil {
				return rows, err
			}
			rows = append(rows, r)
			if progress != nil {
				progress(r)
			}
		}
	}
	return rows, nil
}

// MeasureSmall runs one small-values body through one parser in a fresh
// interpreter: the transport and parse moments, and the values the
// interpreter counted.
func MeasureSmall(ctx context.Context, python string, s SmallShape, wire int64, p Parser) (Measurement, int64, error) {
	body, n := s.Body(wire)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-I", "-c", CalibrationScript, p.Name, "small", strconv.Itoa(TransportChunk))
	cmd.Stdin = bytes.NewReader(body)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := stderr.String()
		if len(msg) > 400 {
			msg = msg[len(msg)-400:]
		}
		return Measurement{}, 0, fmt.Errorf("%s %s on %s: %w: %s", s.Name, p.Name, python, err, strings.TrimSpace(msg))
	}
	var m Measurement
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
		return Measurement{}, 0, fmt.Errorf("%s %s: unreadable calibration output: %w", s.Name, p.Name, err)
	}
	if m.Wire != int64(len(body)) || m.Values != n {
		return Measurement{}, 0, fmt.Errorf("%s: the interpreter saw %d bytes and %d values; the lab built %d and %d", s.Name, m.Wire, m.Values, len(body), n)
	}
	return m, n, nil
}

// CalibrateSmall measures the small-values family through every parser the
// interpreter has: each kind at SmallCalibrationWire (the costs), every
// shape at SmallSampleWire, and, when atCap, each parser's worst shape by
// the freshly calibrated model at the cap. One fresh process per row.
func CalibrateSmall(ctx context.Context, python string, sc Scale, atCap bool, progress func(SmallRow)) ([]SmallRow, error) {
	parsers, err := ParsersAvailable(ctx, python)
	if err != nil {
		return nil, err
	}
	var rows []SmallRow
	add := func(s SmallShape, role, scale string, wire int64, p Parser) error {
		m, n, err := MeasureSmall(ctx, python, s, wire, p)
		if err != nil {
			return err
		}
		r := SmallRow{Shape: s.Name, Role: role, Scale: scale, Values: n, Measured: m}
		rows = append(rows, r)
		if progress != nil {
			progress(r)
		}
		return nil
	}
	for _, p := range parsers {
		for _, k := range SmallKinds() {
			if err := add(k, SmallRoleCost, "calibration", SmallCalibrationWire, p); err != nil {
				return rows, err
			}
		}
		for _, s := range SmallShapes() {
			if err := add(s, SmallRoleCheck, "sample", SmallSampleWire, p); err != nil {
				return rows, err
			}
		}
		if !atCap {
			continue
		}
		costs, err := CostsFrom(rows)
		if err != nil {
			return rows, err
		}
		worst, err := WorstSmall(p, costs[costsKey(rows[len(rows)-1].Measured)])
		if err != nil {
			return rows, err
		}
		if err := add(worst, SmallRoleCheck, "at-cap", sc.Cap, p); err != nil {
			return rows, err
		}
	}
	return rows, nil
}
