package sweeps

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// cpython finds a CPython to hold the json.dumps port to: $BOUNDLAB_PYTHON,
// else pyenv's 3.13.0, else python3.13 on PATH.
func cpython() string {
	if p := os.Getenv("BOUNDLAB_PYTHON"); p != "" {
		return p
	}
	root := os.Getenv("PYENV_ROOT")
	if root == "" {
		if home, err := os.UserHomeDir(); err == nil {
			root = filepath.Join(home, ".pyenv")
		}
	}
	if p := filepath.Join(root, "versions", "3.13.0", "bin", "python3"); fileExists(p) {
		return p
	}
	if p, err := exec.LookPath("python3.13"); err == nil {
		return p
	}
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

const dumpsScript = `
import json, sys
s = ''.join(chr(i) for i in range(0x110000) if not 0xd800 <= i < 0xe000)
out = sys.stdout.buffer
out.write(json.dumps(s, ensure_ascii=True).encode('utf-8'))
out.write(b'\n')
out.write(json.dumps(s, ensure_ascii=False).encode('utf-8'))
`

// TestPyJSONPortIsCPythons compares the port's output with CPython's own
// json.dumps, byte for byte, over one string holding every scalar value, both
// ways. It needs CPython 3.13 and skips, saying so, without it; the sweep's
// proof stands on the port either way.
func TestPyJSONPortIsCPythons(t *testing.T) {
	py := cpython()
	if py == "" {
		t.Skip("CPython 3.13 not found (set BOUNDLAB_PYTHON): the json.dumps port is not compared with CPython in this run")
	}
	out, err := exec.Command(py, "-c", dumpsScript).Output()
	if err != nil {
		t.Fatalf("%s: %v", py, err)
	}
	ascii, raw, ok := bytes.Cut(out, []byte("\n"))
	if !ok {
		t.Fatal("unexpected CPython output")
	}
	var b strings.Builder
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !isSurrogate(r) {
			b.WriteRune(r)
		}
	}
	s := b.String()
	for _, c := range []struct {
		name  string
		ascii bool
		want  []byte
	}{{"ensure_ascii=True", true, ascii}, {"ensure_ascii=False", false, raw}} {
		t.Run(c.name, func(t *testing.T) {
			got := PyDumpsString(s, c.ascii)
			if got != string(c.want) {
				i := 0
				for i < len(got) && i < len(c.want) && got[i] == c.want[i] {
					i++
				}
				t.Errorf("%s: port and CPython differ first at byte %d (port %d bytes, CPython %d)", c.name, i, len(got), len(c.want))
			}
		})
	}
	t.Logf("json.dumps port equals %s's over all %d scalar values, both ways", py, ScalarValues)
}
