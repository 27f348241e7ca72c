package mcpvalidate_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/theurian/boundlab/mcpvalidate"
)

func budget(t *testing.T, total, reserve, small int64) *mcpvalidate.Budget {
	t.Helper()
	b, err := mcpvalidate.NewBudget(total, reserve, small)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBudgetConstruction(t *testing.T) {
	if _, err := mcpvalidate.NewBudget(100, 10, 10); err != nil {
		t.Fatalf("reserve holding exactly one small request: %v", err)
	}
	if _, err := mcpvalidate.NewBudget(100, 9, 10); err == nil {
		t.Fatal("a reserve smaller than one small request must fail")
	}
	if _, err := mcpvalidate.NewBudget(10, 10, 10); err == nil {
		t.Fatal("a budget that is all reserve must fail")
	}
	if _, err := mcpvalidate.NewBudget(11, 10, 10); err != nil {
		t.Fatalf("one byte of general capacity: %v", err)
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
	rel, err := b.Acquire(ctxFor(t, time.Second), 100)
	if err != nil {
		t.Fatalf("at the general capacity: %v", err)
	}
	if _, err := b.Acquire(ctxFor(t, 20*time.Millisecond), 6); !errors.Is(err, mcpvalidate.ErrBudgetTimeout) {
		t.Fatalf("one large byte past capacity: want a timeout, got %v", err)
	}
	if got := b.InUse(); got != 100 {
		t.Fatalf("a timed-out waiter holds budget: in use %d", got)
	}
	rel.Release()
	if got := b.InUse(); got != 0 {
		t.Fatalf("after release: in use %d", got)
	}
	if _, err := b.Acquire(ctxFor(t, time.Second), 101); err == nil || errors.Is(err, mcpvalidate.ErrBudgetTimeout) {
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
	held, err := b.Acquire(ctxFor(t, time.Second), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	waiting := make(chan error, 1)
	go func() { // a large request queued behind the one holding everything
		_, err := b.Acquire(ctxFor(t, 2*time.Second), 50)
		waiting <- err
	}()
	time.Sleep(20 * time.Millisecond)
	for i := 0; i < 2; i++ {
		rel, err := b.Acquire(ctxFor(t, 50*time.Millisecond), 5)
		if err != nil {
			t.Fatalf("small request %d behind a large queue: %v", i, err)
		}
		defer rel.Release()
	}
	// The reserve (10) is full: a third small one waits, and neither takes
	// general capacity past the waiting large request.
	if _, err := b.Acquire(ctxFor(t, 20*time.Millisecond), 5); !errors.Is(err, mcpvalidate.ErrBudgetTimeout) {
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
	var held []mcpvalidate.Grant
	for i := 0; i < 20; i++ { // fill general capacity with small requests
		rel, err := b.Acquire(ctxFor(t, time.Second), 5)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, rel)
	}
	granted := make(chan error, 1)
	go func() {
		_, err := b.Acquire(ctxFor(t, 2*time.Second), 60)
		granted <- err
	}()
	time.Sleep(20 * time.Millisecond)
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
			if rel, err := b.Acquire(ctxFor(t, 5*time.Millisecond), 5); err == nil {
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
	rel, _ := b.Acquire(ctxFor(t, time.Second), 60)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := b.Acquire(ctx, 60) // waits: 40 left
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, mcpvalidate.ErrBudgetTimeout) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	for i := 0; i < 8; i++ { // 5 from the reserve, 35 of the remaining 40 from general capacity
		if _, err := b.Acquire(ctxFor(t, 20*time.Millisecond), 5); err != nil {
			t.Fatalf("small request %d after the large waiter left: %v", i, err)
		}
	}
	rel.Release()
}
