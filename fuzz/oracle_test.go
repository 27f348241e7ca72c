package fuzz

import (
	"strings"
	"testing"
)

// The oracle itself, on calls whose fate is known: it must be able to say no
// for each reason, and yes to a valid call.
func TestShouldServeOracle(t *testing.T) {
	v := theValidator(t)
	for _, c := range []struct {
		tool, args string
		want       bool
	}{
		{"knowledge.search", `{"projectId":"demo","query":"x"}`, true},
		{"no.such.tool", `{}`, false},
		{"knowledge.search", `{"projectId":"demo","query":"x","query":"y"}`, false},
		{"knowledge.search", `{"projectId":"demo","query":"\ud800"}`, false},
		{"knowledge.search", `{"projectId":"demo","query":"\ud83d\ude00"}`, true},
		{"knowledge.search", "{\"projectId\":\"demo\",\"query\":\"\xff\"}", false},
		{"knowledge.search", `{"projectId":"demo","query":"x","limit":1e1000}`, false},
		{"knowledge.search", `{"projectId":"demo","query":"x","limit":` + strings.Repeat("1", 65) + `}`, false},
		{"knowledge.search", `{"projectId":"demo","query":"` + strings.Repeat("a", 2001) + `"}`, false},
		{"knowledge.search", `{"projectId":"demo","query":"x","extra":1}`, false},
		{"knowledge.search", `{"projectId":"demo","query":"x"} x`, false},
	} {
		if got, why := shouldServe(v, c.tool, []byte(c.args)); got != c.want {
			t.Errorf("%s %.60s: serve %v (%s), want %v", c.tool, c.args, got, why, c.want)
		}
	}
	l := v.Limits()
	deep := strings.Repeat(`{"a":`, l.MaxParamsNesting) + "1" + strings.Repeat("}", l.MaxParamsNesting)
	if got, why := shouldServe(v, "knowledge.search", []byte(`{"projectId":"demo","query":"x","a":`+deep+`}`)); got || why != "nesting" {
		t.Errorf("past the nesting bound: serve %v (%s)", got, why)
	}
}
