package bounds

import (
	"testing"
)

// TestDefaultsAdmit: the default session table keeps at least twice the
// load lab's 2,000 held streams' sessions active at once, and the default
// connection bound gives each of them a connection, so a new client is
// admitted while they are all held (issue 24's target). The counts are
// derived from the weights, so raising a measured weight shows here first.
func TestDefaultsAdmit(t *testing.T) {
	const heldStreams = 2000
	sessions := int64(DefaultSessionBytes / (SessionCost + StreamCost))
	conns := int64(DefaultConnBytes / ConnCost)
	if sessions < 2*heldStreams {
		t.Errorf("the default table admits %d sessions with a stream each, under 2 x %d", sessions, heldStreams)
	}
	if conns < sessions {
		t.Errorf("the default connection bound admits %d connections, under the %d sessions the table admits", conns, sessions)
	}
	t.Logf("default table: %d sessions; default connection bound: %d connections", sessions, conns)
}
