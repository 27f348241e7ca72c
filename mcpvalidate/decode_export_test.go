package mcpvalidate

// stdDecode decodes as encoding/json with UseNumber: the reference the
// benchmarks set beside the decode stage.
func stdDecode(doc []byte) (any, error) { return stdTree(doc) }

// UseStdDecode makes v decode with encoding/json (UseNumber), for the
// benchmarks' side by side.
func UseStdDecode(v *Validator) {
	v.decode = func(doc []byte, _ int) (any, error) { return stdDecode(doc) }
}

// StdTree is encoding/json's decode (UseNumber), for the external benchmarks.
func StdTree(doc []byte) (any, error) { return stdDecode(doc) }

// Tree is tree at the default nesting bound, the node count not known, for
// the external benchmarks.
func Tree(doc []byte) (any, error) { return tree(doc, defaultDepth, 0) }

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
