package sweeps

import (
	"fmt"
	"math/big"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/results"
)

// SDKDefaultBodyBytes is the body cap both SDKs apply when a server sets
// none: the Python SDK's DEFAULT_MAX_REQUEST_BODY_SIZE (the seed's "SDK
// default") and the go-sdk's DefaultMaxRequestBodyBytes, 4 MiB. A test holds
// it equal to the go-sdk's constant.
const SDKDefaultBodyBytes = 4 << 20

// InterimMultiplier is the multiplier of the interim cap the seed's first
// draft shipped and Amendment 1 withdrew.
const InterimMultiplier = 2

var (
	sweepOnce sync.Once
	sweepRes  *Sweep
)

// Shared is the sweep every producer reads, run once per process.
func Shared() *Sweep {
	sweepOnce.Do(func() { sweepRes = Run() })
	return sweepRes
}

func init() {
	for _, p := range Producers(charge.DefaultLimits()) {
		results.Register(p)
	}
}

// Producers are this package's record producers at the given limits; init
// registers them at charge.DefaultLimits, and a test can hand verify the same
// producers at perturbed limits.
func Producers(l charge.Limits) []results.Producer {
	return []results.Producer{
		{Name: "sweep", Records: func() ([]results.Record, error) { return withSeedValues(SweepRecords()) }},
		{Name: "bodycap", Records: func() ([]results.Record, error) {
			recs, err := withSeedValues(BodyCapRecords(l))
			return append(recs, seedWireRecords(l)...), err
		}},
		{Name: "worstrender", Records: func() ([]results.Record, error) {
			recs, err := withSeedValues(WorstRenderRecords(l))
			return append(recs, seedFloatRecords(l)...), err
		}},
		{Name: "retired", Records: func() ([]results.Record, error) { return withSeedValues(RetiredRecords(l)) }},
	}
}

// seedValues are the figures the seed printed for the records that answer
// them, as it printed them (results.Record.SeedValue), with the figure's
// number in the seed's list (results.SeedFigures); results.Classify
// compares each with the live value. The figures of the seed's withdrawn
// claims are retired records instead (RetiredRecords), numbered by
// retiredFigures.
var seedValues = map[string]struct {
	value  string
	figure int
}{
	"bodycap.python-clients.multiplier":                                        {"3", 2},
	"bodycap.python-clients.cap":                                               {"26,214,400", 1},
	"bodycap.python-clients.residual":                                          {"28", 3},
	"sweep.scalar-values":                                                      {"1,112,064", 12},
	"worstrender.python-raw-codepoint-shipped.class":                           {"75,497,472", 16},
	"worstrender.python-raw-codepoint-shipped.class-ratio":                     {"6.00", 17},
	"worstrender.python-raw-codepoint-sdk4mib.class-ratio":                     {"1.33", 14},
	"worstrender.python-raw-codepoint-interim.class-ratio":                     {"4.25", 25},
	"worstrender.python-raw-codepoint-interim.class-charge":                    {"8.9 M", 23},
	"worstrender.python-raw-codepoint-shipped.class-del.ratio":                 {"4.00", 20},
	"worstrender.python-raw-codepoint-shipped.class-astral-nonprintable.ratio": {"5.21", 22},
	"worstrender.python-raw-codepoint-shipped.class-u0600.admitted":            {"12,582,912", 15},
	"worstrender.python-raw-codepoint-shipped.class-u0600.wire":                {"25,165,824", 15},
	"worstrender.python-raw-codepoint-shipped.class-u0600.cap-spare":           {"1 MiB", 15},
	"worstrender.python-raw-codepoint.shipped-over-sdk4mib":                    {"4.50", 18},
	"worstrender.python-raw-codepoint.interim-over-sdk4mib":                    {"3.2", 26},
	"worstrender.document.python.ceiling":                                      {"12,982,912", 28},
	"worstrender.document.python.ceiling-over-budget":                          {"1.032", 29},
	"worstrender.document.python.per-node-max":                                 {"4", 27},
}

// retiredFigures numbers each retired claim by the figure of the seed's list
// it withdraws.
var retiredFigures = map[string]int{
	"retired.seed.memory-ascii-row-as-bound":             57,
	"retired.seed.every-leaf-charged":                    31,
	"retired.seed.interim-reach-filed-under-shipped-cap": 24,
	"retired.seed.two-term-memory-model":                 58,
	"retired.seed.chunk-transient-320kb":                 56,
	"retired.seed.sdk4mib-reach":                         13,
	"retired.seed.astral-count":                          21,
	"retired.seed.worst-over-every-escape-class":         19,
}

// withSeedValues sets each record's SeedValue and SeedFigure from
// seedValues and retiredFigures.
func withSeedValues(recs []results.Record, err error) ([]results.Record, error) {
	for i := range recs {
		sv := seedValues[recs[i].ID]
		recs[i].SeedValue, recs[i].SeedFigure = sv.value, sv.figure
		if n, ok := retiredFigures[recs[i].ID]; ok {
			recs[i].SeedFigure = n
		}
	}
	return recs, err
}

func derived(id, title string, value float64, unit, instance, source, seed string) results.Record {
	return results.Record{ID: id, Title: title, Value: value, Unit: unit, Instance: instance,
		Method: results.Derived, Source: source, Seed: seed, Build: results.CurrentBuild()}
}

// withDeps states what each record depends on (results.Record.DependsOn).
func withDeps(deps []string, recs ...results.Record) []results.Record {
	for i := range recs {
		recs[i].DependsOn = append([]string(nil), deps...)
	}
	return recs
}

func ratF(r *big.Rat) float64 { f, _ := r.Float64(); return f }

// SweepRecords states what the proof covered.
func SweepRecords() ([]results.Record, error) {
	s := Shared()
	if err := s.Err(); err != nil {
		return nil, err
	}
	recs := []results.Record{
		derived("sweep.scalar-values", "Unicode scalar values on which charge's class model equals every oracle",
			float64(s.CodePoints), "code points", "every scalar value U+0000..U+10FFFF but the surrogates U+D800..U+DFFF",
			"sweeps.Run: charge.WireClasses and Encoder.RuneWireBytes vs encoding/json and a port of CPython 3.13 json.dumps (ensure_ascii, raw); Dialect.RuneClass/RuneWidth vs charge/reference", ""),
		derived("sweep.surrogates-excluded", "code points the sweep leaves out: the surrogates, which no encoder puts on the wire",
			float64(utf8.MaxRune+1-s.CodePoints), "code points", "U+D800..U+DFFF", "utf8.MaxRune + 1 - sweep.scalar-values", ""),
		derived("sweep.code-points-exhaustive", "code points charge's per-code-point widths and classes are checked over, surrogates included",
			float64(utf8.MaxRune+1), "code points", "U+0000..U+10FFFF", "the every-code-point tests of charge (widths from RuneWidth, classes against charge/reference) run over utf8.MaxRune + 1", ""),
	}
	var pyPrint, goPrint, pyOnly, goOnly int
	for r := rune(0); r <= utf8.MaxRune; r++ {
		py, g := charge.PythonIsPrint(r), strconv.IsPrint(r)
		pyPrint += b2i(py)
		goPrint += b2i(g)
		pyOnly += b2i(py && !g)
		goOnly += b2i(g && !py)
	}
	// The python dialect's printability is charge's Unicode 15.1.0 table on
	// every toolchain; the go dialect's is the toolchain's, so the figures
	// that read strconv.IsPrint hold for the Unicode their build names.
	goDeps := results.DialectDeps(charge.Go)
	recs = append(recs,
		derived("sweep.python.printable", "code points CPython 3.13's str.isprintable() calls printable (Unicode "+charge.PythonUnicodeVersion+")",
			float64(pyPrint), "code points", "every code point U+0000..U+10FFFF",
			"charge.PythonIsPrint over every code point (the table generated from "+charge.PythonUnicodeSource+")", ""))
	recs = append(recs, withDeps(goDeps,
		derived("sweep.go.printable", "code points Go's strconv.IsPrint calls printable (the toolchain's Unicode "+unicode.Version+")",
			float64(goPrint), "code points", "every code point U+0000..U+10FFFF",
			"strconv.IsPrint over every code point: the go dialect's printability", ""),
		derived("sweep.python.printable-not-in-go", "code points the python dialect prints raw that Go's strconv.IsPrint (Unicode "+unicode.Version+") escapes",
			float64(pyOnly), "code points", "every code point U+0000..U+10FFFF",
			"charge.PythonIsPrint && !strconv.IsPrint over every code point: what Unicode "+charge.PythonUnicodeVersion+" assigned that the toolchain's tables do not (on Unicode 15.0.0, the 627 that 15.1.0 added)", ""),
		derived("sweep.go.printable-not-in-python", "code points Go's strconv.IsPrint (Unicode "+unicode.Version+") prints raw that the python dialect escapes",
			float64(goOnly), "code points", "every code point U+0000..U+10FFFF",
			"strconv.IsPrint && !charge.PythonIsPrint over every code point: what the toolchain's Unicode assigned after "+charge.PythonUnicodeVersion+" (none on Unicode 15.0.0)", ""),
	)...)
	for _, d := range charge.Dialects() {
		rows, err := s.Table(d)
		if err != nil {
			return nil, err
		}
		recs = append(recs, withDeps(results.DialectDeps(d), derived("sweep."+d.String()+".classes", "rows in the "+d.String()+" class table (wire class x render class x width)",
			float64(len(rows)), "classes", "every scalar value, grouped by the oracles' observations", "sweeps.Sweep.Table("+d.String()+")", ""))...)
	}
	return recs, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

type encoderSet struct {
	id, name string
	encs     []charge.Encoder
}

var encoderSets = []encoderSet{
	{"python-clients", "ensure_ascii and raw (Python json.dumps both ways, the official Python and JS clients)", []charge.Encoder{charge.EnsureASCII, charge.Raw}},
	{"go-clients", "go (Go's encoding/json)", []charge.Encoder{charge.GoJSON}},
	{"all-clients", "ensure_ascii, raw and go", []charge.Encoder{charge.EnsureASCII, charge.Raw, charge.GoJSON}},
}

// BodyCapRecords derives the body cap for each encoder set, and answers what
// the seed's cap leaves for Go clients.
func BodyCapRecords(l charge.Limits) ([]results.Record, error) {
	s := Shared()
	if err := s.Err(); err != nil {
		return nil, err
	}
	var recs []results.Record
	checks := map[string]BodyCapCheck{}
	for _, set := range encoderSets {
		c, err := s.CheckBodyCap(l, set.encs...)
		if err != nil {
			return nil, err
		}
		checks[set.id] = c
		src := fmt.Sprintf("charge.BodyCap(limits, %v) with MaxSourceFileBytes %d, EnvelopeAllowance %d; held equal to sweeps.Sweep.Multiplier over the oracles",
			set.encs, l.MaxSourceFileBytes, l.EnvelopeAllowance)
		var seedM, seedCap, seedRes string
		if set.id == "python-clients" {
			seedM, seedCap, seedRes = "3", "26,214,400 bytes", "C0 other than \\b \\t \\n \\f \\r, plus DEL, all at 6.0x"
		}
		recs = append(recs,
			derived("bodycap."+set.id+".multiplier", "body-cap multiplier for clients using "+set.name,
				ratF(c.Derivation.Multiplier), "x landed bytes", "worst non-control class: "+c.WorstText(), src, seedM),
			derived("bodycap."+set.id+".cap", "body cap for clients using "+set.name,
				float64(c.Derivation.Cap), "bytes", "an at-cap landed file in the worst non-control class, plus the envelope allowance", src, seedCap),
			derived("bodycap."+set.id+".residual", "code points above the multiplier for clients using "+set.name,
				float64(len(c.Oracle.Residual)), "code points", c.ResidualText(), src+"; residual held by equality, code point by code point", seedRes),
		)
	}

	// Go clients at the cap sized for Python clients.
	py := checks["python-clients"].Derivation
	classes, n := ResidualAt(py.Multiplier, charge.GoJSON)
	resid := BodyCapCheck{Derivation: charge.BodyCapDerivation{Residual: classes}}
	recs = append(recs, derived("bodycap.go-clients-at-python-cap.residual",
		"code points a Go client expands past the python-clients multiplier",
		float64(n), "code points", resid.ResidualText(),
		"sweeps.ResidualAt(bodycap.python-clients.multiplier, go) over charge.WireClasses", ""))
	six := wireClasses[classIndex("< > &")].Ratio(charge.GoJSON)
	worstFiller := new(big.Rat)
	for _, c := range wireClasses {
		if r := c.Ratio(charge.GoJSON); !c.Control && r.Cmp(py.Multiplier) <= 0 && r.Cmp(worstFiller) > 0 {
			worstFiller = r
		}
	}
	recs = append(recs,
		derived("bodycap.go-clients-at-python-cap.html-density",
			"largest share of a landed file's bytes that may be < > & for a Go client's at-cap file to fit the python-clients cap, the rest the worst other class",
			ratF(DensityAtCap(py.Multiplier, six, worstFiller)), "fraction of landed bytes",
			fmt.Sprintf("an at-cap (%d-byte) file of < > & (%sx under go) and filler at %sx (the worst go class at or below the multiplier)",
				l.MaxSourceFileBytes, six.FloatString(1), worstFiller.FloatString(1)),
			"sweeps.DensityAtCap(multiplier, ratio(< > &), filler): r*x + f*(1-x) <= m", ""),
		derived("bodycap.go-clients-at-python-cap.html-density-ascii",
			"largest share of a landed ASCII file's bytes that may be < > & for a Go client's at-cap file to fit the python-clients cap",
			ratF(DensityAtCap(py.Multiplier, six, big.NewRat(1, 1))), "fraction of landed bytes",
			fmt.Sprintf("an at-cap (%d-byte) ASCII file of < > & (%sx under go) and other printable ASCII (1.0x)", l.MaxSourceFileBytes, six.FloatString(1)),
			"sweeps.DensityAtCap(multiplier, ratio(< > &), 1)", ""),
	)
	html, err := HTMLSamples()
	if err != nil {
		return nil, err
	}
	recs = append(recs, html...)
	return recs, nil
}

func classIndex(name string) int {
	for i, c := range wireClasses {
		if c.Name == name {
			return i
		}
	}
	panic("sweeps: no wire class " + name)
}
