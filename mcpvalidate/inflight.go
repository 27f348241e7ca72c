package mcpvalidate

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
)

// Budget is byte-weighted admission shared by every request of a process:
// the in-flight memory the front gate lets requests cost at once. Share one
// Budget between every front gate of a process so the ceiling is the
// process's.
//
// Queue discipline: two lanes. A small request (weight at most SmallWeight)
// takes the small lane's reserve, or general capacity when no large request
// is waiting; a large one waits in a FIFO for general capacity, and no small
// request takes general capacity past a waiting large one. So a stream of
// small requests cannot starve a large one (it is served in arrival order
// among large ones, and small ones stop taking what it waits for), and small
// requests never queue behind large ones (their reserve is theirs). A request
// waits at most its context's deadline; a waiting request holds nothing.
type inFlight struct {
	mu       sync.Mutex
	capacity int64 // general capacity
	reserve  int64 // the small lane's own capacity
	small    int64 // the most a request may weigh to use the small lane
	used     int64 // general capacity in use
	usedRes  int64 // reserve in use
	large    list.List
	smallQ   list.List
	peak     int64 // the most ever in use, both lanes
}

// waiter is one request waiting for budget.
type waiter struct {
	weight  int64
	ready   chan struct{} // closed when granted
	fromRes bool          // granted from the reserve
}

// errInFlightTimeout is what acquire returns when the context ends before the
// budget has room.
var errInFlightTimeout = errors.New("mcpvalidate: in-flight budget: no room before the deadline")

// newInFlight returns a budget of total bytes, of which reserve is kept for
// requests of at most small bytes each. It fails when the lanes cannot hold
// what they are for: reserve must hold one small request, and the rest must
// be positive.
func newInFlight(total, reserve, small int64) (*inFlight, error) {
	// Two ifs, not a switch: gremlins maps an if's condition to coverage,
	// not a switch case's, and these are bound checks.
	if small <= 0 || reserve < small {
		return nil, fmt.Errorf("mcpvalidate: budget reserve %d cannot hold one small request of %d bytes", reserve, small)
	}
	if total-reserve <= 0 {
		return nil, fmt.Errorf("mcpvalidate: budget of %d bytes leaves nothing beyond its %d-byte small reserve", total, reserve)
	}
	return &inFlight{capacity: total - reserve, reserve: reserve, small: small}, nil
}

// Total is the budget's size in bytes, both lanes.
func (b *inFlight) Total() int64 { return b.capacity + b.reserve }

// General is what a large request can ever be granted.
func (b *inFlight) General() int64 { return b.capacity }

// SmallWeight is the most a request may weigh to use the small lane.
func (b *inFlight) SmallWeight() int64 { return b.small }

// InUse is the weight granted and not yet released, both lanes.
func (b *inFlight) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used + b.usedRes
}

// Peak is the most weight ever in use at once.
func (b *inFlight) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// inFlightGrant is weight a Budget granted. Release gives it back: call it exactly
// once (a second call would give it back twice).
type inFlightGrant struct {
	b       *inFlight
	weight  int64
	fromRes bool
}

// Release returns the grant's weight to its budget and wakes the waiters it
// lets in. Releasing the zero inFlightGrant does nothing.
func (g inFlightGrant) Release() {
	if g.b == nil {
		return
	}
	b := g.b
	b.mu.Lock()
	g.releaseLocked()
	b.mu.Unlock()
}

// releaseLocked is Release with g's budget's mutex held.
func (g inFlightGrant) releaseLocked() {
	if g.b == nil {
		return
	}
	b := g.b
	if g.fromRes {
		b.usedRes -= g.weight
	} else {
		b.used -= g.weight
	}
	b.grantLocked()
}

// tryAcquire grants weight now if the discipline allows it, without
// waiting.
func (b *inFlight) tryAcquire(weight int64) (inFlightGrant, bool) {
	if weight <= 0 {
		return inFlightGrant{}, true
	}
	b.mu.Lock()
	fromRes, ok := b.tryLocked(weight)
	b.mu.Unlock()
	if !ok {
		return inFlightGrant{}, false
	}
	return inFlightGrant{b, weight, fromRes}, true
}

// acquire waits until weight bytes are granted or ctx ends. A weight above
// General (and above SmallWeight) can never be granted and fails at once.
func (b *inFlight) acquire(ctx context.Context, weight int64) (inFlightGrant, error) {
	if weight <= 0 {
		return inFlightGrant{}, nil
	}
	if weight > b.capacity && weight > b.small {
		return inFlightGrant{}, fmt.Errorf("mcpvalidate: a request weighing %d bytes exceeds the in-flight budget's %d", weight, b.capacity)
	}
	b.mu.Lock()
	if fromRes, ok := b.tryLocked(weight); ok {
		b.mu.Unlock()
		return inFlightGrant{b, weight, fromRes}, nil
	}
	w := &waiter{weight: weight, ready: make(chan struct{})}
	q := &b.large
	if weight <= b.small {
		q = &b.smallQ
	}
	el := q.PushBack(w)
	b.mu.Unlock()

	select {
	case <-w.ready:
		return inFlightGrant{b, weight, w.fromRes}, nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready: // granted meanwhile: give it back
			b.mu.Unlock()
			inFlightGrant{b, weight, w.fromRes}.Release()
		default:
			q.Remove(el)
			b.grantLocked() // a large head leaving may unblock small ones
			b.mu.Unlock()
		}
		return inFlightGrant{}, errInFlightTimeout
	}
}

// tryLocked grants weight now if the discipline allows it.
func (b *inFlight) tryLocked(weight int64) (fromRes, ok bool) {
	if weight <= b.small {
		if b.smallQ.Len() == 0 && b.usedRes+weight <= b.reserve {
			b.usedRes += weight
			b.notePeak()
			return true, true
		}
		if b.smallQ.Len() == 0 && b.large.Len() == 0 && b.used+weight <= b.capacity {
			b.used += weight
			b.notePeak()
			return false, true
		}
		return false, false
	}
	if b.large.Len() == 0 && b.used+weight <= b.capacity {
		b.used += weight
		b.notePeak()
		return false, true
	}
	return false, false
}

func (b *inFlight) notePeak() { b.peak = max(b.peak, b.used+b.usedRes) }

// grantLocked wakes waiters in order while they fit: the large FIFO's head
// first (nothing passes it in general capacity), then small waiters from
// the reserve, or from general capacity when no large request waits.
func (b *inFlight) grantLocked() {
	for b.large.Len() > 0 {
		w := b.large.Front().Value.(*waiter)
		if b.used+w.weight > b.capacity {
			break
		}
		b.used += w.weight
		b.notePeak()
		b.large.Remove(b.large.Front())
		close(w.ready)
	}
	for b.smallQ.Len() > 0 {
		w := b.smallQ.Front().Value.(*waiter)
		// An if chain, not a switch, so gremlins covers the conditions.
		if b.usedRes+w.weight <= b.reserve {
			b.usedRes += w.weight
			w.fromRes = true
		} else if b.large.Len() == 0 && b.used+w.weight <= b.capacity {
			b.used += w.weight
		} else {
			return
		}
		b.notePeak()
		b.smallQ.Remove(b.smallQ.Front())
		close(w.ready)
	}
}
