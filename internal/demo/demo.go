// Package demo is the small in-memory knowledge store and the seven MCP tools
// `boundlab serve` runs and mcpvalidate's tests drive: knowledge.search,
// knowledge.get, knowledge.status, review.search, review.findings,
// project.list and system.capabilities, after the seed ADR's server.
//
// The handlers are deliberately lenient (encoding/json, unknown keys ignored,
// as the seed's SDK did): what reaches them is decided by mcpvalidate's
// middleware, and the tests prove that seat is load-bearing by lifting it off.
// Handler refusals depend on state a schema cannot see (an unregistered
// project, an item that does not exist) and never echo the caller's value.
package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Item is one stored knowledge item.
type Item struct {
	ID      string `json:"id"`
	Project string `json:"projectId"`
	Text    string `json:"text"`
}

// Finding is one review finding.
type Finding struct {
	Severity string `json:"severity"`
	Text     string `json:"text"`
}

// Review is one stored review.
type Review struct {
	ID       string    `json:"id"`
	Project  string    `json:"projectId"`
	Title    string    `json:"title"`
	Findings []Finding `json:"findings"`
}

// Store is the in-memory knowledge store. Safe for concurrent use.
type Store struct {
	mu       sync.RWMutex
	projects map[string]string // id -> name
	items    []Item
	reviews  []Review
}

// NewStore returns a store seeded with the project "demo", a few items and
// two reviews.
func NewStore() *Store {
	return &Store{
		projects: map[string]string{"demo": "Demo project"},
		items: []Item{
			{ID: "item-1", Project: "demo", Text: "The body cap is the worst wire ratio times the source-file cap, plus the envelope allowance."},
			{ID: "item-2", Project: "demo", Text: "Every tools/call is validated against its published input schema before any handler runs."},
			{ID: "item-3", Project: "demo", Text: "A refusal names the key and the limit; it never echoes the caller's value."},
			{ID: "item-4", Project: "demo", Text: "Unknown keys are refused rather than silently dropped."},
		},
		reviews: []Review{
			{ID: "review-1", Project: "demo", Title: "Input validation review", Findings: []Finding{
				{Severity: "high", Text: "Typed-tool refusals echo the value unbounded."},
				{Severity: "low", Text: "The refusal lacks resultType on older protocol versions."},
			}},
			{ID: "review-2", Project: "demo", Title: "Transport review", Findings: []Finding{
				{Severity: "medium", Text: "Dense control characters meet the bare 413."},
				{Severity: "info", Text: "The body cap admits an 8 MiB file in any script."},
			}},
		},
	}
}

// errUnregistered is the handler-tier refusal for a project id the store does
// not know. The id is reported by its length, never echoed.
func errUnregistered(id string) error {
	return fmt.Errorf("project is not registered (an id of %d bytes)", len(id))
}

func (s *Store) project(id string) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.projects[id]; !ok {
		return errUnregistered(id)
	}
	return nil
}

// Inputs. Each tool's handler reads exactly these fields; the published
// schemas may tighten their value domains (patterns, lengths, ranges, enums).
// The context's snapshotId, agentId and taskId are published and read by no
// handler (the agreement check holds that exclusion by equality).
type (
	KnowledgeSearchIn struct {
		ProjectID string `json:"projectId"`
		Query     string `json:"query"`
		Limit     Count  `json:"limit,omitempty"`
	}
	KnowledgeGetIn struct {
		ProjectID string `json:"projectId"`
		ItemID    string `json:"itemId"`
	}
	KnowledgeStatusIn struct {
		ProjectID string `json:"projectId"`
	}
	ReviewSearchIn struct {
		ProjectID string `json:"projectId"`
		Query     string `json:"query"`
		Limit     Count  `json:"limit,omitempty"`
	}
	ReviewFindingsIn struct {
		ProjectID string `json:"projectId"`
		ReviewID  string `json:"reviewId"`
		Severity  string `json:"severity,omitempty"`
	}
	ProjectListIn        struct{}
	SystemCapabilitiesIn struct{}
)

// Count is an integer argument. JSON Schema's "integer" admits any number with
// a zero fractional part (5.0, 5e0), which encoding/json refuses for a Go int:
// left an int, the handler would refuse what the published schema admits (the
// agreement's forbidden direction). Count takes every integral number token.
type Count int

// UnmarshalJSON accepts any JSON number with an integral value that fits an int.
func (c *Count) UnmarshalJSON(b []byte) error {
	r, ok := new(big.Rat).SetString(string(b))
	if !ok || !r.IsInt() || !r.Num().IsInt64() || r.Num().Int64() != int64(int(r.Num().Int64())) {
		return errors.New("not an integer that fits an int")
	}
	*c = Count(r.Num().Int64())
	return nil
}

const defaultLimit = 10

func limitOr(n Count) int {
	if n <= 0 {
		return defaultLimit
	}
	return int(n)
}

// KnowledgeSearch returns the items of a project whose text holds every word
// of the query (case-insensitive).
func (s *Store) KnowledgeSearch(_ context.Context, in KnowledgeSearchIn) (any, error) {
	if err := s.project(in.ProjectID); err != nil {
		return nil, err
	}
	words := strings.Fields(strings.ToLower(in.Query))
	s.mu.RLock()
	defer s.mu.RUnlock()
	hits := []Item{}
	for _, it := range s.items {
		if it.Project == in.ProjectID && holdsAll(strings.ToLower(it.Text), words) && len(hits) < limitOr(in.Limit) {
			hits = append(hits, it)
		}
	}
	return map[string]any{"items": hits}, nil
}

func holdsAll(text string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// KnowledgeGet returns one item.
func (s *Store) KnowledgeGet(_ context.Context, in KnowledgeGetIn) (any, error) {
	if err := s.project(in.ProjectID); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, it := range s.items {
		if it.ID == in.ItemID && it.Project == in.ProjectID {
			return it, nil
		}
	}
	return nil, fmt.Errorf("no such item in this project (an id of %d bytes)", len(in.ItemID))
}

// KnowledgeStatus counts a project's items and reviews.
func (s *Store) KnowledgeStatus(_ context.Context, in KnowledgeStatusIn) (any, error) {
	if err := s.project(in.ProjectID); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	items, reviews := 0, 0
	for _, it := range s.items {
		if it.Project == in.ProjectID {
			items++
		}
	}
	for _, r := range s.reviews {
		if r.Project == in.ProjectID {
			reviews++
		}
	}
	return map[string]any{"projectId": in.ProjectID, "items": items, "reviews": reviews}, nil
}

// ReviewSearch returns the reviews whose title or findings hold every word of
// the query.
func (s *Store) ReviewSearch(_ context.Context, in ReviewSearchIn) (any, error) {
	if err := s.project(in.ProjectID); err != nil {
		return nil, err
	}
	words := strings.Fields(strings.ToLower(in.Query))
	s.mu.RLock()
	defer s.mu.RUnlock()
	type hit struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	hits := []hit{}
	for _, r := range s.reviews {
		text := strings.ToLower(r.Title)
		for _, f := range r.Findings {
			text += " " + strings.ToLower(f.Text)
		}
		if r.Project == in.ProjectID && holdsAll(text, words) && len(hits) < limitOr(in.Limit) {
			hits = append(hits, hit{r.ID, r.Title})
		}
	}
	return map[string]any{"reviews": hits}, nil
}

// ReviewFindings returns a review's findings, optionally of one severity.
func (s *Store) ReviewFindings(_ context.Context, in ReviewFindingsIn) (any, error) {
	if err := s.project(in.ProjectID); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, r := range s.reviews {
		if r.ID != in.ReviewID || r.Project != in.ProjectID {
			continue
		}
		out := []Finding{}
		for _, f := range r.Findings {
			if in.Severity == "" || f.Severity == in.Severity {
				out = append(out, f)
			}
		}
		return map[string]any{"reviewId": r.ID, "findings": out}, nil
	}
	return nil, fmt.Errorf("no such review in this project (an id of %d bytes)", len(in.ReviewID))
}

// ProjectList lists the registered projects.
func (s *Store) ProjectList(_ context.Context, _ ProjectListIn) (any, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	type project struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	out := []project{}
	for id, name := range s.projects {
		out = append(out, project{id, name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return map[string]any{"projects": out}, nil
}

// SystemCapabilities describes the server.
func (s *Store) SystemCapabilities(_ context.Context, _ SystemCapabilitiesIn) (any, error) {
	return map[string]any{
		"tools":      toolNames,
		"validation": "every tools/call is validated against its published input schema (mcpvalidate)",
	}, nil
}

// tools is the registration table: name, description, and the two ways to
// register the same handler.
var tools = []struct {
	name, desc string
	raw        func(s *Store) mcp.ToolHandler
	typed      func(srv *mcp.Server, s *Store, t *mcp.Tool)
}{
	{"knowledge.search", "Search a project's knowledge items.", rawOf((*Store).KnowledgeSearch), typedOf((*Store).KnowledgeSearch)},
	{"knowledge.get", "Get one knowledge item by id.", rawOf((*Store).KnowledgeGet), typedOf((*Store).KnowledgeGet)},
	{"knowledge.status", "Count a project's items and reviews.", rawOf((*Store).KnowledgeStatus), typedOf((*Store).KnowledgeStatus)},
	{"review.search", "Search a project's reviews.", rawOf((*Store).ReviewSearch), typedOf((*Store).ReviewSearch)},
	{"review.findings", "List a review's findings, optionally of one severity.", rawOf((*Store).ReviewFindings), typedOf((*Store).ReviewFindings)},
	{"project.list", "List the registered projects.", rawOf((*Store).ProjectList), typedOf((*Store).ProjectList)},
	{"system.capabilities", "Describe this server.", rawOf((*Store).SystemCapabilities), typedOf((*Store).SystemCapabilities)},
}

// toolNames is filled from the table in init (the table refers to
// SystemCapabilities, which reports it).
var toolNames []string

func init() {
	for _, t := range tools {
		toolNames = append(toolNames, t.name)
	}
}

// ToolNames lists the seven tools, in registration order.
func ToolNames() []string { return append([]string(nil), toolNames...) }

// RegisterRaw adds the seven tools with Server.AddTool, each with the input
// schema schemaOf returns (what tools/list publishes; pass
// mcpvalidate.Validator.InputSchema so the listing is the enforced contract).
// The SDK validates nothing for raw tools: the handlers decode leniently.
func RegisterRaw(srv *mcp.Server, s *Store, schemaOf func(name string) (json.RawMessage, bool)) error {
	for _, t := range tools {
		sch, ok := schemaOf(t.name)
		if !ok {
			return fmt.Errorf("demo: no input schema for %s", t.name)
		}
		srv.AddTool(&mcp.Tool{Name: t.name, Description: t.desc, InputSchema: sch}, t.raw(s))
	}
	return nil
}

// RegisterTyped adds the seven tools with mcp.AddTool: the SDK infers each
// input schema from the Go struct and validates against it (after receiving
// middleware).
func RegisterTyped(srv *mcp.Server, s *Store) {
	for _, t := range tools {
		t.typed(srv, s, &mcp.Tool{Name: t.name, Description: t.desc})
	}
}

func rawOf[In any](h func(*Store, context.Context, In) (any, error)) func(*Store) mcp.ToolHandler {
	return func(s *Store) mcp.ToolHandler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in In
			if len(req.Params.Arguments) > 0 {
				// Lenient on purpose (unknown keys ignored); the error text can
				// quote the input, so it is not passed on.
				if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
					res := &mcp.CallToolResult{}
					res.SetError(fmt.Errorf("arguments do not decode into this tool's input"))
					return res, nil
				}
			}
			out, err := h(s, ctx, in)
			res := &mcp.CallToolResult{}
			if err != nil {
				res.SetError(err)
				return res, nil
			}
			b, err := json.Marshal(out)
			if err != nil {
				return nil, err
			}
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
			return res, nil
		}
	}
}

func typedOf[In any](h func(*Store, context.Context, In) (any, error)) func(*mcp.Server, *Store, *mcp.Tool) {
	return func(srv *mcp.Server, s *Store, t *mcp.Tool) {
		mcp.AddTool(srv, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
			out, err := h(s, ctx, in)
			if err != nil {
				return nil, nil, err
			}
			b, err := json.Marshal(out)
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
		})
	}
}
