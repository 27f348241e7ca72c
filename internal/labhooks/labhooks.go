// Package labhooks lets boundlab's lab reach the parts of mcpvalidate it
// measures and fuzzes — the arguments decoder and a call's stages — without
// exporting them to adopters. mcpvalidate sets every hook when it is
// initialised, so a lab package that imports mcpvalidate (even only for its
// side effect) finds them set.
//
// Where it ends: the hooks are for measurement and differential tests; they
// carry no guarantee beyond what mcpvalidate's own tests hold, and production
// code never calls them.
package labhooks

var (
	// Tree decodes a JSON document (already admitted by the charge gate) into
	// the values encoding/json gives with UseNumber, at the default nesting
	// bound: mcpvalidate's own decoder.
	Tree func(doc []byte) (any, error)
	// KeepStack is how many entries the decoder's pooled stack keeps; a
	// document holding more at once grows its own.
	KeepStack int
	// SetDecode replaces the decode stage of v (a *mcpvalidate.Validator):
	// the benchmarks' way to set another decoder beside mcpvalidate's.
	SetDecode func(v any, decode func(doc []byte) (any, error))
	// FrontCheck reads one JSON-RPC message as fg (a *mcpvalidate.FrontGate)
	// does, its scan alone (no schema, no HTTP): nil or the
	// *mcpvalidate.FrontRefusal it answers with.
	FrontCheck func(fg any, body []byte) error
	// Stages are v's (a *mcpvalidate.Validator) stages for tool, to be run
	// one at a time: the gate over the arguments, the decode, and
	// jsonschema/v6's Validate of a decoded tree.
	Stages func(v any, tool string) (gate func([]byte) error, decode func([]byte) (any, error), validate func(any) error)
)
