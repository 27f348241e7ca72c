package charge_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// containerShapes are documents whose containers open and close in every order:
// siblings after a deep one, empty containers, objects in arrays and back.
var containerShapes = []struct{ name, doc string }{
	{"two_empty_arrays", `[[],[]]`},
	{"empty_then_deeper", `[[],[[]]]`},
	{"deeper_then_empty", `[[[]],[]]`},
	{"arrays_shallowing", `[[[[]]],[[]],[]]`},
	{"objects_deepening", `{"a":{},"b":{"c":{}}}`},
	{"objects_and_arrays", `{"a":{"b":{"c":[]}},"d":[1,[2,[3]]],"e":{}}`},
	{"objects_in_arrays", `[{"a":[{}]},{"b":[]},[[[1]]],"x"]`},
	{"four_empty_objects", `[{},{},{},{}]`},
	{"arrays_deepening", `{"a":[],"b":[],"c":[[]],"d":[[[]]]}`},
}

// TestReportAndBoundsOnEveryShape: for every shape, the report's nodes, depth
// and charge are the reference's, and each counted bound set to the
// document's own count admits it while one less refuses it where
// reference.FirstCrossing — an encoding/json token walk — says the bound is
// first passed. Depth is only right if every close takes a level back.
func TestReportAndBoundsOnEveryShape(t *testing.T) {
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		for _, shape := range containerShapes {
			t.Run(shape.name, func(t *testing.T) { reportAndBoundsOnAShape(t, d, shape.doc) })
		}
	})
}

// reportAndBoundsOnAShape is TestReportAndBoundsOnEveryShape for one dialect
// and one shape.
func reportAndBoundsOnAShape(t *testing.T, d charge.Dialect, doc string) {
	v, err := reference.Decode([]byte(doc))
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	rep, ref := check(t, gate(t, d, charge.DefaultLimits()), []byte(doc))
	want := charge.Report{Bytes: len(doc), Nodes: reference.Nodes(v), Depth: reference.Depth(v), Charge: reference.Charge(d, v)}
	if ref != nil || rep != want {
		t.Errorf("%s %s: report %+v (%v), reference %+v", d, doc, rep, ref, want)
		return
	}
	for _, c := range []struct {
		name string
		set  func(*charge.Limits, int)
		at   int
	}{
		{"nesting", func(l *charge.Limits, n int) { l.MaxParamsNesting = n }, want.Depth},
		{"nodes", func(l *charge.Limits, n int) { l.MaxParamsNodes = n }, want.Nodes},
		{"charge", func(l *charge.Limits, n int) { l.MaxParamsRenderedChars = int64(n) }, int(want.Charge)},
	} {
		if c.at < 2 {
			continue // a bound of 0 is not a valid limit
		}
		t.Run(c.name, func(t *testing.T) {
			for _, lim := range []int{c.at, c.at - 1} {
				l := charge.DefaultLimits()
				c.set(&l, lim)
				_, ref := check(t, gate(t, d, l), []byte(doc))
				cross, crossed := reference.FirstCrossing(d, []byte(doc), l)
				switch {
				case !crossed && ref != nil:
					t.Errorf("%s %s, %s %d: refused (%v), the reference crosses nothing", d, doc, c.name, lim, ref)
				case crossed && (ref == nil || ref.Bound != cross.Bound || ref.Offset < cross.Start || ref.Offset >= cross.End):
					t.Errorf("%s %s, %s %d: %v, the reference crosses %s in [%d,%d)", d, doc, c.name, lim, ref, cross.Bound, cross.Start, cross.End)
				case lim == c.at-1 && !crossed:
					t.Errorf("%s %s, %s %d: the reference crosses nothing one under the document's own count", d, doc, c.name, lim)
				}
			}
		})
	}
}

// TestGoNamesPointerBytesAtAndPastTheBudget: go charges a member name's ~ and
// / once more (they take two bytes in the error's pointer). A name that is
// the document's last charge is admitted under a budget of exactly its charge
// and refused one under at its closing quote — short names, long ones, and ~
// and / written raw or as \u escapes — at every chunk size.
func TestGoNamesPointerBytesAtAndPastTheBudget(t *testing.T) {
	long := strings.Repeat("a", 40)
	for _, c := range []struct{ name, doc string }{
		{"a_slash_b", `{"a/b":[]}`}, {"two_tildes", `{"~~":{}}`}, {"slash", `{"/":[]}`}, {"long_then_slash_tilde", `{"` + long + `/~":[]}`},
		{"u002f", `{"a\u002fb":[]}`}, {"u007e", `{"\u007e":{}}`}, {"second_name_a_slash_b", `{"x":1,"a/b":[]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := c.doc
			v, err := reference.Decode([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			full := reference.Charge(charge.Go, v)
			quote := strings.LastIndex(doc, `"`)
			for _, chunk := range chunkSizes {
				l := charge.DefaultLimits()
				l.MaxParamsRenderedChars = full
				g := gate(t, charge.Go, l)
				charge.SetChunkBytes(g, chunk)
				if rep, ref := check(t, g, []byte(doc)); ref != nil || rep.Charge != full {
					t.Errorf("chunk %d %s: under its own charge %d: %v, charged %d", chunk, doc, full, ref, rep.Charge)
				}
				l.MaxParamsRenderedChars--
				g = gate(t, charge.Go, l)
				charge.SetChunkBytes(g, chunk)
				if _, ref := check(t, g, []byte(doc)); ref == nil || ref.Bound != charge.BoundCharge || ref.Offset != quote {
					t.Errorf("chunk %d %s: under %d: %v, want a charge refusal at the closing quote, %d", chunk, doc, full-1, ref, quote)
				}
			}
		})
	}
}

// TestSiblingObjectsWithTheSameManyNames: two sibling objects, each past
// linearNames names, hold the same names. The second's lookups meet the
// first's slots in the name index, stale once the first closed (they name
// list positions the second is filling): its names are no duplicates, and a
// name it repeats itself is.
func TestSiblingObjectsWithTheSameManyNames(t *testing.T) {
	obj := func(n int, extra string) string {
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		return b.String() + extra + `"end":0}`
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for _, n := range []int{16, 17, 20, 40} {
			t.Run(fmt.Sprintf("%d_names", n), func(t *testing.T) {
				for _, w := range []struct{ name, wrap string }{{"in_an_array", `[%s,%s]`}, {"in_an_object", `{"a":%s,"b":%s}`}, {"nested", `[[%s],{"x":%s}]`}} {
					t.Run(w.name, func(t *testing.T) {
						wrap := w.wrap
						doc := fmt.Sprintf(wrap, obj(n, ""), obj(n, ""))
						if _, ref := check(t, g, []byte(doc)); ref != nil {
							t.Errorf("%s %d names twice, %s: %v", d, n, wrap, ref)
						}
						extra := fmt.Sprintf(`"k%d":0,`, n-1)
						second := obj(n, extra)
						doc = fmt.Sprintf(wrap, obj(n, ""), second)
						at := strings.Index(doc, second) + strings.Index(second, extra) // the repeated name's opening quote
						if _, ref := check(t, g, []byte(doc)); ref == nil || ref.Bound != charge.BoundDuplicateName || ref.Offset != at {
							t.Errorf("%s %d names, the second object repeating one, %s: %v, want duplicate-name at %d", d, n, wrap, ref, at)
						}
					})
				}
			})
		}
	})
}

// TestDuplicateNamesByTheirBytes: among an object's first names (compared by
// length, first eight bytes and the rest), a name of 1 to 20 bytes equal to an
// earlier one is refused at its opening quote and one differing from it in a
// single byte, at any place, is not — near the document's end (the names'
// words read byte by byte) and with room after them.
func TestDuplicateNamesByTheirBytes(t *testing.T) {
	g := gate(t, charge.Go, charge.DefaultLimits())
	for n := 1; n <= 20; n++ {
		name := strings.Repeat("k", n)
		for _, pad := range []string{"", "          "} {
			doc := `{"x":0,"` + name + `":1,"` + name + `":2` + pad + `}`
			if _, ref := check(t, g, []byte(doc)); ref == nil || ref.Bound != charge.BoundDuplicateName || ref.Offset != strings.LastIndex(doc, `"`+name) {
				t.Errorf("%s: %v, want a duplicate refused at its quote", doc, ref)
			}
			for p := range n {
				other := name[:p] + "j" + name[p+1:]
				doc := `{"x":0,"` + name + `":1,"` + other + `":2` + pad + `}`
				if _, ref := check(t, g, []byte(doc)); ref != nil {
					t.Errorf("%s: refused: %v", doc, ref)
				}
			}
		}
	}
}

// TestNamesPointerBytesEveryPlace: a name of 1 to 12 bytes with ~ or / at
// any one place (a short name's are counted in its first word, a longer
// one's word by word) is charged what the reference charges, in both
// dialects.
func TestNamesPointerBytesEveryPlace(t *testing.T) {
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for n := 1; n <= 12; n++ {
			for p := range n {
				for _, c := range []string{"~", "/"} {
					name := strings.Repeat("a", p) + c + strings.Repeat("b", n-p-1)
					doc := []byte(`{"` + name + `":0}`)
					v, err := reference.Decode(doc)
					if err != nil {
						t.Fatal(err)
					}
					if rep, ref := check(t, g, doc); ref != nil || rep.Charge != reference.Charge(d, v) {
						t.Errorf("%s: %s charged %d (%v), reference %d", d, doc, rep.Charge, ref, reference.Charge(d, v))
					}
				}
			}
		}
	})
}

// TestLiteralsEveryByte: true, false and null are admitted whole, alone and
// in an array, and refused as syntax with any one byte changed or cut off at
// any length.
func TestLiteralsEveryByte(t *testing.T) {
	g := gate(t, charge.Go, charge.DefaultLimits())
	for _, lit := range []string{"true", "false", "null"} {
		t.Run(lit, func(t *testing.T) {
			for _, doc := range []string{lit, "[" + lit + "]", `{"a":` + lit + "}"} {
				if _, ref := check(t, g, []byte(doc)); ref != nil {
					t.Errorf("%s refused: %v", doc, ref)
				}
			}
			for k := range len(lit) {
				for _, doc := range []string{lit[:k], lit[:k] + "x" + lit[k+1:], "[" + lit[:k] + "x" + lit[k+1:] + "]", "[" + lit[:k] + "]"} {
					if doc == "" || doc == "[]" { // k == 0: nothing left of the literal
						continue
					}
					if _, ref := check(t, g, []byte(doc)); ref == nil || ref.Bound != charge.BoundSyntax {
						t.Errorf("%s: %v, want a syntax refusal", doc, ref)
					}
				}
			}
		})
	}
}

// TestAnEscapedDuplicateIsRefusedAtItsQuote: a repeated name is refused at
// its own opening quote whichever spelling is escaped (the earlier, the later
// or both), in an object compared name by name and in one past linearNames
// (looked up by hash), in both dialects.
func TestAnEscapedDuplicateIsRefusedAtItsQuote(t *testing.T) {
	pairs := []struct {
		name string
		p    [2]string
	}{
		{"a_then_u0061", [2]string{`a`, `\u0061`}}, {"u0061_then_a", [2]string{`\u0061`, `a`}},
		{"u0061_then_u0061", [2]string{`\u0061`, `\u0061`}}, {"u00e9_then_é", [2]string{`\u00e9`, `é`}},
		{"é_then_u00e9", [2]string{`é`, `\u00e9`}}, {"ud83d_ude00_then_raw", [2]string{`\ud83d\ude00`, `😀`}},
		{"escaped_slash_then_slash", [2]string{`a\/b`, `a/b`}}, {"escaped_quote_then_u0022", [2]string{`x\"`, `x\u0022`}},
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for _, c := range pairs {
			p := c.p
			t.Run(c.name, func(t *testing.T) {
				for _, before := range []int{0, 1, 20} {
					var b strings.Builder
					b.WriteByte('{')
					for i := range before {
						fmt.Fprintf(&b, `"k%d":%d,`, i, i)
					}
					fmt.Fprintf(&b, `"%s":1, `, p[0])
					at := b.Len()
					fmt.Fprintf(&b, `"%s":2}`, p[1])
					doc := b.String()
					if _, ref := check(t, g, []byte(doc)); ref == nil || ref.Bound != charge.BoundDuplicateName || ref.Offset != at {
						t.Errorf("%s %s: %v, want duplicate-name at %d", d, doc, ref, at)
					}
				}
			})
		}
	})
}

// TestAnInnerMappedObjectKeepsTheOuterNames: an object past linearNames
// names whose member holds another such object still finds a repeat of its
// own earlier names after the inner one closes (the second object to be
// mapped shares the index and must not wipe the first's entries), at the
// repeated name's quote; a new name there is admitted.
func TestAnInnerMappedObjectKeepsTheOuterNames(t *testing.T) {
	names := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `"%s%d":%d,`, prefix, i, i)
		}
		return b.String()
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for _, n := range []int{16, 17, 40} {
			t.Run(fmt.Sprintf("%d_names", n), func(t *testing.T) {
				head := `{` + names("k", n) + `"in":{` + strings.TrimSuffix(names("j", n), ",") + `},`
				for _, repeat := range []string{"k0", fmt.Sprintf("k%d", n-1)} {
					doc := head + `"` + repeat + `":1}`
					if _, ref := check(t, g, []byte(doc)); ref == nil || ref.Bound != charge.BoundDuplicateName || ref.Offset != len(head) {
						t.Errorf("%s, %d names, %s repeated after the inner object: %v, want duplicate-name at %d", d, n, repeat, ref, len(head))
					}
				}
				if _, ref := check(t, g, []byte(head+`"new":1}`)); ref != nil {
					t.Errorf("%s, %d names, a new name after the inner object refused: %v", d, n, ref)
				}
			})
		}
	})
}
