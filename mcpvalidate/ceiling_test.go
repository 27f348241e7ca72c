package mcpvalidate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// The ceilings are held against refusals built from the widest inputs each
// field can carry, measured with Error and AppendJSON, never against the
// arithmetic of MaxRefusalBytes or MaxFrontRefusalBytes themselves.

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
// the tool name cut, the gate's widest refusal, and MaxLeaves leaves of the
// widest pointer, keyword and limit with the largest elided count.
func widestRefusals(t *testing.T, fill string) []*Refusal {
	tool := widestCut(fill, ToolCut)
	out := []*Refusal{
		{Tool: tool, Stage: StageUnknownTool},
		{Tool: tool, Stage: StageDecode},
		{Tool: tool, Stage: StageInternal},
	}
	for _, g := range gateRefusals(t, fill) {
		out = append(out, &Refusal{Tool: tool, Stage: StageGate, Gate: g})
	}
	leaf := Leaf{Pointer: widestPointer(fill), Keyword: widestCut(fill, FragmentCut), Want: widestCut(fill, FragmentCut)}
	schema := &Refusal{Tool: tool, Stage: StageSchema, Elided: math.MaxInt}
	for range MaxLeaves {
		schema.Leaves = append(schema.Leaves, leaf)
	}
	return append(out, schema)
}

// TestTheWidestRefusalMeasured: the widest refusal fits MaxRefusalBytes and
// RefusalCeiling, and MaxRefusalBytes overstates it by at most the sign byte
// it reserves for a count.
func TestTheWidestRefusalMeasured(t *testing.T) {
	widest := 0
	for _, fill := range []string{"a", `"`} {
		for _, r := range widestRefusals(t, fill) {
			widest = max(widest, len(r.Error()))
		}
	}
	if n := MaxRefusalBytes(); widest > n || n-widest > 1 {
		t.Errorf("widest refusal measured %d bytes; MaxRefusalBytes %d", widest, n)
	}
	if widest > RefusalCeiling {
		t.Errorf("widest refusal measured %d bytes, past RefusalCeiling %d", widest, RefusalCeiling)
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
	for _, f := range []string{"envelope.go", "frontgate.go", "frontrefusal.go"} {
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

// TestTheWidestFrontRefusalMeasured: every name the front gate can answer
// with fits the cut its ceiling assumes, and the widest answer it can build —
// the longest id token, bound, envelope path with the widest pointer beneath
// it, limit, unit and offset, and the tool-result shape around the widest
// refusal — fits MaxFrontRefusalBytes.
func TestTheWidestFrontRefusalMeasured(t *testing.T) {
	bounds, units, paths := frontNames(t)
	for _, b := range bounds {
		if len(b) > maxBoundBytes {
			t.Errorf("bound %q is %d bytes, past maxBoundBytes %d", b, len(b), maxBoundBytes)
		}
	}
	for _, u := range units {
		if len(u) > maxUnitBytes {
			t.Errorf("unit %q is %d bytes, past maxUnitBytes %d", u, len(u), maxUnitBytes)
		}
	}
	for _, p := range paths {
		if n := len(p) + charge.MaxPointerBytes; n > maxWhereBytes {
			t.Errorf("envelope path %s with the widest pointer beneath it is %d bytes, past maxWhereBytes %d", p, n, maxWhereBytes)
		}
	}
	id := []byte(`"` + strings.Repeat(`\"`, (MaxIDBytes-2)/2) + `"`)
	if len(id) != MaxIDBytes {
		t.Fatalf("fixture: id of %d bytes", len(id))
	}
	widest := 0
	for _, fill := range []string{"a", `"`} {
		f := &FrontRefusal{Code: codeParseError, Bound: longest(bounds), Where: longest(paths) + widestPointer(fill),
			Limit: math.MaxInt64, Unit: longest(units), Offset: math.MaxInt, id: id}
		widest = max(widest, len(f.AppendJSON(nil)))
		for _, r := range widestRefusals(t, fill) {
			f := &FrontRefusal{Tool: r, id: id, complete: true}
			widest = max(widest, len(f.AppendJSON(nil)))
		}
	}
	if n := MaxFrontRefusalBytes(); widest > n {
		t.Errorf("widest front refusal measured %d bytes, past MaxFrontRefusalBytes %d", widest, n)
	}
	t.Logf("widest front refusal %d bytes; MaxFrontRefusalBytes %d", widest, MaxFrontRefusalBytes())
}
