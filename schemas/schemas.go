// Package schemas holds boundlab's published MCP tool input schemas: the wire
// contract a client reads to learn what each tool accepts, embedded in the
// binary so the validator that enforces them needs no file system and no
// network.
//
// Layout: mcp/<tool>.input.schema.json, one per tool, each draft 2020-12 with
// an absolute $id under BaseURL and an "x-mcp-tool" member naming the tool it
// is for; mcp/tool-context.schema.json is the shared context fragment every
// project-scoped tool composes with allOf + $ref and closes with
// unevaluatedProperties: false (the fragment itself is deliberately open: an
// additionalProperties there would refuse the composing tool's own fields).
//
// This package only carries the files. Loading, compiling and enforcing them
// (and refusing a load on any problem) is mcpvalidate's job.
package schemas

import "embed"

// FS holds every published schema under Dir.
//
//go:embed mcp/*.schema.json
var FS embed.FS

// Dir is the directory within FS that holds the schemas.
const Dir = "mcp"

// BaseURL is the prefix of every published $id. It names the documents; it is
// never fetched.
const BaseURL = "https://boundlab.theurian.dev/schemas/mcp/"

// ToolKey is the member of a tool input schema that names the MCP tool the
// schema is for. A file without it is a fragment (referenced, never a tool).
const ToolKey = "x-mcp-tool"
