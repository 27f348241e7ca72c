// Package child starts a program whose standard input and output the lab
// speaks to, as every instrument that talks to a server over stdio does.
// It only starts the process and cuts what it said for an error: watching
// its memory, bounding it and ending it stay with the caller, which knows
// what the child is for.
package child

import (
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// Start starts cmd with a pipe to its standard input and one from its
// standard output. On an error nothing is left running and both pipes are
// closed.
func Start(cmd *exec.Cmd) (stdin io.WriteCloser, stdout io.ReadCloser, err error) {
	if stdin, err = cmd.StdinPipe(); err != nil {
		return nil, nil, err
	}
	if stdout, err = cmd.StdoutPipe(); err != nil {
		stdin.Close()
		return nil, nil, err
	}
	if err = cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	return stdin, stdout, nil
}

// FirstLine is the first line a child wrote (its output trimmed), cut at
// 200 bytes: enough for an error to say why it failed without quoting all
// of it.
func FirstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
