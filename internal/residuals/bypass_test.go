package residuals

import (
	"testing"

	"github.com/theurian/boundlab/mcpvalidate"
)

// TestFrontGateRefusesEveryEchoShape FAILS on purpose until the front gate
// refuses them (issue 9: "0 caller bytes echoed, every answer at most
// 4 KiB"): each GateEchoShapes instance passes the gate's envelope check and
// the go-sdk answers it with the params echoed (%q, then JSON), ~5 answer
// bytes per request byte. The smallest bodies:
//
//	{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{},"inputResponses":{"k":1}}}
//	{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"n":1e400}}}
//	{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":1}}
//
// The first two grow with the body up to the cap (a 4 MiB body of DEL in a
// params member "x" is answered with 20,972,026 bytes); the third is held
// to 5x MaxOtherParamsBytes. The first two also fail
// mcpvalidate's FuzzFrontGateAgreesWithSDK when added to its seeds.
func TestFrontGateRefusesEveryEchoShape(t *testing.T) {
	if testing.Short() {
		t.Skip("over HTTP; skipped in -short")
	}
	s, se := open(t, true)
	for _, sh := range GateEchoShapes {
		t.Run(sh.ID, func(t *testing.T) {
			body := sh.Shape(worstEchoFiller, echoN)
			r, _, err := se.Post(body)
			if err != nil {
				t.Fatal(err)
			}
			s.Take()
			if a := ReadAnswer(r); !a.GateRefused() || a.Bytes > mcpvalidate.MaxRefusalBytes() {
				t.Errorf("a %d-byte %s passed the front gate: %s (ceiling %d)", len(body), sh.Name, a, mcpvalidate.MaxRefusalBytes())
			}
		})
	}
}
