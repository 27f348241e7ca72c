package demo_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theurian/boundlab/internal/demo"
	"github.com/theurian/boundlab/mcpvalidate"
	"github.com/theurian/boundlab/mcpvalidate/mcpvalidatetest"
	"github.com/theurian/boundlab/schemas"
)

// contextUnread is the tool context's published-but-unread population
// (decision 6's third exclusion): every tool that composes the context
// fragment publishes these and no typed handler reads them.
var contextUnread = []string{"agentId", "snapshotId", "taskId"}

// unread is the exclusion per tool, held by equality inside CheckAgreement:
// the five project-scoped tools compose the context; project.list and
// review.get do not.
var unread = map[string][]string{
	"knowledge.get":    contextUnread,
	"knowledge.search": contextUnread,
	"knowledge.status": contextUnread,
	"review.findings":  contextUnread,
	"review.search":    contextUnread,
}

// unreadWith is unread with tool's exclusion replaced.
func unreadWith(tool string, keys ...string) map[string][]string {
	out := map[string][]string{}
	for k, v := range unread {
		out[k] = v
	}
	out[tool] = keys
	return out
}

// publishedWith copies the embedded schemas, applying edit to one file.
func publishedWith(t testing.TB, file string, edit func(string) string) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(schemas.FS, schemas.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(schemas.FS, p)
		if err != nil {
			return err
		}
		s := string(b)
		if p == schemas.Dir+"/"+file {
			e := edit(s)
			if e == s {
				t.Fatalf("edit of %s changed nothing", file)
			}
			s = e
		}
		m[p] = &fstest.MapFile{Data: []byte(s)}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func newServer(t testing.TB, v *mcpvalidate.Validator, o demo.Options) *mcp.Server {
	t.Helper()
	s, err := demo.NewServer(v, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCompleteness(t *testing.T) {
	ctx := context.Background()
	v, err := mcpvalidate.New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, typed := range []bool{false, true} {
		t.Run(fmt.Sprintf("typed=%v", typed), func(t *testing.T) {
			if err := mcpvalidatetest.CheckCompleteness(ctx, v, newServer(t, v, demo.Options{Typed: typed, PageSize: 2})); err != nil {
				t.Fatalf("typed=%v: %v", typed, err)
			}
		})
	}
	// Positive controls: a registered tool with no schema, and a schema for a
	// tool the server does not register.
	extra := newServer(t, v, demo.Options{PageSize: 2})
	extra.AddTool(&mcp.Tool{Name: "knowledge.delete", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	if err := mcpvalidatetest.CheckCompleteness(ctx, v, extra); err == nil || !strings.Contains(err.Error(), `"knowledge.delete" is registered but has no published schema`) {
		t.Fatalf("extra tool: %v", err)
	}
	missing := newServer(t, v, demo.Options{PageSize: 2})
	missing.RemoveTools("review.findings")
	if err := mcpvalidatetest.CheckCompleteness(ctx, v, missing); err == nil || !strings.Contains(err.Error(), "mcp/review-findings.input.schema.json publishes tool") {
		t.Fatalf("missing tool: %v", err)
	}
}

func TestAgreement(t *testing.T) {
	ctx := context.Background()
	v, err := mcpvalidate.New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	typed := newServer(t, v, demo.Options{Typed: true})
	if err := mcpvalidatetest.CheckAgreement(ctx, v, typed, unread); err != nil {
		t.Fatalf("the published and SDK-inferred schemas disagree: %v", err)
	}

	// Positive controls: each must make the check fail, naming the file.
	for _, c := range []struct {
		name, file string
		edit       func(string) string
		want       string
	}{
		{"itemId dropped from required", "knowledge-get.input.schema.json",
			func(s string) string {
				return strings.Replace(s, `"required": [
    "itemId"
  ],`, `"required": [],`, 1)
			},
			`knowledge.get (mcp/knowledge-get.input.schema.json): the handler requires "itemId"`},
		{"limit published as number", "knowledge-search.input.schema.json",
			func(s string) string { return strings.Replace(s, `"type": "integer"`, `"type": "number"`, 1) },
			`"limit": the published schema admits type number`},
		{"an unpublished handler parameter", "review-search.input.schema.json",
			func(s string) string { return strings.Replace(s, `"limit": {`, `"maxHits": {`, 1) },
			`the handler reads "limit" and the published schema does not name it`},
		{"the type of query dropped", "review-search.input.schema.json",
			func(s string) string {
				return strings.Replace(s, `"type": "string",
      "minLength"`, `"minLength"`, 1)
			},
			`"query": the published schema declares no type`},
	} {
		t.Run(c.name, func(t *testing.T) { // t.Run writes the spaces as _
			pv, err := mcpvalidate.New(mcpvalidate.SchemaFiles(publishedWith(t, c.file, c.edit), schemas.Dir), nil)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			err = mcpvalidatetest.CheckAgreement(ctx, pv, newServer(t, pv, demo.Options{Typed: true}), unread)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: want %q, got %v", c.name, c.want, err)
			}
		})
	}
	// The exclusion is held by equality: a stale or a missing entry fails.
	if err := mcpvalidatetest.CheckAgreement(ctx, v, typed, unreadWith("review.search", "agentId", "snapshotId")); err == nil || !strings.Contains(err.Error(), `review.search (mcp/review-search.input.schema.json): the published schema names "taskId" and the handler does not read it`) {
		t.Errorf("a key left out of the exclusion: %v", err)
	}
	if err := mcpvalidatetest.CheckAgreement(ctx, v, typed, unreadWith("knowledge.get", "agentId", "labels", "snapshotId", "taskId")); err == nil || !strings.Contains(err.Error(), "knowledge.get: the unread exclusion is [agentId labels snapshotId taskId]") {
		t.Errorf("a stale exclusion: %v", err)
	}
	// The exclusion is per tool: context keys excused for a tool that does
	// not compose the context are stale there.
	if err := mcpvalidatetest.CheckAgreement(ctx, v, typed, unreadWith("project.list", contextUnread...)); err == nil || !strings.Contains(err.Error(), "project.list: the unread exclusion is [agentId snapshotId taskId] but the published-and-unread properties are []") {
		t.Errorf("an exclusion on the wrong tool: %v", err)
	}
	if err := mcpvalidatetest.CheckAgreement(ctx, v, typed, unreadWith("no.such.tool")); err == nil || !strings.Contains(err.Error(), `names tool "no.such.tool"`) {
		t.Errorf("an exclusion for an unregistered tool: %v", err)
	}
	// A handler that grows a parameter the contract does not publish.
	grown := newServer(t, v, demo.Options{Typed: true})
	type grownIn struct {
		ProjectID string `json:"projectId"`
		Force     bool   `json:"force"`
	}
	mcp.AddTool(grown, &mcp.Tool{Name: "project.list"}, func(context.Context, *mcp.CallToolRequest, grownIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	if err := mcpvalidatetest.CheckAgreement(ctx, v, grown, unread); err == nil || !strings.Contains(err.Error(), `project.list (mcp/project-list.input.schema.json): the handler reads "force"`) {
		t.Errorf("a grown handler: %v", err)
	}
}

// TestDerivedSchemasCarryClosure records the measured fact that puts closure
// outside the relation from the other side than the seed: go-sdk v1.8.0
// infers additionalProperties: false for every struct input (the seed's Python
// SDK set it on none), yet only the published schema's closure is enforced,
// by the middleware, before the SDK's own validation.
func TestDerivedSchemasCarryClosure(t *testing.T) {
	v, err := mcpvalidate.New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, v, demo.Options{Typed: true})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	closed := 0
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := tool.InputSchema.(map[string]any); ok && m["additionalProperties"] == false {
			closed++
		}
	}
	if closed != 7 {
		t.Fatalf("%d of 7 derived schemas carry additionalProperties:false", closed)
	}
}
