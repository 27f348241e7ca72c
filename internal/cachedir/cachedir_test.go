package cachedir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPathIsUnderTheUserCacheDir(t *testing.T) {
	base := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", base) // os.UserCacheDir's source on Unix
	t.Setenv("HOME", base)           // and on macOS
	want, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("SKIPPED: no user cache directory on this platform: %v", err)
	}
	if got := Path("census", "npm-reference-1"); got != filepath.Join(want, "boundlab", "census", "npm-reference-1") {
		t.Fatalf("Path: %s, want it under %s/boundlab", got, want)
	}
}

func TestPathFallsBackToTheTempDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	t.Setenv("LocalAppData", "")
	if _, err := os.UserCacheDir(); err == nil {
		t.Skip("SKIPPED: the user cache directory is known even without XDG_CACHE_HOME and HOME here")
	}
	if got, want := Path("adopters"), filepath.Join(os.TempDir(), "boundlab", "adopters"); got != want {
		t.Fatalf("Path without a user cache directory: %s, want %s", got, want)
	}
}
