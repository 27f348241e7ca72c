// Package cachedir names the directories where the lab keeps what it
// fetches or builds for a measurement across runs (npm installs, built
// servers), so that a second run needs neither the network nor the build:
// under the user's cache directory, else the temporary directory, in
// boundlab/. It only names them; creating and filling one stays with the
// caller, which knows what belongs there.
package cachedir

import (
	"os"
	"path/filepath"
)

// Path is the directory boundlab/elem... under the user's cache directory
// (os.UserCacheDir), or under os.TempDir when there is none.
func Path(elem ...string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(append([]string{base, "boundlab"}, elem...)...)
}
