package mark3labs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"
)

// scripted gives its reads in the sizes listed (a size past len(p) is cut
// to it), each byte numbered so that a byte out of place shows, then err.
type scripted struct {
	sizes []int
	next  byte
	sent  bytes.Buffer
	err   error
}

func (s *scripted) Read(p []byte) (int, error) {
	if len(s.sizes) == 0 {
		return 0, s.err
	}
	n := min(s.sizes[0], len(p))
	s.sizes = s.sizes[1:]
	for i := range p[:n] {
		p[i] = s.next
		s.next = s.next*31 + 7
	}
	s.sent.Write(p[:n])
	if len(s.sizes) == 0 {
		return n, s.err // the last bytes and the end together, as a Read may give them
	}
	return n, nil
}

// Every byte the gate gives reaches the reader, in order, whatever the
// sizes of the two sides' reads, and then the gate's own error. The reader
// takes a few bytes at a time, so the reading goroutine fills its other
// buffer while a chunk is being read: a buffer reused too early shows as
// bytes out of place.
func TestAheadReaderGivesEveryByteThenTheError(t *testing.T) {
	end := errors.New("the input's end")
	for _, sizes := range [][]int{
		{1},
		{aheadChunk},
		{aheadChunk + 1, 3, aheadChunk, 0, 5},
		{100, 0, 0, 2000, aheadChunk, 17, aheadChunk, aheadChunk, 1},
	} {
		t.Run(fmt.Sprint(sizes), func(t *testing.T) {
			src := &scripted{sizes: sizes, err: end}
			a := readAhead(src)
			defer a.stop()
			var got bytes.Buffer
			p := make([]byte, 7)
			var err error
			for {
				var n int
				n, err = a.Read(p)
				got.Write(p[:n])
				if err != nil {
					break
				}
				time.Sleep(time.Microsecond)
			}
			if err != end {
				t.Fatalf("the read ended with %v, want the gate's %v", err, end)
			}
			if !bytes.Equal(got.Bytes(), src.sent.Bytes()) {
				t.Fatalf("read %d bytes differing from the %d the gate gave", got.Len(), src.sent.Len())
			}
			if _, err := a.Read(p); err != end {
				t.Fatalf("a read after the end: %v, want %v again", err, end)
			}
		})
	}
}

// gated gives one line each time release is sent a value, and counts its
// reads.
type gated struct {
	release chan struct{}
	reads   atomic.Int64
}

func (g *gated) Read(p []byte) (int, error) {
	g.reads.Add(1)
	<-g.release
	return copy(p, "{}\n"), nil
}

// Once stopped, the reading goroutine ends as soon as its read of the gate
// returns, and a reader still waiting sees the end: it does not read the
// gate again (a read of the input would wait for a line nobody sends).
// Reads are one at a time, as mcp-go's are. A waiting reader and the stop
// race for the line the input gives last: each way is run many times.
func TestAheadReaderStops(t *testing.T) {
	for i := range 40 {
		waiting := i%2 == 0
		t.Run(fmt.Sprintf("reader-waiting=%v/%d", waiting, i/2), func(t *testing.T) {
			g := &gated{release: make(chan struct{})}
			a := readAhead(g)
			p := make([]byte, 64)
			read := make(chan error, 1)
			readOnce := func() { _, err := a.Read(p); read <- err }
			if waiting {
				go readOnce() // mcp-go's goroutine, waiting for a line
			}
			a.stop()
			g.release <- struct{}{} // the input gives a line after the session ended
			if !waiting {
				go readOnce()
			}
			deadline := time.After(10 * time.Second)
			for {
				select {
				case err := <-read:
					if err == io.EOF {
						if n := g.reads.Load(); n != 1 {
							t.Fatalf("the gate was read %d times, want 1", n)
						}
						return
					}
					if err != nil {
						t.Fatalf("read: %v", err)
					}
					go readOnce()
				case <-deadline:
					t.Fatal("no io.EOF in 10 s after stop: the reading goroutine went on")
				}
			}
		})
	}
}
