// Package census audits a pinned list of real MCP servers, one after
// another, as `boundlab audit --targets` does, and holds every figure the
// census publishes to a direct measurement taken beside it with a raw
// client that shares no code with package audit.
//
// The servers (Servers): the four official npm reference servers
// (@modelcontextprotocol/server-everything, -memory, -filesystem,
// -sequential-thinking, at ReferenceVersion, installed with npm into a
// cache directory outside the repository), the SDK strangers of package
// strangers (the go-sdk and mcp-go over HTTP and stdio, the TypeScript SDK,
// the Python SDK over HTTP and stdio, and `boundlab serve` beside them),
// and two adopters of package adopters as published: gopls over stdio in a
// one-package workspace and mcp-grafana over stdio with no Grafana behind
// it. Each is audited with seed Seed, the default limits, no valid call
// given (every baseline is built from the schema or from other tools'
// answers), and, over stdio, the peak-memory probe (audit.Config.Memory).
//
// The records (census.KEY.*) belong to producer `census`, which is on
// demand: it installs packages and builds servers for many minutes, so it
// runs only when named (`derive --only census`), never with --all, and
// verify skips it with its reason. A server whose runtime is absent (no
// node or npm, no Python with the SDK, the module proxy unreachable) makes
// the whole producer Unavailable: a census with a hole is not the one the
// docs publish.
//
// Where it ends: each server is one configuration (the one its README or
// package shows), at one version, audited from outside; the direct checks
// cover the figures that are numbers (body cap, depth, echo, memory), not
// the verdicts, which are the audit's reading of answers' shapes.
//
// This is a lab package: production code does not import it.
package census
