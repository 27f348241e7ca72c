package demo

import (
	"context"
	"strings"
	"testing"
)

func TestStore(t *testing.T) {
	s := NewStore()
	ctx := context.Background()
	out, err := s.KnowledgeSearch(ctx, KnowledgeSearchIn{ProjectID: "demo", Query: "REFUSAL never"})
	if err != nil || len(out.(map[string]any)["items"].([]Item)) != 1 {
		t.Fatalf("search: %v %v", out, err)
	}
	if out, _ := s.KnowledgeSearch(ctx, KnowledgeSearchIn{ProjectID: "demo", Query: "", Limit: 2}); len(out.(map[string]any)["items"].([]Item)) != 2 {
		t.Fatalf("limit: %v", out)
	}
	if it, err := s.KnowledgeGet(ctx, KnowledgeGetIn{ProjectID: "demo", ItemID: "item-2"}); err != nil || it.(Item).ID != "item-2" {
		t.Fatalf("get: %v %v", it, err)
	}
	if f, err := s.ReviewFindings(ctx, ReviewFindingsIn{ProjectID: "demo", ReviewID: "review-1", Severity: "high"}); err != nil || len(f.(map[string]any)["findings"].([]Finding)) != 1 {
		t.Fatalf("findings: %v %v", f, err)
	}
	// Handler refusals report lengths, never the caller's value.
	const secret = "caller-value-never-echoed"
	for _, c := range []struct {
		tool string
		call func() error
	}{
		{"knowledge.status", func() error { _, err := s.KnowledgeStatus(ctx, KnowledgeStatusIn{ProjectID: secret}); return err }},
		{"knowledge.get", func() error {
			_, err := s.KnowledgeGet(ctx, KnowledgeGetIn{ProjectID: "demo", ItemID: secret})
			return err
		}},
		{"review.findings", func() error {
			_, err := s.ReviewFindings(ctx, ReviewFindingsIn{ProjectID: "demo", ReviewID: secret})
			return err
		}},
	} {
		t.Run("refusal_of_"+c.tool, func(t *testing.T) {
			if err := c.call(); err == nil || strings.Contains(err.Error(), secret) {
				t.Errorf("refusal %v", err)
			}
		})
	}
	if len(ToolNames()) != 7 {
		t.Fatalf("tools: %v", ToolNames())
	}
}

func TestCountTakesEveryIntegralNumber(t *testing.T) {
	// each literal its own subtest, named as written (a string by what it is)
	for in, want := range map[string]int{"5": 5, "5.0": 5, "5e0": 5, "50e-1": 5, "-0": 0} {
		t.Run("admits_"+in, func(t *testing.T) {
			var c Count
			if err := c.UnmarshalJSON([]byte(in)); err != nil || int(c) != want {
				t.Errorf("%s: %d %v", in, c, err)
			}
		})
	}
	for _, tc := range []struct{ name, in string }{
		{"5.5", "5.5"}, {"1e400", "1e400"}, {"a_string", `"5"`}, {"9223372036854775808", "9223372036854775808"},
	} {
		t.Run("refuses_"+tc.name, func(t *testing.T) {
			var c Count
			if err := c.UnmarshalJSON([]byte(tc.in)); err == nil {
				t.Errorf("%s admitted as %d", tc.in, c)
			}
		})
	}
}
