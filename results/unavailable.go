package results

import (
	"errors"
	"sort"
)

// Unavailable is a producer's error when what it measures cannot run where
// it is asked to: a runtime is absent (node, a Python with the MCP SDK, the
// Go toolchain to build a child server), or a package could not be
// installed. Verify then skips the producer — its pinned records are kept,
// not compared, and the reason is reported — rather than failing; derive
// --out leaves its pinned file as it is. Reason says what is missing and how
// to provide it. Any other error is a failure.
type Unavailable struct {
	Reason string
}

func (u *Unavailable) Error() string { return "unavailable here: " + u.Reason }

// IsUnavailable reports whether err is (or wraps) an *Unavailable, and its
// reason.
func IsUnavailable(err error) (string, bool) {
	var u *Unavailable
	if errors.As(err, &u) {
		return u.Reason, true
	}
	return "", false
}

// Skipped is a producer verify did not re-measure, and why.
type Skipped struct {
	Producer string
	Reason   string
	// Pinned is how many of its records are pinned (kept, not compared).
	Pinned int
}

// splitUnavailable moves the producers whose error is Unavailable out of
// errs, as Skipped.
func splitUnavailable(errs map[string]error, pinned map[string][]Record) []Skipped {
	var out []Skipped
	for name, err := range errs {
		if why, ok := IsUnavailable(err); ok {
			out = append(out, Skipped{Producer: name, Reason: why, Pinned: len(pinned[name])})
			delete(errs, name)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Producer < out[j].Producer })
	return out
}
