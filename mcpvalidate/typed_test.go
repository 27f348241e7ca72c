package mcpvalidate

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	sdkschema "github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkjson "github.com/segmentio/encoding/json"
	"github.com/theurian/boundlab/charge"
)

// connect serves srv over an in-memory transport and returns a client.
func connect(tb testing.TB, srv *mcp.Server) *mcp.ClientSession {
	tb.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// answer calls tool with args verbatim and returns the answer's text.
func answer(tb testing.TB, cs *mcp.ClientSession, tool, args string) string {
	tb.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// sentinel is a handler that records that it ran.
type sentinel struct {
	mu  sync.Mutex
	ran int
}

func (s *sentinel) handle() (*mcp.CallToolResult, any, error) {
	s.mu.Lock()
	s.ran++
	s.mu.Unlock()
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: servedText}}}, nil, nil
}

func (s *sentinel) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ran
}

// openSchema admits every object: with it, only the SDK's decode decides.
const openSchema = `{"type":"object"}`

// decodeSample is the type TestSDKDecodeMatchesTheSDK drives through the SDK.
type decodeSample struct {
	Limit int        `json:"limit"`
	Page  uint       `json:"page"`
	Ratio float32    `json:"ratio"`
	When  *time.Time `json:"when"`
	Blob  []byte     `json:"blob"`
	Tags  []string   `json:"tags"`
}

// decodeSamples are arguments documents on each side of the decode's edges,
// and one ("Limit") that only a case-sensitive decoder admits.
var decodeSamples = []string{
	`{}`, `{"limit":1}`, `{"limit":99999999999999999999}`, `{"limit":1e400}`, `{"limit":1.5}`, `{"limit":5.0}`,
	`{"limit":9223372036854775295}`, `{"limit":9223372036854775296}`, `{"limit":-9223372036854775808}`,
	`{"page":-0}`, `{"page":-1}`, `{"page":36893488147419103000}`, `{"ratio":1e39}`, `{"ratio":3.4028235e38}`,
	`{"ratio":3.4028236e38}`, `{"when":"2024-01-01T00:00:00Z"}`, `{"when":"x"}`, `{"when":null}`, `{"blob":"AQID"}`,
	`{"blob":"A Q"}`, `{"blob":[1,2]}`, `{"tags":["a",1]}`, `{"tags":null}`, `{"Limit":"x"}`, `{"LIMIT":[]}`,
	`{"other":1e400}`, `{"other":{"x":[1e-400]}}`, `{"limit":null}`,
}

// TestSDKDecodeMatchesTheSDK holds sdkdecode.go's copy of the go-sdk's
// typed path to the SDK itself: for each sample, the copy admits exactly
// when the SDK's handler runs — once with an open schema (only the decode
// decides, flags included) and once with the schema the SDK infers. The
// samples can tell the flag apart: without DontMatchCaseInsensitiveStructFields
// the copy disagrees on at least one.
func TestSDKDecodeMatchesTheSDK(t *testing.T) {
	in := reflect.TypeFor[decodeSample]()
	inferred, err := sdkschema.ForType(in, forOptions)
	if err != nil {
		t.Fatal(err)
	}
	var open *sdkschema.Schema
	if err := json.Unmarshal([]byte(openSchema), &open); err != nil {
		t.Fatal(err)
	}
	var s sentinel
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "open", InputSchema: json.RawMessage(openSchema)}, handlerFor[decodeSample](s.handle))
	mcp.AddTool(srv, &mcp.Tool{Name: "inferred"}, handlerFor[decodeSample](s.handle))
	cs := connect(t, srv)
	insensitive := func(args []byte, resolved *sdkschema.Resolved) bool {
		m := map[string]any{}
		if sdkUnmarshal(args, &m) != nil {
			return false
		}
		var v any = m
		if resolved.Validate(&v) != nil {
			return false
		}
		out, _ := json.Marshal(v)
		return sdkjson.NewDecoder(strings.NewReader(string(out))).Decode(new(decodeSample)) == nil
	}
	flagSeen := false
	ran1 := 0 // subtests run: the flag is looked for only when all were
	for _, c := range []struct {
		tool   string
		schema *sdkschema.Schema
	}{{"open", open}, {"inferred", inferred}} {
		resolved, err := c.schema.Resolve(&sdkschema.ResolveOptions{ValidateDefaults: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, args := range decodeSamples {
			t.Run(c.tool+"_"+docName(i, args), func(t *testing.T) {
				ran1++
				before := s.count()
				got := answer(t, cs, c.tool, args)
				ran := s.count() > before
				if copyRan := sdkTypedPath([]byte(args), resolved, in); copyRan != ran {
					t.Errorf("the copy admits: %v; the SDK ran the handler: %v (%q)", copyRan, ran, got)
				}
				if insensitive([]byte(args), resolved) != ran {
					flagSeen = true
				}
			})
		}
	}
	if ran1 == 2*len(decodeSamples) && !flagSeen {
		t.Error("no sample tells a case-insensitive decoder from the SDK's")
	}
}

// pastBound is the JSON text of the first number beyond bound away from
// zero that the SDK would not decode: the next float64 as encoding/json
// renders it, or, past ±math.MaxFloat64 (where the next float64 is
// infinite), the exact midpoint to 2^1024, which rounds to infinity.
func pastBound(bound float64) string {
	dir := math.Inf(1)
	if bound < 0 || (bound == 0 && math.Signbit(bound)) {
		dir = math.Inf(-1)
	}
	if bound == 0 {
		return "-1" // unsigned: the next integer below
	}
	next := math.Nextafter(bound, dir)
	if math.IsInf(next, 0) {
		// The midpoint rounds to infinity (ties to even); printed with a
		// relative margin of 1e-18 above it, far wider than the printing's
		// own rounding at 25 digits.
		mid := new(big.Float).SetPrec(2000).SetFloat64(bound)
		edge := new(big.Float).SetPrec(2000).SetMantExp(big.NewFloat(math.Copysign(1, bound)), 1024)
		mid.Add(mid, edge).Quo(mid, big.NewFloat(2))
		margin := new(big.Float).SetPrec(2000).Mul(mid, big.NewFloat(1e-18))
		return mid.Add(mid, margin).Text('e', 25)
	}
	b, _ := json.Marshal(next)
	return string(b)
}

// TestKindBounds holds each numeric kind's published bounds to the SDK
// itself, with an open schema so only its decode decides: at each bound the
// handler runs, one number past it does not. A kind of at most 32 bits is
// bounded exactly by its Go range; a 64-bit one, and the floats, by the
// edge of what the SDK's float64 round trip leaves decodable (inside the Go
// range: 9223372036854775807 is not served as an int64).
func TestKindBounds(t *testing.T) {
	var s sentinel
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	bounds := kindBounds()
	for k, typ := range kindType {
		st := reflect.StructOf([]reflect.StructField{{Name: "V", Type: typ, Tag: `json:"v"`}})
		srv.AddTool(&mcp.Tool{Name: k.String(), InputSchema: json.RawMessage(openSchema)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// What the SDK's typed path does with arguments (sdkdecode.go),
			// on the SDK's own transport and decode of the request.
			if !sdkDecodesArgs(req.Params.Arguments, st) {
				return &mcp.CallToolResult{IsError: true}, nil
			}
			r, _, _ := s.handle()
			return r, nil
		})
	}
	cs := connect(t, srv)
	for k, typ := range kindType {
		b := bounds[k]
		t.Run(k.String(), func(t *testing.T) {
			if typ.Bits() <= 32 && k != reflect.Float32 {
				lo, hi := goRange(typ)
				if b.min != lo || b.max != hi {
					t.Errorf("bounds [%v, %v], Go range [%v, %v]", b.min, b.max, lo, hi)
				}
			}
			for _, edge := range []float64{b.min, b.max} {
				at, _ := json.Marshal(edge)
				if got := answer(t, cs, k.String(), `{"v":`+string(at)+`}`); got != servedText {
					t.Errorf("at the bound %s: %q", at, got)
				}
				past := pastBound(edge)
				before := s.count()
				answer(t, cs, k.String(), `{"v":`+past+`}`)
				if s.count() != before {
					t.Errorf("past the bound, %s was served", past)
				}
			}
		})
	}
	// And through the real SDK's own typed path: the published schema is
	// what it validates against, so at the bound it serves, past it the
	// validator refuses first.
	t.Run("published", func(t *testing.T) {
		var s2 sentinel
		srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
		AddTool(srv, &mcp.Tool{Name: "scalars"}, handlerFor[scalarsIn](s2.handle))
		v, err := Install(srv, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs := connect(t, srv)
		for name, k := range map[string]reflect.Kind{"i": reflect.Int, "i64": reflect.Int64, "u64": reflect.Uint64, "f32": reflect.Float32, "f64": reflect.Float64, "up": reflect.Uintptr} {
			t.Run(name, func(t *testing.T) {
				for _, edge := range []float64{bounds[k].min, bounds[k].max} {
					at, _ := json.Marshal(edge)
					if got := answer(t, cs, "scalars", `{"`+name+`":`+string(at)+`}`); got != servedText {
						t.Errorf("%s at %s: %q", name, at, got)
					}
					args := `{"` + name + `":` + pastBound(edge) + `}`
					r := refusalOf(t, v, "scalars", []byte(args))
					if r == nil || r.Stage != StageSchema || len(r.Leaves) != 1 || r.Leaves[0].Pointer != "/"+name {
						t.Errorf("%s: %v", args, r)
					}
				}
			})
		}
	})
}

// sdkDecodesArgs is the SDK's typed path over raw arguments with no schema
// of note (steps 1, 3, 4).
func sdkDecodesArgs(args json.RawMessage, typ reflect.Type) bool {
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	out, ok := sdkRoundTrip(args)
	return ok && sdkUnmarshal(out, reflect.New(typ).Interface()) == nil
}

// goRange is an integer type's range as float64 (exact up to 32 bits).
func goRange(typ reflect.Type) (float64, float64) {
	bits := typ.Bits()
	switch typ.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1) - 1
	}
	return 0, math.Ldexp(1, bits) - 1
}

// TestStringOpaqueTypesRefuseEveryOtherKind holds stringOpaque and textOnly
// to the decoder: a value of every JSON kind but a string (and null) is
// refused for each, so {"type": "string"} says nothing false of them.
func TestStringOpaqueTypesRefuseEveryOtherKind(t *testing.T) {
	types := []reflect.Type{reflect.TypeFor[code]()}
	for typ := range stringOpaque {
		types = append(types, typ)
	}
	for _, typ := range types {
		t.Run(caseName(typ.String()), func(t *testing.T) {
			if !textOnly(typ) && !stringOpaque[typ] {
				t.Fatalf("%v is neither", typ)
			}
			for _, v := range []string{`0`, `12`, `-1.5`, `1e3`, `true`, `false`, `{}`, `{"a":"b"}`, `[]`, `["x"]`} {
				if sdkDecodesInto(json.RawMessage(v), typ) {
					t.Errorf("%v decodes %s", typ, v)
				}
			}
		})
	}
	// The control: big.Int, which jsonschema-go publishes as a string,
	// refuses every string and takes a number.
	bi := reflect.TypeFor[big.Int]()
	if sdkDecodesInto("12", bi) || !sdkDecodesInto(json.Number("12"), bi) || stringOpaque[bi] {
		t.Error("big.Int is not what the derivation says")
	}
}

// TestIntKeyPattern holds the integer key patterns to the decoder: a key
// the decoder parses matches the pattern, and a matching key it refuses is
// out of the key type's range.
func TestIntKeyPattern(t *testing.T) {
	keys := []string{"0", "-0", "1", "-1", "01", "+1", " 1", "1 ", "1\t", "1\n\r ", "1\f", "1\u00a0", "1 x", "1e2", "1.0", "", "-", "x",
		"127", "128", "-128", "-129", "255", "256", "00", "-0 ", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616", "١"}
	for _, c := range []struct {
		m       reflect.Type
		pattern string
	}{
		{reflect.TypeFor[map[int8]bool](), intKeyPattern},
		{reflect.TypeFor[map[int64]bool](), intKeyPattern},
		{reflect.TypeFor[map[uint8]bool](), uintKeyPattern},
		{reflect.TypeFor[map[uint64]bool](), uintKeyPattern},
	} {
		t.Run(caseName(c.m.String()), func(t *testing.T) {
			re := regexp.MustCompile(c.pattern)
			bits := c.m.Key().Bits()
			lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), uint(bits))
			if c.pattern == intKeyPattern {
				hi.Rsh(hi, 1)
				lo.Neg(hi)
			}
			hi.Sub(hi, big.NewInt(1))
			for _, k := range keys {
				decodes := keyDecodes(k, c.m)
				matches := re.MatchString(k)
				if decodes && !matches {
					t.Errorf("%v: key %q decodes, the pattern refuses it", c.m, k)
				}
				if matches && !decodes {
					n, ok := new(big.Int).SetString(strings.TrimRight(k, " \t\n\r"), 10)
					if !ok || (n.Cmp(lo) >= 0 && n.Cmp(hi) <= 0) {
						t.Errorf("%v: key %q matches, is in range, and does not decode", c.m, k)
					}
				}
			}
		})
	}
}

// TestOwnIntKeysThroughTheSchemaOfTheTool: a map with integer keys is
// reachable only with a schema of the tool's own (jsonschema-go refuses the
// type); its keys are then parsed as numbers, and the validator refuses one
// out of range naming the key.
func TestOwnIntKeysThroughTheSchemaOfTheTool(t *testing.T) {
	type in struct {
		M map[uint8]string `json:"m"`
	}
	var s sentinel
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	AddTool(srv, &mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"m":{"type":"object"}},"additionalProperties":false}`)}, handlerFor[in](s.handle))
	v, err := Install(srv, &Options{OpenTools: []string{"t"}}) // m is open: its keys are the subject
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	for _, c := range []struct{ args, want string }{
		{`{"m":{"255":"x"}}`, servedText},
		{`{"m":{"256":"x"}}`, `tool "t": arguments refused by the tool's input type: at "/m/256": propertyNames (key type)`},
		{`{"m":{"+1":"x"}}`, `tool "t": arguments refused by the tool's input type: at "/m/+1": propertyNames pattern ^(0|[1-9][0-9]*)[ \\t\\n\\r]*$`},
	} {
		t.Run(caseName(c.args), func(t *testing.T) {
			if got := answer(t, cs, "t", c.args); got != c.want {
				t.Errorf("%s: %q, want %q", c.args, got, c.want)
			}
		})
	}
	_ = v
}

// TestPlainSDKCrashesOnAMarshalTextKey: with mcp.AddTool, a map whose key
// type has MarshalText and no UnmarshalText (what jsonschema-go requires of
// a key that is not a string) panics the SDK's decoder on the first key,
// and nothing recovers it: the server process dies. The child process
// proves it; with AddTool the same call is refused and the server lives.
func TestPlainSDKCrashesOnAMarshalTextKey(t *testing.T) {
	const env = "MCPVALIDATE_TYPED_CRASH_CHILD"
	type in struct {
		ByInt map[intKey]bool `json:"byInt"`
	}
	if os.Getenv(env) == "1" {
		var s sentinel
		srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "t"}, handlerFor[in](s.handle))
		cs := connect(t, srv)
		answer(t, cs, "t", `{"byInt":{"1":true}}`)
		time.Sleep(time.Second) // the handler's goroutine panics
		fmt.Println("SURVIVED")
		return
	}
	if testing.Short() {
		t.Skip("SKIPPED: runs a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPlainSDKCrashesOnAMarshalTextKey$", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errorsAs(err, &exit) || strings.Contains(string(out), "SURVIVED") || !strings.Contains(string(out), "interface conversion") {
		t.Fatalf("the plain SDK's server did not die on the call (err %v):\n%.2000s", err, out)
	}
	var s sentinel
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	AddTool(srv, &mcp.Tool{Name: "t"}, handlerFor[in](s.handle))
	if _, err := Install(srv, nil); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	want := `tool "t": arguments refused by the tool's input schema: at "/byInt/1": propertyNames false`
	if got := answer(t, cs, "t", `{"byInt":{"1":true}}`); got != want || s.count() != 0 {
		t.Errorf("%q (handler ran %d), want %q", got, s.count(), want)
	}
	if got := answer(t, cs, "t", `{"byInt":{}}`); got != servedText {
		t.Errorf("an empty map: %q", got)
	}
}

// serveTyped serves the representative tools as the README wires a server:
// registered (with AddTool, or with mcp.AddTool when plain), Install, the
// SDK's streamable HTTP handler capped at the derived body cap, the front
// gate in front, on a loopback listener; a client of the go-sdk connects.
func serveTyped(t testing.TB, plain bool, s *sentinel) (*mcp.ClientSession, *Validator) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v0"}, nil)
	for _, c := range typedCases {
		c.add(srv, plain, s.handle)
	}
	v, err := Install(srv, &Options{OpenTools: openTypedTools})
	if err != nil {
		t.Fatal(err)
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{MaxRequestBodyBytes: v.MaxBodyBytes()})
	front, err := v.frontGate(sdk, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(front)
	t.Cleanup(hs.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, v
}

// typedRow is one call: want is "served", or the pointer and keyword of the
// leaf the refusal must name. issue marks issue 23's table; crash, a call
// that takes a plain go-sdk server down (TestPlainSDKCrashesOnAMarshalTextKey).
type typedRow struct {
	tool, args, want string
	issue, crash     bool
}

// typedRows reach each kind of the derivation, at and past its bounds.
var typedRows = []typedRow{
	// Issue 23's table: the three that reached the SDK's decode, the five
	// refused cleanly before, and a negative zero it did not list.
	{"issue", `{"query":"Q","limit":99999999999999999999}`, "/limit maximum", true, false},
	{"issue", `{"query":"Q","limit":1e400}`, "/limit maximum", true, false},
	{"issue", `{"query":"Q","limit":1,"ratio":1e39}`, "/ratio maximum", true, false},
	{"issue", `{"query":"Q","limit":1,"page":-1}`, "/page minimum", true, false},
	{"issue", `{"query":"Q","limit":1,"level":300}`, "/level maximum", true, false},
	{"issue", `{"query":"Q","limit":1.5}`, "/limit type", true, false},
	{"issue", `{"query":5,"limit":1}`, "/query type", true, false},
	{"issue", `{"query":"Q","limit":null}`, "/limit type", true, false},
	{"issue", `{"query":"Q","limit":1,"page":-0}`, "/page minimum", true, false},
	{"issue", `{"query":"Q","limit":9223372036854775000,"page":18446744073709550000,"level":127,"ratio":3.4028235e38}`, servedText, true, false},
	{"issue", `{"query":"Q","limit":-9223372036854775000,"level":-128,"ratio":-3.4028235e38}`, servedText, true, false},
	{"issue", `{"query":"Q","limit":9223372036854775807}`, "/limit maximum", true, false},
	{"issue", `{"query":"Q","limit":1,"page":36893488147419103000}`, "/page maximum", true, false},
	// Integers and floats of every width: at the bounds, and past them.
	{"scalars", `{"i8":-128,"i16":32767,"i32":-2147483648,"u8":255,"u16":65535,"u32":4294967295,"up":0}`, servedText, false, false},
	{"scalars", `{"i8":128}`, "/i8 maximum", false, false},
	{"scalars", `{"i16":-32769}`, "/i16 minimum", false, false},
	{"scalars", `{"u32":4294967296}`, "/u32 maximum", false, false},
	{"scalars", `{"u64":18446744073709551615}`, "/u64 maximum", false, false},
	{"scalars", `{"i64":-9223372036854775808}`, "/i64 minimum", false, false},
	{"scalars", `{"up":-0}`, "/up minimum", false, false},
	{"scalars", `{"pu8":-0.0}`, "/pu8 minimum", false, false},
	{"scalars", `{"f64":1.7976931348623157e308,"f32":1e-46}`, servedText, false, false},
	{"scalars", `{"f64":1.7976931348623159e308}`, "/f64 maximum", false, false},
	{"scalars", `{"f32":-3.4028236e38}`, "/f32 minimum", false, false},
	{"scalars", `{"f64":-0,"f32":-0,"i":-0,"i64":1e2}`, servedText, false, false},
	{"scalars", `{"f64":5e-324,"i":5.0}`, servedText, false, false},
	{"scalars", `{"f64":1e-400}`, servedText, false, false},
	// Strings, booleans, pointers and null.
	{"scalars", `{"s":5}`, "/s type", false, false},
	{"scalars", `{"b":"true"}`, "/b type", false, false},
	{"scalars", `{"s":null}`, "/s type", false, false},
	{"scalars", `{"ps":null,"pi64":null,"ppi":null,"pn":null}`, servedText, false, false},
	{"scalars", `{"ppi":32768}`, "/ppi maximum", false, false},
	// json.Number: a number (jsonschema-go says string), finite.
	{"scalars", `{"n":-0.5e3}`, servedText, false, false},
	{"scalars", `{"n":"5"}`, "/n type", false, false},
	{"scalars", `{"n":1e400}`, "/n maximum", false, false},
	// Case: the decoder matches member names exactly.
	{"scalars", `{"I8":1}`, "/I8 additionalProperties", false, false},
	// Slices, arrays, maps, bytes.
	{"containers", `{"ints":[1,-128,127],"fixed":[1,2,3],"bytes":"AQID","mine":"AQI=","pair":[1,255],"byCode":{"ab":1},"byInt":{}}`, servedText, false, false},
	{"containers", `{"ints":[1,128]}`, "/ints/1 maximum", false, false},
	{"containers", `{"fixed":[1,2]}`, "/fixed minItems", false, false},
	{"containers", `{"fixed":[1,2,3,4]}`, "/fixed maxItems", false, false},
	{"containers", `{"bytes":"A Q"}`, "/bytes contentEncoding", false, false},
	{"containers", `{"bytes":[1,2,256]}`, "/bytes/2 maximum", false, false},
	{"containers", `{"bytes":[-0]}`, "/bytes/0 minimum", false, false},
	{"containers", `{"mine":"@@"}`, "/mine contentEncoding", false, false},
	{"containers", `{"pair":"AQI="}`, "/pair type", false, false},
	{"containers", `{"floats":{"a":3.4028235e38,"b":1e39}}`, "/floats/b maximum", false, false},
	{"containers", `{"nested":[[1],[2,-0]]}`, "/nested/1/1 minimum", false, false},
	{"containers", `{"byInt":{"1":true}}`, "/byInt/1 propertyNames", false, true},
	{"containers", `{"byCode":{"AB":1}}`, "/byCode/AB propertyNames", false, false},
	{"containers", `{"deep":{"k":[1,null,4294967296]}}`, "/deep/k/2 maximum", false, false},
	// Nested and embedded structs, json tag options.
	{"embedded", `{"a":1,"b":"x","tagged":{"d":true},"x":1,"QR":-128,"-":255,"sub":{"a":-128}}`, servedText, false, false},
	{"embedded", `{"a":1,"tagged":{"d":true},"x":1,"c":1}`, "/c c", false, false},
	{"embedded", `{"a":1,"tagged":{"d":true},"x":1,"d":true}`, "/d additionalProperties", false, false},
	{"embedded", `{"a":1,"tagged":{"d":true},"x":1,"Z":1}`, "/Z additionalProperties", false, false},
	{"embedded", `{"a":1,"tagged":{"d":true},"x":1,"q'r":1}`, "/q'r additionalProperties", false, false},
	{"embedded", `{"a":1,"tagged":{"d":true},"x":1,"Skip":1}`, "/Skip additionalProperties", false, false},
	{"embedded", `{"a":1,"tagged":{"d":true},"x":1,"sub":{"a":-129}}`, "/sub/a minimum", false, false},
	{"embedded", `{"tagged":{"d":true},"x":1}`, " required", false, false},
	{"quoted", `{"n":"5","pn":"null","b":"true","f":"1.5","s":"\"x\"","u":"255"}`, servedText, false, false},
	{"quoted", `{"n":5}`, "/n type", false, false},
	{"quoted", `{"n":"5.0"}`, "/n decode", false, false},
	{"quoted", `{"f":"1e39"}`, "/f decode", false, false},
	{"quoted", `{"u":"256"}`, "/u decode", false, false},
	{"quoted", `{"s":"x"}`, "/s decode", false, false},
	// Opaque types and untyped members.
	{"opaque", `{"when":"2024-01-01T00:00:00Z","level":"INFO","big":12,"ok":42,"code":"ab","raw":{"x":[1]},"any":[1],"meta":{"k":{"j":1}},"rat":"1/3","flt":"1.5"}`, servedText, false, false},
	{"opaque", `{"when":"yesterday"}`, "/when decode", false, false},
	{"opaque", `{"when":5}`, "/when type", false, false},
	{"opaque", `{"pwhen":"x"}`, "/pwhen decode", false, false},
	{"opaque", `{"level":"LOUD"}`, "/level decode", false, false},
	{"opaque", `{"big":"12"}`, "/big decode", false, false},
	{"opaque", `{"big":1e21}`, "/big decode", false, false},
	{"opaque", `{"ok":"no"}`, "/ok decode", false, false},
	{"opaque", `{"code":"ABC"}`, "/code decode", false, false},
	{"opaque", `{"codes":["a","B"]}`, "/codes/1 decode", false, false},
	{"opaque", `{"raw":{"x":[-1e309]}}`, "/raw/x/0 minimum", false, false},
	{"opaque", `{"any":1e400}`, "/any maximum", false, false},
	{"opaque", `{"meta":{"k":-1e400}}`, "/meta/k minimum", false, false},
	{"opaque", `{"str":"x"}`, "/str type", false, false},
	// The go-sdk's examples.
	{"memory", `{"entities":[{"name":"a","entityType":"t","observations":["o"]}]}`, servedText, false, false},
	{"memory", `{"entities":[{"name":"a","entityType":"t"}]}`, "/entities/0 required", false, false},
	{"thinking", `{"sessionId":"s","thought":"t","history":[{"index":1,"content":"c","created":"2024-01-01T00:00:00Z","revised":false}]}`, servedText, false, false},
	{"thinking", `{"sessionId":"s","thought":"t","history":[{"index":1,"content":"c","created":"soon","revised":false}]}`, "/history/0/created decode", false, false},
	{"thinking", `{"sessionId":"s","thought":"t","reviseStep":1e19}`, "/reviseStep maximum", false, false},
	// In = any, In = a map, and a tool with a schema of its own.
	{"any", `{"a":[1,{"b":2}]}`, servedText, false, false},
	{"any", `{"a":[1,{"b":-1e400}]}`, "/a/1/b minimum", false, false},
	{"map", `{"a":-32768}`, servedText, false, false},
	{"map", `{"a":32768}`, "/a maximum", false, false},
	{"own", `{"n":1,"d8":1,"w":"2024-01-01T00:00:00Z"}`, servedText, false, false},
	{"own", `{"n":1e19,"d8":1}`, "/n maximum", false, false},
	{"own", `{"n":1,"d8":1,"w":"x"}`, "/w decode", false, false},
	{"own", `{"n":1}`, " decode", false, false},
}

// TestTypedDomainOverHTTP drives every row through the README's wiring:
// each out-of-domain value is answered with the validator's own refusal
// (the text Check gives, naming the row's member and keyword), the handler
// never runs, and each at-bound call is served. The same calls against the
// same types registered with mcp.AddTool are the "before": issue 23's three
// leaks are still there (and a negative zero is a fourth).
func TestTypedDomainOverHTTP(t *testing.T) {
	var s, plainRan sentinel
	cs, v := serveTyped(t, false, &s)
	plain, _ := serveTyped(t, true, &plainRan)
	for i, row := range typedRows {
		t.Run(row.tool+"_"+docName(i, row.args), func(t *testing.T) {
			before := s.count()
			got := answer(t, cs, row.tool, row.args)
			ran := s.count() > before
			r := refusalOf(t, v, row.tool, []byte(row.args))
			if row.want == servedText {
				if got != servedText || !ran || r != nil {
					t.Fatalf("want served; answer %q, handler ran %v, Check %v", got, ran, r)
				}
				return
			}
			if r == nil || got != r.Error() || ran {
				t.Fatalf("want the validator's refusal; answer %q, handler ran %v, Check %v", got, ran, r)
			}
			ptr, kw, _ := strings.Cut(row.want, " ")
			found := false
			for _, l := range r.Leaves {
				found = found || (l.Pointer == ptr && l.Keyword == kw)
			}
			if !found {
				t.Errorf("the refusal %q names no leaf %q %q", got, ptr, kw)
			}
			if m := sdkText.FindString(fixedText(r)); m != "" {
				t.Errorf("the refusal %q carries %q", got, m)
			}
			if row.crash {
				return
			}
			was := answer(t, plain, row.tool, row.args)
			if issueLeaks[row.args] && !strings.Contains(was, "unmarshal") {
				t.Errorf("before: %q: the SDK no longer answers with its decode error; the docs' table says it does", was)
			}
		})
	}
}

// issueLeaks are the rows whose "before" is the SDK's decode error, quoting
// the caller's bytes and a Go type: issue 23's three and a negative zero.
var issueLeaks = map[string]bool{
	`{"query":"Q","limit":99999999999999999999}`: true,
	`{"query":"Q","limit":1e400}`:                true,
	`{"query":"Q","limit":1,"ratio":1e39}`:       true,
	`{"query":"Q","limit":1,"page":-0}`:          true,
}

// TestTypedRecordFollowsItsServer: the record AddTool leaves applies
// through Install and ServerTools on the server it was added to, and only
// while tools/list still shows the schema AddTool registered; Tools does
// not look records up; a server's records die with it.
func TestTypedRecordFollowsItsServer(t *testing.T) {
	negZero := []byte(`{"query":"Q","limit":1,"page":-0}`)
	var s sentinel
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	AddTool(srv, &mcp.Tool{Name: "issue"}, handlerFor[issueIn](s.handle))
	v, err := New(ServerTools(srv), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := refusalOf(t, v, "issue", negZero); r == nil || r.Stage != StageType {
		t.Fatalf("through ServerTools: %v", r)
	}
	if _, ok := domainOf(srv, "issue"); !ok {
		t.Fatal("no domain recorded")
	}
	if _, ok := domainOf(srv, "other"); ok {
		t.Fatal("a domain for a tool never added")
	}
	// Tools: the same published schema, no record.
	listed, err := listTools(context.Background(), srv)
	if err != nil {
		t.Fatal(err)
	}
	vt, err := New(Tools(listed...), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := refusalOf(t, vt, "issue", negZero); r != nil {
		t.Fatalf("through Tools: %v", r)
	}
	// Replaced by a registration of the SDK's own: the record no longer applies.
	type other struct {
		Page uint `json:"page"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "issue"}, handlerFor[other](s.handle))
	v2, err := New(ServerTools(srv), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v2.tools["issue"].typed != nil {
		t.Fatal("a replaced tool kept its record")
	}
	// Another server: nothing recorded.
	if _, ok := domainOf(mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil), "issue"); ok {
		t.Fatal("a record on another server")
	}
}

func TestTypedRecordsDieWithTheirServer(t *testing.T) {
	count := func() int {
		typedMu.Lock()
		defer typedMu.Unlock()
		return len(typedBy)
	}
	before := count()
	func() {
		srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
		AddTool(srv, &mcp.Tool{Name: "issue"}, handlerFor[issueIn]((&sentinel{}).handle))
		if count() != before+1 {
			t.Fatal("no entry for the server")
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for count() > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if count() > before {
		t.Fatal("the server's records outlived it")
	}
}

// TestTypeRefusalIsBounded: a StageType refusal names at most maxLeaves
// leaves and counts the rest, cuts each caller key at charge.KeyCut, and
// stays within maxRefusalTextBytes.
func TestTypeRefusalIsBounded(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	AddTool(srv, &mcp.Tool{Name: "opaque"}, handlerFor[opaqueIn]((&sentinel{}).handle))
	v, err := New(ServerTools(srv), &Options{OpenTools: openTypedTools[1:]})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("k", 200)
	var b strings.Builder
	b.WriteString(`{"meta":{`)
	for i := range 10 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%s%d":-1e400`, long, i)
	}
	b.WriteString(`}}`)
	r := refusalOf(t, v, "opaque", []byte(b.String()))
	if r == nil || r.Stage != StageType || len(r.Leaves) != maxLeaves || r.Elided != 10-maxLeaves {
		t.Fatalf("%v", r)
	}
	for _, l := range r.Leaves {
		if strings.Contains(l.Pointer, strings.Repeat("k", charge.KeyCut+1)) || l.Keyword != "minimum" {
			t.Errorf("leaf %+v", l)
		}
	}
	if n := len(r.Error()); n > maxRefusalTextBytes() {
		t.Errorf("%d bytes", n)
	}
}

// TestAddToolPanicsAsTheSDK: a type the SDK cannot infer panics AddTool
// with the SDK's own message.
func TestAddToolPanicsAsTheSDK(t *testing.T) {
	type bad struct {
		C chan int `json:"c"`
	}
	catch := func(f func()) (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		f()
		return ""
	}
	h := handlerFor[bad]((&sentinel{}).handle)
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	theirs := catch(func() { mcp.AddTool(srv, &mcp.Tool{Name: "t"}, h) })
	ours := catch(func() { AddTool(srv, &mcp.Tool{Name: "t"}, h) })
	if theirs == "" || ours != theirs {
		t.Fatalf("ours %q, the SDK's %q", ours, theirs)
	}
}

// TestTypeRefusalEvent: the refusal hook sees a StageType refusal with its
// first leaf's keyword as the bound, and nothing the caller wrote.
func TestTypeRefusalEvent(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	AddTool(srv, &mcp.Tool{Name: "issue"}, handlerFor[issueIn]((&sentinel{}).handle))
	var events []*Refusal
	v, err := New(ServerTools(srv), &Options{OnRefusal: func(_ context.Context, ev *Refusal) { events = append(events, ev) }})
	if err != nil {
		t.Fatal(err)
	}
	args := `{"query":"Q","limit":1,"page":-0}`
	if v.Check(context.Background(), "issue", json.RawMessage(args)) == nil {
		t.Fatal("admitted")
	}
	want := Refusal{Tool: "issue", Stage: StageType, Bound: "minimum", Where: "/page"}
	if len(events) != 1 || events[0].Tool != want.Tool || events[0].Stage != want.Stage || events[0].Bound != want.Bound || events[0].Where != want.Where {
		t.Fatalf("events %+v, want %+v", events, want)
	}
	if StageType.String() != "type" {
		t.Fatalf("StageType is %q", StageType)
	}
}

// TestTypedDomainPanicRefuses: when validating a typed tool's decode domain
// panics (here jsonschema/v6 on a number past big.Rat's exponent range,
// reachable once a server raises MaxNumberExponent), the call is refused as
// StageInternal and the handler never runs. The tool's own schema has no
// numeric bound, so it admits the number without panicking: only the
// domain's float64 range reaches the panic. The control, the same field at a
// value the decode takes, is served.
func TestTypedDomainPanicRefuses(t *testing.T) {
	type in struct {
		N float64 `json:"n"`
	}
	own := json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}},"additionalProperties":false}`)
	var s sentinel
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	AddTool(srv, &mcp.Tool{Name: "wide", InputSchema: own}, handlerFor[in](s.handle))
	l := charge.DefaultLimits()
	l.MaxNumberExponent = 10_000_000
	v, err := Install(srv, &Options{Limits: &l})
	if err != nil {
		t.Fatal(err)
	}
	if v.tools["wide"].typed == nil || v.tools["wide"].typed.domainSchema == nil {
		t.Fatal("the tool has no compiled domain: the test would not reach the typed path")
	}
	if _, panicked := validate(v.tools["wide"].schema, map[string]any{"n": json.Number(panicArgs[5 : len(panicArgs)-1])}); panicked {
		t.Fatal("the tool's own schema panics: the refusal would not come from the typed path")
	}
	cs := connect(t, srv)
	r := refusalOf(t, v, "wide", []byte(panicArgs))
	if r == nil || r.Stage != StageInternal {
		t.Fatalf("Check: %v, want a refusal at stage %s", r, StageInternal)
	}
	if got := answer(t, cs, "wide", panicArgs); got != r.Error() || s.count() != 0 {
		t.Fatalf("served: answer %q, handler ran %d times; want %q and none", got, s.count(), r.Error())
	}
	if got := answer(t, cs, "wide", `{"n":5}`); got != servedText || s.count() != 1 {
		t.Fatalf("a valid call: answer %q, handler ran %d times", got, s.count())
	}
}
