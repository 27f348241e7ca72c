package child

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"testing"
)

func TestStartPipesBothWays(t *testing.T) {
	sh, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("SKIPPED: no cat on PATH to start")
	}
	cmd := exec.Command(sh)
	in, out, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(in, "ping\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ping\n" {
		t.Fatalf("read %q, %v", line, err)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}

func TestStartNamesWhatDidNotStart(t *testing.T) {
	cmd := exec.Command("/nonexistent/boundlab-child")
	if _, _, err := Start(cmd); err == nil || !strings.Contains(err.Error(), "start /nonexistent/boundlab-child") {
		t.Fatalf("Start: %v", err)
	}
}

func TestFirstLineIsCut(t *testing.T) {
	if got := FirstLine("\n  " + strings.Repeat("x", 200) + "\nmore"); got != strings.Repeat("x", 200) {
		t.Fatalf("200 bytes: %q", got)
	}
	if got := FirstLine(strings.Repeat("x", 201)); got != strings.Repeat("x", 200)+"..." {
		t.Fatalf("201 bytes: %q", got)
	}
}
