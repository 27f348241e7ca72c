package reference

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUCDData holds the embedded copy to the file it names and spot-checks
// categories Unicode 15.1.0 assigns, including ones a later Unicode changes
// (U+088F and U+1ACF are unassigned in 15.1.0 and assigned in 16.0 and 17.0;
// U+2EBF0 is new in 15.1.0).
func TestUCDData(t *testing.T) {
	if _, err := parseGeneralCategory(ucdGeneralCategory); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r   rune
		cat string
	}{
		{'A', "Lu"}, {' ', "Zs"}, {0x00AD, "Cf"}, {0x0378, "Cn"}, {0x088F, "Cn"}, {0x0897, "Cn"}, {0x1ACF, "Cn"},
		{0x2FFC, "So"}, {0x31EF, "So"}, {0x2EBF0, "Lo"}, {0x2EE5D, "Lo"}, {0x2EE5E, "Cn"},
		{0xD800, "Cs"}, {0xE000, "Co"}, {0x2028, "Zl"}, {0x2029, "Zp"}, {0x10FFFF, "Cn"}, {0, "Cc"},
	} {
		t.Run(fmt.Sprintf("category_U%04X", c.r), func(t *testing.T) {
			got, err := GeneralCategory(c.r)
			if err != nil || got != c.cat {
				t.Errorf("GeneralCategory(U+%04X) = %q, %v; Unicode %s says %s", c.r, got, err, UnicodeVersion, c.cat)
			}
		})
	}
	for _, r := range []rune{-1, 0x110000} {
		t.Run(fmt.Sprintf("invalid_%#x", r), func(t *testing.T) {
			if got, err := GeneralCategory(r); got != "" || err != nil || PythonPrintable(r) {
				t.Errorf("GeneralCategory(%#x) = %q, %v; want none", r, got, err)
			}
		})
	}
	for r, want := range map[rune]bool{' ': true, 'A': true, 0x00A0: false, 0x00AD: false, 0x088F: false, 0x2EBF0: true, 0xE000: false, 0x0301: true} {
		t.Run(fmt.Sprintf("printable_U%04X", r), func(t *testing.T) {
			if got := PythonPrintable(r); got != want {
				t.Errorf("PythonPrintable(U+%04X) = %v, want %v", r, got, want)
			}
		})
	}
}

// TestUCDDataRefusesDamage: a damaged copy is an error, never a table with a
// hole in it.
func TestUCDDataRefusesDamage(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"DerivedGeneralCategory":[]}`))
	zw.Close()
	if _, err := parseGeneralCategory(gz.Bytes()); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("a file other than the pinned one: %v, want a SHA-256 error", err)
	}
	if _, err := parseGeneralCategory([]byte("not gzip")); err == nil {
		t.Error("not gzip: no error")
	}
	doc := func(entries ...string) []byte {
		return []byte(`{"DerivedGeneralCategory":[` + strings.Join(entries, ",") + `]}`)
	}
	e := func(cat string, rs ...string) string {
		return fmt.Sprintf(`{"range":["%s"],"category":%q}`, strings.Join(rs, `","`), cat)
	}
	whole := []string{e("Cc", "0000", "001F"), e("Lu", "0020"), e("Cn", "0021", "10FFFF")}
	if got, err := parseCategoryRanges(doc(whole...)); err != nil || len(got) != 3 {
		t.Fatalf("a partition of 0..10FFFF: %v, %v", got, err)
	}
	for name, d := range map[string][]byte{
		"gap":        doc(e("Cc", "0000", "001F"), e("Cn", "0021", "10FFFF")),
		"overlap":    doc(e("Cc", "0000", "0020"), e("Lu", "0020"), e("Cn", "0021", "10FFFF")),
		"short":      doc(e("Cc", "0000", "001F"), e("Lu", "0020"), e("Cn", "0021", "10FFFE")),
		"past max":   doc(e("Cc", "0000", "001F"), e("Lu", "0020"), e("Cn", "0021", "110000")),
		"reversed":   doc(e("Cc", "0000", "001F"), e("Lu", "0021", "0020"), e("Cn", "0022", "10FFFF")),
		"not hex":    doc(e("Cc", "0000", "001G"), e("Lu", "0020"), e("Cn", "0021", "10FFFF")),
		"no range":   doc(e("Cc"), e("Cn", "0000", "10FFFF")),
		"bad cat":    doc(e("C", "0000", "10FFFF")),
		"three ends": doc(e("Cn", "0000", "0001", "10FFFF")),
		"not json":   []byte("{"),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := parseCategoryRanges(d); err == nil {
				t.Errorf("%s: parsed without error", name)
			}
		})
	}
}

// TestUCDDataAgainstCPython compares every code point's category with CPython
// 3.13's unicodedata.category, when CPython 3.13 is installed.
func TestUCDDataAgainstCPython(t *testing.T) {
	py := python313(t)
	const script = `import sys, unicodedata
print(sys.version_info[0], sys.version_info[1], unicodedata.unidata_version)
prev, start = None, 0
for c in range(0x110000):
    cat = unicodedata.category(chr(c))
    if cat != prev:
        if prev is not None:
            print("%x %x %s %d" % (start, c - 1, prev, all(chr(x).isprintable() for x in range(start, c))))
        prev, start = cat, c
print("%x %x %s %d" % (start, 0x10FFFF, prev, all(chr(x).isprintable() for x in range(start, 0x110000))))
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
	if _, err := fmt.Sscan(sc.Text(), &major, &minor, &unidata); err != nil || major != 3 || minor != 13 || unidata != UnicodeVersion {
		t.Fatalf("%s: %q (%v), want Python 3.13 with Unicode %s", py, sc.Text(), err, UnicodeVersion)
	}
	runs := 0
	for sc.Scan() {
		var lo, hi rune
		var cat string
		var printable int
		if _, err := fmt.Sscanf(sc.Text(), "%x %x %s %d", &lo, &hi, &cat, &printable); err != nil {
			t.Fatalf("%s: line %q: %v", py, sc.Text(), err)
		}
		runs++
		for r := lo; r <= hi; r++ {
			got, err := GeneralCategory(r)
			if err != nil || got != cat {
				t.Fatalf("U+%04X: embedded UCD %q (%v), CPython %s", r, got, err, cat)
			}
			// A run is one category, so printable or not throughout (U+0020,
			// the printable Zs, is a run of its own between Cc and Po).
			if p := PythonPrintable(r); p != (printable == 1) {
				t.Fatalf("U+%04X (%s): PythonPrintable %v, CPython isprintable over U+%04X..U+%04X %d", r, cat, p, lo, hi, printable)
			}
		}
	}
	t.Logf("%s agrees with the embedded Unicode %s categories on every code point (%d runs)", py, UnicodeVersion, runs)
}

// python313 finds a CPython 3.13 interpreter or skips.
func python313(t *testing.T) string {
	t.Helper()
	if py := os.Getenv("BOUNDLAB_PYTHON"); py != "" {
		return py
	}
	var roots []string
	if out, err := exec.Command("pyenv", "root").Output(); err == nil {
		roots = append(roots, strings.TrimSpace(string(out)))
	}
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".pyenv"))
	}
	for _, root := range roots {
		if m, _ := filepath.Glob(filepath.Join(root, "versions", "3.13.*", "bin", "python3")); len(m) > 0 {
			return m[0]
		}
	}
	if py, err := exec.LookPath("python3.13"); err == nil {
		return py
	}
	t.Skip("no CPython 3.13 (set BOUNDLAB_PYTHON to a CPython 3.13 to run the oracle)")
	return ""
}
