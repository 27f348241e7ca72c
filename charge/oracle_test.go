package charge_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// oracleScript reads one JSON document a line and prints, for each, the sum of
// len(repr(x)) over every leaf and member name (strings without their quotes)
// and len(repr(the whole value)).
const oracleScript = `
import json, sys
def charge(v):
    if isinstance(v, dict):
        return sum(len(repr(k)) - 2 + charge(x) for k, x in v.items())
    if isinstance(v, list):
        return sum(charge(x) for x in v)
    if isinstance(v, str):
        return len(repr(v)) - 2
    return len(repr(v))
for line in sys.stdin:
    v = json.loads(line)
    print(charge(v), len(repr(v)))
`

// TestPythonDialectAgainstCPython is the oracle: the gate's python charge of
// documents covering every code point, both quotes, numbers and literals
// equals what CPython 3.13's repr really renders, and the whole render stays
// within charge + nodes x PerNodeMax.
func TestPythonDialectAgainstCPython(t *testing.T) {
	py := charge.FindPython313(t)
	if out, err := exec.Command(py, "-c", "import sys, unicodedata; print(sys.version_info[:2] == (3, 13), unicodedata.unidata_version)").Output(); err != nil || !strings.HasPrefix(string(out), "True 15.1.0") {
		t.Fatalf("%s is not CPython 3.13 with Unicode 15.1.0 (%q, %v)", py, out, err)
	}
	var docs []string
	var chunk strings.Builder
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xd800 && r < 0xe000 {
			continue
		}
		chunk.WriteRune(r)
		if chunk.Len() > 4000 || r == utf8.MaxRune {
			docs = append(docs, `{"s":`+jsonText(chunk.String())+`}`)
			chunk.Reset()
		}
	}
	docs = append(docs,
		`["it's", "\"q\"", "it's \"q\"", "\\", "'\\'", ""]`,
		`[0, -0, 1, -12, 1.0, -0.0, 1e16, 1e15, 1.5e-5, 0.0001, 1e308, 1e309, -1e400, 5e-324, 123456789.123, 0.1]`,
		`{"true": true, "false": false, "null": null, "nested": {"a": [[], {}, [{}]]}}`,
		`{"\u00ad": "\u0085\u00a0", "key'\"": "\u2028\u2029\ufeff"}`,
	)
	cmd := exec.Command(py, "-c", oracleScript)
	cmd.Stdin = strings.NewReader(strings.Join(docs, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", py, err, stderr.String())
	}
	g := gate(t, charge.Python, charge.DefaultLimits())
	sc := bufio.NewScanner(bytes.NewReader(out))
	for i := 0; sc.Scan(); i++ {
		var leaves, whole int64
		if _, err := fmt.Sscan(sc.Text(), &leaves, &whole); err != nil {
			t.Fatal(err)
		}
		rep, ref := check(t, g, []byte(docs[i]))
		if ref != nil {
			t.Fatalf("document %d refused: %v", i, ref)
		}
		if rep.Charge != leaves {
			t.Errorf("document %d: charge %d, CPython 3.13 renders the leaves and names at %d", i, rep.Charge, leaves)
		}
		v, _ := reference.Decode([]byte(docs[i]))
		if ref := reference.Width(charge.Python, reference.Render(charge.Python, v)); ref != whole {
			t.Errorf("document %d: reference whole render %d, CPython 3.13 %s", i, ref, strconv.FormatInt(whole, 10))
		}
		if ceiling := rep.Charge + int64(rep.Nodes*charge.Python.PerNodeMax()); whole > ceiling {
			t.Errorf("document %d: CPython renders %d, past charge + nodes x %d = %d", i, whole, charge.Python.PerNodeMax(), ceiling)
		}
	}
	t.Logf("CPython oracle (%s) agreed on %d documents covering all 1,112,064 scalar values", py, len(docs))
}
