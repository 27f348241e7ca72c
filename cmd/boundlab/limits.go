package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/theurian/boundlab/charge"
)

// limitsAbout is the help paragraph of every verb that takes the limits.
const limitsAbout = `LIMITS are the seven flags below (--max-source-file-bytes, --envelope, --budget, --max-nodes, --max-nesting, --max-number-bytes, --max-number-exponent) and --limits FILE; each has one meaning in every verb. Sizes take bytes or KiB, MiB, GiB (16MiB). Unset ones are charge.DefaultLimits, the seed's.`

// limitSpec is one limit as a flag, a --limits key and a charge.Limits field.
// Every verb that derives or enforces takes the same seven, with one meaning.
type limitSpec struct {
	flag, key, field, about string
	size                    bool // printed as a size (8MiB) in help
	get                     func(charge.Limits) int64
	set                     func(*charge.Limits, int64)
}

var limitSpecs = []limitSpec{
	{"max-source-file-bytes", "max_source_file_bytes", "MaxSourceFileBytes", "the largest file a call may land, in UTF-8 bytes; the body cap derives from it", true,
		func(l charge.Limits) int64 { return l.MaxSourceFileBytes }, func(l *charge.Limits, v int64) { l.MaxSourceFileBytes = v }},
	{"envelope", "envelope", "EnvelopeAllowance", "what the body cap adds for the envelope and sibling arguments, bytes", true,
		func(l charge.Limits) int64 { return l.EnvelopeAllowance }, func(l *charge.Limits, v int64) { l.EnvelopeAllowance = v }},
	{"budget", "budget", "MaxParamsRenderedChars", "the render budget the charge holds a document to, in the dialect's unit", true,
		func(l charge.Limits) int64 { return l.MaxParamsRenderedChars }, func(l *charge.Limits, v int64) { l.MaxParamsRenderedChars = v }},
	{"max-nodes", "max_nodes", "MaxParamsNodes", "containers + member names + values", false,
		func(l charge.Limits) int64 { return int64(l.MaxParamsNodes) }, func(l *charge.Limits, v int64) { l.MaxParamsNodes = int(v) }},
	{"max-nesting", "max_nesting", "MaxParamsNesting", "how deep containers nest (the root is depth 1)", false,
		func(l charge.Limits) int64 { return int64(l.MaxParamsNesting) }, func(l *charge.Limits, v int64) { l.MaxParamsNesting = int(v) }},
	{"max-number-bytes", "max_number_bytes", "MaxNumberBytes", "one number token's length in bytes", false,
		func(l charge.Limits) int64 { return int64(l.MaxNumberBytes) }, func(l *charge.Limits, v int64) { l.MaxNumberBytes = int(v) }},
	{"max-number-exponent", "max_number_exponent", "MaxNumberExponent", "the magnitude of a number's written exponent", false,
		func(l charge.Limits) int64 { return int64(l.MaxNumberExponent) }, func(l *charge.Limits, v int64) { l.MaxNumberExponent = int(v) }},
}

// maxLimitsFileBytes bounds what --limits reads.
const maxLimitsFileBytes = 64 << 10

// maxSizeText bounds a size argument; no int64 needs more.
const maxSizeText = 32

var sizeUnits = []struct {
	suffix string
	scale  int64
}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"b", 1}}

var errSize = errors.New("want a whole number of bytes, or one followed by KiB, MiB or GiB (e.g. 16MiB)")

// parseSize reads "16777216", "16MiB", "16 MiB", "1_024KiB". Its errors never
// quote the text.
func parseSize(text string) (int64, error) {
	if len(text) > maxSizeText {
		return 0, fmt.Errorf("%w; got %d bytes of text", errSize, len(text))
	}
	s := strings.ToLower(strings.TrimSpace(text))
	scale := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, scale = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.scale
			break
		}
	}
	s = strings.ReplaceAll(s, "_", "")
	if s == "" {
		return 0, errSize
	}
	var v int64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, errSize
		}
		if v > (math.MaxInt64-int64(c-'0'))/10 {
			return 0, errors.New("the size does not fit in 64 bits")
		}
		v = v*10 + int64(c-'0')
	}
	if v > math.MaxInt64/scale {
		return 0, errors.New("the size does not fit in 64 bits")
	}
	return v * scale, nil
}

// formatSize writes v as the largest binary unit that divides it.
func formatSize(v int64) string {
	for _, u := range sizeUnits[:3] {
		if v != 0 && v%u.scale == 0 {
			return fmt.Sprintf("%d%s", v/u.scale, map[string]string{"gib": "GiB", "mib": "MiB", "kib": "KiB"}[u.suffix])
		}
	}
	return fmt.Sprint(v)
}

// sizeFlag is a flag.Value for one limit. Set never fails: flag would quote
// the argument in its message, so the error is kept and reported by resolve,
// bounded and without the argument.
type sizeFlag struct {
	v   int64
	set bool
	err error
}

func (s *sizeFlag) String() string { return "" }

func (s *sizeFlag) Set(text string) error {
	s.set = true
	s.v, s.err = parseSize(text)
	return nil
}

// limitFlags are the limits flags of one verb.
type limitFlags struct {
	file string
	vals []sizeFlag
}

// addLimitFlags registers --limits FILE and the seven limit flags on c.
func addLimitFlags(c *command) *limitFlags {
	lf := &limitFlags{vals: make([]sizeFlag, len(limitSpecs))}
	def := charge.DefaultLimits()
	for i, sp := range limitSpecs {
		arg, d := "a whole `N`", fmt.Sprint(sp.get(def))
		if sp.size {
			arg, d = "a `SIZE`: bytes, or with KiB, MiB, GiB", formatSize(sp.get(def))
		}
		c.Var(&lf.vals[i], sp.flag, fmt.Sprintf("%s: %s (%s; default %s)", sp.field, sp.about, arg, d))
	}
	c.StringVar(&lf.file, "limits", "", "read the limits from `FILE`: a JSON object whose keys are these flags' names in snake case "+
		"(max_source_file_bytes, envelope, budget, ...); a flag given beside it wins")
	return lf
}

// given reports whether any limit was given, by flag or file.
func (lf *limitFlags) given() bool {
	if lf.file != "" {
		return true
	}
	for _, v := range lf.vals {
		if v.set {
			return true
		}
	}
	return false
}

// resolve is the limits: the defaults, then the file, then each flag given.
// Its errors are bounded and quote no argument.
func (lf *limitFlags) resolve() (charge.Limits, error) {
	l := charge.DefaultLimits()
	if lf.file != "" {
		if err := readLimitsFile(lf.file, &l); err != nil {
			return l, fmt.Errorf("--limits: %w", err)
		}
	}
	for i, sp := range limitSpecs {
		v := lf.vals[i]
		if !v.set {
			continue
		}
		if v.err != nil {
			return l, fmt.Errorf("--%s: %w", sp.flag, v.err)
		}
		if err := setLimit(&l, sp, v.v); err != nil {
			return l, fmt.Errorf("--%s: %w", sp.flag, err)
		}
	}
	if err := l.Validate(); err != nil {
		return l, fmt.Errorf("the limits cannot be enforced: %w", err)
	}
	return l, nil
}

func setLimit(l *charge.Limits, sp limitSpec, v int64) error {
	if !sp.size && v > math.MaxInt32 {
		return fmt.Errorf("%s must be at most %d", sp.field, math.MaxInt32)
	}
	sp.set(l, v)
	return nil
}

// readLimitsFile applies a --limits file: one JSON object, each key a limit,
// each value a whole number or a size string ("16MiB").
func readLimitsFile(path string, l *charge.Limits) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxLimitsFileBytes+1))
	if err != nil {
		return err
	}
	if len(data) > maxLimitsFileBytes {
		return fmt.Errorf("the file is larger than %d bytes", maxLimitsFileBytes)
	}
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return errors.New("want one JSON object, e.g. {\"max_source_file_bytes\": \"16MiB\"}")
	}
	keys := make([]string, len(limitSpecs))
	for i, sp := range limitSpecs {
		keys[i] = sp.key
	}
	for k := range m {
		if !contains(keys, k) {
			return fmt.Errorf("a key of %d bytes is not a limit (the keys: %s)", len(k), strings.Join(keys, ", "))
		}
	}
	for _, sp := range limitSpecs {
		raw, ok := m[sp.key]
		if !ok {
			continue
		}
		v, err := limitValue(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", sp.key, err)
		}
		if err := setLimit(l, sp, v); err != nil {
			return fmt.Errorf("%s: %w", sp.key, err)
		}
	}
	return nil
}

// limitValue is a JSON whole number or a size string.
func limitValue(raw json.RawMessage) (int64, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return parseSize(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return parseSize(n.String())
	}
	return 0, errSize
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// limitsError reports limits that cannot be used in one bounded line (no
// argument quoted) and returns exitUsage.
func (c *command) limitsError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "boundlab %s: %v\n(run `boundlab %s -h` for the limits flags)\n", c.Name(), err, c.Name())
	return exitUsage
}

// limitsLine is the limits in one line, each as its flag would take it.
func limitsLine(l charge.Limits) string {
	var parts []string
	for _, sp := range limitSpecs {
		v := fmt.Sprint(sp.get(l))
		if sp.size {
			v = formatSize(sp.get(l))
		}
		parts = append(parts, "--"+sp.flag+" "+v)
	}
	return strings.Join(parts, " ")
}
