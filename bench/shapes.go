package bench

import (
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

// ShapeNamed finds a shape by name.
func ShapeNamed(name string) (Shape, bool) {
	for _, s := range Shapes {
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
