package testname

import (
	"bytes"
	"os"
	"testing"
)

// TestCase holds Case to its doc: a name -run can select, and
// different cases kept apart.
func TestCase(t *testing.T) {
	for in, want := range map[string]string{
		"C0 \\b \\t \\n \\f \\r": "C0_b_t_n_f_r",
		`" and \`:                "U0022_and_U005C",
		"< > &":                  "U003C_U003E_U0026",
		"U+2028 U+2029":          "U2028_U2029",
		`"\ud800\udc00"`:         "ud800_udc00",
		`1e+0`:                   "1e_0",
		"nodes, a name":          "nodes_a_name",
		`-1.5e-3`:                "-1.5e-3",
		``:                       "empty",
		"\xff":                   "UFFFD",
		`é\u00e9 中😀`:             "é_u00e9_中",
	} {
		if got := Case(in); got != want {
			t.Errorf("Case(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestModulesShareTheRule holds the product modules' copies of this file to
// it: one rule, whatever module a test is in.
func TestModulesShareTheRule(t *testing.T) {
	want, err := os.ReadFile("testname.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, copy := range []string{"../../charge/internal/testname/testname.go", "../../mcpvalidate/internal/testname/testname.go"} {
		got, err := os.ReadFile(copy)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from internal/testname/testname.go: copy the rule, do not fork it", copy)
		}
	}
}
