// Package strangers audits MCP servers nobody here wrote, each as its
// authors' SDK wires it with two read-only tools, as a child process on
// 127.0.0.1 with its RSS watched: the bare go-sdk and mark3labs/mcp-go (Go
// programs in ./gosdk and ./mcpgo, built with the module's pinned
// versions), the official TypeScript SDK (./typescript/server.mjs, the SDK
// installed from npm at TypeScriptSDK into a cache directory outside the
// repository), and the official Python SDK over streamable HTTP and stdio
// (./python/server.py, run by the Python that PythonEnv names, with `mcp`
// importable). Over stdio, the go-sdk's, mcp-go's and `boundlab serve`'s
// servers are audited bare and with mcpvalidate's stdio gate in front, side
// by side, each a process per session under an address-space limit.
//
// Their audits' headline figures are records of three producers
// (audit-strangers-go, audit-strangers-typescript, audit-strangers-python),
// so `boundlab verify` re-measures them where the runtime is present; where
// it is absent (no Go toolchain to build a child, no node or npm, the npm
// registry unreachable, PythonEnv unset) the producer reports
// results.Unavailable with the reason and verify skips it.
//
// Where it ends: each server is one configuration of its SDK (the one its
// README shows), at one version; what the audit reports of it is what the
// auditor can see from outside (package audit's limits apply). The RSS
// guard (load.StartChild, the load lab's child watch) kills an HTTP child
// past RSSGuard bytes; a stdio child (the Python SDK over stdio, spawned by
// the auditor per session) runs under an address-space limit instead
// (ulimit -v at StdioAddressGuard), looser, since runtimes reserve space
// they never touch.
//
// This is a lab package: production code does not import it.
package strangers
