package mcpvalidate

import "time"

// SetWait shortens how long l's Accept waits for a slot when every
// connection is active (bounds.ConnWait), so a test need not wait it out.
func (l *connLimit) SetWait(d time.Duration) { l.wait = d }

// SetIdleGrace sets how long a connection must have been idle to be closed
// for another.
func (l *connLimit) SetIdleGrace(d time.Duration) { l.idleGrace = d }

// CloseAttempts is how many sessions one admission tries to close.
const CloseAttempts = closeAttempts
