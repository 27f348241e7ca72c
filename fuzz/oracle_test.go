package fuzz

import (
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// The oracle itself, on calls whose fate is known: it must be able to say no
// for each reason, and yes to a valid call.
func TestShouldServeOracle(t *testing.T) {
	v := theValidator(t)
	for _, c := range []struct {
		name, tool, args string
		want             bool
	}{
		{"valid", "knowledge.search", `{"projectId":"demo","query":"x"}`, true},
		{"no_such_tool", "no.such.tool", `{}`, false},
		{"duplicate_name", "knowledge.search", `{"projectId":"demo","query":"x","query":"y"}`, false},
		{"lone_surrogate", "knowledge.search", `{"projectId":"demo","query":"\ud800"}`, false},
		{"surrogate_pair", "knowledge.search", `{"projectId":"demo","query":"\ud83d\ude00"}`, true},
		{"invalid_utf8", "knowledge.search", "{\"projectId\":\"demo\",\"query\":\"\xff\"}", false},
		{"exponent_past_bound", "knowledge.search", `{"projectId":"demo","query":"x","limit":1e1000}`, false},
		{"number_past_length", "knowledge.search", `{"projectId":"demo","query":"x","limit":` + strings.Repeat("1", 65) + `}`, false},
		{"query_past_maxLength", "knowledge.search", `{"projectId":"demo","query":"` + strings.Repeat("a", 2001) + `"}`, false},
		{"unknown_property", "knowledge.search", `{"projectId":"demo","query":"x","extra":1}`, false},
		{"trailing_bytes", "knowledge.search", `{"projectId":"demo","query":"x"} x`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, why := shouldServe(v, c.tool, []byte(c.args)); got != c.want {
				t.Errorf("%s %.60s: serve %v (%s), want %v", c.tool, c.args, got, why, c.want)
			}
		})
	}
	t.Run("past_nesting", func(t *testing.T) {
		l := charge.DefaultLimits() // theValidator is built with the defaults
		deep := strings.Repeat(`{"a":`, l.MaxParamsNesting) + "1" + strings.Repeat("}", l.MaxParamsNesting)
		if got, why := shouldServe(v, "knowledge.search", []byte(`{"projectId":"demo","query":"x","a":`+deep+`}`)); got || why != "nesting" {
			t.Errorf("past the nesting bound: serve %v (%s)", got, why)
		}
	})
}
