package sweeps

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// pyJsonschemaScript validates each request body's arguments the way the
// seed's server did (Python jsonschema, a maxLength on body that the value
// fails) and prints how many characters the instance takes in the message:
// the message less " is too long" and the two quotes.
const pyJsonschemaScript = `
import json, sys, jsonschema
v = jsonschema.Draft202012Validator({"type": "object", "properties": {"body": {"type": "string", "maxLength": 1}}})
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        args = json.loads(f.read())["params"]["arguments"]
    msgs = [e.message for e in v.iter_errors(args) if e.validator == "maxLength"]
    print(len(msgs[0]) - len(" is too long") - 2)
`

// TestCPythonReprRendersTheDocumentWorst builds the widest arguments object
// the exact charge admits, at full scale, and has CPython repr it: the
// character count is the derived figure (worstrender.document.python.exact).
func TestCPythonReprRendersTheDocumentWorst(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a 12.9 MB document through CPython takes a few seconds")
	}
	py := cpython()
	if py == "" {
		t.Skip("CPython 3.13 not found (set BOUNDLAB_PYTHON): the document instance is not rendered by CPython in this run")
	}
	doc := DocumentWorst(charge.Python, charge.DefaultLimits())
	path, err := doc.Instance.Emit(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", `import json, sys
print(len(repr(json.loads(open(sys.argv[1], "rb").read())["params"]["arguments"])))`, path).Output()
	if err != nil {
		t.Fatalf("%s: %v", py, err)
	}
	if got, _ := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); got != doc.Render {
		t.Fatalf("CPython repr renders %d characters, derived %d", got, doc.Render)
	}
}

// TestPythonJsonschemaRendersTheDerivedWidth drives the python-dialect
// instances through the real Python jsonschema (4.26.0, the seed's) and
// compares the width of the instance in its maxLength message with the
// derivation. python3 on PATH is 3.11 (Unicode 14): the instances' code
// points (DEL, U+0600, U+1000C and the like) are non-printable in 14.0 and
// 15.1 alike. Skips without python3 and jsonschema; under -short it runs only
// the reduced-scale instances, and BOUNDLAB_FULL=1 adds the 25 MiB ones.
func TestPythonJsonschemaRendersTheDerivedWidth(t *testing.T) {
	py := os.Getenv("BOUNDLAB_PYTHON")
	var err error
	if py == "" {
		py, err = exec.LookPath("python3")
	}
	if err != nil || exec.Command(py, "-c", "import jsonschema").Run() != nil {
		t.Skip("no CPython with jsonschema ($BOUNDLAB_PYTHON, else python3): instances not driven through Python jsonschema in this run")
	}
	dir := t.TempDir()
	var paths, names []string // names: each instance's subtest, scenario_reach_scale
	var want []int64
	add := func(scale, id, which string, r Reach) {
		if r.Dialect != charge.Python || r.Render > 80<<20 {
			return
		}
		in := r.Instance()
		in.Name = strconv.Itoa(len(paths))
		p, err := in.Emit(dir)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		names = append(names, id+"_"+which+"_"+scale)
		want = append(want, r.Render)
	}
	small, err := Derivations(scaled(256))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range small {
		add("scaled_256", d.ID, "worst_pure", d.WorstPure)
		add("scaled_256", d.ID, "worst", d.Worst)
	}
	if !testing.Short() {
		full, err := Derivations(charge.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range full {
			if d.ID == "python-raw-codepoint-sdk4mib" || os.Getenv("BOUNDLAB_FULL") != "" {
				add("defaults", d.ID, "worst_pure", d.WorstPure)
				add("defaults", d.ID, "worst", d.Worst)
			}
		}
	}
	// One Python process renders every instance; each answer is then held
	// to its derivation in a subtest named for the instance.
	out, err := exec.Command(py, append([]string{"-c", pyJsonschemaScript}, paths...)...).Output()
	if err != nil {
		t.Fatalf("python jsonschema: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for i := range paths {
		if !sc.Scan() {
			t.Fatalf("python printed %d widths for %d instances", i, len(paths))
		}
		line := sc.Text()
		t.Run(names[i], func(t *testing.T) {
			got, _ := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
			if got != want[i] {
				t.Errorf("%s: jsonschema's message holds %d characters of instance, derived %d", filepath.Base(paths[i]), got, want[i])
			}
		})
	}
	t.Logf("%d instances rendered by Python jsonschema at their derived widths", len(paths))
}
