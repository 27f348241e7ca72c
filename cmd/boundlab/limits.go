package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/theurian/boundlab/charge"
)

// limitsAbout is the help paragraph of every verb that takes the limits.
const limitsAbout = `LIMITS are the seven flags below (--max-source-file-bytes, --envelope, --budget, --max-nodes, --max-nesting, --max-number-bytes, --max-number-exponent) and --limits FILE; each has one meaning in every verb. Sizes take bytes or KiB, MiB, GiB (16MiB). Unset ones are charge.DefaultLimits, the seed's.`

// limitSpec is one limit as a flag: its charge limits-file member (key), the
// charge.Limits field it sets, and its help. The format, the ranges and the
// parsing are package charge's (charge.ParseLimits, Limits.SetMember); this
// is only how the verbs spell them as flags.
type limitSpec struct {
	flag, key, field, about string
	size                    bool // printed as a size (8MiB) in help
}

var limitSpecs = []limitSpec{
	{"max-source-file-bytes", "max_source_file_bytes", "MaxSourceFileBytes", "the largest file a call may land, in UTF-8 bytes; the body cap derives from it", true},
	{"envelope", "envelope", "EnvelopeAllowance", "what the body cap adds for the envelope and sibling arguments, bytes", true},
	{"budget", "budget", "MaxParamsRenderedChars", "the render budget the charge holds a document to, in the dialect's unit", true},
	{"max-nodes", "max_nodes", "MaxParamsNodes", "containers + member names + values", false},
	{"max-nesting", "max_nesting", "MaxParamsNesting", "how deep containers nest (the root is depth 1)", false},
	{"max-number-bytes", "max_number_bytes", "MaxNumberBytes", "one number token's length in bytes", false},
	{"max-number-exponent", "max_number_exponent", "MaxNumberExponent", "the magnitude of a number's written exponent", false},
}

// get is the spec's limit in l.
func (sp limitSpec) get(l charge.Limits) int64 {
	v, _ := l.Member(sp.key)
	return v
}

var sizeUnits = []struct {
	suffix string
	scale  int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

// formatSize writes v as the largest binary unit that divides it, a text
// charge.ParseSize reads back.
func formatSize(v int64) string {
	for _, u := range sizeUnits {
		if v != 0 && v%u.scale == 0 {
			return fmt.Sprintf("%d%s", v/u.scale, u.suffix)
		}
	}
	return fmt.Sprint(v)
}

// sizeFlag is a flag.Value for a size (charge.ParseSize's syntax). Set never
// fails: flag would quote the argument in its message, so the error is kept
// and reported by the verb, bounded and without the argument.
type sizeFlag struct {
	text string
	v    int64
	set  bool
	err  error
}

func (s *sizeFlag) String() string { return "" }

func (s *sizeFlag) Set(text string) error {
	s.set, s.text = true, text
	s.v, s.err = charge.ParseSize(text)
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

// resolve is the limits: the file (charge.ParseLimits: the defaults with the
// file's members), or the defaults, then each flag given. Its errors are
// bounded and quote no argument.
func (lf *limitFlags) resolve() (charge.Limits, error) {
	l := charge.DefaultLimits()
	if lf.file != "" {
		data, err := readBounded(lf.file, charge.MaxLimitsFileBytes)
		if err == nil {
			l, err = charge.ParseLimits(data)
		}
		if err != nil {
			return l, fmt.Errorf("--limits: %w", err)
		}
	}
	for i, sp := range limitSpecs {
		if v := lf.vals[i]; v.set {
			if err := l.SetMember(sp.key, v.text); err != nil {
				return l, fmt.Errorf("--%s: %w", sp.flag, err)
			}
		}
	}
	if err := l.Validate(); err != nil {
		return l, fmt.Errorf("the limits cannot be enforced: %w", err)
	}
	return l, nil
}

// readBounded reads at most limit bytes of path; a longer file is refused
// after limit+1 bytes, whatever its size.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("the file is larger than %d bytes", limit)
	}
	return data, nil
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
