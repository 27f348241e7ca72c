package mcpvalidate

// FuzzTypedAgreement and everything it needs live in this one file: the
// OSS-Fuzz builder compiles the file holding a target alone, as package code.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The representative input types: every kind the domain derivation knows,
// nested, and the shapes of the go-sdk's own examples.

// issueIn is issue 23's example.
type issueIn struct {
	Query string  `json:"query"`
	Limit int     `json:"limit"`
	Page  uint    `json:"page,omitempty"`
	Level int8    `json:"level,omitempty"`
	Ratio float32 `json:"ratio,omitempty"`
}

// scalarsIn holds every scalar kind, plain and behind a pointer.
type scalarsIn struct {
	I    int          `json:"i,omitempty"`
	I8   int8         `json:"i8,omitempty"`
	I16  int16        `json:"i16,omitempty"`
	I32  int32        `json:"i32,omitempty"`
	I64  int64        `json:"i64,omitempty"`
	U    uint         `json:"u,omitempty"`
	U8   uint8        `json:"u8,omitempty"`
	U16  uint16       `json:"u16,omitempty"`
	U32  uint32       `json:"u32,omitempty"`
	U64  uint64       `json:"u64,omitempty"`
	UP   uintptr      `json:"up,omitempty"`
	F32  float32      `json:"f32,omitempty"`
	F64  float64      `json:"f64,omitempty"`
	B    bool         `json:"b,omitempty"`
	S    string       `json:"s,omitempty"`
	N    json.Number  `json:"n,omitempty"`
	PI64 *int64       `json:"pi64,omitempty"`
	PU8  *uint8       `json:"pu8,omitempty"`
	PF32 *float32     `json:"pf32,omitempty"`
	PS   *string      `json:"ps,omitempty"`
	PPI  **int16      `json:"ppi,omitempty"`
	PN   *json.Number `json:"pn,omitempty"`
}

// intKey is an integer map key jsonschema-go accepts (it marshals as text)
// and the decoder parses as an int16.
type intKey int16

func (k intKey) MarshalText() ([]byte, error) { return []byte(fmt.Sprint(int16(k))), nil }

// codeKey is a map key with its own text decoding: lower-case letters only.
type codeKey string

func (k codeKey) MarshalText() ([]byte, error) { return []byte(k), nil }
func (k *codeKey) UnmarshalText(b []byte) error {
	if !lowerWord.Match(b) {
		return errors.New("codeKey")
	}
	*k = codeKey(b)
	return nil
}

var lowerWord = regexp.MustCompile(`^[a-z]{1,4}$`)

// myByte is a named byte: a []myByte is still base64 to the decoder.
type myByte uint8

// containersIn holds slices, arrays, maps of each key kind, and bytes.
type containersIn struct {
	Ints   []int8               `json:"ints,omitempty"`
	Fixed  [3]uint16            `json:"fixed,omitempty"`
	Floats map[string]float32   `json:"floats,omitempty"`
	Ptrs   map[string]*int64    `json:"ptrs,omitempty"`
	Bytes  []byte               `json:"bytes,omitempty"`
	Mine   []myByte             `json:"mine,omitempty"`
	Pair   [2]byte              `json:"pair,omitempty"`
	Nested [][]uint             `json:"nested,omitempty"`
	ByInt  map[intKey]bool      `json:"byInt,omitempty"`
	ByCode map[codeKey]uint8    `json:"byCode,omitempty"`
	Deep   map[string][]*uint32 `json:"deep,omitempty"`
}

// Embedding: promoted, tagged, behind an unexported pointer (which the
// decoder cannot allocate), names that collide, json "-" and "-,".
type Inner struct {
	A int8   `json:"a"`
	B string `json:"b,omitempty"`
}
type innerHidden struct {
	C uint16 `json:"c,omitempty"`
}
type Tagged struct {
	D bool `json:"d"`
}
type Amb1 struct {
	Z int `json:",omitempty"`
}
type Amb2 struct {
	Z string `json:",omitempty"`
}
type Outer struct {
	Inner
	*innerHidden
	Tagged `json:"tagged"`
	Amb1
	Amb2
	X      int32  `json:"x"`
	Skip   int    `json:"-"`
	Dash   uint8  `json:"-,omitempty"`
	hidden int    //nolint:unused // unexported: never decoded
	Sub    *Inner `json:"sub,omitempty"`
	// A tag name encoding/json finds invalid (') is ignored by the decoder,
	// which reads the member as "QR"; jsonschema-go publishes "q'r".
	QR int8 `json:"q'r,omitempty"`
}

// okOnly decodes only the string "ok" or the number 42.
type okOnly struct{ v string }

func (o *okOnly) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"ok"`, `42`, `null`:
		o.v = string(b)
		return nil
	}
	return errors.New("okOnly")
}

// code decodes from text: one to four lower-case letters.
type code string

func (c *code) UnmarshalText(b []byte) error {
	if !lowerWord.Match(b) {
		return errors.New("code")
	}
	*c = code(b)
	return nil
}

// opaqueIn holds types with their own decoding, and untyped members.
type opaqueIn struct {
	When  time.Time       `json:"when,omitempty"`
	PWhen *time.Time      `json:"pwhen,omitempty"`
	Level slog.Level      `json:"level,omitempty"`
	Big   big.Int         `json:"big,omitempty"`
	PBig  *big.Int        `json:"pbig,omitempty"`
	Rat   *big.Rat        `json:"rat,omitempty"`
	Flt   *big.Float      `json:"flt,omitempty"`
	OK    okOnly          `json:"ok,omitempty"`
	Code  code            `json:"code,omitempty"`
	Codes []code          `json:"codes,omitempty"`
	Raw   json.RawMessage `json:"raw,omitempty"`
	Any   any             `json:"any,omitempty"`
	Anys  []any           `json:"anys,omitempty"`
	Meta  map[string]any  `json:"meta,omitempty"`
	Str   fmt.Stringer    `json:"str,omitempty"`
}

// quotedIn holds ",string" members.
type quotedIn struct {
	N  int     `json:"n,string,omitempty"`
	PN *int    `json:"pn,string,omitempty"`
	B  bool    `json:"b,string,omitempty"`
	F  float32 `json:"f,string,omitempty"`
	S  string  `json:"s,string,omitempty"`
	U  uint8   `json:"u,string,omitempty"`
}

// The go-sdk's examples: examples/server/memory and sequentialthinking.
type Entity struct {
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
}
type createEntitiesArgs struct {
	Entities []Entity `json:"entities"`
}
type Thought struct {
	Index       int       `json:"index"`
	Content     string    `json:"content"`
	Created     time.Time `json:"created"`
	Revised     bool      `json:"revised"`
	ParentIndex *int      `json:"parentIndex,omitempty"`
}
type continueThinkingArgs struct {
	SessionID      string     `json:"sessionId"`
	Thought        string     `json:"thought"`
	NextNeeded     *bool      `json:"nextNeeded,omitempty"`
	ReviseStep     *int       `json:"reviseStep,omitempty"`
	CreateBranch   bool       `json:"createBranch,omitempty"`
	EstimatedTotal int        `json:"estimatedTotal,omitempty"`
	History        []*Thought `json:"history,omitempty"`
}

// ownSchemaIn is registered with a schema of its own, open and looser than
// the type, with a default the type cannot hold for d8.
type ownSchemaIn struct {
	N  int64     `json:"n"`
	D8 int8      `json:"d8"`
	W  time.Time `json:"w"`
}

const ownSchema = `{"type":"object","properties":{"n":{"type":"integer"},"d8":{"type":"integer","default":300},"w":{"type":"string"}},"additionalProperties":false}`

// typedCase is one representative tool. add registers it with AddTool, or
// with the go-sdk's own mcp.AddTool when plain (the "before").
type typedCase struct {
	name string
	add  func(srv *mcp.Server, plain bool, h func() (*mcp.CallToolResult, any, error))
}

func handlerFor[In any](h func() (*mcp.CallToolResult, any, error)) mcp.ToolHandlerFor[In, any] {
	return func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, any, error) { return h() }
}

func typedCaseOf[In any](name string, schema any) typedCase {
	return typedCase{name, func(srv *mcp.Server, plain bool, h func() (*mcp.CallToolResult, any, error)) {
		t := &mcp.Tool{Name: name, InputSchema: schema}
		if plain {
			mcp.AddTool(srv, t, handlerFor[In](h))
		} else {
			AddTool(srv, t, handlerFor[In](h))
		}
	}}
}

var typedCases = []typedCase{
	typedCaseOf[issueIn]("issue", nil),
	typedCaseOf[scalarsIn]("scalars", nil),
	typedCaseOf[containersIn]("containers", nil),
	typedCaseOf[Outer]("embedded", nil),
	typedCaseOf[opaqueIn]("opaque", nil),
	typedCaseOf[quotedIn]("quoted", nil),
	typedCaseOf[createEntitiesArgs]("memory", nil),
	typedCaseOf[*continueThinkingArgs]("thinking", nil),
	typedCaseOf[any]("any", nil),
	typedCaseOf[map[string]int16]("map", nil),
	typedCaseOf[ownSchemaIn]("own", json.RawMessage(ownSchema)),
}

// openTypedTools are the representative tools whose schemas are open by
// their Go type: In = any is {"type": "object"}, and a map[string]any member
// admits any member with any value. Install refuses an open schema unless
// the tool is named (Options.OpenTools).
var openTypedTools = []string{"any", "opaque"}

// typedPair is the representative tools on two servers: one wired as the
// README says (AddTool, then Install), one with the same registrations and
// no validator (the SDK alone: the oracle). ran counts handler runs per
// server.
type typedPair struct {
	v       *Validator
	guarded *mcp.ClientSession
	bare    *mcp.ClientSession
	mu      sync.Mutex
	ran     [2]int
	wire    json.RawMessage // the arguments the guarded server last received, as its middleware saw them
}

const servedText = "served"

func newTypedPair(tb *testing.T) *typedPair {
	p := &typedPair{}
	ctx := context.Background()
	for i := range 2 {
		srv := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v0"}, nil)
		h := func() (*mcp.CallToolResult, any, error) {
			p.mu.Lock()
			p.ran[i]++
			p.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: servedText}}}, nil, nil
		}
		for _, c := range typedCases {
			c.add(srv, false, h)
		}
		if i == 0 {
			v, err := Install(srv, &Options{OpenTools: openTypedTools})
			if err != nil {
				tb.Fatal(err)
			}
			p.v = v
			// Outermost: records the bytes the validator is handed.
			srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if c, ok := req.(*mcp.CallToolRequest); ok && c.Params != nil {
						p.mu.Lock()
						p.wire = append(json.RawMessage(nil), c.Params.Arguments...)
						p.mu.Unlock()
					}
					return next(ctx, method, req)
				}
			})
		}
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(ctx, st, nil); err != nil {
			tb.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			tb.Fatal(err)
		}
		if i == 0 {
			p.guarded = cs
		} else {
			p.bare = cs
		}
	}
	return p
}

// call sends args verbatim and returns the answer's text and whether the
// handler ran.
func (p *typedPair) call(tb *testing.T, guarded bool, tool string, args []byte) (string, bool) {
	cs, i := p.bare, 1
	if guarded {
		cs, i = p.guarded, 0
	}
	p.mu.Lock()
	before := p.ran[i]
	p.mu.Unlock()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	p.mu.Lock()
	ran := p.ran[i] > before
	p.mu.Unlock()
	if err != nil {
		return "error: " + err.Error(), ran
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError && b.Len() == 0 {
		b.WriteString("isError")
	}
	return b.String(), ran
}

// sdkText are fragments of the SDK's and the decoder's own error texts and
// Go type names: none may reach a caller.
var sdkText = regexp.MustCompile(`(?i)unmarshal|go struct field|go value|of type|interface \{\}|mcpvalidate\.|json: |validating "arguments"|overflows|math/big|slog:|parsing time|illegal base64|okOnly|codeKey|\b(u?int(8|16|32|64)?|uintptr|float(32|64)|\[\]uint8|big\.(Int|Rat|Float)|time\.Time|json\.Number|json\.RawMessage)\b`)

// typedLeafWant are the wants a StageType leaf may carry besides a
// minimum/maximum bound: fixed text.
var typedLeafWant = regexp.MustCompile(`^(\(opaque type\)|\(a JSON string holding the value\)|\(input type\)|\(key type\)|0 \(no negative zero\)|base64)$`)

// fixedText is a refusal's text with every caller-written part blanked (the
// tool name, leaf pointers, the gate's pointer): what is left comes from
// templates, keywords and schema-side bounds only.
func fixedText(r *callRefusal) string {
	c := *r
	c.Tool = ""
	c.Gate = nil
	c.Leaves = append([]leaf(nil), r.Leaves...)
	for i := range c.Leaves {
		c.Leaves[i].Pointer = ""
	}
	return c.Error()
}

// checkTypedAnswer holds one call's two answers to the properties.
func checkTypedAnswer(t *testing.T, p *typedPair, tool string, args []byte) {
	if !json.Valid(args) {
		return // no client sends it; the gate's own fuzz targets cover it
	}
	got, ran := p.call(t, true, tool, args)
	p.mu.Lock()
	wire := p.wire
	p.mu.Unlock()
	oracle, oracleRan := p.call(t, false, tool, args)
	// The refusal's own type, as Check builds it (this file is compiled
	// alone with the package by OSS-Fuzz's builder: no test helpers).
	r := p.v.refusal(context.Background(), tool, wire)
	if r == nil {
		// Admitted: the handler runs, and the SDK's typed decode succeeds
		// on its own.
		if !ran || got != servedText {
			t.Fatalf("%s %q: admitted by Check, answered %q (handler ran %v)", tool, wire, got, ran)
		}
		if !oracleRan {
			t.Fatalf("%s %q: admitted, and the SDK alone refuses it: %q", tool, wire, oracle)
		}
		return
	}
	if ran {
		t.Fatalf("%s %q: refused by Check (%v), and the handler ran", tool, wire, r)
	}
	if got != r.Error() {
		t.Fatalf("%s %q: refused; the answer %q is not the validator's refusal %q", tool, wire, got, r.Error())
	}
	if len(got) > maxRefusalTextBytes() {
		t.Fatalf("%s: refusal of %d bytes", tool, len(got))
	}
	if m := sdkText.FindString(fixedText(r)); m != "" {
		t.Fatalf("%s %q: refusal %q carries %q", tool, wire, got, m)
	}
	if r.Stage == StageType {
		for _, l := range r.Leaves {
			if !typedLeafWant.MatchString(l.Want) && l.Keyword != "minimum" && l.Keyword != "maximum" {
				t.Fatalf("%s %q: type leaf %+v", tool, wire, l)
			}
		}
	}
}

// typedSeeds reach every kind: for each tool, documents at and past each
// member's bounds, of each JSON kind where the type takes another.
var typedSeeds = map[string][]string{
	"issue": {
		`{"query":"Q","limit":99999999999999999999}`, `{"query":"Q","limit":1e400}`, `{"query":"Q","limit":1,"ratio":1e39}`,
		`{"query":"Q","limit":1,"page":-1}`, `{"query":"Q","limit":1,"level":300}`, `{"query":"Q","limit":1.5}`,
		`{"query":5,"limit":1}`, `{"query":"Q","limit":null}`, `{"query":"Q","limit":1,"page":-0}`,
		`{"query":"Q","limit":9223372036854775000}`, `{"query":"Q","limit":-9223372036854775000,"ratio":3.4028235e38}`,
		`{"query":"Q","limit":1,"ratio":3.4028236e38}`, `{"query":"Q","limit":1,"page":18446744073709550000}`,
		`{"query":"Q","limit":1,"page":36893488147419103000}`,
	},
	"scalars": {
		`{"i8":-128,"i16":32767,"i32":-2147483648,"u8":255,"u16":65535,"u32":4294967295,"u64":18446744073709550000,"up":0,"f64":1.7976931348623157e308}`,
		`{"i8":128}`, `{"u32":4294967296}`, `{"u64":18446744073709551615}`, `{"i64":-9223372036854775808}`, `{"f64":1.7976931348623159e308}`,
		`{"f32":-3.4028236e38}`, `{"f32":1e-46,"f64":5e-324}`, `{"n":1e400}`, `{"n":"5"}`, `{"n":-0}`, `{"pn":null,"pi64":null}`,
		`{"pu8":-0}`, `{"u":-0.0e5}`, `{"up":-0}`, `{"ppi":32768}`, `{"ppi":null}`, `{"s":null}`, `{"b":"true"}`, `{"i":1.0}`, `{"i":1e2}`,
		`{"i64":9223372036854775001}`, `{"I8":1}`,
	},
	"containers": {
		`{"ints":[1,-128,127],"fixed":[1,2,3],"bytes":"AQID","mine":"AQI=","pair":[1,255]}`, `{"ints":[128]}`, `{"fixed":[1,2]}`,
		`{"fixed":[1,2,3,4]}`, `{"bytes":"A Q"}`, `{"bytes":[1,256]}`, `{"bytes":[-0]}`, `{"bytes":null}`, `{"mine":"@@"}`, `{"pair":"AQI="}`,
		`{"floats":{"a":3.4028235e38,"b":1e39}}`, `{"ptrs":{"a":null,"b":1e19}}`, `{"nested":[[1,-0],[2]]}`,
		`{"byInt":{"1":true,"-32768":false}}`, `{"byInt":{"32768":true}}`, `{"byInt":{"01":true}}`, `{"byInt":{"-0":true,"+1":true}}`,
		`{"byCode":{"ab":1}}`, `{"byCode":{"AB":1}}`, `{"byCode":{"toolong":1}}`, `{"deep":{"k":[1,null,4294967296,-0]}}`,
	},
	"embedded": {
		`{"a":1,"b":"x","tagged":{"d":true},"x":1}`, `{"a":1,"tagged":{"d":true},"x":1,"c":1}`, `{"a":1,"tagged":{"d":true},"x":1,"Z":1}`, `{"a":1,"tagged":{"d":true},"x":1,"q'r":1}`, `{"a":1,"tagged":{"d":true},"x":1,"QR":-129}`, `{"a":1,"tagged":{"d":true},"x":1,"QR":-128}`,
		`{"a":1,"tagged":{"d":true},"x":1,"d":true}`, `{"a":1,"tagged":{"d":true},"x":1,"-":7}`, `{"a":1,"tagged":{"d":true},"x":1,"Skip":1}`,
		`{"a":1,"tagged":{"d":true},"x":2147483648}`, `{"a":1,"tagged":{"d":true},"x":1,"sub":{"a":-129}}`, `{"a":1,"tagged":{"d":true},"x":1,"sub":null}`,
		`{"a":1,"tagged":{"d":true},"x":1,"hidden":1}`, `{"a":1,"tagged":null,"x":1}`,
	},
	"opaque": {
		`{"when":"2024-01-01T00:00:00Z","level":"INFO","big":12,"ok":"ok","code":"ab","codes":["a","b"],"raw":{"x":[1]},"any":1,"anys":[1,"x"],"meta":{"k":{"j":1}}}`,
		`{"when":"yesterday"}`, `{"when":5}`, `{"when":null}`, `{"pwhen":null}`, `{"pwhen":"x"}`, `{"level":"LOUD"}`, `{"level":4}`,
		`{"big":"12"}`, `{"big":1e21}`, `{"pbig":null}`, `{"pbig":1.5}`, `{"rat":"1/3"}`, `{"rat":"x"}`, `{"flt":"1.5"}`, `{"flt":1.5}`,
		`{"ok":42}`, `{"ok":42.0}`, `{"ok":"no"}`, `{"ok":null}`, `{"code":"ABC"}`, `{"code":5}`, `{"codes":["a","B"]}`,
		`{"raw":1e400}`, `{"raw":{"x":[-1e309]}}`, `{"any":1e400}`, `{"anys":[1,{"a":1e999}]}`, `{"meta":{"k":-1e400}}`, `{"str":null}`, `{"str":"x"}`,
	},
	"quoted": {
		`{"n":"5","pn":"7","b":"true","f":"1.5","s":"\"x\"","u":"255"}`, `{"n":5}`, `{"n":"5.0"}`, `{"n":"99999999999999999999"}`, `{"n":"null"}`,
		`{"pn":null}`, `{"pn":"null"}`, `{"b":"1"}`, `{"f":"1e39"}`, `{"s":"x"}`, `{"u":"256"}`, `{"u":"-0"}`, `{"n":" 5"}`, `{"n":"05"}`,
	},
	"memory": {
		`{"entities":[{"name":"a","entityType":"t","observations":["o"]}]}`, `{"entities":[{"name":"a","entityType":"t","observations":null}]}`,
		`{"entities":[{"name":"a","entityType":"t"}]}`, `{"entities":null}`, `{"entities":[{"name":1,"entityType":"t","observations":[]}]}`,
	},
	"thinking": {
		`{"sessionId":"s","thought":"t","nextNeeded":true,"reviseStep":2,"estimatedTotal":3}`, `{"sessionId":"s","thought":"t","reviseStep":1e19}`,
		`{"sessionId":"s","thought":"t","history":[{"index":1,"content":"c","created":"2024-01-01T00:00:00Z","revised":false}]}`,
		`{"sessionId":"s","thought":"t","history":[{"index":1,"content":"c","created":"soon","revised":false}]}`,
		`{"sessionId":"s","thought":"t","history":[null]}`,
	},
	"any": {`{}`, `{"a":[1,{"b":2}]}`, `{"a":1e400}`, `{"a":[-1e400]}`, `{"a":1.7976931348623157e308}`},
	"map": {`{"a":1,"b":-32768}`, `{"a":32768}`, `{"a":-0}`, `{"a":null}`},
	"own": {`{"n":1,"d8":1,"w":"2024-01-01T00:00:00Z"}`, `{"n":1e19,"d8":1}`, `{"n":1,"d8":300}`, `{"n":1}`, `{"n":1,"d8":1,"w":"x"}`, `{"n":1,"d8":1,"extra":1e400}`, `{"n":1,"d8":1,"w":"2024-01-01T00:00:00Z","n2":"x"}`},
}

// FuzzTypedAgreement: over the representative typed tools, wired as the
// README says, for every arguments document the validator admits the SDK's
// typed decode succeeds (the same tools on a server without the validator
// run the handler); for every one it refuses, the caller's answer is the
// validator's bounded refusal and the handler never ran; no answer carries
// the SDK's or the decoder's text, a Go type name, or more than
// maxRefusalTextBytes. The fuzz input picks a tool (its first byte) and is the
// arguments (the rest).
func FuzzTypedAgreement(f *testing.F) {
	names := make([]string, len(typedCases))
	for i, c := range typedCases {
		names[i] = c.name
		for _, s := range typedSeeds[c.name] {
			f.Add(append([]byte{byte(i)}, s...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		typedFuzz.once.Do(func() { typedFuzz.p = newTypedPair(t) })
		if len(data) == 0 {
			return
		}
		checkTypedAnswer(t, typedFuzz.p, names[int(data[0])%len(names)], data[1:])
	})
}

// typedFuzz is FuzzTypedAgreement's pair of servers, built once per
// process: OSS-Fuzz's builder calls the whole target, setup included, once
// per input, so state declared inside it was rebuilt for every input (about
// one input a second, memory growing ~1 MB an input under libFuzzer).
var typedFuzz struct {
	once sync.Once
	p    *typedPair
}
