package audit

import (
	"encoding/json"
	"strings"
	"testing"
)

// decode reads a schema as the auditor does (numbers as json.Number).
func decode(t *testing.T, schema string) map[string]any {
	d, err := parseSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	return d.root
}

func TestPastValues(t *testing.T) {
	p := decode(t, `{"type":"string","maxLength":64,"minLength":2,"enum":["a","b"]}`)
	got := map[string]string{}
	for _, v := range pastValues(p, "zq01234567", 65) {
		got[v.keyword] = v.raw
	}
	if s := got["maxLength"]; len(s) != 65+2 || !strings.HasPrefix(s, `"zq01234567a`) {
		t.Errorf("maxLength 64: sent %s, want 65 characters led by the canary", s)
	}
	if got["minLength"] != `"z"` || got["enum"] != `"zq01234567-enum"` {
		t.Errorf("minLength 2: %s; enum: %s", got["minLength"], got["enum"])
	}
	// the bound: maxLength+1 is sent up to maxBytes, and not one past
	if vs := pastValues(p, "zq01234567", 64); len(vs) != 2 {
		t.Errorf("maxLength 64 with 64 bytes allowed: %d values, want minLength and enum only", len(vs))
	}
	p = decode(t, `{"type":"integer","minimum":1,"maximum":10,"exclusiveMaximum":12}`)
	got = map[string]string{}
	for _, v := range pastValues(p, "zq", 64) {
		got[v.keyword] = v.raw
	}
	if got["maximum"] != "11" || got["minimum"] != "0" || got["exclusiveMaximum"] != "12" || len(got) != 3 {
		t.Errorf("integer bounds: %v", got)
	}
}
