// Package fuzzseed exports a native Go fuzz target's seed corpus — its F.Add
// seeds and its testdata/fuzz/<Target>/ files — as the raw inputs a libFuzzer
// binary built by go-118-fuzz-build (OSS-Fuzz's and ClusterFuzzLite's
// compile_native_go_fuzzer) decodes back into the same argument values.
//
// It is a stand-in for package testing in one build only: scripts/fuzzseeds
// compiles a target's file, its "testing" import pointed here, as package
// code beside the package's non-test files (the way go-118-fuzz-build
// compiles it), calls the target with an *F that records what it adds, and
// writes <Target>_seed_corpus.zip. The seeds are therefore computed by the
// target's own code, loops and helpers included: nothing is listed twice.
// F and T have the method sets of go-118-fuzz-build's stand-ins, and the
// package has no TB, so a target's file compiles here when it compiles there
// (for what a target's file uses of package testing: F, T, Short, Verbose,
// AllocsPerRun): the export doubles as a check, without clang, of what
// OSS-Fuzz's builder needs of a target.
//
// The encoding is go-118-fuzz-build's testing.F.Fuzz at the version this
// module's scripts pin (v0.0.0-20250520111509-a70c2aa677fa), which reads each
// argument from the input with github.com/AdaLogics/go-fuzz-headers'
// ConsumeFuzzer (v0.0.0-20230811130428-ced1acdcaa24) in order: a []byte as a
// big-endian uint32 length and then the bytes; a string the same way; a bool
// as one byte (even: true); uint8 and int8 as one byte; 16- and 64-bit
// integers as their bytes and a byte naming the order (even: little-endian);
// 32-bit integers (a rune among them) as four big-endian bytes. Floats and
// other types are not encoded: WriteZip leaves such a seed out and says why.
//
// Where it ends: the zip holds inputs for that builder only (go test -fuzz
// reads testdata/fuzz/ itself; Go's own corpus encoding is another). A seed
// the decoder cannot express is left out and counted, never approximated.
package fuzzseed

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// T stands for go-118-fuzz-build's testing.T, with its method set: this
// build compiles a fuzz function but never calls it, so each method panics.
// Like that package, this one has no TB or B: a target's file that needs
// them does not compile here, as it does not compile there.
type T struct{}

func (*T) Cleanup(func())              { panic(never) }
func (*T) Deadline() (time.Time, bool) { panic(never) }
func (*T) Error(...any)                { panic(never) }
func (*T) Errorf(string, ...any)       { panic(never) }
func (*T) Fail()                       { panic(never) }
func (*T) FailNow()                    { panic(never) }
func (*T) Failed() bool                { panic(never) }
func (*T) Fatal(...any)                { panic(never) }
func (*T) Fatalf(string, ...any)       { panic(never) }
func (*T) Helper()                     { panic(never) }
func (*T) Log(...any)                  { panic(never) }
func (*T) Logf(string, ...any)         { panic(never) }
func (*T) Name() string                { panic(never) }
func (*T) Parallel()                   { panic(never) }
func (*T) Run(string, func(*T)) bool   { panic(never) }
func (*T) Setenv(string, string)       { panic(never) }
func (*T) Skip(...any)                 { panic(never) }
func (*T) SkipNow()                    { panic(never) }
func (*T) Skipf(string, ...any)        { panic(never) }
func (*T) Skipped() bool               { panic(never) }
func (*T) TempDir() string             { panic(never) }

const never = "fuzzseed: a fuzz function ran during a seed export"

// Short is false, as in go-118-fuzz-build's package.
func Short() bool { return false }

// Verbose and AllocsPerRun exist there too (and panic there).
func Verbose() bool                    { panic(never) }
func AllocsPerRun(int, func()) float64 { panic(never) }

// F records what a fuzz target adds and the argument types of the function it
// fuzzes. It has the method set of go-118-fuzz-build's testing.F; a failure
// or a skip in the target's setup ends the export with the target's message.
type F struct {
	name     string
	seeds    [][]any
	types    []reflect.Type
	fuzzed   bool
	cleanups []func()
}

type stop struct{ msg string }

// Add records one seed, as testing.F.Add does.
func (f *F) Add(args ...any) { f.seeds = append(f.seeds, args) }

// Fuzz records ff's argument types after its *T; it never calls ff.
func (f *F) Fuzz(ff any) {
	t := reflect.TypeOf(ff)
	if t == nil || t.Kind() != reflect.Func || t.NumIn() < 1 || t.In(0) != reflect.TypeOf((*T)(nil)) || t.NumOut() != 0 {
		panic(stop{fmt.Sprintf("%s: F.Fuzz takes a func(*testing.T, ...), not %v", f.name, t)})
	}
	for i := 1; i < t.NumIn(); i++ {
		f.types = append(f.types, t.In(i))
	}
	f.fuzzed = true
}

func (f *F) Helper()                         {}
func (f *F) Name() string                    { return f.name }
func (f *F) Failed() bool                    { return false }
func (f *F) Skipped() bool                   { return false }
func (f *F) Log(args ...any)                 {}
func (f *F) Logf(format string, args ...any) {}
func (f *F) Cleanup(fn func())               { f.cleanups = append(f.cleanups, fn) }
func (f *F) Fatal(args ...any)               { panic(stop{f.name + ": " + fmt.Sprint(args...)}) }
func (f *F) Fatalf(format string, args ...any) {
	panic(stop{f.name + ": " + fmt.Sprintf(format, args...)})
}
func (f *F) Error(args ...any)                 { f.Fatal(args...) }
func (f *F) Errorf(format string, args ...any) { f.Fatalf(format, args...) }
func (f *F) Fail()                             { f.Fatal("F.Fail") }
func (f *F) FailNow()                          { f.Fatal("F.FailNow") }
func (f *F) Skip(args ...any)                  { panic(stop{f.name + " skipped itself: " + fmt.Sprint(args...)}) }
func (f *F) Skipf(format string, args ...any)  { f.Skip(fmt.Sprintf(format, args...)) }
func (f *F) SkipNow()                          { f.Skip() }

// TempDir is a new directory removed when the export ends.
func (f *F) TempDir() string {
	d, err := os.MkdirTemp("", "fuzzseed-")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// Setenv sets key for the rest of the export.
func (f *F) Setenv(key, value string) {
	old, had := os.LookupEnv(key)
	os.Setenv(key, value)
	f.Cleanup(func() {
		if had {
			os.Setenv(key, old)
		} else {
			os.Unsetenv(key)
		}
	})
}

// Corpus is a target's seed corpus: its argument types, and each seed's
// values, named (seed#N for F.Add's, in order; the file name for
// testdata/fuzz/<Target>/ files).
type Corpus struct {
	Target string
	Types  []reflect.Type
	Added  int // the first Added seeds are F.Add's
	Names  []string
	Values [][]any
}

// Collect runs target's setup with a recording F and reads dir (the target's
// testdata/fuzz/<Target>/, absent or empty allowed).
func Collect(name string, target func(*F), dir string) (c Corpus, err error) {
	f := &F{name: name}
	defer func() {
		for i := len(f.cleanups) - 1; i >= 0; i-- {
			f.cleanups[i]()
		}
		if r := recover(); r != nil {
			s, ok := r.(stop)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("%s", s.msg)
		}
	}()
	target(f)
	if !f.fuzzed {
		return c, fmt.Errorf("%s never called F.Fuzz", name)
	}
	c = Corpus{Target: name, Types: f.types, Added: len(f.seeds)}
	for i, s := range f.seeds {
		if err := conforms(s, f.types); err != nil {
			return c, fmt.Errorf("%s: seed#%d: %v", name, i, err)
		}
		c.Names = append(c.Names, fmt.Sprintf("seed#%d", i))
		c.Values = append(c.Values, s)
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return c, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return c, err
		}
		vals, err := ParseCorpusFile(raw)
		if err != nil {
			return c, fmt.Errorf("%s: %s: %v", name, e.Name(), err)
		}
		if err := conforms(vals, f.types); err != nil {
			return c, fmt.Errorf("%s: %s: %v", name, e.Name(), err)
		}
		c.Names = append(c.Names, e.Name())
		c.Values = append(c.Values, vals)
	}
	return c, nil
}

func conforms(vals []any, types []reflect.Type) error {
	if len(vals) != len(types) {
		return fmt.Errorf("%d values for %d arguments", len(vals), len(types))
	}
	for i, v := range vals {
		if reflect.TypeOf(v) != types[i] {
			return fmt.Errorf("argument %d is %T, the fuzz function takes %v", i, v, types[i])
		}
	}
	return nil
}

// Encode writes vals as one input go-118-fuzz-build's F.Fuzz decodes back to
// vals (see the package doc), or says why it cannot.
func Encode(vals []any) ([]byte, error) {
	// Built back to front: a []byte's length field depends on how many bytes
	// follow it.
	var out []byte
	for i := len(vals) - 1; i >= 0; i-- {
		var b []byte
		switch v := vals[i].(type) {
		case []byte:
			b = encodeBytes(v, len(out))
			if len(v) == 0 && len(out) == 0 {
				out = []byte{0} // a byte for the length to be taken modulo
			}
		case string:
			b = binary.BigEndian.AppendUint32(nil, uint32(len(v)))
			b = append(b, v...)
			if len(v) == 0 && len(out) == 0 {
				out = []byte{0} // the consumer wants a byte left after the length
			}
		case bool:
			b = []byte{1} // odd: false
			if v {
				b[0] = 0
			}
		case uint8:
			b = []byte{v}
		case int8:
			b = []byte{byte(v)}
		case uint16:
			b = append(binary.BigEndian.AppendUint16(nil, v), 1)
		case int16:
			b = append(binary.BigEndian.AppendUint16(nil, uint16(v)), 1)
		case uint32:
			b = binary.BigEndian.AppendUint32(nil, v)
		case int32:
			b = binary.BigEndian.AppendUint32(nil, uint32(v))
		case uint64:
			b = append(binary.BigEndian.AppendUint64(nil, v), 1)
		case int64:
			b = append(binary.BigEndian.AppendUint64(nil, uint64(v)), 1)
		case uint:
			b = append(binary.BigEndian.AppendUint64(nil, uint64(v)), 1)
		case int:
			b = append(binary.BigEndian.AppendUint64(nil, uint64(v)), 1)
		default:
			return nil, fmt.Errorf("argument %d: %T has no encoding here", i, v)
		}
		out = append(b, out...)
	}
	return out, nil
}

// encodeBytes is v's length field and bytes when rest bytes follow. The
// consumer reads a length L (0 means 30) and, unless L equals the bytes left,
// takes L modulo the bytes left: len(v) < left whenever something follows,
// and equals it when nothing does. An empty v needs L a non-zero multiple of
// the bytes left: twice rest, or 2 over the one byte Encode appends.
func encodeBytes(v []byte, rest int) []byte {
	l := uint32(len(v))
	if len(v) == 0 {
		l = 2 * uint32(max(rest, 1))
	}
	return append(binary.BigEndian.AppendUint32(nil, l), v...)
}

// WriteZip writes c's encodable seeds to w as a zip of one file per seed,
// named by the seed; it returns how many it wrote and the seeds it left out,
// with why.
func WriteZip(w io.Writer, c Corpus) (n int, skipped []string, err error) {
	z := zip.NewWriter(w)
	for i, vals := range c.Values {
		in, err := Encode(vals)
		if err != nil {
			skipped = append(skipped, c.Names[i]+": "+err.Error())
			continue
		}
		fw, err := z.CreateHeader(&zip.FileHeader{Name: entryName(c.Names[i]), Method: zip.Deflate})
		if err != nil {
			return n, skipped, err
		}
		if _, err := fw.Write(in); err != nil {
			return n, skipped, err
		}
		n++
	}
	return n, skipped, z.Close()
}

// Main is a generated exporter's main: it collects name's corpus from target
// and testdata/fuzz/<name>/ under the package directory dir, writes
// out/<name>_seed_corpus.zip (and, with dirs, the same inputs as files in
// out/<name>_seed_corpus/), prints a line of counts, and exits non-zero on
// any error.
func Main(name string, target func(*F), dir, out string, dirs bool) {
	if err := export(name, target, dir, out, dirs); err != nil {
		fmt.Fprintln(os.Stderr, "fuzzseed:", err)
		os.Exit(1)
	}
}

func export(name string, target func(*F), dir, out string, dirs bool) error {
	c, err := Collect(name, target, filepath.Join(dir, "testdata", "fuzz", name))
	if err != nil {
		return err
	}
	path := filepath.Join(out, name+"_seed_corpus.zip")
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	n, skipped, err := WriteZip(file, c)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if dirs {
		if err := writeDir(filepath.Join(out, name+"_seed_corpus"), c); err != nil {
			return err
		}
	}
	fmt.Printf("%s: %d seeds written of %d from F.Add and %d from testdata/fuzz/%s, %d left out\n",
		path, n, c.Added, len(c.Names)-c.Added, name, len(skipped))
	for _, s := range skipped {
		fmt.Printf("  left out %s\n", s)
	}
	return nil
}

// writeDir writes c's encodable seeds as files in dir, named as in the zip.
func writeDir(dir string, c Corpus) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, vals := range c.Values {
		in, err := Encode(vals)
		if err != nil {
			continue // WriteZip has counted it
		}
		if err := os.WriteFile(filepath.Join(dir, entryName(c.Names[i])), in, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// entryName is a seed's file name: seed#3 becomes seed-3.
func entryName(seed string) string { return strings.NewReplacer("#", "-", "/", "_").Replace(seed) }

// ParseCorpusFile reads a file in the encoding go test -fuzz writes to
// testdata/fuzz/<Target>/ ("go test fuzz v1", then one Go conversion
// expression per argument) for the argument types Encode knows; a float or
// anything else is an error naming the line.
func ParseCorpusFile(raw []byte) ([]any, error) {
	lines := strings.Split(string(raw), "\n")
	if strings.TrimSuffix(lines[0], "\r") != "go test fuzz v1" {
		return nil, fmt.Errorf("not a go test fuzz v1 file")
	}
	var vals []any
	for _, line := range lines[1:] {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		v, err := parseValue(line)
		if err != nil {
			return nil, fmt.Errorf("line %.60q: %v", line, err)
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("no values")
	}
	return vals, nil
}

func parseValue(line string) (any, error) {
	e, err := parser.ParseExpr(line)
	if err != nil {
		return nil, err
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, fmt.Errorf("not a conversion of one value")
	}
	arg := call.Args[0]
	if at, ok := call.Fun.(*ast.ArrayType); ok {
		if id, ok := at.Elt.(*ast.Ident); !ok || at.Len != nil || id.Name != "byte" {
			return nil, fmt.Errorf("only []byte among composite types")
		}
		s, err := stringLit(arg)
		return []byte(s), err
	}
	id, ok := call.Fun.(*ast.Ident)
	if !ok {
		return nil, fmt.Errorf("unsupported type expression (floats are not encoded)")
	}
	switch id.Name {
	case "string":
		return stringLit(arg)
	case "bool":
		if b, ok := arg.(*ast.Ident); ok && (b.Name == "true" || b.Name == "false") {
			return b.Name == "true", nil
		}
		return nil, fmt.Errorf("bool takes true or false")
	}
	bits := map[string]int{"byte": 8, "uint8": 8, "int8": 8, "uint16": 16, "int16": 16, "uint32": 32,
		"int32": 32, "uint64": 64, "int64": 64, "uint": 64, "int": 64}[id.Name]
	if bits == 0 {
		return nil, fmt.Errorf("type %s is not encoded", id.Name)
	}
	neg := false
	if u, ok := arg.(*ast.UnaryExpr); ok && u.Op == token.SUB {
		neg, arg = true, u.X
	}
	lit, ok := arg.(*ast.BasicLit)
	if !ok {
		return nil, fmt.Errorf("%s takes a literal", id.Name)
	}
	var mag uint64
	switch lit.Kind {
	case token.INT:
		if mag, err = strconv.ParseUint(lit.Value, 0, 64); err != nil {
			return nil, err
		}
	case token.CHAR:
		r, _, tail, err := strconv.UnquoteChar(lit.Value[1:len(lit.Value)-1], '\'')
		if err != nil || tail != "" {
			return nil, fmt.Errorf("bad character literal %s", lit.Value)
		}
		mag = uint64(r)
	default:
		return nil, fmt.Errorf("%s takes an integer or character literal", id.Name)
	}
	signed := strings.HasPrefix(id.Name, "int")
	if neg && !signed {
		return nil, fmt.Errorf("%s cannot be negative", id.Name)
	}
	if signed {
		limit := uint64(1) << (bits - 1)
		if (!neg && mag >= limit) || (neg && mag > limit) {
			return nil, fmt.Errorf("%s out of range", id.Name)
		}
		n := int64(mag)
		if neg {
			n = -n
		}
		switch id.Name {
		case "int8":
			return int8(n), nil
		case "int16":
			return int16(n), nil
		case "int32":
			return int32(n), nil
		case "int64":
			return n, nil
		}
		return int(n), nil
	}
	if bits < 64 && mag >= uint64(1)<<bits {
		return nil, fmt.Errorf("%s out of range", id.Name)
	}
	switch id.Name {
	case "byte", "uint8":
		return uint8(mag), nil
	case "uint16":
		return uint16(mag), nil
	case "uint32":
		return uint32(mag), nil
	case "uint64":
		return mag, nil
	}
	return uint(mag), nil
}

func stringLit(e ast.Expr) (string, error) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", fmt.Errorf("a string literal is needed")
	}
	return strconv.Unquote(lit.Value)
}
