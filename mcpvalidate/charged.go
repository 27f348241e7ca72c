package mcpvalidate

import (
	"bytes"
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// chargedArgs hands the front gate's verdict on a tools/call's arguments to
// the middleware of the same request, so that each byte of the arguments is
// charged once on the request path. The SDK hands the middleware a copy of
// the arguments (its decoder copies a raw value) and no context of the HTTP
// request, so the verdict cannot ride on the request: it is kept here, keyed
// by the arguments' bytes, while the front gate's request is in flight.
//
// Why a hit is the middleware's own verdict: the front gate charges the
// arguments with the validator's own gate (scanEnvelope is given v.gate),
// only an admitted value is registered, and a lookup succeeds only on bytes
// equal to the registered ones, compared whole. The gate's verdict is a
// function of the bytes and the gate alone, so a hit from any request, this
// one or a concurrent one with the same arguments, is what v.gate.Check would
// say (TestChargedVerdictIsTheGates and the front gate's differential fuzz
// target in frontgate_fuzz_test.go hold it). A miss, whatever its cause (no
// front gate, other whitespace), charges as before.
//
// An entry aliases the front gate's pooled body buffer; the front gate
// removes it before the buffer goes back to the pool, so no entry outlives
// the bytes it names.
type chargedArgs struct {
	live atomic.Int64 // entries registered: zero lets a lookup skip hashing
	seed maphash.Seed
	mu   sync.Mutex
	m    map[uint64][]*chargedEntry
}

type chargedEntry struct {
	args  []byte
	nodes int
}

func newChargedArgs() *chargedArgs {
	return &chargedArgs{seed: maphash.MakeSeed(), m: map[uint64][]*chargedEntry{}}
}

// add registers args, which v.gate admitted with nodes nodes, until the
// returned func is called. A nil *chargedArgs registers nothing (the
// benchmark's charged-twice control).
func (c *chargedArgs) add(args []byte, nodes int) (remove func()) {
	if c == nil {
		return func() {}
	}
	e := &chargedEntry{args: args, nodes: nodes}
	h := maphash.Bytes(c.seed, args)
	c.mu.Lock()
	c.m[h] = append(c.m[h], e)
	c.mu.Unlock()
	c.live.Add(1)
	return func() {
		c.mu.Lock()
		list := c.m[h]
		for i, x := range list {
			if x == e {
				list[i] = list[len(list)-1]
				list[len(list)-1] = nil
				list = list[:len(list)-1]
				break
			}
		}
		if len(list) == 0 {
			delete(c.m, h)
		} else {
			c.m[h] = list
		}
		c.mu.Unlock()
		c.live.Add(-1)
	}
}

// nodes returns the node count the gate admitted args with, when bytes equal
// to args are registered.
func (c *chargedArgs) nodes(args []byte) (int, bool) {
	if c == nil || c.live.Load() == 0 {
		return 0, false
	}
	h := maphash.Bytes(c.seed, args)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.m[h] {
		if bytes.Equal(e.args, args) {
			return e.nodes, true
		}
	}
	return 0, false
}
