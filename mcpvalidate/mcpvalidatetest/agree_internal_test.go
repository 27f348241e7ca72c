package mcpvalidatetest

import (
	"encoding/json"
	"strings"
	"testing"
)

func viewJSON(t *testing.T, s string) schemaView {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return viewOf(m)
}

// TestAgreeValueDomains drives the relation's value-domain arms, which the
// SDK's struct inference never produces (it infers no enum or range), so they
// are controlled here directly: tightening where the derived schema is open is
// allowed; narrowing or loosening what the derived schema states is not.
func TestAgreeValueDomains(t *testing.T) {
	der := `{"properties":{"s":{"type":"string","enum":["a","b","c"]},"n":{"type":"integer","minimum":1,"maximum":10},"q":{"type":"string"}},"required":["s"]}`
	for _, c := range []struct {
		name, pub, want string
	}{
		{"equal", `{"properties":{"s":{"type":"string","enum":["c","b","a"]},"n":{"type":"integer","minimum":1,"maximum":10},"q":{"type":"string"}},"required":["s"]}`, ""},
		{"tightened where open", `{"properties":{"s":{"type":"string","enum":["a","b","c"]},"n":{"type":"integer","minimum":2,"maximum":5},"q":{"type":"string","maxLength":9,"pattern":"^x"}},"required":["s"]}`, ""},
		{"enum narrowed", `{"properties":{"s":{"type":"string","enum":["a","b"]},"n":{"type":"integer","minimum":1,"maximum":10},"q":{"type":"string"}},"required":["s"]}`, "enum"},
		{"maximum loosened", `{"properties":{"s":{"type":"string","enum":["a","b","c"]},"n":{"type":"integer","minimum":1,"maximum":11},"q":{"type":"string"}},"required":["s"]}`, "maximum 10"},
		{"minimum dropped", `{"properties":{"s":{"type":"string","enum":["a","b","c"]},"n":{"type":"integer","maximum":10},"q":{"type":"string"}},"required":["s"]}`, "minimum 1"},
		{"type widened", `{"properties":{"s":{"type":["string","null"],"enum":["a","b","c"]},"n":{"type":"integer","minimum":1,"maximum":10},"q":{"type":"string"}},"required":["s"]}`, "admits type null"},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			got := agree(viewJSON(t, c.pub), viewJSON(t, der), nil, map[string]bool{})
			joined := strings.Join(got, "\n")
			if (c.want == "") != (len(got) == 0) || !strings.Contains(joined, c.want) {
				t.Errorf("%s: want %q, got %q", c.name, c.want, joined)
			}
		})
	}
}
