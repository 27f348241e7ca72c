package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	segjson "github.com/segmentio/encoding/json"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/fuzz/badinput"
)

// The parsers a tools/call's arguments meet on the request path:
//
//   - sonic with UseNumber and ValidateString: the parse mcpvalidate ran
//     before its own decoder (mcpvalidate/decode.go), which FuzzTree holds
//     to encoding/json with UseNumber on whatever the gate admits;
//   - encoding/json with UseNumber: what a handler that decodes the raw
//     arguments itself most likely uses;
//   - segmentio/encoding/json: the go-sdk's decoder (internal/json wraps it:
//     NewDecoder, DontMatchCaseInsensitiveStructFields, a 1000-deep pre-scan,
//     no UseNumber), which typed tools decode their input with. It is read
//     twice: with UseNumber, to compare exact literals, and as the SDK
//     configures it, with float64 numbers, against encoding/json's float64.
//
// Whatever the gate admits, all of them must accept and build the same value;
// a document on which they differ is a smuggling channel (the validator sees
// one value, the handler another) and the gate must refuse it.

func decodeSonic(doc []byte) (any, error) {
	var v any
	err := sonicAPI.Unmarshal(doc, &v)
	return v, err
}

// sdkMaxDepth is the go-sdk's internal/json defaultMaxDepth.
const sdkMaxDepth = 1000

// decodeSDK decodes the way the go-sdk v1.8.0's internal/json.Unmarshal does,
// optionally with UseNumber.
func decodeSDK(doc []byte, useNumber bool) (any, error) {
	if sdkTooDeep(doc) {
		return nil, errors.New("exceeded maximum nesting depth")
	}
	dec := segjson.NewDecoder(bytes.NewReader(doc))
	dec.DontMatchCaseInsensitiveStructFields()
	if useNumber {
		dec.UseNumber()
	}
	var v any
	err := dec.Decode(&v)
	return v, err
}

// sdkTooDeep is internal/json.checkMaxDepth, copied: a scan that skips
// string contents and counts brackets.
func sdkTooDeep(data []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > sdkMaxDepth {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}

// sameValue compares two decoded values exactly: json.Number by literal,
// float64 by bits.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

var agreementGate = func() *charge.Gate {
	g, err := charge.NewGate(charge.Go, charge.DefaultLimits())
	if err != nil {
		panic(err)
	}
	return g
}()

// disagreement is why the parsers differ on doc, or "" when they agree.
func disagreement(doc []byte) string {
	exact := []struct {
		name   string
		decode func([]byte) (any, error)
	}{
		{"encoding/json+UseNumber", func(d []byte) (any, error) { return decodeStd(d, true) }},
		{"sonic{UseNumber,ValidateString}", decodeSonic},
		{"segmentio+UseNumber (go-sdk decoder)", func(d []byte) (any, error) { return decodeSDK(d, true) }},
	}
	var first any
	for i, p := range exact {
		v, err := p.decode(doc)
		if err != nil {
			return fmt.Sprintf("%s refused it: %v", p.name, err)
		}
		if i == 0 {
			first = v
		} else if !sameValue(first, v) {
			return fmt.Sprintf("%s decoded %#v, %s decoded %#v", exact[0].name, first, p.name, v)
		}
	}
	// The go-sdk's own configuration builds float64s: a number it cannot hold
	// must fail there exactly as it fails in encoding/json, and agree when not.
	stdF, errS := decodeStd(doc, false)
	sdkF, errK := decodeSDK(doc, false)
	switch {
	case (errS == nil) != (errK == nil):
		return fmt.Sprintf("float64 decoding: encoding/json err=%v, go-sdk (segmentio) err=%v", errS, errK)
	case errS == nil && !sameValue(stdF, sdkF):
		return fmt.Sprintf("float64 decoding: encoding/json %#v, go-sdk (segmentio) %#v", stdF, sdkF)
	}
	return ""
}

func checkAgreement(t *testing.T, doc []byte) {
	t.Helper()
	_, err := agreementGate.Check(doc)
	boundsHold(t, charge.Go, charge.DefaultLimits(), doc, err)
	if err != nil {
		return // refused: whatever the parsers would do never happens
	}
	if why := disagreement(doc); why != "" {
		t.Fatalf("the gate admitted a document the parsers disagree on: %s\ndocument: %q", why, doc)
	}
}

// FuzzParserAgreement: whatever the gate admits, sonic (UseNumber,
// ValidateString), encoding/json (UseNumber) and the go-sdk's segmentio
// decoder all accept and decode to the same value, and it is within the
// limits as charge/reference counts them; a limit refusal names a bound the
// document passes (boundsHold). Each input is tried as a
// raw document and as the seed of a plain and a hostile generated document.
func FuzzParserAgreement(f *testing.F) {
	for _, s := range agreementSeeds {
		f.Add([]byte(s.doc))
	}
	for _, c := range badinput.Cases(false) {
		f.Add(c.Doc)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgreement(t, data)
		checkAgreement(t, Document(data, Options{}))
		checkAgreement(t, Document(data, Options{Hostile: true}))
	})
}

// agreementSeeds are the documents on which parsers are known to part ways:
// each must be refused by the gate or decoded alike.
var agreementSeeds = []struct{ name, doc string }{
	{"duplicate", `{"a":1,"a":2}`},                 // duplicate: last wins in all three
	{"duplicate_escaped", `{"a":1,"\u0061":2}`},    // duplicate after unescaping
	{"lone_surrogate", `{"a":"\ud800"}`},           // lone surrogate: U+FFFD in some, error in others
	{"reversed_pair", `{"a":"\udc00\ud800"}`},      // reversed pair
	{"invalid_utf8", "{\"a\":\"\xff\"}"},           // invalid UTF-8
	{"utf8_surrogate", "{\"a\":\"\xed\xa0\x80\"}"}, // UTF-8-encoded surrogate
	{"overlong", "{\"a\":\"\xc0\xaf\"}"},           // overlong
	{"raw_control", "{\"a\":\"\x01\"}"},            // raw control character
	{"raw_del", "{\"a\":\"\x7f\"}"},                // raw DEL: legal JSON
	{"past_binary64", `{"a":1e309}`},               // past binary64: float64 decoding fails
	{"negative_past_binary64", `{"a":-1e309}`},
	{"underflow", `{"a":1e-400}`},               // underflows to 0
	{"least_subnormal", `{"a":4.9e-324}`},       // the least subnormal
	{"2pow53_plus_1", `{"a":9007199254740993}`}, // 2^53+1: float64 rounds it
	{"negative_zero", `{"a":-0}`},               // negative zero
	{"negative_zero_point_zero", `{"a":-0.0}`},
	{"exponent_plus_sign", `{"a":1E+2}`},
	{"leading_zero", `{"a":01}`}, // leading zero
	{"point_without_fraction", `{"a":1.}`},
	{"point_without_integer", `{"a":.5}`},
	{"exponent_bound", `{"a":1e999}`},       // the exponent bound
	{"past_exponent_bound", `{"a":1e1000}`}, // past it
	{"trailing_comma", `[1,2,]`},            // trailing comma
	{"trailing_x", `{"a":1}x`},              // trailing bytes (the go-sdk ignores them)
	{"trailing_nul", "{\"a\":1}\x00"},
	{"second_document", `{"a":1} {"b":2}`},     // a second document
	{"case_folded_duplicate", `{"A":1,"a":2}`}, // case-folded duplicate (structs match case-insensitively)
	{"byte_order_mark", "\ufeff{\"a\":1}"},     // a byte order mark
	{"escaped_nul", `{"a":"\u0000"}`},          // escaped NUL
	{"escaped_slash", `{"a":"\/"}`},
	{"tru", `{"a":tru}`},
	{"True", `{"a":True}`},
	{"NaN", `{"a":NaN}`},
	{"Infinity", `{"a":Infinity}`},
	{"comment", `{"a":"x"/*c*/}`}, // a comment
	{"single_quotes", `{'a':1}`},  // single quotes
	{"missing_colon", `{"a" 1}`},
	{"every_whitespace", "{\"a\":1,\n\t\r \"b\":2}"}, // every whitespace
	{"vertical_tab", "{\"a\":1,\v\"b\":2}"},          // a non-JSON whitespace
	{"line_separators", `"\u2028\u2029"`},
	{"depth_64", `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`},
	{"long_integer", `{"a":123456789012345678901234567890123456789012345678901234567890123}`},
}

// The detector must see the disagreements it exists for, and each one it sees
// among the seeds must be refused by the gate.
func TestSeedDisagreementsAreRefused(t *testing.T) {
	seen := 0
	for _, s := range agreementSeeds {
		why := disagreement([]byte(s.doc))
		if why == "" {
			continue // the parsers agree: nothing for the gate to refuse
		}
		seen++
		t.Run(s.name, func(t *testing.T) {
			if _, err := agreementGate.Check([]byte(s.doc)); err == nil {
				t.Errorf("gate admits %q, on which %s", s.doc, why)
			}
		})
	}
	if seen < 5 {
		t.Fatalf("only %d seeds disagree; the detector is not looking", seen)
	}
	t.Logf("%d of %d seeds disagree across parsers; the gate refuses each", seen, len(agreementSeeds))
}
