package bench

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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
	{"mixed", mixed},             // a cycle through every wire class's example
	// Realistic shapes, taken from what tool calls carry.
	{"gosource", goSource},     // a Go source file as one JSON string: code, runs between short escapes
	{"toolscall", toolsCall},   // a tools/call whose arguments hold many small records
	{"chat", chat},             // chat messages in mixed scripts with emoji, escapes between short runs
	{"jsoninjson", jsonInJSON}, // a JSON document carried as a JSON string: dense \" and \\
}

// mixed is one string cycling through every wire class's example.
func mixed(size int) []byte {
	cycle := []rune{'a', 'é', '中', '😀', 0x0600, 0x7f, '<', '\'', 0x2028, '~'}
	var b strings.Builder
	b.WriteString(`{"content":"`)
	for i := 0; b.Len() < size-8; i++ {
		b.WriteRune(cycle[i%len(cycle)])
	}
	b.WriteString(`"}`)
	return []byte(b.String())
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

// chatText is a small chat corpus written for the suite, one message line a
// line: Latin with accents, Cyrillic, CJK, Hangul, Arabic, Greek, Hebrew,
// emoji with skin tones, ZWJ sequences, variation selectors and flags, and
// the ASCII that chat carries (quotes, a Windows path, a tab, < > &).
//
//go:embed testdata/chat.txt
var chatText string

// chat is a tools/call whose arguments hold a conversation: messages of one
// to four corpus lines each (joined by newlines), alternating roles, taken in
// order from the corpus and round again, up to size bytes or the node bound.
// encoding/json escapes them as a Go client would: every newline, tab, quote
// and backslash, and < > & as \u003c \u003e \u0026; every third message is
// written as Python's json.dumps writes it by default (ensure_ascii), each
// code point past ASCII a \uXXXX escape, a surrogate pair past the BMP. The
// runs between escapes and between code points of another length are short,
// the way chat is.
func chat(size int) []byte {
	lines := strings.Split(strings.TrimSuffix(chatText, "\n"), "\n")
	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	b := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"chat.summarize","arguments":{"messages":[`)
	roles := [2]string{"user", "assistant"}
	for i, k := 0, 0; len(b) < size-512 && i < 99_000/5; i++ {
		n := 1 + i%4
		var text []string
		for j := 0; j < n; j, k = j+1, k+1 {
			text = append(text, lines[k%len(lines)])
		}
		m, err := json.Marshal(message{roles[i%2], strings.Join(text, "\n")})
		if err != nil {
			panic(err) // a string always encodes
		}
		if i%3 == 2 {
			m = ensureASCII(m)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	return append(b, "]}}}"...)
}

// jsonInJSON is a tools/call whose one argument is a JSON document carried
// as a string, as tools that take a configuration or a payload verbatim
// receive it: records holding escaped strings (a quoted template with
// newlines, a Windows path) encoded once, then the whole document encoded
// again as a string, so that \" \\ and \\\" follow one another closely.
func jsonInJSON(size int) []byte {
	type record struct {
		ID       string   `json:"id"`
		Path     string   `json:"path"`
		Template string   `json:"template"`
		Tags     []string `json:"tags"`
		N        int      `json:"n"`
	}
	inner := []byte(`{"version":2,"records":[`)
	// Encoding inner as a string adds about a byte in five (the quotes, the
	// backslashes); the loop stops where the outer document is near size.
	for i := 0; len(inner) < size*3/4; i++ {
		r := record{
			ID:       "rec-" + strconv.Itoa(i),
			Path:     `C:\data\batch` + strconv.Itoa(i%13) + `\item.json`,
			Template: "Dear \"{name}\",\n\tyour order #" + strconv.Itoa(i%1000) + " is \"ready\".\n",
			Tags:     []string{"a", "b" + strconv.Itoa(i%5)},
			N:        i % 100,
		}
		m, err := json.Marshal(r)
		if err != nil {
			panic(err) // a struct of strings and ints always encodes
		}
		if i > 0 {
			inner = append(inner, ',')
		}
		inner = append(inner, m...)
	}
	inner = append(inner, "]}"...)
	doc, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 7, "method": "tools/call",
		"params": map[string]any{"name": "config.apply", "arguments": map[string]string{"document": string(inner)}},
	})
	if err != nil {
		panic(err) // a string always encodes
	}
	return doc
}

// ensureASCII rewrites each code point of the JSON text m past ASCII as a
// \uXXXX escape (a surrogate pair past the BMP), as an ensure_ascii encoder
// writes it.
func ensureASCII(m []byte) []byte {
	var out []byte
	for _, r := range string(m) {
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			out = fmt.Appendf(out, `\u%04x`, u)
		}
	}
	return out
}
