package mcpvalidate

import (
	"unsafe"

	"github.com/bytedance/sonic"
	"github.com/theurian/boundlab/charge"
)

// defaultDepth is the nesting bound Check decodes under by default.
var defaultDepth = charge.DefaultLimits().MaxParamsNesting

// sonicAPI is the decoder Check ran before decode.go: sonic with UseNumber and
// ValidateString.
var sonicAPI = sonic.Config{UseNumber: true, ValidateString: true}.Froze()

// sonicTree is that decode as Check ran it: over the arguments' own bytes
// (sonic's Unmarshal copies its input into a string first), strings without
// escapes aliasing them.
func sonicTree(doc []byte) (any, error) {
	var v any
	err := sonicAPI.UnmarshalFromString(unsafe.String(unsafe.SliceData(doc), len(doc)), &v)
	return v, err
}

// UseSonicDecode makes v decode with sonic, as Check did before decode.go: the
// benchmarks' "before".
func UseSonicDecode(v *Validator) {
	v.decode = func(doc []byte, _ int) (any, error) { return sonicTree(doc) }
}

// Tree is tree at the default nesting bound, the node count not known, for
// the external benchmarks.
func Tree(doc []byte) (any, error) { return tree(doc, defaultDepth, 0) }

// SonicTree is sonicTree, for the external benchmarks.
func SonicTree(doc []byte) (any, error) { return sonicTree(doc) }

// Stages are Check's stages for tool, to be run one at a time: the gate over
// the arguments, the decode (the node count not known: it only bounds how
// far a stack past keepStack grows), and jsonschema/v6's Validate of a
// decoded tree.
func Stages(v *Validator, tool string) (gate func([]byte) error, decode func([]byte) (any, error), validate func(any) error) {
	t := v.tools[tool]
	gate = func(a []byte) error { _, err := v.gate.Check(a); return err }
	decode = func(a []byte) (any, error) { return v.decode(a, 0) }
	return gate, decode, func(doc any) error { return t.schema.Validate(doc) }
}
