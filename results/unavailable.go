package results

import (
	"errors"
	"fmt"
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

// NotAsked is the reason Select gives a producer left out by name.
const NotAsked = "not among the producers asked for"

// Select chooses the producers to run. Named (non-empty only) runs exactly
// those, in ps's order, and is an error when one is not in ps. Otherwise
// every producer runs when all is set, and only those with no Remeasures
// when it is not. Every producer not run is returned as Skipped, its Reason
// its Remeasures (or NotAsked), sorted by name; Pinned is left 0 for the
// caller who has the pinned records.
func Select(ps []Producer, only []string, all bool) (run []Producer, notRun []Skipped, err error) {
	want := map[string]bool{}
	for _, n := range only {
		want[n] = true
	}
	for _, p := range ps {
		switch {
		case len(only) > 0 && want[p.Name]:
			delete(want, p.Name)
			run = append(run, p)
		case len(only) > 0:
			notRun = append(notRun, Skipped{Producer: p.Name, Reason: NotAsked})
		case p.OnDemand:
			notRun = append(notRun, Skipped{Producer: p.Name, Reason: p.Remeasures})
		case all || p.Remeasures == "":
			run = append(run, p)
		default:
			notRun = append(notRun, Skipped{Producer: p.Name, Reason: p.Remeasures})
		}
	}
	if len(want) > 0 {
		return nil, nil, fmt.Errorf("no producer %q is registered", sortedKeys(want)[0])
	}
	sort.Slice(notRun, func(i, j int) bool { return notRun[i].Producer < notRun[j].Producer })
	return run, notRun, nil
}
