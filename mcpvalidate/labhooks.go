package mcpvalidate

import (
	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/internal/labhooks"
)

// The lab measures the decoder and a call's stages through
// internal/labhooks; nothing here is reachable by an adopter.
func init() {
	depth := charge.DefaultLimits().MaxParamsNesting
	labhooks.Tree = func(doc []byte) (any, error) { return tree(doc, depth, 0) }
	labhooks.KeepStack = keepStack
	labhooks.SetDecode = func(v any, decode func([]byte) (any, error)) {
		v.(*Validator).decode = func(doc []byte, _ int) (any, error) { return decode(doc) }
	}
	labhooks.FrontCheck = func(fg any, body []byte) error {
		g := fg.(*FrontGate)
		e, err := scanEnvelope(body, g.env, g.v.gate)
		if err != nil {
			return frontRefusal(err, &e)
		}
		return nil
	}
	labhooks.Stages = func(v any, tool string) (func([]byte) error, func([]byte) (any, error), func(any) error) {
		val := v.(*Validator)
		t := val.tools[tool]
		gate := func(a []byte) error { _, err := val.gate.Check(a); return err }
		decode := func(a []byte) (any, error) { return val.decode(a, 0) }
		return gate, decode, func(doc any) error { return t.schema.Validate(doc) }
	}
}
