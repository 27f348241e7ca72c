package strangers

import "github.com/theurian/boundlab/load"

// RSSGuard is the resident set a child may reach before it is killed: the
// audit's largest body is 64 MiB, which a server may hold a few times over
// while it parses; past 1 GiB it is hurting the machine, not answering.
const RSSGuard = 1 << 30

// StdioAddressGuard is the address space (ulimit -v) a stdio child may
// take: the auditor starts those processes itself, so no RSS watch sees
// them. Address space, not resident memory: runtimes reserve space they
// never touch (glibc's per-thread malloc arenas, Go's heap arenas; a Go
// stand-in died at 1 GiB on the audit's first deep nesting), so the bound
// is looser than RSSGuard, and still holds resident memory under it. It is
// the load lab's stdio children's bound, one figure for both.
const StdioAddressGuard = load.StdioAddressGuard

// bannerPrefix starts the stdout line where every stranger prints its URL
// (load.StartChild reads it).
const bannerPrefix = "stranger: MCP streamable HTTP at "
