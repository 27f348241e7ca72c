package sweeps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/theurian/boundlab/charge"
)

// Span is n copies of one code point.
type Span struct {
	Rune rune
	N    int64
}

// Instance is a real MCP tools/call request body, built by the encoder family
// a client would use. Its arguments object has one member: a name and either
// a string value or an array of empty arrays.
type Instance struct {
	Name        string // a file-name stem; emitted as Name + ".json"
	Encoder     charge.Encoder
	Key         []Span // the member name
	Value       []Span // the string value, when EmptyArrays is 0
	EmptyArrays int64  // when positive the value is [[], [], ...] with this many elements
}

// ToolName and envelope parts: the smallest request the go-sdk and the Python
// SDK route to a tool — JSON-RPC 2.0, an id, the method, the tool's name.
const ToolName = "propose"

const (
	envelopeOpen  = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + ToolName + `","arguments":`
	envelopeClose = `}}`
)

// ValueKey is the member name leaf instances use: the seed's write-intent
// field, whose published maxLength a long value fails, so a validator renders it.
const ValueKey = "body"

func keyRuns(s string) []Span {
	var out []Span
	for _, r := range s {
		out = append(out, Span{r, 1})
	}
	return out
}

// LeafInstance is {"body": <runs>} inside the envelope.
func LeafInstance(name string, e charge.Encoder, runs []Span) Instance {
	return Instance{Name: name, Encoder: e, Key: keyRuns(ValueKey), Value: runs}
}

// EncodeRune is what encoder family e writes for r inside a JSON string:
// Go's encoding/json itself for GoJSON, the port of CPython's json.dumps for
// the other two.
func EncodeRune(e charge.Encoder, r rune) []byte {
	if e == charge.GoJSON {
		b, err := json.Marshal(string(r))
		if err != nil {
			panic(err) // a scalar value always marshals
		}
		return b[1 : len(b)-1]
	}
	return AppendPyJSONRune(nil, r, e == charge.EnsureASCII)
}

func appendRuns(b []byte, e charge.Encoder, runs []Span) []byte {
	b = append(b, '"')
	for _, r := range runs {
		b = append(b, bytes.Repeat(EncodeRune(e, r.Rune), int(r.N))...)
	}
	return append(b, '"')
}

// Size is the body's length in bytes, computed without building it.
func (in Instance) Size() int64 {
	n := int64(len(envelopeOpen) + len(envelopeClose) + len(`{:}`) + 2 + 2)
	for _, r := range append(append([]Span(nil), in.Key...), in.Value...) {
		n += r.N * int64(len(EncodeRune(in.Encoder, r.Rune)))
	}
	if in.EmptyArrays > 0 {
		n += 3*in.EmptyArrays + 1 - 2 // "[" + "[]," per element with the last comma a "]", and no string quotes
	}
	return n
}

// Envelope is the body's bytes that are not the value's content: the request
// around the arguments, the member name and the punctuation.
func (in Instance) Envelope() int64 {
	bare := in
	bare.Value = nil
	bare.EmptyArrays = 0
	return bare.Size()
}

// Build writes the body, and where the arguments object starts and ends in it.
func (in Instance) Build() (body []byte, args [2]int) {
	b := make([]byte, 0, in.Size())
	b = append(b, envelopeOpen...)
	args[0] = len(b)
	b = append(b, '{')
	b = appendRuns(b, in.Encoder, in.Key)
	b = append(b, ':')
	if in.EmptyArrays > 0 {
		b = append(b, '[')
		b = append(b, strings.Repeat("[],", int(in.EmptyArrays))...)
		b[len(b)-1] = ']'
	} else {
		b = appendRuns(b, in.Encoder, in.Value)
	}
	b = append(b, '}')
	args[1] = len(b)
	b = append(b, envelopeClose...)
	return b, args
}

// Describe says what the instance holds, in words.
func (in Instance) Describe() string {
	var parts []string
	for _, r := range in.Value {
		parts = append(parts, fmt.Sprintf("%s x %s", RuneName(r.Rune), thousands(r.N)))
	}
	val := strings.Join(parts, " + ")
	if in.EmptyArrays > 0 {
		val = fmt.Sprintf("[[] x %s]", thousands(in.EmptyArrays))
	}
	key := ValueKey
	if len(in.Key) != len(ValueKey) || in.Key[0].N > 1 {
		var kp []string
		for _, r := range in.Key {
			kp = append(kp, fmt.Sprintf("%s x %s", RuneName(r.Rune), thousands(r.N)))
		}
		key = strings.Join(kp, " + ")
	}
	env := ""
	if in.EmptyArrays == 0 {
		env = " (envelope " + thousands(in.Envelope()) + ")"
	}
	return fmt.Sprintf("%s.json: tools/call %q, %s-encoded, arguments {%s: %s}, %s bytes%s",
		in.Name, ToolName, in.Encoder, key, val, thousands(in.Size()), env)
}

// Emit writes the body to dir/Name.json.
func (in Instance) Emit(dir string) (string, error) {
	body, _ := in.Build()
	path := filepath.Join(dir, in.Name+".json")
	return path, os.WriteFile(path, body, 0o644)
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
