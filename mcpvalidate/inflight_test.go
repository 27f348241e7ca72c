package mcpvalidate

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func budget(t *testing.T, total, reserve, small int64) *inFlight {
	t.Helper()
	b, err := newInFlight(total, reserve, small)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBudgetConstruction(t *testing.T) {
	if _, err := newInFlight(100, 10, 10); err != nil {
		t.Fatalf("reserve holding exactly one small request: %v", err)
	}
	if _, err := newInFlight(100, 9, 10); err == nil {
		t.Fatal("a reserve smaller than one small request must fail")
	}
	if _, err := newInFlight(10, 10, 10); err == nil {
		t.Fatal("a budget that is all reserve must fail")
	}
	if _, err := newInFlight(11, 10, 10); err != nil {
		t.Fatalf("one byte of general capacity: %v", err)
	}
	if _, err := newInFlight(2, 1, 1); err != nil {
		t.Fatalf("a small weight of 1 byte: %v", err)
	}
	for _, small := range []int64{0, -1} {
		if _, err := newInFlight(100, 10, small); err == nil {
			t.Fatalf("a small weight of %d must fail", small)
		}
	}
}

// ctxFor is a context that ends after d.
func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestBudgetAdmitsAtCapacityAndTimesOutPast(t *testing.T) {
	b := budget(t, 110, 10, 5) // general 100
	rel, err := b.acquire(ctxFor(t, time.Second), 100)
	if err != nil {
		t.Fatalf("at the general capacity: %v", err)
	}
	if _, err := b.acquire(ctxFor(t, 20*time.Millisecond), 6); !errors.Is(err, errInFlightTimeout) {
		t.Fatalf("one large byte past capacity: want a timeout, got %v", err)
	}
	if got := b.InUse(); got != 100 {
		t.Fatalf("a timed-out waiter holds budget: in use %d", got)
	}
	rel.Release()
	if got := b.InUse(); got != 0 {
		t.Fatalf("after release: in use %d", got)
	}
	if _, err := b.acquire(ctxFor(t, time.Second), 101); err == nil || errors.Is(err, errInFlightTimeout) {
		t.Fatalf("a weight above the general capacity must fail at once, got %v", err)
	}
	if b.Peak() != 100 {
		t.Fatalf("peak %d, want 100", b.Peak())
	}
}

// A small request is served from its reserve while large ones fill general
// capacity and queue: it does not starve behind them.
func TestBudgetSmallDoNotStarveBehindLarge(t *testing.T) {
	b := budget(t, 110, 10, 5)
	held, err := b.acquire(ctxFor(t, time.Second), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	waiting := make(chan error, 1)
	go func() { // a large request queued behind the one holding everything
		_, err := b.acquire(ctxFor(t, 2*time.Second), 50)
		waiting <- err
	}()
	waitQueued(t, b, 1)
	for i := 0; i < 2; i++ {
		rel, err := b.acquire(ctxFor(t, 50*time.Millisecond), 5)
		if err != nil {
			t.Fatalf("small request %d behind a large queue: %v", i, err)
		}
		defer rel.Release()
	}
	// The reserve (10) is full: a third small one waits, and neither takes
	// general capacity past the waiting large request.
	if _, err := b.acquire(ctxFor(t, 20*time.Millisecond), 5); !errors.Is(err, errInFlightTimeout) {
		t.Fatalf("past the reserve: want a timeout, got %v", err)
	}
	held.Release()
	if err := <-waiting; err != nil {
		t.Fatalf("the large request after release: %v", err)
	}
}

// A stream of small requests cannot keep a large one waiting forever: once
// it waits, small ones stop taking general capacity.
func TestBudgetLargeDoNotStarveBehindSmall(t *testing.T) {
	b := budget(t, 105, 5, 5) // general 100, reserve one small request
	var mu sync.Mutex
	var held []inFlightGrant
	for i := 0; i < 20; i++ { // fill general capacity with small requests
		rel, err := b.acquire(ctxFor(t, time.Second), 5)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, rel)
	}
	granted := make(chan error, 1)
	go func() {
		_, err := b.acquire(ctxFor(t, 2*time.Second), 60)
		granted <- err
	}()
	waitQueued(t, b, 1)
	// Churn: each small release is followed by a new small request; the new
	// ones must not take what the large request waits for.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if rel, err := b.acquire(ctxFor(t, 5*time.Millisecond), 5); err == nil {
				mu.Lock()
				held = append(held, rel)
				mu.Unlock()
			}
		}
	}()
	for i := 0; i < 12; i++ { // release 60 bytes of small requests
		mu.Lock()
		rel := held[0]
		held = held[1:]
		mu.Unlock()
		rel.Release()
	}
	select {
	case err := <-granted:
		if err != nil {
			t.Fatalf("large request: %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("the large request starved behind small ones")
	}
	close(stop)
	wg.Wait()
}

// A waiter whose context ends leaves the queue, and a large head leaving
// lets the small requests behind it in.
func TestBudgetCancelledWaiterLeaves(t *testing.T) {
	b := budget(t, 105, 5, 5)
	rel, _ := b.acquire(ctxFor(t, time.Second), 60)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := b.acquire(ctx, 60) // waits: 40 left
		done <- err
	}()
	waitQueued(t, b, 1)
	cancel()
	if err := <-done; !errors.Is(err, errInFlightTimeout) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	for i := 0; i < 8; i++ { // 5 from the reserve, 35 of the remaining 40 from general capacity
		if _, err := b.acquire(ctxFor(t, 20*time.Millisecond), 5); err != nil {
			t.Fatalf("small request %d after the large waiter left: %v", i, err)
		}
	}
	rel.Release()
}

// TestBudgetLanesFillExactly drives each lane to exactly full and one past:
// the reserve takes small requests up to its last byte, general capacity
// takes a request of exactly its size (now and after waiting), a small
// request spills into general capacity to its last byte, a request of
// exactly SmallWeight queues in the small lane (and so passes a waiting
// large one), and a weight of 0 is granted at once whatever waits.
func TestBudgetLanesFillExactly(t *testing.T) {
	b := budget(t, 100, 10, 5) // general 90, reserve 10, small <= 5
	if b.Total() != 100 || b.General() != 90 || b.SmallWeight() != 5 {
		t.Fatalf("total %d, general %d, small %d", b.Total(), b.General(), b.SmallWeight())
	}
	s1, _ := b.tryAcquire(5)
	s2, ok := b.tryAcquire(5) // the reserve's last byte
	if !ok {
		t.Fatal("the reserve refused its last 5 bytes")
	}
	large, ok := b.tryAcquire(90) // all of general: the smalls took none of it
	if !ok {
		t.Fatal("general capacity refused exactly its size with the reserve full")
	}
	if got := b.InUse(); got != 100 {
		t.Fatalf("in use %d, want 100 (both lanes)", got)
	}
	if _, ok := b.tryAcquire(1); ok {
		t.Fatal("granted a byte past both lanes")
	}
	if g, ok := b.tryAcquire(0); !ok || g != (inFlightGrant{}) {
		t.Fatal("a weight of 0 must be granted at once, as nothing")
	}
	if g, err := b.acquire(ctxFor(t, 10*time.Millisecond), 0); err != nil || g != (inFlightGrant{}) {
		t.Fatalf("acquire(0): %v", err)
	}

	// Waiters: a large one for all of general, then a small one of exactly
	// SmallWeight. Releasing a small grant lets the small waiter in from the
	// reserve past the large one; releasing the large grant lets the large
	// waiter have exactly all of general.
	largeDone := make(chan error, 1)
	go func() {
		g, err := b.acquire(ctxFor(t, 5*time.Second), 90)
		largeDone <- err
		g.Release()
	}()
	waitQueued(t, b, 1)
	smallDone := make(chan error, 1)
	go func() {
		g, err := b.acquire(ctxFor(t, 5*time.Second), 5)
		smallDone <- err
		g.Release()
	}()
	waitQueued(t, b, 2)
	s1.Release()
	if err := <-smallDone; err != nil {
		t.Fatalf("a SmallWeight waiter behind a large one, with reserve freed: %v", err)
	}
	// The large waiter did not fit when s1 came back (general was full):
	// it must still be waiting, not granted past capacity.
	if p := b.Peak(); p > b.Total() {
		t.Fatalf("peak in use %d past the budget's %d: a waiter was granted what did not fit", p, b.Total())
	}
	large.Release()
	if err := <-largeDone; err != nil {
		t.Fatalf("a waiter for exactly general capacity: %v", err)
	}
	s2.Release()
	waitIdleBudget(t, b)

	// A small request spills into general capacity to its last byte.
	r1, _ := b.tryAcquire(5)
	r2, _ := b.tryAcquire(5)
	g85, ok := b.tryAcquire(85)
	if !ok {
		t.Fatal("85 of general refused")
	}
	spill, ok := b.tryAcquire(5)
	if !ok {
		t.Fatal("a small request refused general capacity's last 5 bytes")
	}
	if _, ok := b.tryAcquire(1); ok {
		t.Fatal("granted a byte past both lanes after a spill")
	}
	for _, g := range []inFlightGrant{r1, r2, g85, spill} {
		g.Release()
	}
	if got := b.InUse(); got != 0 {
		t.Fatalf("in use %d after every release", got)
	}
}

// A budget whose small lane admits more than its general capacity still
// grants a request of exactly SmallWeight (from the reserve): only a weight
// past both is refused outright.
func TestBudgetSmallWeightAboveGeneral(t *testing.T) {
	b := budget(t, 15, 10, 10) // general 5
	g, err := b.acquire(ctxFor(t, time.Second), 10)
	if err != nil {
		t.Fatalf("a request of exactly SmallWeight above general capacity: %v", err)
	}
	g.Release()
	if _, err := b.acquire(ctxFor(t, time.Second), 11); err == nil || errors.Is(err, errInFlightTimeout) {
		t.Fatalf("a request past both lanes: %v, want an outright refusal", err)
	}
}

// TestBudgetSmallWaiterWokenAtItsFit: a small request waiting behind a full
// reserve and full general capacity is woken by a release only when it fits
// (from general capacity, none large waiting), exactly at its fit; a release
// that leaves it short of a fit grants nothing. The grant happens inside
// Release, so InUse right after it says whether it did.
func TestBudgetSmallWaiterWokenAtItsFit(t *testing.T) {
	b := budget(t, 100, 10, 5) // general 90, reserve 10, small <= 5
	var held []inFlightGrant
	for _, w := range []int64{5, 5, 85, 2, 3} { // the reserve, then general to its last byte
		g, ok := b.tryAcquire(w)
		if !ok {
			t.Fatalf("%d bytes refused while filling", w)
		}
		held = append(held, g)
	}
	if got := b.InUse(); got != 100 {
		t.Fatalf("in use %d, want 100", got)
	}
	done := make(chan error, 1)
	letGo := make(chan struct{}) // the waiter holds its grant until InUse is read
	go func() {
		g, err := b.acquire(ctxFor(t, 5*time.Second), 5)
		done <- err
		<-letGo
		g.Release()
	}()
	defer close(letGo)
	waitQueued(t, b, 1)
	held[4].Release() // 3 bytes back: general has 3, the waiter needs 5
	if got := b.InUse(); got != 97 {
		t.Fatalf("in use %d after a release short of the waiter's fit, want 97 (nothing granted)", got)
	}
	held[3].Release() // 2 more: exactly 5 free in general
	if got := b.InUse(); got != 100 {
		t.Fatalf("in use %d after a release that fits the waiter exactly, want 100 (granted)", got)
	}
	if err := <-done; err != nil {
		t.Fatalf("the small waiter: %v", err)
	}
	if p := b.Peak(); p > b.Total() {
		t.Fatalf("peak %d past the budget's %d", p, b.Total())
	}
	for _, g := range held[:3] {
		g.Release()
	}
}

// waitQueued waits until n requests wait in b's lanes: a sleep is not enough
// on a loaded machine, where the waiter may not have queued yet.
func waitQueued(t *testing.T, b *inFlight, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mu.Lock()
		q := b.large.Len() + b.smallQ.Len()
		b.mu.Unlock()
		if q >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests queued after 5 s, want %d", q, n)
		}
		time.Sleep(time.Millisecond)
	}
}
