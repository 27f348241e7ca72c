package mcpvalidate

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/theurian/boundlab/charge"
)

func waitIdle(t *testing.T, fg *frontGate) {
	t.Helper()
	for i := 0; i < 100 && fg.inFlight().InUse() != 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if got := fg.inFlight().InUse(); got != 0 {
		t.Fatalf("%d bytes of budget still in use", got)
	}
}

func TestFrontGateReleasesAndSheds(t *testing.T) {
	v, err := New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newInFlight(requestWeight(v.MaxBodyBytes(), v.cfg.limits)+1000, 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{}, 4)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		switch r.Header.Get("X-Test") {
		case "panic":
			panic(http.ErrAbortHandler)
		case "block":
			<-r.Context().Done()
		}
	})
	fg, err := v.frontGate(next, &frontGateOptions{inFlight: b, MaxWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(fg)
	defer hs.Close()
	body := toolCall("1", `"knowledge.search"`, `{"projectId":"demo","query":"`+strings.Repeat("x", 2000)+`"}`)
	send := func(ctx context.Context, mode string) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL, strings.NewReader(body))
		req.Header.Set("X-Test", mode)
		return http.DefaultClient.Do(req)
	}
	if _, err := send(context.Background(), "panic"); err == nil {
		t.Fatal("a panicking handler's connection should be aborted")
	}
	<-entered
	waitIdleBudget(t, b)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { send(ctx, "block"); close(done) }()
	<-entered
	if b.InUse() == 0 {
		t.Fatal("a call in flight holds no budget")
	}
	// While it holds the general capacity, a large request gets 503.
	chunkedReq, _ := http.NewRequest(http.MethodPost, hs.URL, io.MultiReader(strings.NewReader(body))) // no Content-Length: weighed at the cap
	chunkedReq.ContentLength = -1
	resp, err := http.DefaultClient.Do(chunkedReq)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a request past the budget: HTTP %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	cancel()
	<-done
	waitIdleBudget(t, b)
}

func waitIdleBudget(t *testing.T, b *inFlight) {
	t.Helper()
	for i := 0; i < 200 && b.InUse() != 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if got := b.InUse(); got != 0 {
		t.Fatalf("%d bytes of budget still in use", got)
	}
}

func TestFrontGateBudgetMustHoldOneAtCapRequest(t *testing.T) {
	v, err := New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	atCap := requestWeight(v.MaxBodyBytes(), v.cfg.limits)
	for _, c := range []struct {
		name    string
		general int64
		ok      bool
	}{
		{"at-cap", atCap, true},
		{"one_below", atCap - 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := newInFlight(c.general+1000, 1000, 1000)
			if err != nil {
				t.Fatal(err)
			}
			_, err = v.frontGate(http.NotFoundHandler(), &frontGateOptions{inFlight: b})
			if (err == nil) != c.ok {
				t.Errorf("general capacity %d (one at-cap request weighs %d): err %v", c.general, atCap, err)
			}
		})
	}
	fg, err := v.frontGate(http.NotFoundHandler(), nil)
	if err != nil {
		t.Fatalf("the default budget: %v", err)
	}
	if got, want := fg.inFlight().General(), atCap; got != want {
		t.Errorf("the default budget's general capacity %d, want exactly one at-cap request (%d)", got, want)
	}
	if fg.inFlight().Total() != v.defaultInFlightBytes() {
		t.Errorf("default budget %d, defaultInFlightBytes %d", fg.inFlight().Total(), v.defaultInFlightBytes())
	}
}

func TestRequestWeight(t *testing.T) {
	l := charge.DefaultLimits()
	maxNodes := int64(l.MaxParamsNodes) + maxEnvelopeNodes
	for _, c := range []struct {
		name    string
		n, want int64
	}{
		{"empty", 0, requestFixedCost + requestNodeCost},
		{"1024_bytes", 1024, requestFixedCost + requestPeakFactor*1024 + requestNodeCost*513},
		{"nodes_at_the_bound", 2 * maxNodes, requestFixedCost + requestPeakFactor*2*maxNodes + requestNodeCost*maxNodes},
		{"nodes_past_the_bound", 2*maxNodes + 2, requestFixedCost + requestPeakFactor*(2*maxNodes+2) + requestNodeCost*maxNodes},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := requestWeight(c.n, l); got != c.want {
				t.Errorf("requestWeight(%d) = %d, want %d", c.n, got, c.want)
			}
		})
	}
}

func TestBodyCapIsDerived(t *testing.T) {
	v, err := New(published, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := charge.DefaultLimits()
	d := charge.BodyCap(l, charge.EnsureASCII, charge.Raw)
	if v.MaxBodyBytes() != d.Cap || d.Cap != 3*l.MaxSourceFileBytes+l.EnvelopeAllowance {
		t.Fatalf("cap %d, derivation %d, 3*file+envelope %d", v.MaxBodyBytes(), d.Cap, 3*l.MaxSourceFileBytes+l.EnvelopeAllowance)
	}
	g, err := New(published, &Options{GoClients: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.MaxBodyBytes() != 6*l.MaxSourceFileBytes+l.EnvelopeAllowance {
		t.Fatalf("with Go clients: cap %d", g.MaxBodyBytes())
	}
}
