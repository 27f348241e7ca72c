package mcpvalidate

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// countNodes counts what the gate counts: on every tree case, and on the
// node-dense documents below, it is charge.Report.Nodes.
func TestCountNodesIsTheGatesCount(t *testing.T) {
	g := defaultGate(t)
	docs := append(treeCases(), zeros(keepStack+1, ""), members(keepStack+1))
	for i, c := range docs {
		t.Run(docName(i, c), func(t *testing.T) {
			rep, err := g.Check([]byte(c))
			if err != nil {
				t.Fatalf("the gate refuses %.60q: %v", c, err)
			}
			want, err := stdTree([]byte(c))
			if err != nil {
				t.Fatal(err)
			}
			if got := countNodes(want); got != rep.Nodes {
				t.Errorf("%.60q: countNodes %d, the gate counted %d", c, got, rep.Nodes)
			}
		})
	}
}

// zeros is an array of n zeros followed by pad (white space).
func zeros(n int, pad string) string {
	return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]" + pad
}

// nestedZeros is k elements open at once: an array of k-1 zeros after one
// zero of an enclosing array, then pad.
func nestedZeros(k int, pad string) string {
	return "[0," + zeros(k-1, "") + "]" + pad
}

// members is an object of n members "k0":0, "k1":0, ...
func members(n int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":0`, i)
	}
	return b.String() + "}"
}

func TestStackCap(t *testing.T) {
	for _, c := range []struct {
		name                        string
		n, bytesLeft, perEntry, lim int
		want                        int
	}{
		{"empty: starts at minStack", 0, 1 << 20, 2, 0, minStack},
		{"small: doubles", minStack, 1 << 20, 2, 0, 2 * minStack},
		{"half of keepStack: doubles to it", keepStack / 2, 1 << 20, 2, 0, keepStack},
		{"one below keepStack: no further than keepStack", keepStack - 1, 1 << 20, 2, 0, keepStack},
		{"small, a node count given: still doubles", minStack, 1 << 20, 2, minStack + 1, 2 * minStack},
		{"at keepStack, nothing left: the one entry", keepStack, 0, 2, 0, keepStack + 1},
		{"at keepStack: one entry per perEntry bytes left", keepStack, 101, 2, 0, keepStack + 1 + 50},
		{"at keepStack, members: five bytes each", keepStack, 101, 5, 0, keepStack + 1 + 20},
		{"a node count below the byte bound", keepStack, 1000, 2, keepStack + 7, keepStack + 7},
		{"a node count leaving room for the entry pushed", keepStack, 1000, 2, keepStack + 1, keepStack + 1},
		{"a node count leaving no room: not used", keepStack, 1000, 2, keepStack, keepStack + 1 + 500},
		{"a node count above the byte bound: not used", keepStack, 1000, 2, keepStack + 502, keepStack + 1 + 500},
		{"zero: not known", 4 * keepStack, 1000, 2, 0, 4*keepStack + 1 + 500},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			if got := stackCap(c.n, c.bytesLeft, c.perEntry, c.lim); got != c.want {
				t.Errorf("%s: stackCap(%d, %d, %d, %d) = %d, want %d", c.name, c.n, c.bytesLeft, c.perEntry, c.lim, got, c.want)
			}
		})
	}
}

// A stack grows past keepStack once, straight to the entries the document
// can still put on it, and a decoder whose stack did is not pooled: at
// keepStack entries the stack is keepStack and goes back to the pool; one
// past it, the stack is what the bytes left allow (exact on members, one
// over on elements, where the two closing brackets could be one more `,0`),
// or the node count when that is lower (the bytes left are white space),
// and the decoder is dropped. The elements are those of an array after one
// element of an enclosing one, so that the array copies them and the stack
// stays the decoder's (ownsStack).
func TestTreeGrowsAStackOnceToTheDocument(t *testing.T) {
	for _, c := range []struct {
		name           string
		doc            string
		nodes          int
		items, members int // the stacks' capacities after the decode
		pooled         bool
	}{
		{"keepStack elements", nestedZeros(keepStack, ""), 0, keepStack, 0, true},
		{"keepStack+1 elements", nestedZeros(keepStack+1, ""), 0, keepStack + 2, 0, false},
		{"keepStack+1 elements, their node count", nestedZeros(keepStack+1, ""), keepStack + 3, keepStack + 2, 0, false},
		{"keepStack+1 elements, a count of the elements alone", nestedZeros(keepStack+1, ""), keepStack + 1, keepStack + 1, 0, false},
		// 1,000 spaces after: the bytes left allow 501 more elements,
		// the node count (the two arrays and keepStack+1 zeros) two.
		{"keepStack+1 elements, white space after", nestedZeros(keepStack+1, strings.Repeat(" ", 1000)), 0, keepStack + 2 + 500, 0, false},
		{"keepStack+1 elements, white space after, their node count", nestedZeros(keepStack+1, strings.Repeat(" ", 1000)), keepStack + 3, keepStack + 3, 0, false},
		{"keepStack+1 elements, white space after, a larger count", nestedZeros(keepStack+1, strings.Repeat(" ", 1000)), keepStack + 100, keepStack + 100, 0, false},
		{"keepStack members", members(keepStack), 0, 0, keepStack, true},
		{"keepStack+1 members", members(keepStack + 1), 0, 0, keepStack + 1, false},
		// 100 spaces after the object: the bytes left allow 20 more
		// members, the node count (two a member) none.
		{"keepStack+1 members, white space after", members(keepStack+1) + strings.Repeat(" ", 100), 0, 0, keepStack + 1 + 20, false},
		{"keepStack+1 members, white space after, their node count", members(keepStack+1) + strings.Repeat(" ", 100), 1 + 2*(keepStack+1), 0, keepStack + 1, false},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			d := new(decoder)
			if _, ok := d.decode([]byte(c.doc), 64, c.nodes); !ok {
				t.Fatalf("%s: not decoded", c.name)
			}
			if cap(d.items) != c.items || cap(d.members) != c.members {
				t.Errorf("%s: stacks of %d elements and %d members, want %d and %d", c.name, cap(d.items), cap(d.members), c.items, c.members)
			}
			if got := d.release(); got != c.pooled {
				t.Errorf("%s: pooled %v, want %v", c.name, got, c.pooled)
			}
		})
	}
}

// A node-dense document costs its tree and nothing beside: an array of
// 16,384 zeros allocates its boxed numbers and a stack of the array's size
// once (rounded up to a page), which becomes the array (ownsStack), besides
// the stack's first keepStack entries (doubled up to keepStack). A copy of
// the array would add its size again; append's growth by a quarter at a
// time about five times the stack.
func TestTreeNodeDenseAllocation(t *testing.T) {
	const n = 16 * keepStack
	doc := []byte(zeros(n, ""))
	slot := uint64(16) // an interface, and a boxed number's string header
	var v any
	got := allocated(func() { v, _ = tree(doc, 64, n+1) })
	if a, _ := v.([]any); len(a) != n {
		t.Fatalf("decoded %T of %d elements, want %d", v, len(a), n)
	}
	numbers, array, small := n*slot, n*slot+8<<10, 2*keepStack*slot
	if got > numbers+array+small {
		t.Fatalf("%d zeros allocated %d bytes; the numbers are %d, the array at most %d, the stack's growth to keepStack at most %d", n, got, numbers, array, small)
	}
}

func TestOwnsStack(t *testing.T) {
	for _, c := range []struct {
		name       string
		base, n, c int
		want       bool
	}{
		{"pooled_stays_the_pools", 0, keepStack, keepStack, false},
		{"grown_past_keepStack_filled", 0, keepStack + 1, keepStack + 1, true},
		{"above_an_enclosing_arrays_elements", 1, keepStack + 1, keepStack + 1, false},
		{"pooled_half_filled", 0, keepStack / 2, keepStack, false},
		{"an_eighth_left_over", 0, 8 * keepStack, 9 * keepStack, true},
		{"more_than_an_eighth_left_over", 0, 8*keepStack - 1, 9 * keepStack, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ownsStack(c.base, c.n, c.c); got != c.want {
				t.Errorf("ownsStack(%d, %d, %d) = %v, want %v", c.base, c.n, c.c, got, c.want)
			}
		})
	}
}

// An array that fills a stack grown past keepStack is that stack: the
// decoder keeps no hold on it (a new stack for the next element), the
// slice's capacity is its length, and the tree is encoding/json's. An array
// that leaves more than an eighth of the stack, sits on an enclosing array's
// elements, or fits in keepStack is copied, and the stack stays the
// decoder's.
func TestTreeArrayTakesItsOwnStack(t *testing.T) {
	pad := strings.Repeat(" ", 1000)
	for _, c := range []struct {
		name  string
		doc   string
		owned [2]bool // with the node count not known, and known
	}{
		{"keepStack+1 elements", zeros(keepStack+1, ""), [2]bool{true, true}},
		{"keepStack elements", zeros(keepStack, ""), [2]bool{false, false}},
		// The bytes left allow 500 more elements, the node count none.
		{"keepStack+1 elements, white space after", zeros(keepStack+1, pad), [2]bool{false, true}},
		{"first in an array", "[" + zeros(keepStack+1, "") + ",1]", [2]bool{true, true}},
		{"after an element of an enclosing array", "[1," + zeros(keepStack+1, "") + "]", [2]bool{false, false}},
		{"a member's value, another array after", `{"a":` + zeros(keepStack+1, "") + `,"b":[1,2]}`, [2]bool{true, true}},
	} {
		t.Run(caseName(c.name), func(t *testing.T) {
			want, err := stdTree([]byte(c.doc))
			if err != nil {
				t.Fatal(err)
			}
			for i, nodes := range []int{0, countNodes(want)} {
				d := new(decoder)
				got, ok := d.decode([]byte(c.doc), 64, nodes)
				if !ok {
					t.Fatalf("%s: not decoded", c.name)
				}
				big := bigArray(got)
				if cap(big) != len(big) {
					t.Errorf("%s: the array's capacity is %d for %d elements", c.name, cap(big), len(big))
				}
				stack := d.items[:cap(d.items)]
				shared := len(stack) > 0 && &stack[0] == &big[:1][0]
				if shared {
					t.Errorf("%s: the decoder's stack still holds the array", c.name)
				}
				// Past keepStack a stack the array did not take stays the
				// decoder's; one it took leaves the decoder none or a new small one.
				if owned := cap(d.items) < keepStack; owned != c.owned[i] {
					t.Errorf("%s (%d nodes): the decoder holds a stack of %d elements; want the array to own its stack: %v", c.name, nodes, cap(d.items), c.owned[i])
				}
				d.release()
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: tree and encoding/json differ", c.name)
				}
			}
			sameTree(t, []byte(c.doc), 64)
		})
	}
}

// bigArray is the longest array in v.
func bigArray(v any) []any {
	var best []any
	switch x := v.(type) {
	case []any:
		best = x
		for _, e := range x {
			if b := bigArray(e); len(b) > len(best) {
				best = b
			}
		}
	case map[string]any:
		for _, e := range x {
			if b := bigArray(e); len(b) > len(best) {
				best = b
			}
		}
	}
	return best
}

// A huge call does not leave a huge stack in the pool: after decoding a
// document with far more than keepStack elements open, no pooled decoder
// holds more than keepStack.
func TestTreeDoesNotPoolAHugeStack(t *testing.T) {
	doc := []byte(zeros(8*keepStack, ""))
	for range 4 {
		if _, err := tree(doc, 64, 0); err != nil {
			t.Fatal(err)
		}
		var got []*decoder
		for range 8 {
			d := decoders.Get().(*decoder)
			got = append(got, d)
			if cap(d.items) > keepStack || cap(d.members) > keepStack {
				t.Fatalf("the pool holds a decoder with stacks of %d elements and %d members", cap(d.items), cap(d.members))
			}
		}
		for _, d := range got {
			decoders.Put(d)
		}
	}
}

// Check hands the decoder the gate's count of the arguments' nodes.
func TestCheckDecodesWithTheGatesNodeCount(t *testing.T) {
	v := mustNew(t, SchemaFiles(openSet, "s"), nil)
	decode := v.decode
	var got []int
	v.decode = func(doc []byte, nodes int) (any, error) {
		got = append(got, nodes)
		return decode(doc, nodes)
	}
	g, err := charge.NewGate(charge.Go, v.cfg.limits)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, args string }{
		{"one_member", `{"data":1}`},
		{"3keepStack_zeros", `{"data":` + zeros(3*keepStack, "") + `}`},
	} {
		args := c.args
		t.Run(c.name, func(t *testing.T) {
			got = got[:0]
			rep, err := g.Check([]byte(args))
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Check(context.Background(), "open", []byte(args)); err != nil {
				t.Fatalf("%.40s: %v", args, err)
			}
			if len(got) != 1 || got[0] != rep.Nodes {
				t.Errorf("%.40s: decoded with node counts %v, the gate counted %d", args, got, rep.Nodes)
			}
		})
	}
}
