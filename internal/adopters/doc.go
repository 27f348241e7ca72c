// Package adopters measures real MCP servers nobody here wrote before and
// after they adopt mcpvalidate: each is taken at a pinned version from the
// Go module proxy, built twice — as published, and with the patch under
// adopters/ in this repository applied (`patch -p1` at the module root,
// the product's modules replaced by this checkout, as the README's "Use it
// from a clone" shows) — and both builds are audited from outside over each
// transport the server serves (stdio, and streamable HTTP where it has it),
// as `boundlab audit` audits any server. Where the server's own tests can
// run with nothing from outside, they run in both builds and a test that
// passes unpatched and not patched is a regression.
//
// The records (adopters.KEY.TRANSPORT.before.* and .after.*, the patch's
// lines, the cost of one real call, the tests) belong to one producer per
// server, run on demand: derive and verify run it when --only names it,
// and skip it, with the reason, where the Go toolchain the server needs or
// the module proxy cannot be reached.
//
// The binaries are built once per variant and kept in the user's cache
// directory (the patched one keyed by the patch and the product's source),
// since a build takes minutes. Over stdio each server runs as a child of
// the auditor, one process per session, under an address-space limit
// (StdioAddressGuard) and the audit's per-message time limit; over HTTP one
// process serves the whole audit on a loopback port, under the same limit
// and RSS-watched, as are the cost measurement's children: killed past
// RSSGuard.
//
// Where it ends: each server is audited in one configuration (its default
// tools, no network: tools that fetch from a third party are skipped, a
// server that needs a backend is pointed at a closed loopback port); the
// audit sees what package audit sees from outside. A patch is the
// adopter's change, not the lab's: its code is never committed here beyond
// the diff.
//
// This is a lab package: production code does not import it.
package adopters
