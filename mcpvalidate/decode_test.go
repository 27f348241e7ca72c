package mcpvalidate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/theurian/boundlab/charge"
)

func TestTreeEqualsEncodingJSONAndSonic(t *testing.T) {
	g := defaultGate(t)
	for i, c := range treeCases() {
		t.Run(docName(i, c), func(t *testing.T) {
			if _, err := g.Check([]byte(c)); err != nil {
				t.Fatalf("the gate refuses case %.60q: %v", c, err)
			}
			sameTree(t, []byte(c), charge.DefaultLimits().MaxParamsNesting)
		})
	}
}

// Every Unicode scalar value, written as a \u escape (lower and upper case
// hex, astral ones as surrogate pairs) and, where JSON allows, raw: the
// decoder agrees with encoding/json on all of them.
func TestTreeEveryScalarValue(t *testing.T) {
	l := charge.DefaultLimits()
	l.MaxParamsRenderedChars = 64 << 20 // every code point in one document
	g, err := charge.NewGate(charge.Go, l)
	if err != nil {
		t.Fatal(err)
	}
	var lower, upper, raw bytes.Buffer
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xd800 && r < 0xe000 {
			continue
		}
		var u string
		if r < 0x10000 {
			u = fmt.Sprintf(`\u%04x`, r)
		} else {
			s := r - 0x10000
			u = fmt.Sprintf(`\u%04x\u%04x`, 0xd800+s>>10, 0xdc00+s&0x3ff)
		}
		lower.WriteString(u)
		upper.WriteString(strings.ToUpper(u[:2]) + strings.ToUpper(u[2:]))
		if r >= 0x20 && r != '"' && r != '\\' {
			raw.WriteRune(r)
		}
	}
	upperDoc := bytes.ReplaceAll(upper.Bytes(), []byte(`\U`), []byte(`\u`))
	doc := []byte(`["` + lower.String() + `","` + string(upperDoc) + `","` + raw.String() + `"]`)
	if _, err := g.Check(doc); err != nil {
		t.Fatalf("the gate refuses every scalar value: %v", err)
	}
	sameTree(t, doc, l.MaxParamsNesting)
}

// Nesting at the bound decodes; one past it is refused by the decoder as by
// the gate (which refuses it first), so the decoder's recursion is bounded
// whatever it is handed.
func TestTreeNestingBound(t *testing.T) {
	nest := func(n int) map[string][]byte {
		return map[string][]byte{
			"arrays":  []byte(strings.Repeat("[", n) + "0" + strings.Repeat("]", n)),
			"objects": []byte(strings.Repeat(`{"a":`, n) + "0" + strings.Repeat("}", n)),
		}
	}
	for _, depth := range []int{1, 2, 64, 997} {
		l := charge.DefaultLimits()
		l.MaxParamsNesting = depth
		g, err := charge.NewGate(charge.Go, l)
		if err != nil {
			t.Fatal(err)
		}
		for kind, doc := range nest(depth) {
			if _, err := g.Check(doc); err != nil {
				t.Fatalf("%s at depth %d: the gate refuses: %v", kind, depth, err)
			}
			sameTree(t, doc, depth)
		}
		for kind, doc := range nest(depth + 1) {
			if _, err := g.Check(doc); err == nil {
				t.Errorf("%s at depth %d+1: the gate admits", kind, depth)
			}
			if v, err := tree(doc, depth, 0); err != errNotDecoded || v != nil {
				t.Errorf("%s at depth %d+1: tree gave %v, %v", kind, depth, v, err)
			}
		}
	}
}

// Documents the gate refuses and the decoder cannot read are refused by it
// with errNotDecoded — no panic, no loop, no value.
func TestTreeRefusesWhatItCannotRead(t *testing.T) {
	g := defaultGate(t)
	for i, c := range []string{
		"", " ", "{", "[", "}", "]", ",", ":", "x", `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `{"a":1,}`,
		`[1,`, `[1 2]`, `[1,]`, `{"a" 1}`, `{1:2}`, `{"a":1 "b":2}`, `tru`, `nul`, `fals`, `truex`,
		`"abc`, `"\`, `"\"`, `"a\"`, `"\x"`, `"\u12"`, `"\u12g4"`, `"\ud800"`, `"\ud800x"`,
		`"\ud800\u0041"`, `"\udc00\ud800"`, `"\udc00"`, `{} x`, `[]]`, `{}}`, `"a" "b"`,
		`[tru`, `[t`, `{"a":nul`, `{"a":[fals`, // a literal cut by the end of the document, after its first byte
		`[1`, `[[1]`, `{"a":[1`, `[""`, // an array cut after an element
	} {
		t.Run(docName(i, c), func(t *testing.T) {
			if _, err := g.Check([]byte(c)); err == nil {
				t.Fatalf("the gate admits %q", c)
			}
			if v, err := tree([]byte(c), 64, 0); err != errNotDecoded || v != nil {
				t.Errorf("%q: tree gave %#v, %v; want errNotDecoded", c, v, err)
			}
		})
	}
}

// A string without escapes, a name and a number share the document's bytes;
// a string with escapes has its own.
func TestTreeAliasesOnlyUnescapedText(t *testing.T) {
	doc := []byte(`{"name":"value","esc":"v\u00e9","n":-12.5e3}`)
	v, err := tree(doc, 64, 0)
	if err != nil {
		t.Fatal(err)
	}
	inDoc := func(s string) bool {
		p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(&doc[0]))
		return p >= lo && p+uintptr(len(s)) <= lo+uintptr(len(doc))
	}
	m := v.(map[string]any)
	for k := range m {
		if !inDoc(k) {
			t.Errorf("name %q is a copy", k)
		}
	}
	if s := m["name"].(string); !inDoc(s) {
		t.Errorf("value %q is a copy", s)
	}
	if n := m["n"].(json.Number); !inDoc(string(n)) {
		t.Errorf("number %q is a copy", n)
	}
	if s := m["esc"].(string); s != "vé" || inDoc(s) {
		t.Errorf("escaped value %q: in the document %v", s, inDoc(s))
	}
}

// allocated is the fewest bytes f allocated over ten runs. TotalAlloc is the
// whole process's: a goroutine another test left running (a server's, the
// runtime's) can allocate during a run, and three runs were once not enough
// to find one it did not (176 bytes over).
func allocated(f func()) uint64 {
	best := ^uint64(0)
	for range 10 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		best = min(best, after.TotalAlloc-before.TotalAlloc)
	}
	return best
}

// An escaped string is allocated at its decoded length, not its escaped one:
// 512 KiB of U+00E9 written as 1.5 MiB of \u00e9 costs 512 KiB and the
// interface that holds it.
func TestTreeAllocatesAnEscapedStringAtItsDecodedLength(t *testing.T) {
	const n = 1 << 18
	doc := []byte(`"` + strings.Repeat(`\u00e9`, n) + `"`)
	var v any
	got := allocated(func() { v, _ = tree(doc, 64, 0) })
	if s, _ := v.(string); s != strings.Repeat("é", n) {
		t.Fatal("decoded wrong")
	}
	if want := uint64(2*n + 16); got != want {
		t.Fatalf("decoding %d bytes of escapes into %d allocated %d bytes, want %d", len(doc), 2*n, got, want)
	}
}

// Maps and slices are made once at their final size: an array's capacity is
// its length, and an object of 1,000 members costs what a map made with that
// hint and filled costs, plus nothing.
func TestTreeSizesContainersExactly(t *testing.T) {
	const n = 1000
	var arr, obj strings.Builder
	names := make([]string, n)
	for i := range n {
		sep := ","
		if i == 0 {
			sep = ""
		}
		names[i] = fmt.Sprintf("k%d", i)
		fmt.Fprintf(&arr, "%s%d", sep, i)
		fmt.Fprintf(&obj, `%s"%s":%d`, sep, names[i], i)
	}
	v, err := tree([]byte("["+arr.String()+"]"), 64, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a := v.([]any); len(a) != n || cap(a) != n {
		t.Fatalf("array of %d: len %d cap %d", n, len(a), cap(a))
	}
	doc := []byte("{" + obj.String() + "}")
	got := allocated(func() { tree(doc, 64, 0) })
	want := allocated(func() {
		m := make(map[string]any, n)
		for _, k := range names {
			m[k] = json.Number(k[1:]) // boxed like the tree's numbers
		}
		sink = m // on the heap, as the tree's map is
	})
	if got != want {
		t.Fatalf("an object of %d members allocated %d bytes; a map made with its size and filled, %d", n, got, want)
	}
}

var sink any

// The pooled stacks hold no reference into a decoded document once the
// decode is over, whether it succeeded or stopped half way.
func TestTreeLeavesNothingOnItsStacks(t *testing.T) {
	clean := func(d *decoder) bool {
		for _, m := range d.members[:cap(d.members)] {
			if m != (member{}) {
				return false
			}
		}
		for _, it := range d.items[:cap(d.items)] {
			if it != nil {
				return false
			}
		}
		return d.doc == nil
	}
	for i, c := range []string{
		`{"a":[1,"x",{"b":["y","z"]}],"c":"w"}`,
		`{"a":[1,"x",{"b":["y","z"]}],"c":"w"`, // cut short: the stacks still hold entries
	} {
		t.Run([]string{"whole", "cut_short"}[i], func(t *testing.T) {
			d := new(decoder)
			d.decode([]byte(c), 64, 0)
			if cap(d.members) == 0 || cap(d.items) == 0 {
				t.Fatalf("%s: the stacks were not used", c)
			}
			d.release()
			if !clean(d) {
				t.Errorf("%s: the stacks still reference the document after release", c)
			}
		})
	}
}

// A decoder goes back to the pool with stacks of up to keepStack entries, and
// not with larger ones.
func TestTreePoolsOnlySmallStacks(t *testing.T) {
	for _, c := range []struct {
		name           string
		members, items int
		pooled         bool
	}{
		{"keepStack_each", keepStack, keepStack, true},
		{"keepStack-plus-1_members", keepStack + 1, 0, false},
		{"keepStack-plus-1_items", 0, keepStack + 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &decoder{members: make([]member, 0, c.members), items: make([]any, 0, c.items)}
			if got := d.release(); got != c.pooled {
				t.Errorf("stacks of %d members and %d items: pooled %v, want %v", c.members, c.items, got, c.pooled)
			}
		})
	}
}

// Closing a container gives its level back: many sibling containers, empty
// and not, objects and arrays, decode under a nesting bound of 2 however
// many there are, and equal encoding/json's value.
func TestTreeSiblingsDoNotDeepen(t *testing.T) {
	for _, sib := range []string{`{}`, `[]`, `{"a":1}`, `[1]`} {
		t.Run(caseName(sib), func(t *testing.T) {
			doc := "[" + strings.TrimSuffix(strings.Repeat(sib+",", 100), ",") + "]"
			got, err := tree([]byte(doc), 2, 0)
			if err != nil {
				t.Fatalf("100 siblings %s under a nesting bound of 2: %v", sib, err)
			}
			var want any
			dec := json.NewDecoder(strings.NewReader(doc))
			dec.UseNumber()
			if err := dec.Decode(&want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("100 siblings %s: tree and encoding/json differ", sib)
			}
		})
	}
}
