package fuzz

// The oracles and helpers the fuzz targets share. They are package code, not
// test code, because OSS-Fuzz and ClusterFuzzLite build a target with
// go-118-fuzz-build, which compiles the file holding the target as package
// code with the package's non-test files alone: a helper in another _test.go
// file would not be seen. Only this package's tests use them.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bytedance/sonic"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
	"github.com/theurian/boundlab/mcpvalidate"
)

// failer is what the helpers need of a test: *testing.T has it, and so does
// go-118-fuzz-build's stand-in, which has no testing.TB (and this file keeps
// the real package testing, which the target's file does not).
type failer interface {
	Helper()
	Fatalf(format string, args ...any)
}

// seedBytes is a deterministic 64-byte generator input for the i-th case.
func seedBytes(i int) []byte {
	b := make([]byte, 64)
	for j := 0; j < len(b); j += 8 {
		binary.LittleEndian.PutUint64(b[j:], uint64(i)*0x9e3779b97f4a7c15+uint64(j))
	}
	return b
}

// sonicAPI is sonic as mcpvalidate once ran it before its own decoder.
var sonicAPI = sonic.Config{UseNumber: true, ValidateString: true}.Froze()

// decodeStd is encoding/json's decode of exactly one document (trailing
// bytes refused), with UseNumber or with float64 numbers.
func decodeStd(doc []byte, useNumber bool) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if useNumber {
		dec.UseNumber()
	}
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

// shouldServe is the refusals target's oracle: whether a call to tool with args must
// reach the handler, decided without mcpvalidate's Check, gate or decoder.
// The call is served exactly when the tool publishes a schema, the arguments
// are one RFC 8259 document encoding/json decodes that I-JSON (RFC 7493)
// allows (UTF-8, no lone surrogate escape, no repeated member name), within
// every limit as charge/reference counts it (charge in the Go dialect, nodes,
// depth) and as the number tokens' own text gives it (length, exponent), and
// the tool's published schema, compiled here on its own by jsonschema/v6,
// accepts the encoding/json decoding. v is built with charge.DefaultLimits
// (theValidator), the limits it is held to here.
func shouldServe(v *mcpvalidate.Validator, tool string, args []byte) (bool, string) {
	schema := publishedSchema(v, tool)
	if schema == nil {
		return false, "no published schema"
	}
	if len(args) == 0 {
		args = []byte("{}")
	}
	if !utf8.Valid(args) {
		return false, "not UTF-8"
	}
	doc, err := decodeStd(args, true)
	if err != nil {
		return false, "encoding/json refuses it"
	}
	if why := iJSON(args); why != "" {
		return false, why
	}
	l := charge.DefaultLimits()
	if why := numbersWithin(doc, l); why != "" {
		return false, why // first: the reference renders only numbers within them
	}
	if c := reference.Charge(charge.Go, doc); c > l.MaxParamsRenderedChars {
		return false, "charge"
	}
	if reference.Nodes(doc) > l.MaxParamsNodes {
		return false, "nodes"
	}
	if reference.Depth(doc) > l.MaxParamsNesting {
		return false, "nesting"
	}
	if err := validateRecovered(schema, doc); err != nil {
		return false, "schema"
	}
	return true, ""
}

func validateRecovered(s *jsonschema.Schema, doc any) (err error) {
	defer func() {
		if recover() != nil {
			err = errors.New("the validator panicked")
		}
	}()
	return s.Validate(doc)
}

// numbersWithin checks every number token's text against MaxNumberBytes and
// MaxNumberExponent.
func numbersWithin(v any, l charge.Limits) string {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if len(s) > l.MaxNumberBytes {
			return "number length"
		}
		if i := strings.IndexAny(s, "eE"); i >= 0 {
			e := strings.TrimLeft(strings.TrimLeft(s[i+1:], "+-"), "0")
			if n, err := strconv.Atoi(e); len(e) > 18 || err == nil && n > l.MaxNumberExponent {
				return "number exponent"
			}
		}
	case map[string]any:
		for _, e := range x {
			if why := numbersWithin(e, l); why != "" {
				return why
			}
		}
	case []any:
		for _, e := range x {
			if why := numbersWithin(e, l); why != "" {
				return why
			}
		}
	}
	return ""
}

// iJSON finds what RFC 7493 forbids and encoding/json lets through: a member
// name repeated in one object (after unescaping) and a \u escape of a lone
// surrogate. doc is one document encoding/json decodes.
func iJSON(doc []byte) string {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber() // a number past float64 is still a token
	type frame struct {
		object bool
		names  map[string]bool
		name   bool // the next string token is a member name
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "tokens"
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		isName := top != nil && top.object && top.name
		if top != nil && top.object {
			top.name = !top.name
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &frame{object: true, names: map[string]bool{}, name: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].name = true
				}
			}
		case string:
			if isName {
				if top.names[t] {
					return "duplicate name"
				}
				top.names[t] = true
			}
		}
	}
	if loneSurrogate(doc) {
		return "lone surrogate"
	}
	return ""
}

// loneSurrogate reports a \u escape of a high surrogate not followed by one
// of a low surrogate, or of a low surrogate not preceded by a high one.
func loneSurrogate(doc []byte) bool {
	hex := func(i int) (rune, bool) {
		if i+6 > len(doc) || doc[i] != '\\' || doc[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(doc[i+2:i+6]), 16, 16)
		return rune(n), err == nil
	}
	in := false
	for i := 0; i < len(doc); i++ {
		switch {
		case !in:
			in = doc[i] == '"'
		case doc[i] == '"':
			in = false
		case doc[i] == '\\':
			r, ok := hex(i)
			if !ok {
				i++ // a short escape
				continue
			}
			switch {
			case r >= 0xdc00 && r < 0xe000:
				return true
			case r >= 0xd800 && r < 0xdc00:
				lo, ok := hex(i + 6)
				if !ok || lo < 0xdc00 || lo >= 0xe000 {
					return true
				}
				i += 6
			}
			i += 5
		}
	}
	return false
}

var (
	schemasMu sync.Mutex
	compiled  = map[string]*jsonschema.Schema{}
)

// publishedSchema compiles the tool's published input schema with
// jsonschema/v6 directly (nil when the tool publishes none).
func publishedSchema(v *mcpvalidate.Validator, tool string) *jsonschema.Schema {
	raw, ok := v.InputSchema(tool)
	if !ok {
		return nil
	}
	schemasMu.Lock()
	defer schemasMu.Unlock()
	if s, ok := compiled[tool]; ok {
		return s
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		panic(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "oracle:///" + tool + ".json"
	if err := c.AddResource(url, doc); err != nil {
		panic(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		panic(err)
	}
	compiled[tool] = s
	return s
}

// boundsHold holds one gate verdict to the limits as charge/reference counts
// them: an admitted document is within every limit; a limit refusal of a
// document encoding/json decodes names a bound the document really passes.
func boundsHold(t failer, d charge.Dialect, l charge.Limits, doc []byte, err error) {
	t.Helper()
	v, derr := decodeStd(doc, true)
	if err == nil {
		if derr != nil {
			t.Fatalf("admitted, but encoding/json refuses it: %v\ndocument: %q", derr, doc)
		}
		if why := numbersWithin(v, l); why != "" {
			t.Fatalf("admitted past the %s bound\ndocument: %q", why, doc)
		}
		if c, n, dp := reference.Charge(d, v), reference.Nodes(v), reference.Depth(v); c > l.MaxParamsRenderedChars || n > l.MaxParamsNodes || dp > l.MaxParamsNesting {
			t.Fatalf("admitted past the limits: charge %d, nodes %d, depth %d\ndocument: %q", c, n, dp, doc)
		}
		return
	}
	var r *charge.Refusal
	if !errors.As(err, &r) || derr != nil || !r.Bound.Limited() || iJSON(doc) == "duplicate name" {
		return // a repeated name's earlier values are gone from the decoding
	}
	var past bool
	switch r.Bound {
	case charge.BoundNumberBytes, charge.BoundNumberExponent:
		past = numbersWithin(v, l) != ""
	case charge.BoundNesting:
		past = reference.Depth(v) > l.MaxParamsNesting
	case charge.BoundNodes:
		past = reference.Nodes(v) > l.MaxParamsNodes
	case charge.BoundCharge:
		past = numbersWithin(v, l) == "" && reference.Charge(d, v) > l.MaxParamsRenderedChars
	}
	if !past {
		t.Fatalf("refused as %v, but the reference finds the document within that bound\ndocument: %q", r, doc)
	}
}
