package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/theurian/boundlab/load"
)

// stdioChildEnv makes this test binary `boundlab serve --stdio` and nothing
// else: TestServeStdioMemory's child, so the process measured runs the
// verb's own code.
const stdioChildEnv = "BOUNDLAB_SERVE_STDIO_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(stdioChildEnv) != "" {
		os.Exit(runServe([]string{"--stdio"}, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestServeStdioMemory streams hostile lines — at the frame cap, past it
// (64 MiB), deep, malformed — each followed by a valid call that must be
// served, then calls at the cap sent without waiting, through a child
// `boundlab serve --stdio`, and holds its peak RSS (VmHWM) under the
// ceiling it announces (bounds.Stdio at the frame cap plus
// bounds.Baseline). The producer load-stdio pins the same run's figures.
func TestServeStdioMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams some 400 MiB through a child process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := load.UnderAddressGuard(ctx, exe)
	cmd.Env = append(os.Environ(), stdioChildEnv+"=1")
	r, err := load.StdioStream(ctx, cmd, load.StdioRSSGuard)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Shapes {
		t.Logf("%s: VmHWM %d bytes; answered %s", s.Name, s.HWM, s.Answer)
	}
	t.Logf("frame cap %d bytes; VmHWM %d bytes idle; one ping at the cap %d bytes above it (%.2fx the cap); %d after %d lines; the ceiling stated %d",
		r.FrameCap, r.Idle, r.OneFrame, float64(r.OneFrame)/float64(r.FrameCap), r.Peak, r.Lines, r.Ceiling)
	if r.Ceiling <= 0 || r.FrameCap <= 0 || r.Lines < 30 {
		t.Fatalf("the run measured nothing: %+v", r)
	}
	if r.Peak > r.Ceiling {
		t.Errorf("peak RSS %d bytes, past the stated ceiling %d", r.Peak, r.Ceiling)
	}
}
