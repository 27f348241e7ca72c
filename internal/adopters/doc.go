// Package adopters measures real MCP servers nobody here wrote before and
// after they adopt mcpvalidate: each is taken at a pinned version from the
// Go module proxy, built twice — as published, and with the patch under
// adopters/ in this repository applied (`patch -p1` at the module root,
// the product's modules replaced by this checkout, as the README's "Use it
// from a clone" shows) — and both builds are audited from outside, as
// `boundlab audit --stdio` audits any server.
//
// The records (adopters.KEY.TRANSPORT.before.* and .after.*) belong to one
// producer per server, which re-measures: verify runs it only with --all or
// --only, and skips it, with the reason, where the Go toolchain the server
// needs or the module proxy cannot be reached.
//
// The binaries are built once per variant and kept in the user's cache
// directory (the patched one keyed by the patch and the product's source),
// since a build of gopls takes minutes. Each server runs as a child of the
// auditor, one process per session, under an address-space limit
// (StdioAddressGuard) and the audit's per-message time limit; the cost
// measurement's children are RSS-watched and killed past RSSGuard.
//
// Where it ends: each server is audited in one configuration (its default
// tools, a one-package workspace, no network); the audit sees what package
// audit sees from outside. A patch is the adopter's change, not the lab's:
// its code is never committed here beyond the diff.
//
// This is a lab package: production code does not import it.
package adopters
