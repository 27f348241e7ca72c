package sweeps

import (
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// TestJsonschemaV6RendersTheDerivedWidth drives the go-dialect instances'
// values through jsonschema/v6 itself — a pattern the value fails, the
// keyword whose message quotes the whole instance — and holds the bytes its
// Error() spends on the value to the derivation, at 1/256 scale.
func TestJsonschemaV6RendersTheDerivedWidth(t *testing.T) {
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///p.json", map[string]any{"type": "string", "pattern": "^$"}); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem:///p.json")
	if err != nil {
		t.Fatal(err)
	}
	base := len(sch.Validate("a").Error()) - 1 // the message around a one-byte value, quotes included
	ds, err := Derivations(scaled(256))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range ds {
		if d.Dialect != charge.Go {
			continue
		}
		t.Run(d.ID, func(t *testing.T) {
			for _, c := range []struct {
				name string
				r    Reach
			}{{"worst_pure", d.WorstPure}, {"worst", d.Worst}} {
				t.Run(c.name, func(t *testing.T) {
					r := c.r
					body, args := r.Instance().Build()
					v, err := reference.Decode(body[args[0]:args[1]])
					if err != nil {
						t.Fatal(err)
					}
					value := v.(map[string]any)[ValueKey].(string)
					got := int64(len(sch.Validate(value).Error()) - base)
					if got != r.Render {
						t.Errorf("%s: jsonschema/v6 renders %d bytes of the value, derived %d", r.Instance().Name, got, r.Render)
					}
					n++
				})
			}
		})
	}
	t.Logf("%d go-dialect instances rendered by jsonschema/v6 at their derived widths", n)
}
