package bench

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"strconv"
	"strings"
)

// Shape is one document family the side-by-side benchmarks run over: the
// families the lab's records are worst over, each built to a target size.
type Shape struct {
	Name string
	// Doc builds a document of about size bytes that the gate admits under
	// charge.DefaultLimits (for sizes up to the body cap).
	Doc func(size int) []byte
}

// leafDoc is {"content":"<r repeated>"} with the string filling size bytes
// (r written as a JSON escape when it must be).
func leafDoc(r rune) func(size int) []byte {
	return func(size int) []byte {
		piece := string(r)
		if r == '"' || r == '\\' {
			piece = `\` + piece
		}
		n := max(size-len(`{"content":""}`), 0) / len(piece)
		var b strings.Builder
		b.Grow(n*len(piece) + 16)
		b.WriteString(`{"content":"`)
		for i := 0; i < n; i++ {
			b.WriteString(piece)
		}
		b.WriteString(`"}`)
		return []byte(b.String())
	}
}

// Shapes are the benchmark families, in table order.
var Shapes = []Shape{
	{"ascii", leafDoc('a')},      // printable ASCII: the plain run
	{"cjk", leafDoc('中')},        // printable 3-byte
	{"u0600", leafDoc(0x0600)},   // non-printable 2-byte: the seed's worst render per wire byte
	{"del", leafDoc(0x7f)},       // raw DEL: one wire byte, a 4-byte render
	{"astral", leafDoc(0x1f600)}, // printable 4-byte
	{"smallnodes", smallNodes},   // many one-byte numbers: per-node cost
	{"deep", deep},               // containers nested 64 deep, repeated: per-container cost
	{"escaped", leafDoc('"')},    // every character an escape on the wire
	{"fields", fields},           // an object of many short members: name handling
	{"mixed", leafDoc(0)},        // placeholder replaced in init
}

func init() {
	// mixed: one string cycling through every wire class's example.
	Shapes[len(Shapes)-1].Doc = func(size int) []byte {
		cycle := []rune{'a', 'é', '中', '😀', 0x0600, 0x7f, '<', '\'', 0x2028, '~'}
		var b strings.Builder
		b.WriteString(`{"content":"`)
		for i := 0; b.Len() < size-8; i++ {
			b.WriteRune(cycle[i%len(cycle)])
		}
		b.WriteString(`"}`)
		return []byte(b.String())
	}
}

// smallNodes is an array of single-digit numbers, at most 99,999 of them so
// the root array stays inside MaxParamsNodes.
func smallNodes(size int) []byte {
	n := min(max(size/2, 1), 99_999)
	b := make([]byte, 0, 2*n+1)
	b = append(b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, byte('0'+i%10))
	}
	return append(b, ']')
}

// deep is an array of chains, each 63 arrays deep around a 0 (the root array
// makes 64, MaxParamsNesting).
func deep(size int) []byte {
	chain := strings.Repeat("[", 63) + "0" + strings.Repeat("]", 63)
	n := max(size/(len(chain)+1), 1)
	n = min(n, 99_999/64)
	return []byte("[" + strings.TrimSuffix(strings.Repeat(chain+",", n), ",") + "]")
}

// fields is an object of members "k<i>": i, up to the node bound.
func fields(size int) []byte {
	b := []byte{'{'}
	for i := 0; len(b) < size-16 && i < 49_999; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `"k`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, int64(i), 10)
	}
	return append(b, '}')
}

// Realistic are shapes taken from what tool calls carry, beside the synthetic
// families. BenchmarkValid runs them; they join Shapes (and so the pinned
// headlines) when the suite is next re-pinned on a quiet machine.
var Realistic = []Shape{
	{"gosource", goSource},   // a Go source file as one JSON string
	{"toolscall", toolsCall}, // a tools/call whose arguments hold many small records
}

// source is encoding/json's scanner.go from Go 1.26 (BSD licence, header
// kept), frozen so that the shape does not move with the toolchain.
//
//go:embed testdata/source.go.txt
var source []byte

// goSource is {"path":"scanner.go","content":"<source>"} with the file
// repeated to fill size bytes, escaped as encoding/json escapes it without
// HTML escaping: every newline and tab, quote and backslash an escape.
func goSource(size int) []byte {
	text := bytes.Repeat(source, max(size/len(source), 1))
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]string{"path": "scanner.go", "content": string(text)}); err != nil {
		panic(err) // a string always encodes
	}
	return bytes.TrimSpace(b.Bytes())
}

// toolsCall is a whole tools/call request whose arguments are an array of
// records of seven small members each (a string id, a short name, an integer,
// a float, a bool, a null and a two-tag array), up to size bytes or the node
// bound.
func toolsCall(size int) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"catalog.upsert","arguments":{"dryRun":false,"items":[`)
	for i := 0; len(b) < size-128 && i < 99_000/17; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":"item-`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `","name":"Widget `...)
		b = strconv.AppendInt(b, int64(i%97), 10)
		b = append(b, `","qty":`...)
		b = strconv.AppendInt(b, int64(i%1000), 10)
		b = append(b, `,"price":`...)
		b = strconv.AppendFloat(b, float64(i%10000)/100+0.01, 'f', -1, 64)
		b = append(b, `,"active":true,"note":null,"tags":["blue","x`...)
		b = strconv.AppendInt(b, int64(i%7), 10)
		b = append(b, `"]}`...)
	}
	return append(b, "]}}}"...)
}

// ShapeNamed finds a shape by name, among Shapes and Realistic.
func ShapeNamed(name string) (Shape, bool) {
	for _, s := range append(Shapes[:len(Shapes):len(Shapes)], Realistic...) {
		if s.Name == name {
			return s, true
		}
	}
	return Shape{}, false
}

// ServedRequest is one knowledge.search call the served benchmark compares.
type ServedRequest struct {
	name  string
	args  string
	admit bool // whether the published schema admits it
}

// ServedRequests are the calls compared, with string values of about size bytes.
func ServedRequests(size int) []ServedRequest {
	big := func(r string) string { return strings.Repeat(r, size/len(r)) }
	return []ServedRequest{
		{"valid", `{"projectId":"demo","query":"body cap","limit":5}`, true},
		{"unknown-key", `{"projectId":"demo","query":"body cap","zzz":1}`, false},
		{"maxlength-ascii", `{"projectId":"demo","query":"` + big("a") + `"}`, false},
		{"maxlength-u0600", `{"projectId":"demo","query":"` + big("\u0600") + `"}`, false},
		{"pattern-del", `{"projectId":"` + big("\x7f") + `","query":"q"}`, false},
	}
}
