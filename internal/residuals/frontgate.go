package residuals

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/theurian/boundlab/mcpvalidate/bounds"
	"github.com/theurian/boundlab/results"
)

// FrontGateProducer is the name the front-gate records are registered and
// pinned under: the residuals re-measured through mcpvalidate's front gate.
const FrontGateProducer = "frontgate-residuals"

func init() {
	results.Register(results.Producer{Name: FrontGateProducer, Records: FrontGateRecords})
}

// Canary is a token an answer holds only if it echoes caller bytes: letters
// and digits, which %q and JSON escaping leave as they are.
const Canary = "zqCANARY7x9k"

// CanaryEchoBody is EchoBody with the Canary in a params member of its own.
func CanaryEchoBody(f EchoFiller, n int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":1,"c":"` + Canary + `","x":"` + strings.Repeat(f.Unit, n) + `"}}`)
}

// EchoesCanary reports whether an answer holds the Canary.
func EchoesCanary(answer []byte) bool { return bytes.Contains(answer, []byte(Canary)) }

// GateEchoShape is an echo shape measured behind the front gate.
type GateEchoShape struct {
	ID, Name string
	Shape    EchoShape
}

// GateEchoShapes are params the SDK cannot decode that pass the front gate's
// envelope check as it stands: the gate types the members CallToolParamsRaw
// names by their JSON kind only, and bounds other methods' params by size.
// Each holds its filler in a params member the gate reads under the
// envelope's limits.
var GateEchoShapes = []GateEchoShape{
	{"input-responses", `tools/call params.inputResponses {"k":1}: an object, as the gate checks, whose member is no InputResponse`,
		func(f EchoFiller, n int) []byte {
			return []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"project.list","arguments":{},"inputResponses":{"k":1},"x":"` + strings.Repeat(f.Unit, n) + `"}}`)
		}},
	{"meta-number", `tools/call params._meta {"n":1e400}: an object holding a number (exponent under the gate's bound) no float64 holds`,
		func(f EchoFiller, n int) []byte {
			return []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"project.list","arguments":{},"_meta":{"n":1e400},"x":"` + strings.Repeat(f.Unit, n) + `"}}`)
		}},
	{"other-method", `tools/list params {"cursor":1}, filled to bounds.MaxOtherParamsBytes`, otherMethodEchoBody},
}

// otherMethodEchoBody fills tools/list params up to the gate's bound on the
// params of methods other than tools/call.
func otherMethodEchoBody(f EchoFiller, n int) []byte {
	const open, closing = `{"cursor":1,"x":"`, `"}`
	n = min(n, (bounds.MaxOtherParamsBytes-len(open)-len(closing))/len(f.Unit))
	return []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":` + open + strings.Repeat(f.Unit, n) + closing + `}`)
}

// Answer is what an HTTP answer says, read from outside.
type Answer struct {
	Status      int
	ContentType string
	Bytes       int
	Message     bool   // the body is one JSON-RPC message
	ID          string // its raw id
	Code        int    // its error code, when it is an error
	Error       bool   // it holds an error object
	IsError     bool   // it holds a result with isError: the middleware's refusal shape
	Bound       string // error.data.bound: the front gate's refusal names its bound
	Where       string // error.data.where
	Text        string // an isError result's text: the refusal's message
}

// ReadAnswer reads r.
func ReadAnswer(r Response) Answer {
	a := Answer{Status: r.Status, ContentType: r.ContentType, Bytes: len(r.Body)}
	m, err := Message(r.Body)
	if err != nil {
		return a
	}
	a.Message, a.ID = true, string(m["id"])
	if m["error"] != nil {
		var e struct {
			Code int `json:"code"`
			Data struct {
				Bound string `json:"bound"`
				Where string `json:"where"`
			} `json:"data"`
		}
		a.Error = json.Unmarshal(m["error"], &e) == nil
		a.Code, a.Bound, a.Where = e.Code, e.Data.Bound, e.Data.Where
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if m["result"] != nil && json.Unmarshal(m["result"], &res) == nil {
		a.IsError = res.IsError
		if a.IsError && len(res.Content) == 1 {
			a.Text = res.Content[0].Text
		}
	}
	return a
}

// GateRefused reports whether the answer is the front gate's: a JSON body
// (the SDK's answers on a session are SSE, its malformed-body 400 plain
// text) that names a bound or carries the middleware's refusal shape.
func (a Answer) GateRefused() bool {
	return a.ContentType == "application/json" && a.Message && (a.Bound != "" || a.IsError)
}

// ProtocolForm reports whether the answer is a JSON-RPC message over
// application/json carrying id and an error or an isError result.
func (a Answer) ProtocolForm(id string) bool {
	return a.ContentType == "application/json" && a.Message && a.ID == id && (a.Error || a.IsError)
}

// String describes the answer for a record's instance.
func (a Answer) String() string {
	switch {
	case a.Error && a.Bound != "":
		where := ""
		if a.Where != "" {
			where = " at " + a.Where
		}
		return fmt.Sprintf("HTTP %d %s, JSON-RPC error %d naming bound %s%s, a %d-byte answer", a.Status, a.ContentType, a.Code, a.Bound, where, a.Bytes)
	case a.IsError:
		return fmt.Sprintf("HTTP %d %s, a tools/call result with isError (the middleware's refusal shape) %q, a %d-byte answer", a.Status, a.ContentType, a.Text, a.Bytes)
	case a.Error:
		return fmt.Sprintf("HTTP %d %s, JSON-RPC error %d, a %d-byte answer", a.Status, a.ContentType, a.Code, a.Bytes)
	}
	return fmt.Sprintf("HTTP %d %s, a %d-byte answer", a.Status, a.ContentType, a.Bytes)
}

// FrontGateProbes are Probes plus a control the gate must pass: sound
// arguments with an escaped member name reach middleware byte for byte (the
// gate hands the SDK the same bytes).
var FrontGateProbes = append(append([]Probe(nil), Probes...), Probe{
	"arguments-sound-bytes-intact", "arguments hold an escaped member name and no duplicate",
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"project.list","arguments":{"a":1,"\u0062":2}}}`,
	func(r []Reached) string {
		if len(r) == 1 && string(r[0].Arguments) == `{"a":1,"\u0062":2}` {
			return "arguments reached middleware byte for byte"
		}
		return "arguments reached middleware altered"
	}})

// RunGateProbe sends p and reports whether it reached middleware, what that
// middleware saw (p.Check), and the answer.
func (se *Session) RunGateProbe(p Probe) (reached bool, what string, a Answer, err error) {
	se.s.Take()
	r, _, err := se.Post([]byte(p.Body))
	if err != nil {
		return false, "", a, err
	}
	a = ReadAnswer(r)
	if got := se.s.Take(); len(got) > 0 {
		check := p.Check
		if check == nil {
			check = func([]Reached) string { return "reached middleware" }
		}
		return true, check(got), a, nil
	}
	return false, "refused by the front gate before the SDK: " + a.String(), a, nil
}

// gateMeasure collects the front-gate records and the longest answer the
// gate wrote in refusing.
type gateMeasure struct {
	se      *Session
	srv     *Server
	out     []results.Record
	longest int // the longest gate refusal seen
	at      string
	build   results.Build
}

const frontGateInstrument = "internal/residuals.FrontGateRecords: the demo server behind mcpvalidate's front gate (demo.Guarded, default options) on net/http/httptest, hand-written HTTP bytes (protocol 2025-11-25), a probe middleware outside the validator"

func (g *gateMeasure) rec(id, title string, v float64, unit, instance string) {
	g.out = append(g.out, results.Record{ID: "mcpvalidate.frontgate." + id, Title: title, Value: v, Unit: unit, Instance: instance,
		Method: results.Measured, Source: frontGateInstrument, Build: g.build})
}

// refused notes a, answered to what, when the gate refused it.
func (g *gateMeasure) refused(a Answer, what string) {
	if a.GateRefused() && a.Bytes > g.longest {
		g.longest, g.at = a.Bytes, what
	}
}

// FrontGateRecords measures every residual through the front gate.
func FrontGateRecords() ([]results.Record, error) {
	s, err := NewGuardedServer()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	se, err := s.Open(true)
	if err != nil {
		return nil, err
	}
	g := &gateMeasure{se: se, srv: s, build: results.CurrentBuild(sdkModule)}
	for _, step := range []func() error{g.echo, g.bypasses, g.probes, g.depth, g.rawControls, g.initGate} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	g.rec("refusal.longest-answer-bytes", "the longest answer the front gate wrote in refusing any request of this measurement (mcpvalidate.MaxRefusalBytes bounds it by construction)",
		float64(g.longest), "bytes", g.at)
	if ok, _, err := se.Post([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"project.list","arguments":{}}}`)); err != nil || ok.Status != http.StatusOK {
		return nil, fmt.Errorf("the guarded server stopped answering after the residual probes: %v", err)
	}
	return g.out, nil
}

// echo: the bare SDK's params-echo instances, through the gate.
func (g *gateMeasure) echo() error {
	sw, err := g.se.SweepEcho(EchoBody, echoN)
	if err != nil {
		return err
	}
	if sw.Reached {
		return fmt.Errorf("a params-echo instance reached middleware: its name is a number")
	}
	a := ReadAnswer(sw.At)
	g.refused(a, "the params-echo instances")
	inst := fmt.Sprintf("tools/call params {\"name\":1,\"x\":\"n x filler\"} over the %d named fillers at n = %d and every raw byte 0x20-0xFF at n = 4096 (the sweep that first measured mcpvalidate.residual.params-echo.worst-ratio); worst ratio at %s, a %d-byte request: %s",
		len(EchoFillers), echoN, sw.Worst, sw.Req, a)
	g.rec("params-echo.longest-answer-bytes", "the longest answer to the bare SDK's params-echo instances through the front gate: it refuses a non-string params.name before the SDK decodes, so the answer no longer grows with the body",
		float64(sw.Longest), "bytes", inst)
	g.rec("params-echo.worst-ratio", "answer bytes per request byte for the bare SDK's params-echo instances through the front gate, worst instance",
		round(sw.Ratio, 6), "answer bytes / request bytes", inst)

	hits := 0
	fillers := SweepFillers()
	for _, f := range fillers {
		_, r, _, err := g.se.EchoRatio(CanaryEchoBody, f, 4096)
		if err != nil {
			return err
		}
		if EchoesCanary(r.Body) {
			hits++
		}
		g.refused(ReadAnswer(r), "the params-echo instances")
	}
	g.rec("params-echo.canary-answers", "answers, of the params-echo instances through the front gate with a canary member beside the filler, that hold the canary",
		float64(hits), "answers", fmt.Sprintf("tools/call params {\"name\":1,\"c\":%q,\"x\":\"4096 x filler\"}, %d fillers (the named ones and every raw byte 0x20-0xFF)", Canary, len(fillers)))
	return nil
}

// bypasses: echo shapes whose envelope the gate reads as sound.
func (g *gateMeasure) bypasses() error {
	for _, sh := range GateEchoShapes {
		sw, err := g.se.SweepEcho(sh.Shape, echoN)
		if err != nil {
			return err
		}
		a := ReadAnswer(sw.At)
		inst := fmt.Sprintf("%s, string member x of n x filler over the %d named fillers at n = %d and every raw byte 0x20-0xFF at n = 4096; worst at %s, a %d-byte request: %s; reached middleware: %t",
			sh.Name, len(EchoFillers), echoN, sw.Worst, sw.Req, a, sw.Reached)
		g.rec("params-echo."+sh.ID+".worst-ratio", "answer bytes per request byte for params the SDK cannot decode and the front gate admits (the SDK echoes them, %q then JSON, before any middleware): "+sh.ID,
			round(sw.Ratio, 3), "answer bytes / request bytes", inst)
		if sh.ID == "other-method" {
			g.rec("params-echo."+sh.ID+".longest-answer-bytes", "the longest answer to those params: the gate bounds the params of methods other than tools/call by size, not by type",
				float64(sw.Longest), "bytes", inst)
		}
	}
	return nil
}

// probes: the envelope strictness cases, through the gate.
func (g *gateMeasure) probes() error {
	for _, p := range FrontGateProbes {
		reached, what, a, err := g.se.RunGateProbe(p)
		if err != nil {
			return err
		}
		g.refused(a, "probe "+p.ID)
		g.rec("tolerates."+p.ID, "the front gate lets this envelope through to middleware (1) or refuses it first (0): "+p.Name,
			b2f(reached), "1 = reaches middleware", what)
	}
	return nil
}

// depth: the deepest arguments that reach middleware, and the answer one
// level deeper.
func (g *gateMeasure) depth() error {
	d, err := g.se.MaxArgumentsDepth()
	if err != nil {
		return err
	}
	r, _, err := g.se.Post(depthBody(d + 1))
	if err != nil {
		return err
	}
	a := ReadAnswer(r)
	g.refused(a, fmt.Sprintf("arguments nesting %d", d+1))
	g.rec("arguments-max-depth", "the deepest arguments nesting that reaches middleware through the front gate (the arguments object is level 1): the gate holds the arguments to their own nesting bound before the SDK decodes",
		float64(d), "levels", fmt.Sprintf("tools/call project.list with arguments {\"a\":{\"a\":...{}}}, bisected over 1..4096; %d levels: %s", d+1, a))
	return nil
}

// rawControls: a raw control character in the arguments and in the frame.
func (g *gateMeasure) rawControls() error {
	bodies := []struct{ what, body string }{
		{"params.name \"project.list\\x01\"", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"project.list\x01\",\"arguments\":{}}}"},
	}
	for _, n := range []int{16, 4096, echoN} {
		bodies = append(bodies, struct{ what, body string }{fmt.Sprintf("arguments {\"a\":\"\\x01\" + %d x b}", n),
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"project.list\",\"arguments\":{\"a\":\"\x01" + strings.Repeat("b", n) + "\"}}}"})
	}
	longest, form := 0, true
	var seen []string
	for _, b := range bodies {
		g.se.s.Take()
		r, _, err := g.se.Post([]byte(b.body))
		if err != nil {
			return err
		}
		if len(g.se.s.Take()) > 0 {
			return fmt.Errorf("a raw control character reached middleware through the front gate: %s", b.what)
		}
		a := ReadAnswer(r)
		g.refused(a, b.what)
		longest = max(longest, a.Bytes)
		form = form && a.ProtocolForm("1")
		seen = append(seen, b.what+": "+a.String())
	}
	inst := strings.Join(seen, "; ")
	g.rec("raw-control.longest-answer-bytes", "the longest answer the front gate gives a raw control character in a string (the bare SDK's is its text/plain 400)",
		float64(longest), "bytes", inst)
	g.rec("raw-control.protocol-form", "every answer to a raw control character is a JSON-RPC message over application/json carrying the request's id, an error or an isError result (1), or not (0)",
		b2f(form), "1 = protocol form", inst)
	return nil
}

// initGate: the protocol-order residuals the gate does not judge.
func (g *gateMeasure) initGate() error {
	code, inst, err := g.srv.InitGateCode()
	if err != nil {
		return err
	}
	g.rec("init-gate.code", "the JSON-RPC error code answered, through the front gate, to a tools/call before initialize: the go-sdk's initialization gate still answers (protocol order is not the front gate's to judge)",
		float64(code), "JSON-RPC error code", inst)
	served, err := g.srv.ServedBeforeInitialized()
	if err != nil {
		return err
	}
	g.rec("init-gate.served-before-initialized-notification", "a tools/call after initialize and before notifications/initialized, through the front gate, is served (1) or refused (0)",
		b2f(served), "1 = served", "initialize, then tools/call project.list without notifications/initialized")
	return nil
}
