package strangers

import (
	"strings"
)

// RSSGuard is the resident set a child may reach before it is killed: the
// audit's largest body is 64 MiB, which a server may hold a few times over
// while it parses; past 1 GiB it is hurting the machine, not answering.
const RSSGuard = 1 << 30

// bannerPrefix starts the stdout line where every stranger prints its URL
// (load.StartChild reads it).
const bannerPrefix = "stranger: MCP streamable HTTP at "

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
