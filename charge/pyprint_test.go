package charge

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

const pythonTablesFile = "tables_python15.1.0.go"

// TestPythonTablesUpToDate regenerates tables_python15.1.0.go from the npm
// package and compares it with the committed file byte for byte.
func TestPythonTablesUpToDate(t *testing.T) {
	pkg := os.Getenv("BOUNDLAB_UNICODE_PKG")
	if pkg == "" {
		t.Skip("skipping regeneration check of " + pythonTablesFile + ": BOUNDLAB_UNICODE_PKG is not set; " +
			"to run it, set BOUNDLAB_UNICODE_PKG to an extracted @unicode/unicode-15.1.0@2.0.7 package directory " +
			"or to the tarball from `npm pack @unicode/unicode-15.1.0@2.0.7`")
	}
	if _, err := os.Stat(pkg); err != nil {
		t.Fatalf("BOUNDLAB_UNICODE_PKG: %v", err)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("skipping regeneration check of %s: no go command on PATH to run ./internal/gen/pyprint (%v)", pythonTablesFile, err)
	}
	cmd := exec.Command(goTool, "run", "./internal/gen/pyprint", "-pkg", pkg, "-o", "-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run ./internal/gen/pyprint -pkg %s: %v\n%s", pkg, err, stderr.Bytes())
	}
	want, err := os.ReadFile(pythonTablesFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s is stale (run go generate): first difference at line %d:\ngenerated: %q\ncommitted: %q", pythonTablesFile, i+1, g, w)
			}
		}
		t.Fatalf("%s is stale (run go generate)", pythonTablesFile)
	}
}

// TestPythonTablesWellFormed checks the shape the binary search relies on.
func TestPythonTablesWellFormed(t *testing.T) {
	check := func(name string, t32 []uint32, min, max uint32) int {
		if len(t32)%2 != 0 {
			t.Fatalf("%s has odd length %d", name, len(t32))
		}
		n := 0
		for i := 0; i < len(t32); i += 2 {
			lo, hi := t32[i], t32[i+1]
			if lo > hi || lo < min || hi > max {
				t.Errorf("%s[%d]: bad range %#x..%#x", name, i, lo, hi)
			}
			// Sorted, disjoint and not adjacent (ranges are maximal).
			if i > 0 && lo <= t32[i-1]+1 {
				t.Errorf("%s[%d]: range %#x..%#x not after %#x with a gap", name, i, lo, hi, t32[i-1])
			}
			n += int(hi-lo) + 1
		}
		return n
	}
	p16 := make([]uint32, len(pythonPrint16))
	for i, v := range pythonPrint16 {
		p16[i] = uint32(v)
	}
	n := check("pythonPrint16", p16, 0, 0xFFFF) + check("pythonPrint32", pythonPrint32, 0x10000, 0x10FFFF)
	if n != pythonPrintableCount {
		t.Errorf("tables hold %d printable code points, pythonPrintableCount = %d", n, pythonPrintableCount)
	}
	if PythonUnicodeVersion != "15.1.0" {
		t.Errorf("PythonUnicodeVersion = %q, want 15.1.0 (CPython 3.13)", PythonUnicodeVersion)
	}
}

// TestPythonIsPrintOracle compares pythonIsPrint with CPython 3.13's own
// str.isprintable() over every code point, when CPython 3.13 is installed.
func TestPythonIsPrintOracle(t *testing.T) {
	py := findPython313(t)
	const script = `import sys, unicodedata
print(sys.version_info[0], sys.version_info[1], unicodedata.unidata_version)
start = None
for c in range(0x110000):
    p = chr(c).isprintable()
    if p and start is None:
        start = c
    elif not p and start is not None:
        print("%x %x" % (start, c - 1))
        start = None
if start is not None:
    print("%x %x" % (start, 0x10FFFF))
`
	cmd := exec.Command(py, "-I", "-c", script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", py, err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	if !sc.Scan() {
		t.Fatalf("%s printed nothing", py)
	}
	var major, minor int
	var unidata string
	if _, err := fmt.Sscan(sc.Text(), &major, &minor, &unidata); err != nil {
		t.Fatalf("%s: version line %q: %v", py, sc.Text(), err)
	}
	if major != 3 || minor != 13 || unidata != PythonUnicodeVersion {
		t.Fatalf("%s is Python %d.%d with Unicode %s, want Python 3.13 with Unicode %s", py, major, minor, unidata, PythonUnicodeVersion)
	}
	var want [][2]rune
	for sc.Scan() {
		var lo, hi rune
		if _, err := fmt.Sscanf(sc.Text(), "%x %x", &lo, &hi); err != nil {
			t.Fatalf("%s: line %q: %v", py, sc.Text(), err)
		}
		want = append(want, [2]rune{lo, hi})
	}
	var printable []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if pythonIsPrint(r) {
			printable = append(printable, r)
		}
	}
	got := toRanges(printable)
	n := 0
	for _, r := range want {
		n += int(r[1]-r[0]) + 1
	}
	for i := 0; i < len(got) || i < len(want); i++ {
		if i >= len(got) || i >= len(want) || got[i] != want[i] {
			var g, w string
			if i < len(got) {
				g = formatRanges(got[i : i+1])
			}
			if i < len(want) {
				w = formatRanges(want[i : i+1])
			}
			t.Fatalf("printable range #%d: pythonIsPrint %s, CPython %d.%d %s (%d vs %d ranges)", i, g, major, minor, w, len(got), len(want))
		}
	}
	t.Logf("%s (Python %d.%d, Unicode %s) agrees on all code points: %d printable in %d ranges", py, major, minor, unidata, n, len(want))
}

// findPython313 returns a CPython 3.13 interpreter or skips the test.
func findPython313(t *testing.T) string {
	t.Helper()
	if py := os.Getenv("BOUNDLAB_PYTHON"); py != "" {
		return py // the caller insists; a wrong version fails the test
	}
	var roots []string
	if out, err := exec.Command("pyenv", "root").Output(); err == nil {
		roots = append(roots, strings.TrimSpace(string(out)))
	}
	if r := os.Getenv("PYENV_ROOT"); r != "" {
		roots = append(roots, r)
	}
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".pyenv"))
	}
	for _, root := range roots {
		if root == "" {
			continue
		}
		if py := filepath.Join(root, "versions", "3.13.0", "bin", "python3"); isFile(py) {
			return py
		}
		matches, _ := filepath.Glob(filepath.Join(root, "versions", "3.13.*", "bin", "python3"))
		for _, py := range matches {
			if isFile(py) {
				return py
			}
		}
	}
	if py, err := exec.LookPath("python3.13"); err == nil {
		return py
	}
	t.Skip("skipping the CPython 3.13 isprintable() oracle: no CPython 3.13 found " +
		"(looked at $(pyenv root)/versions/3.13.*/bin/python3 and python3.13 on PATH; python3 may be another version " +
		"with other Unicode data and is not used); set BOUNDLAB_PYTHON=/path/to/python3.13 to run it")
	return ""
}

func isFile(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// toRanges turns a sorted list of code points into inclusive ranges.
func toRanges(rs []rune) [][2]rune {
	var out [][2]rune
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1][1]+1 == r {
			out[n-1][1] = r
		} else {
			out = append(out, [2]rune{r, r})
		}
	}
	return out
}

func formatRanges(rs [][2]rune) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, r := range rs {
		if i > 0 {
			b.WriteString(", ")
		}
		if r[0] == r[1] {
			fmt.Fprintf(&b, "U+%04X", r[0])
		} else {
			fmt.Fprintf(&b, "U+%04X..U+%04X", r[0], r[1])
		}
	}
	b.WriteByte('}')
	return b.String()
}

var pythonIsPrintSink bool

func BenchmarkPythonIsPrint(b *testing.B) {
	inputs := []struct {
		name  string
		runes []rune
	}{
		{"ASCII", []rune("Hello, world! {\"a\": [1, 2]}\t\n")},
		{"BMP", []rune("héllo wörld Привет мир 世界 こんにちは \u00a0\u00ad\u200b\u2028\ufeff\ufffd\u0378")},
		{"Astral", []rune("😀🎉𝔘𝔫𝔦𝔠𝔬𝔡𝔢𠀀\U0002EBF0\U000E0001\U000F0000\U0001FFFF\U00010FFF")},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			rs := in.runes
			i := 0
			for b.Loop() {
				pythonIsPrintSink = pythonIsPrint(rs[i])
				if i++; i == len(rs) {
					i = 0
				}
			}
		})
	}
}
