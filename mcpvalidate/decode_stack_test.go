package mcpvalidate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// countNodes counts what the gate counts: on every tree case, and on the
// node-dense documents below, it is charge.Report.Nodes.
func TestCountNodesIsTheGatesCount(t *testing.T) {
	g := defaultGate(t)
	docs := append(treeCases(), zeros(keepStack+1, ""), members(keepStack+1))
	for _, c := range docs {
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
	}
}

// zeros is an array of n zeros followed by pad (white space).
func zeros(n int, pad string) string {
	return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]" + pad
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
		if got := stackCap(c.n, c.bytesLeft, c.perEntry, c.lim); got != c.want {
			t.Errorf("%s: stackCap(%d, %d, %d, %d) = %d, want %d", c.name, c.n, c.bytesLeft, c.perEntry, c.lim, got, c.want)
		}
	}
}

// A stack grows past keepStack once, straight to the entries the document
// can still put on it, and a decoder whose stack did is not pooled: at
// keepStack entries the stack is keepStack and goes back to the pool, one
// past it is exactly what the document holds (the byte bound is exact on
// `0,` elements and close on members), or the node count when the bytes
// left are white space, and the decoder is dropped.
func TestTreeGrowsAStackOnceToTheDocument(t *testing.T) {
	for _, c := range []struct {
		name           string
		doc            string
		nodes          int
		items, members int // the stacks' capacities after the decode
		pooled         bool
	}{
		{"keepStack elements", zeros(keepStack, ""), 0, keepStack, 0, true},
		{"keepStack+1 elements", zeros(keepStack+1, ""), 0, keepStack + 1, 0, false},
		{"keepStack+1 elements, their node count", zeros(keepStack+1, ""), keepStack + 2, keepStack + 1, 0, false},
		// 1,000 spaces after the array: the bytes left allow 500 more
		// elements, the node count 1.
		{"keepStack+1 elements, white space after", zeros(keepStack+1, strings.Repeat(" ", 1000)), 0, keepStack + 1 + 500, 0, false},
		{"keepStack+1 elements, white space after, their node count", zeros(keepStack+1, strings.Repeat(" ", 1000)), keepStack + 2, keepStack + 2, 0, false},
		{"keepStack+1 elements, white space after, a larger count", zeros(keepStack+1, strings.Repeat(" ", 1000)), keepStack + 100, keepStack + 100, 0, false},
		{"keepStack members", members(keepStack), 0, 0, keepStack, true},
		{"keepStack+1 members", members(keepStack + 1), 0, 0, keepStack + 1, false},
		// 100 spaces after the object: the bytes left allow 20 more
		// members, the node count (two a member) none.
		{"keepStack+1 members, white space after", members(keepStack+1) + strings.Repeat(" ", 100), 0, 0, keepStack + 1 + 20, false},
		{"keepStack+1 members, white space after, their node count", members(keepStack+1) + strings.Repeat(" ", 100), 1 + 2*(keepStack+1), 0, keepStack + 1, false},
	} {
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
	}
}

// A node-dense document costs its tree and one stack: an array of 16,384
// zeros allocates its boxed numbers, the array, and a stack of the array's
// size once (rounded up to a page), besides the stack's first keepStack
// entries (doubled up to keepStack); append's growth by a quarter at a time
// would allocate about five times the stack.
func TestTreeNodeDenseAllocation(t *testing.T) {
	const n = 16 * keepStack
	doc := []byte(zeros(n, ""))
	slot := uint64(16) // an interface, and a boxed number's string header
	tree(doc, 64, n+1) // the pool's decoder (if any) is dropped: the stack grew past keepStack
	got := allocated(func() { tree(doc, 64, n+1) })
	tree, stack, small := n*slot+n*slot, n*slot+8<<10, 2*keepStack*slot
	if got > tree+stack+small {
		t.Fatalf("%d zeros allocated %d bytes; the tree is %d, one stack at most %d, the stack's growth to keepStack at most %d", n, got, tree, stack, small)
	}
}

// A huge call does not leave a huge stack in the pool: after decoding a
// document with far more than keepStack elements open, no pooled decoder
// holds more than keepStack.
func TestTreeDoesNotPoolAHugeStack(t *testing.T) {
	doc := []byte(zeros(64*keepStack, ""))
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
	v := mustNew(t, WithSchemaFiles(openSet, "s"))
	decode := v.decode
	var got []int
	v.decode = func(doc []byte, nodes int) (any, error) {
		got = append(got, nodes)
		return decode(doc, nodes)
	}
	g, err := charge.NewGate(charge.Go, v.Limits())
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{"data":1}`, `{"data":` + zeros(3*keepStack, "") + `}`} {
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
	}
}
