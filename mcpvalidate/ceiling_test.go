package mcpvalidate

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// The ceilings are held against refusals built from the widest inputs each
// field can carry, measured with Error and AppendJSON, never against the
// arithmetic of maxRefusalTextBytes or MaxRefusalBytes themselves.

// widestPointer is the longest display pointer of a location whose member
// names are fill repeated (a over plain bytes, " over escapes).
func widestPointer(fill string) string {
	toks := make([]string, charge.PointerSegments+1)
	for i := range toks {
		toks[i] = strings.Repeat(fill, 3*charge.KeyCut)
	}
	return charge.DisplayPointer(toks)
}

// widestCut is s repeated past cut, display-escaped and cut as a refusal
// cuts a tool name, keyword or schema-side limit.
func widestCut(fill string, cut int) string {
	return charge.DisplayText(strings.Repeat(fill, 3*cut), cut)
}

// gateRefusals has a real gate refuse one document per charge bound (so each
// carries the bound's own text and unit), then widens limit, offset and
// pointer to their widest.
func gateRefusals(t *testing.T, fill string) []*charge.Refusal {
	t.Helper()
	l := charge.Limits{MaxSourceFileBytes: 1, MaxParamsRenderedChars: 8, MaxParamsNodes: 4,
		MaxParamsNesting: 2, MaxNumberBytes: 4, MaxNumberExponent: 9}
	seen := map[charge.Bound]*charge.Refusal{}
	for _, d := range charge.Dialects() {
		g, err := charge.NewGate(d, l)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range []string{`[`, "[\"\xff\"]", `["\udc00"]`, "[\"\x01\"]", `{"a":1,"a":2}`, `[] 1`,
			`[[[]]]`, `[1,2,3,4]`, `[12345]`, `[1e10]`, `["abcdefghi"]`} {
			if _, err := g.Check([]byte(doc)); err != nil {
				r := err.(*charge.Refusal)
				if prev := seen[r.Bound]; prev == nil || len(r.Unit) > len(prev.Unit) {
					seen[r.Bound] = r
				}
			}
		}
	}
	var out []*charge.Refusal
	for _, b := range charge.Bounds() {
		r := seen[b]
		if r == nil {
			t.Fatalf("no document reached bound %s", b)
		}
		w := *r
		w.Limit, w.Offset, w.Pointer = math.MaxInt64, math.MaxInt, widestPointer(fill)
		out = append(out, &w)
	}
	return out
}

// widestRefusals is, per stage, the widest refusal the templates can carry:
// the tool name cut, the gate's widest refusal, and maxLeaves leaves of the
// widest pointer, keyword and limit with the largest elided count.
func widestRefusals(t *testing.T, fill string) []*callRefusal {
	tool := widestCut(fill, toolCut)
	out := []*callRefusal{
		{Tool: tool, Stage: StageUnknownTool},
		{Tool: tool, Stage: stageDecode},
		{Tool: tool, Stage: StageInternal},
	}
	for _, g := range gateRefusals(t, fill) {
		out = append(out, &callRefusal{Tool: tool, Stage: StageGate, Gate: g})
	}
	leaf := leaf{Pointer: widestPointer(fill), Keyword: widestCut(fill, fragmentCut), Want: widestCut(fill, fragmentCut)}
	schema := &callRefusal{Tool: tool, Stage: StageSchema, Elided: math.MaxInt}
	for range maxLeaves {
		schema.Leaves = append(schema.Leaves, leaf)
	}
	return append(out, schema)
}

// TestTheWidestRefusalMeasured: the widest refusal fits maxRefusalTextBytes and
// refusalCeiling, and maxRefusalTextBytes overstates it by at most the sign byte
// it reserves for a count.
func TestTheWidestRefusalMeasured(t *testing.T) {
	widest := 0
	for _, fill := range []string{"a", `"`} {
		for _, r := range widestRefusals(t, fill) {
			widest = max(widest, len(r.Error()))
		}
	}
	if n := maxRefusalTextBytes(); widest > n || n-widest > 1 {
		t.Errorf("widest refusal measured %d bytes; maxRefusalTextBytes %d", widest, n)
	}
	if widest > refusalCeiling {
		t.Errorf("widest refusal measured %d bytes, past refusalCeiling %d", widest, refusalCeiling)
	}
}

// frontNames reads the front gate's sources for every bound name, unit and
// envelope path a front refusal can carry: the string literals given as a
// bound, unit or where (by field name or as refuse's arguments), returned by
// boundOf, or shaped like an envelope path.
func frontNames(t *testing.T) (bounds, units, paths []string) {
	t.Helper()
	pathLit := regexp.MustCompile(`^(/[A-Za-z_*]+)+/?$`)
	fset := token.NewFileSet()
	for _, f := range []string{"envelope.go", "frontgate.go", "frontrefusal.go", "sessions.go"} {
		file, err := parser.ParseFile(fset, filepath.Join(".", f), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		lit := func(e ast.Expr) (string, bool) {
			if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
				s, err := strconv.Unquote(b.Value)
				return s, err == nil
			}
			return "", false
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				k, _ := n.Key.(*ast.Ident)
				if s, ok := lit(n.Value); ok && k != nil {
					switch strings.ToLower(k.Name) {
					case "bound":
						bounds = append(bounds, s)
					case "unit":
						units = append(units, s)
					}
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "refuse" && len(n.Args) == 3 {
					if s, ok := lit(n.Args[1]); ok {
						bounds = append(bounds, s)
					}
				}
			case *ast.FuncDecl:
				if n.Name.Name == "boundOf" {
					ast.Inspect(n.Body, func(m ast.Node) bool {
						if r, ok := m.(*ast.ReturnStmt); ok {
							for _, e := range r.Results {
								if s, ok := lit(e); ok {
									bounds = append(bounds, s)
								}
							}
						}
						return true
					})
				}
			case *ast.BasicLit:
				if s, ok := lit(n); ok && pathLit.MatchString(s) && strings.HasPrefix(s, "/") {
					paths = append(paths, s)
				}
			}
			return true
		})
	}
	for _, b := range charge.Bounds() {
		bounds = append(bounds, b.String()) // a scan refusal carries the gate's bound
	}
	for _, r := range gateRefusals(t, "a") {
		units = append(units, r.Unit)
	}
	if len(bounds) < 10 || len(units) < 4 || len(paths) < 6 {
		t.Fatalf("the source scan found %d bounds, %d units, %d paths: it no longer reads the front gate", len(bounds), len(units), len(paths))
	}
	return bounds, units, paths
}

func longest(ss []string) string {
	l := ""
	for _, s := range ss {
		if len(s) > len(l) {
			l = s
		}
	}
	return l
}

// frontCodes reads the JSON-RPC error codes the front gate can answer with:
// the constants named code* in its sources.
func frontCodes(t *testing.T) []string {
	t.Helper()
	var codes []string
	fset := token.NewFileSet()
	for _, f := range []string{"envelope.go", "frontgate.go", "frontrefusal.go", "sessions.go"} {
		file, err := parser.ParseFile(fset, filepath.Join(".", f), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if v, ok := n.(*ast.ValueSpec); ok && len(v.Values) == len(v.Names) {
				for i, name := range v.Names {
					u, ok := v.Values[i].(*ast.UnaryExpr)
					if !strings.HasPrefix(name.Name, "code") || !ok || u.Op != token.SUB {
						continue
					}
					if lit, ok := u.X.(*ast.BasicLit); ok && lit.Kind == token.INT {
						codes = append(codes, "-"+lit.Value)
					}
				}
			}
			return true
		})
	}
	if len(codes) < 4 {
		t.Fatalf("the source scan found %d codes: it no longer reads the front gate", len(codes))
	}
	return codes
}

// jsonLen is how many bytes s takes as JSON string content, by encoding/json.
func jsonLen(t *testing.T, s string) int {
	t.Helper()
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(s); err != nil {
		t.Fatal(err)
	}
	return b.Len() - len("\"\"\n")
}

// TestTheWidestFrontRefusalMeasured: every name and code the front gate can
// answer with fits the cut its ceiling assumes and holds no byte JSON
// escapes; the widest answer of each shape it can build — a JSON-RPC error
// with the longest id, code, bound and unit (at their cuts), envelope path
// with the widest pointer beneath it, limit and offset; the tool-result shape
// around each stage's widest refusal — is exactly its ceiling, and
// MaxRefusalBytes is the wider of the two.
func TestTheWidestFrontRefusalMeasured(t *testing.T) {
	bounds, units, paths := frontNames(t)
	plain := func(what, s string, cut int) {
		if len(s) > cut || strings.ContainsAny(s, "\"\\") {
			t.Errorf("%s %q is %d bytes (cut %d) or holds a byte JSON escapes", what, s, len(s), cut)
		}
	}
	for _, b := range bounds {
		plain("bound", b, maxBoundBytes)
	}
	for _, u := range units {
		plain("unit", u, maxUnitBytes)
	}
	for _, p := range paths {
		plain("envelope path", p, maxPathBytes)
	}
	codes := frontCodes(t)
	for _, c := range codes {
		plain("code", c, maxCodeBytes)
	}
	code, err := strconv.ParseInt(longest(codes), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	id := []byte(`"` + strings.Repeat(`\"`, (maxIDBytes-2)/2) + `"`)
	if len(id) != maxIDBytes {
		t.Fatalf("fixture: id of %d bytes", len(id))
	}
	// Names at their cuts: the widest the ceiling admits (the real ones are
	// held within them above).
	atCut := func(s string, cut int) string { return s + strings.Repeat("x", cut-len(s)) }
	errWidest, toolWidest := 0, 0
	stageWidest := map[Stage]int{}
	for _, fill := range []string{"a", `"`} {
		f := &requestRefusal{Code: code, Bound: atCut(longest(bounds), maxBoundBytes), Where: longest(paths) + widestPointer(fill),
			Limit: math.MaxInt64, Unit: atCut(longest(units), maxUnitBytes), Offset: math.MaxInt, id: id}
		out := f.AppendJSON(nil)
		if !json.Valid(out) {
			t.Fatalf("not JSON: %s", out)
		}
		errWidest = max(errWidest, len(out))
		rs := widestRefusals(t, fill)
		// A schema refusal whose leaves are at the root.
		root := *rs[len(rs)-1]
		root.Leaves = slices.Clone(root.Leaves)
		for i := range root.Leaves {
			root.Leaves[i].Pointer = ""
		}
		for _, r := range append(rs, &root) {
			stageWidest[r.Stage] = max(stageWidest[r.Stage], jsonLen(t, r.Error()))
			f := &requestRefusal{Tool: r, id: id, complete: true}
			toolWidest = max(toolWidest, len(f.AppendJSON(nil)))
		}
	}
	for s := StageUnknownTool; s <= StageInternal; s++ {
		// The gate's own ceiling reserves a sign byte for its limit and its
		// offset, which are never negative.
		slack := 0
		if s == StageGate {
			slack = 2
		}
		if n := maxRefusalJSONBytes(s); stageWidest[s] == 0 || stageWidest[s] > n || n-stageWidest[s] > slack {
			t.Errorf("stage %s: widest refusal %d bytes as JSON; its ceiling %d (slack %d)", s, stageWidest[s], n, slack)
		}
	}
	if n := maxFrontErrorBytes(); errWidest != n {
		t.Errorf("widest error answer measured %d bytes; its ceiling %d", errWidest, n)
	}
	if n := maxFrontToolBytes(); toolWidest != n {
		t.Errorf("widest tool-result answer measured %d bytes; its ceiling %d", toolWidest, n)
	}
	if n := MaxRefusalBytes(); n != max(errWidest, toolWidest) {
		t.Errorf("widest front refusal measured %d bytes; MaxRefusalBytes %d", max(errWidest, toolWidest), n)
	}
	t.Logf("widest front refusal: error %d bytes, tool result %d; MaxRefusalBytes %d", errWidest, toolWidest, MaxRefusalBytes())
}

// TestAppendStringEveryByte: appendString writes " and \ escaped, printable
// ASCII as itself and every other byte as '?', so no byte grows past two and
// the answer stays JSON whatever a display field holds.
func TestAppendStringEveryByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		got := string(appendString(nil, string([]byte{byte(c)})))
		var want string
		switch {
		case c == '"' || c == '\\':
			want = `"\` + string(rune(c)) + `"`
		case c >= ' ' && c <= '~':
			want = `"` + string(rune(c)) + `"`
		default:
			want = `"?"`
		}
		var back string
		if got != want || json.Unmarshal([]byte(got), &back) != nil {
			t.Errorf("byte %#02x: %s, want %s", c, got, want)
		}
	}
}
